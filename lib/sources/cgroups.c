// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cgroup statedump (cgroups.h): the cgroup2 hierarchy walked by
 * descriptor (openat, no symlink followed), a marker per cgroup as it is
 * found; then every task's "0::" line, its cgroup looked up by path among
 * those walked, the tasks of each cgroup in as few markers as fit. A task
 * whose cgroup was made after the walk is left out: the kernel's events,
 * enabled before the dump, tell its move (and the map prefers them).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/sources/cgroups.h"
#include "blkmap/sources/mounts.h"
#include "blkmap/util/error.h"

const char *const bm_cgroup_events[] = {
	"cgroup:cgroup_attach_task", "cgroup:cgroup_transfer_tasks", "cgroup:cgroup_mkdir",
	"cgroup:cgroup_rmdir", "cgroup:cgroup_rename", "sched:sched_process_fork",
	"sched:sched_process_exit", "writeback:writeback_single_inode_start",
	"writeback:writeback_single_inode", NULL,
};

struct cgroup {
	uint64_t id;
	char *path;
};

struct task {
	uint64_t id;
	int pid;
};

struct dump {
	struct cgroup *cgroups;
	size_t ncgroups;
	struct task *tasks;
	size_t ntasks;
	bm_mark_fn mark;
	void *ctx;
};

/* Where cgroup2 is mounted with its root, from /proc/self/mountinfo, into @out. */
static int find_root(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], root[PATH_MAX], point[PATH_MAX];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - cgroup2 ");

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
		    strcmp(root, "/"))
			continue;
		bm_mountinfo_unescape(point);
		snprintf(out, size, "%s", point);
		found = 0;
	}
	fclose(f);
	return found;
}

/* Room for one more of @n elements of @size in @*v: its capacity is 16, or the power of two at or above @n. */
static int grow(void **v, size_t n, size_t size)
{
	void *p;

	if (n && (n < 16 || (n & (n - 1))))
		return 0;
	p = realloc(*v, (n ? 2 * n : 16) * size);
	if (!p)
		return -1;
	*v = p;
	return 0;
}

static int mark_cgroup(struct dump *d, uint64_t id, const char *path)
{
	struct bm_marker m;

	bm_marker_begin(&m, "cgroup");
	bm_marker_addf(&m, "id", "%llu", (unsigned long long)id);
	bm_marker_add(&m, "path", path);
	return bm_marker_emit(&m, d->mark, d->ctx);
}

/* The cgroup at @fd, its @path relative to the root, and every one below it. */
static int walk(struct dump *d, int fd, char *path, size_t len)
{
	DIR *dir = fdopendir(fd);
	struct dirent *e;
	struct stat st;
	int ret = -1;

	if (!dir) {
		close(fd);
		return -1;
	}
	if (fstat(fd, &st) < 0 || grow((void **)&d->cgroups, d->ncgroups, sizeof(*d->cgroups)) ||
	    !(d->cgroups[d->ncgroups].path = strdup(len ? path : "/")))
		goto out;
	d->cgroups[d->ncgroups].id = st.st_ino;
	ret = mark_cgroup(d, st.st_ino, d->cgroups[d->ncgroups++].path);
	while (ret == 0 && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		int sub;

		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) || !strcmp(e->d_name, ".") ||
		    !strcmp(e->d_name, "..") || len + 1 + n >= PATH_MAX)
			continue;
		sub = openat(dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;	/* removed meanwhile, or not a directory */
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		ret = walk(d, sub, path, len + 1 + n);
		path[len] = '\0';
	}
out:
	closedir(dir);		/* closes @fd */
	return ret;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cgroup *)a)->path, ((const struct cgroup *)b)->path);
}

static int by_id(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id ? 1 : x->pid - y->pid;
}

/* Task @tid's cgroup: the id of the path of its "0::" line among those walked; 0 if none. */
static uint64_t task_cgroup(struct dump *d, int taskdir, const char *tid)
{
	char buf[PATH_MAX + 64], *line, *save = NULL;
	struct cgroup key, *c;
	int fd = openat(taskdir, tid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), cg;
	ssize_t n;

	if (fd < 0)
		return 0;
	cg = openat(fd, "cgroup", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	if (cg < 0)
		return 0;
	n = read(cg, buf, sizeof(buf) - 1);
	close(cg);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "0::", 3))
			continue;
		key.path = line + 3;
		c = bsearch(&key, d->cgroups, d->ncgroups, sizeof(*c), by_path);
		return c ? c->id : 0;
	}
	return 0;
}

/* The directory of the tasks of process @name of @proc; NULL if it is gone. */
static DIR *open_tasks(int proc, const char *name)
{
	int fd = openat(proc, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), tasks;
	DIR *dir = NULL;

	if (fd < 0)
		return NULL;
	tasks = openat(fd, "task", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	if (tasks >= 0 && !(dir = fdopendir(tasks)))
		close(tasks);
	return dir;
}

/* Every task of every process under @proc, with its cgroup. */
static int list_tasks(struct dump *d, const char *proc)
{
	DIR *pd = opendir(proc);
	struct dirent *p;

	if (!pd)
		return -1;
	while ((p = readdir(pd))) {
		struct dirent *t;
		DIR *td;

		if (p->d_name[0] < '1' || p->d_name[0] > '9' ||
		    !(td = open_tasks(dirfd(pd), p->d_name)))
			continue;	/* not a process, or gone meanwhile */
		while ((t = readdir(td))) {
			uint64_t id;

			if (t->d_name[0] < '1' || t->d_name[0] > '9' ||
			    !(id = task_cgroup(d, dirfd(td), t->d_name)))
				continue;
			if (grow((void **)&d->tasks, d->ntasks, sizeof(*d->tasks))) {
				closedir(td);
				closedir(pd);
				return -1;
			}
			d->tasks[d->ntasks++] = (struct task){ .id = id, .pid = atoi(t->d_name) };
		}
		closedir(td);
	}
	closedir(pd);
	return 0;
}

/* The tasks of each cgroup, as many to a marker as fit. */
static int mark_tasks(struct dump *d)
{
	struct bm_marker m;
	char pids[800];
	size_t i, n = 0;

	qsort(d->tasks, d->ntasks, sizeof(*d->tasks), by_id);
	for (i = 0; i < d->ntasks; i++) {
		n += snprintf(pids + n, sizeof(pids) - n, "%s%d", n ? "," : "", d->tasks[i].pid);
		if (i + 1 < d->ntasks && d->tasks[i + 1].id == d->tasks[i].id &&
		    n + 12 < sizeof(pids))
			continue;
		bm_marker_begin(&m, "cgroup-tasks");
		bm_marker_addf(&m, "id", "%llu", (unsigned long long)d->tasks[i].id);
		bm_marker_add(&m, "pids", pids);
		if (bm_marker_emit(&m, d->mark, d->ctx) < 0)
			return -1;
		n = 0;
	}
	return 0;
}

int bm_cgroups_dump(const char *cgroot, const char *proc, unsigned id, bm_mark_fn mark,
		    void *ctx)
{
	struct dump d = { .mark = mark, .ctx = ctx };
	char root[PATH_MAX], path[PATH_MAX] = "";
	struct bm_marker m;
	int fd, ret = -1;
	size_t i;

	if (!*cgroot && find_root(root, sizeof(root)) < 0) {
		bm_error("cgroup map: no cgroup2 file system is mounted (mount -t cgroup2 none "
			 "/sys/fs/cgroup): tasks' cgroups are known only from their moves");
		errno = ENOENT;
		return -1;
	}
	if (*cgroot)
		snprintf(root, sizeof(root), "%s", cgroot);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		bm_error_errno("cgroup map: cannot open the cgroup2 hierarchy at '%s'", root);
		return -1;
	}
	bm_marker_begin(&m, "cgroup-dump-begin");
	bm_marker_addf(&m, "id", "%u", id);
	if (bm_marker_emit(&m, mark, ctx) < 0 || walk(&d, fd, path, 0) < 0) {
		bm_error_errno("cgroup map: cannot list the cgroups under '%s'", root);
		goto out;
	}
	qsort(d.cgroups, d.ncgroups, sizeof(*d.cgroups), by_path);
	if (list_tasks(&d, proc) < 0 || mark_tasks(&d) < 0) {
		bm_error_errno("cgroup map: cannot list the tasks of '%s'", proc);
		goto out;
	}
	bm_marker_begin(&m, "cgroup-dump-end");
	bm_marker_addf(&m, "id", "%u", id);
	bm_marker_addf(&m, "cgroups", "%zu", d.ncgroups);
	bm_marker_addf(&m, "tasks", "%zu", d.ntasks);
	ret = bm_marker_emit(&m, mark, ctx);
out:
	for (i = 0; i < d.ncgroups; i++)
		free(d.cgroups[i].path);
	free(d.cgroups);
	free(d.tasks);
	return ret;
}
