// SPDX-License-Identifier: GPL-2.0-only
/* Registering recorders, reclaiming what dead ones left, recovering spools. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "blkmap/record/capture.h"
#include "blkmap/util/error.h"
#include "blkmap/sources/kmodule.h"
#include "blkmap/record/reset.h"
#include "blkmap/record/session.h"
#include "blkmap/record/spool.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/tell.h"

static void registry_path(pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, BM_REGISTRY_DIR "/%d", (int)pid);
}

int bm_registry_add(const char *spool_dir, const char *output)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], spool[PATH_MAX], out_dir[PATH_MAX];
	const char *slash = strrchr(output, '/');
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
	if (mkdir(BM_REGISTRY_DIR, 0755) < 0 && errno != EEXIST) {
		bm_error_errno("cannot create " BM_REGISTRY_DIR);
		return -1;
	}
	registry_path(getpid(), path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f) {
		bm_error_errno("cannot create '%s'", tmp);
		return -1;
	}
	fprintf(f, "spool=%s\noutput=%s\n", spool, out_dir);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		bm_error_errno("cannot create '%s'", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

void bm_registry_remove(void)
{
	char path[PATH_MAX];

	registry_path(getpid(), path, sizeof(path));
	unlink(path);
}

bool bm_recorder_alive(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	/* Another program under a recycled pid is not a recorder. */
	return !strncmp(comm, "blkmap", 6);
}

/* Forget the registry entry of @spool, written out or gone. */
static void unregister_spool(const char *spool)
{
	char real[PATH_MAX], path[PATH_MAX], line[PATH_MAX + 16];
	struct dirent *d;
	DIR *dp;

	if (!realpath(spool, real) || !(dp = opendir(BM_REGISTRY_DIR)))
		return;
	while ((d = readdir(dp))) {
		FILE *f;
		bool match = false;

		snprintf(path, sizeof(path), BM_REGISTRY_DIR "/%s", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			match |= !strncmp(line, "spool=", 6) && !strcmp(line + 6, real);
		}
		fclose(f);
		if (match)
			unlink(path);
	}
	closedir(dp);
}

int bm_recover(const char *spool_dir, const char *output, uint64_t *bytes)
{
	struct bm_trace *t = bm_trace_open(spool_dir);
	int ret;

	if (!t)
		return -1;
	ret = bm_spool_write_out(spool_dir, bm_trace_get_meta(t), output, bytes);
	bm_trace_close(t);
	if (ret < 0)
		return -1;
	unregister_spool(spool_dir);
	bm_spool_remove(spool_dir);
	return 0;
}

/* Where to recover a dead recorder's spool without overwriting anything. */
static void recovery_target(const char *output, pid_t pid, char *buf, size_t size)
{
	int n;

	snprintf(buf, size, "%s", output);
	for (n = 0; access(buf, F_OK) == 0; n++)
		snprintf(buf, size, n ? "%s.recovered-%d-%d" : "%s.recovered-%d", output,
			 (int)pid, n);
}

/*
 * What a dead recorder's ring buffers still hold goes into its spool too:
 * everything recorded until the kill is kept.
 */
static void drain_dead_instance(pid_t pid, const char *spool)
{
	char name[64], path[PATH_MAX], file[64];
	struct tracefs_instance *inst;
	struct bm_cpu_data *cpus = NULL;
	struct bm_trace *t;
	uint32_t page_size;
	uint64_t region = 0;
	bool finishing = false;
	int cpu, ncpus;
	char *batch;

	snprintf(name, sizeof(name), BM_INSTANCE_PREFIX "%d", (int)pid);
	if (!tracefs_tracing_dir() || !tracefs_instance_exists(name))
		return;
	t = bm_trace_open(spool);
	if (!t)
		return;
	ncpus = bm_trace_get_meta(t)->ncpus;
	page_size = bm_trace_get_meta(t)->page_size;
	bm_trace_close(t);
	inst = tracefs_instance_alloc(NULL, name);
	batch = malloc(16 * (size_t)page_size);
	cpus = calloc(ncpus, sizeof(*cpus));
	/* Only a spool as the recorder left it, not one it was finishing. */
	if (!inst || !batch || !cpus ||
	    bm_spool_locate(spool, ncpus, page_size, cpus, &region) < 0)
		goto out;
	for (cpu = 0; cpu < ncpus; cpu++)
		finishing |= region && cpus[cpu].fd >= 0 && cpus[cpu].offset != (cpu + 1) * region;
	tracefs_instance_file_write(inst, "tracing_on", "0");
	for (cpu = 0; cpu < ncpus && !finishing; cpu++) {
		uint64_t bytes = cpus[cpu].size, room = region ? region : UINT64_MAX;
		bool write_failed;
		int in, out;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		bm_spool_pages_path(path, sizeof(path), spool, cpu, region);
		in = tracefs_instance_file_open(inst, file, O_RDONLY | O_NONBLOCK);
		out = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		/*
		 * After the CPU's last whole page: in its region, or in its own
		 * file, cutting a page a crash left short.
		 */
		if (in >= 0 && out >= 0 && (region || ftruncate(out, bytes) == 0) &&
		    lseek(out, (region ? (cpu + 1) * region : 0) + bytes, SEEK_SET) >= 0)
			bm_drain_pages(in, out, page_size, batch, 16, room, &bytes, &write_failed);
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
	}
out:
	for (cpu = 0; cpus && cpu < ncpus; cpu++)
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
	free(cpus);
	free(batch);
	tracefs_instance_free(inst);
}

static int reclaim_spools(bm_tell_fn notify)
{
	struct dirent *d;
	int count = 0;
	DIR *dp;

	dp = opendir(BM_REGISTRY_DIR);
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		char path[PATH_MAX], line[PATH_MAX + 16], spool[PATH_MAX] = "", output[PATH_MAX] = "";
		char target[PATH_MAX + 64];
		uint64_t bytes = 0;
		char *end;
		pid_t pid = strtol(d->d_name, &end, 10);
		FILE *f;

		if (*end || pid <= 0 || bm_recorder_alive(pid))
			continue;
		registry_path(pid, path, sizeof(path));
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "spool=", 6))
				snprintf(spool, sizeof(spool), "%s", line + 6);
			else if (!strncmp(line, "output=", 7))
				snprintf(output, sizeof(output), "%s", line + 7);
		}
		fclose(f);
		if (spool[0] && access(spool, F_OK) == 0) {
			drain_dead_instance(pid, spool);
			recovery_target(output[0] ? output : "blkmap.dat", pid, target, sizeof(target));
			if (bm_recover(spool, target, &bytes) < 0) {
				bm_tell(notify, "cannot recover the spool of dead recorder %d in "
					"'%s': %s; left in place", (int)pid, spool,
					bm_error_message());
				continue;
			}
			bm_tell(notify, "recovered what dead recorder %d had recorded into '%s' "
				"(%.1f KiB)", (int)pid, target, bytes / 1024.0);
		}
		unlink(path);
		count++;
	}
	closedir(dp);
	return count;
}

static void detach_module_from(const char *instance)
{
	char attached[128] = "";
	FILE *f = fopen("/sys/kernel/blkmap/attached", "re");
	int fd;

	if (!f)
		return;
	if (fgets(attached, sizeof(attached), f))
		attached[strcspn(attached, "\n")] = '\0';
	fclose(f);
	if (strcmp(attached, instance))
		return;
	fd = open(BM_MODULE_CONTROL, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "detach", 6) < 0)
			(void)0;	/* rmdir will say EBUSY */
		close(fd);
	}
}

static int reclaim_instances(bm_tell_fn notify)
{
	char **names = tracefs_instances("^" BM_INSTANCE_PREFIX "[0-9][0-9]*$");
	int i, count = 0;

	for (i = 0; names && names[i]; i++) {
		pid_t pid = atoi(names[i] + strlen(BM_INSTANCE_PREFIX));
		struct tracefs_instance *inst;

		if (bm_recorder_alive(pid))
			continue;
		detach_module_from(names[i]);
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (!inst)
			continue;
		tracefs_instance_file_write(inst, "tracing_on", "0");
		tracefs_event_disable(inst, NULL, NULL);
		if (tracefs_instance_destroy(inst) < 0)
			bm_tell(notify, "cannot remove tracefs instance '%s' of dead recorder %d: "
				"%s", names[i], (int)pid, strerror(errno));
		else
			bm_tell(notify, "removed tracefs instance '%s' of dead recorder %d",
				names[i], (int)pid);
		tracefs_instance_free(inst);
		count++;
	}
	tracefs_list_free(names);
	return count;
}

static int reclaim_probes(bm_tell_fn notify)
{
	struct tracefs_dynevent **events;
	int i, count = 0;
	pid_t last = 0;

	if (!tracefs_file_exists(NULL, "kprobe_events"))
		return 0;
	events = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE,
					  NULL);
	for (i = 0; events && events[i]; i++) {
		char *system = NULL, *event = NULL;
		char *end;
		pid_t pid;

		tracefs_dynevent_info(events[i], &system, &event, NULL, NULL, NULL);
		if (system && !strncmp(system, "blkmap_", 7)) {
			pid = strtol(system + 7, &end, 10);
			if (!*end && !bm_recorder_alive(pid)) {
				if (tracefs_dynevent_destroy(events[i], false) < 0)
					bm_tell(notify, "cannot remove probe %s:%s of dead "
						"recorder %d: %s", system, event, (int)pid,
						strerror(errno));
				else if (pid != last)
					bm_tell(notify, "removed probe group '%s' of dead recorder "
						"%d", system, (int)pid);
				if (pid != last)
					count++;
				last = pid;
			}
		}
		free(system);
		free(event);
	}
	tracefs_dynevent_list_free(events);
	return count;
}

int bm_reset(bm_tell_fn notify)
{
	int count = reclaim_spools(notify);

	if (!tracefs_tracing_dir())
		return count;
	count += reclaim_instances(notify);	/* before the probes they enable */
	count += reclaim_probes(notify);
	return count;
}
