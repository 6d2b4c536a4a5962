// SPDX-License-Identifier: GPL-2.0-only
/*
 * The registry of live recorders: /run/blkmap/PID names each one's spool
 * and output. The directory and its entries are used only if they are as
 * blkmap makes them (root's, writable by no one else, no symbolic links):
 * what they say is where root writes and what it removes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/record/registry.h"
#include "blkmap/util/error.h"

void bm_registry_path(pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, BM_REGISTRY_DIR "/%d", (int)pid);
}

/* The registry's directory, if it is blkmap's: its descriptor, or -1 (message set). */
static int registry_dir(void)
{
	int fd = open(BM_REGISTRY_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0) {
		bm_error_errno("cannot open " BM_REGISTRY_DIR "%s",
			       errno == ELOOP || errno == ENOTDIR ?
			       " (not a directory: not blkmap's registry)" : "");
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		bm_error(BM_REGISTRY_DIR " belongs to uid %u with mode %04o: blkmap's registry is "
			 "uid %u's and writable by it alone; remove it", (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

int bm_registry_check(void)
{
	struct stat st;
	int fd;

	if (lstat(BM_REGISTRY_DIR, &st) < 0 && errno == ENOENT)
		return 0;
	fd = registry_dir();
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Entry @name, opened with @flags if it is a file of this user's; NULL if not. */
static FILE *open_entry(int dir, const char *name, int flags, const char *mode)
{
	int fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    !(f = fdopen(fd, mode))) {
		close(fd);
		errno = EPERM;
		return NULL;
	}
	return f;
}

static FILE *open_pid(pid_t pid, int flags, const char *mode)
{
	int dir = registry_dir();
	char name[32];
	FILE *f;

	if (dir < 0)
		return NULL;
	snprintf(name, sizeof(name), "%d", (int)pid);
	f = open_entry(dir, name, flags, mode);
	close(dir);
	return f;
}

int bm_process_start(pid_t pid, uint64_t *start)
{
	char path[64], buf[1024], *p;
	size_t n;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold anything: the fields start after its last ')'. */
	p = strrchr(buf, ')');
	/* Field 3 (the state) follows; the start time is field 22. */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%" SCNu64, start) != 1)
		return -1;
	return 0;
}

int bm_registry_add(const char *spool_dir, const char *output)
{
	char path[PATH_MAX], tmp[64], name[32], spool[PATH_MAX], out_dir[PATH_MAX];
	const char *slash = strrchr(output, '/');
	uint64_t start = 0;
	int dir, fd;
	FILE *f;

	if (!realpath(spool_dir, spool))
		return -1;
	snprintf(out_dir, sizeof(out_dir), "%.*s", slash ? (int)(slash - output) : 1,
		 slash ? output : ".");
	if (slash == output)
		strcpy(out_dir, "/");
	if (!realpath(out_dir, path))
		return -1;
	snprintf(out_dir, sizeof(out_dir), "%s/%s", path, slash ? slash + 1 : output);
	/* A minimal root (an initramfs) may have no /run: make the parent too. */
	snprintf(path, sizeof(path), "%s", BM_REGISTRY_DIR);
	*strrchr(path, '/') = '\0';
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		bm_error_errno("cannot create '%s' for " BM_REGISTRY_DIR "; create it (mode 0755)",
			       path);
		return -1;
	}
	if (mkdir(BM_REGISTRY_DIR, 0755) < 0 && errno != EEXIST) {
		bm_error_errno("cannot create " BM_REGISTRY_DIR);
		return -1;
	}
	dir = registry_dir();
	if (dir < 0)
		return -1;
	bm_process_start(getpid(), &start);
	snprintf(name, sizeof(name), "%d", (int)getpid());
	snprintf(tmp, sizeof(tmp), "%d.new", (int)getpid());
	unlinkat(dir, tmp, 0);	/* a dead namesake's */
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		bm_error_errno("cannot create '" BM_REGISTRY_DIR "/%s'", tmp);
		if (fd >= 0)
			close(fd);
		close(dir);
		return -1;
	}
	/* The start time tells this recorder from a later process of its pid. */
	fprintf(f, "spool=%s\noutput=%s\nstart=%" PRIu64 "\n", spool, out_dir, start);
	if (fclose(f) != 0 || renameat(dir, tmp, dir, name) < 0) {
		bm_error_errno("cannot create '" BM_REGISTRY_DIR "/%s'", name);
		unlinkat(dir, tmp, 0);
		close(dir);
		return -1;
	}
	close(dir);
	return 0;
}

int bm_registry_note(const char *key, const char *value)
{
	FILE *f = open_pid(getpid(), O_WRONLY | O_APPEND, "a");

	if (!f)
		return -1;
	fprintf(f, "%s=%s\n", key, value);
	return fclose(f) ? -1 : 0;
}

int bm_registry_value(pid_t pid, const char *key, char *value, size_t size)
{
	char line[PATH_MAX + 64];
	size_t klen = strlen(key);
	int count = 0;
	FILE *f = open_pid(pid, O_RDONLY, "r");

	if (!f)
		return -1;
	if (value)
		value[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, key, klen) || line[klen] != '=')
			continue;
		count++;
		if (value)
			snprintf(value, size, "%s", line + klen + 1);
	}
	fclose(f);
	return count;
}

static void remove_entry(const char *name)
{
	int dir = registry_dir();

	if (dir < 0)
		return;
	unlinkat(dir, name, 0);
	close(dir);
}

void bm_registry_remove(void)
{
	char name[32];

	snprintf(name, sizeof(name), "%d", (int)getpid());
	remove_entry(name);
}

void bm_registry_forget(pid_t pid)
{
	char name[32];

	snprintf(name, sizeof(name), "%d", (int)pid);
	remove_entry(name);
}

/* Is @pid, as /proc tells it, the process whose name is blkmap? What no entry can say. */
static bool named_blkmap(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "blkmap", 6);
}

bool bm_recorder_alive(pid_t pid)
{
	char saved[32];
	uint64_t start;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	/*
	 * Another process under a recycled pid is not the recorder, whatever
	 * it calls itself: its start time (in clock ticks since boot) differs
	 * from the one the recorder wrote down, which no process can change.
	 */
	if (bm_registry_value(pid, "start", saved, sizeof(saved)) > 0 && saved[0] != '0')
		return bm_process_start(pid, &start) == 0 && start == strtoull(saved, NULL, 10);
	return named_blkmap(pid);
}

void bm_registry_forget_spool(const char *spool)
{
	char real[PATH_MAX], line[PATH_MAX + 16];
	struct dirent *d;
	int dir, copy;
	DIR *dp;

	if (!realpath(spool, real) || (dir = registry_dir()) < 0)
		return;
	copy = dup(dir);
	dp = copy < 0 ? NULL : fdopendir(copy);
	while (dp && (d = readdir(dp))) {
		FILE *f = open_entry(dir, d->d_name, O_RDONLY, "r");
		bool match = false;

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			match |= !strncmp(line, "spool=", 6) && !strcmp(line + 6, real);
		}
		fclose(f);
		if (match)
			unlinkat(dir, d->d_name, 0);
	}
	if (dp)
		closedir(dp);
	else if (copy >= 0)
		close(copy);
	close(dir);
}

int bm_registry_read(pid_t pid, char *spool, size_t spool_size, char *output, size_t output_size)
{
	char line[PATH_MAX + 16];
	FILE *f = open_pid(pid, O_RDONLY, "r");

	if (!f)
		return -1;
	spool[0] = output[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "spool=", 6))
			snprintf(spool, spool_size, "%s", line + 6);
		else if (!strncmp(line, "output=", 7))
			snprintf(output, output_size, "%s", line + 7);
	}
	fclose(f);
	return 0;
}

int bm_registry_pids(pid_t *pids, int max, bool alive)
{
	struct dirent *d;
	int n = 0;
	DIR *dp;
	int dir = registry_dir();

	if (dir < 0)
		return 0;
	dp = fdopendir(dir);
	if (!dp) {
		close(dir);
		return 0;
	}
	while ((d = readdir(dp))) {
		char *end;
		pid_t pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || bm_recorder_alive(pid) != alive)
			continue;
		if (n < max)
			pids[n] = pid;
		n++;
	}
	closedir(dp);
	return n;
}

int bm_registry_live(pid_t *pids, int max)
{
	return bm_registry_pids(pids, max, true);
}
