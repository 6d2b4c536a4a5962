// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reclaiming what dead recorders left: their spools become files, then
 * their instances (and the module attached to one) and probe groups go.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "blkmap/record/capture.h"
#include "blkmap/record/reclaim.h"
#include "blkmap/record/recover.h"
#include "blkmap/record/registry.h"
#include "blkmap/record/spool.h"
#include "blkmap/sources/kmodule.h"
#include "blkmap/sources/session.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"
#include "blkmap/util/tell.h"

/* Where to recover a dead recorder's spool without overwriting anything. */
static void recovery_target(const char *output, pid_t pid, char *buf, size_t size)
{
	struct stat st;
	int n;

	snprintf(buf, size, "%s", output);
	for (n = 0; lstat(buf, &st) == 0; n++)
		snprintf(buf, size, n ? "%s.recovered-%d-%d" : "%s.recovered-%d", output,
			 (int)pid, n);
}

/*
 * What a dead recorder's ring buffers still hold goes into its spool too:
 * everything recorded until the kill is kept.
 */
static void drain_dead_instance(pid_t pid, const struct bm_spool *spool)
{
	char name[64], file[64];
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
	t = bm_trace_open_at(spool->fd, spool->path);
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
	    bm_spool_locate_at(spool->fd, spool->path, ncpus, page_size, cpus, &region) < 0)
		goto out;
	for (cpu = 0; cpu < ncpus; cpu++)
		finishing |= region && cpus[cpu].fd >= 0 && cpus[cpu].offset != (cpu + 1) * region;
	tracefs_instance_file_write(inst, "tracing_on", "0");
	for (cpu = 0; cpu < ncpus && !finishing; cpu++) {
		uint64_t bytes = cpus[cpu].size, room = region ? region : UINT64_MAX;
		bool write_failed;
		int in, out;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		bm_spool_pages_name(name, sizeof(name), cpu, region);
		in = tracefs_instance_file_open(inst, file, O_RDONLY | O_NONBLOCK);
		/* The spool was checked: its files are the recorder's, or new. */
		out = openat(spool->fd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			     BM_OUTPUT_MODE);
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

/*
 * Dead recorder @pid's spool: a ring's removed, another's recovered; one
 * that is not what blkmap made is left as it is, and said so. 0 if the
 * registry entry can go.
 */
static int reclaim_spool(pid_t pid, const char *path, const char *output, bm_tell_fn notify)
{
	struct bm_spool spool;
	char target[PATH_MAX + 64];
	uint64_t bytes = 0;
	struct stat st;

	if (lstat(path, &st) < 0 && errno == ENOENT)
		return 0;
	if (bm_spool_open(&spool, path) < 0) {
		bm_tell(notify, "refusing the spool of dead recorder %d: %s; remove it yourself "
			"once it is seen to, and /run/blkmap/%d with it", (int)pid,
			bm_error_message(), (int)pid);
		return -1;
	}
	if (bm_spool_is_ring(&spool)) {
		bm_spool_remove(&spool);
		bm_tell(notify, "removed the ring of dead flight recorder %d in '%s' (a ring "
			"cannot be read back)", (int)pid, path);
		return 0;
	}
	drain_dead_instance(pid, &spool);
	recovery_target(output[0] ? output : "blkmap.dat", pid, target, sizeof(target));
	if (bm_recover_spool(&spool, target, &bytes) < 0) {
		bm_tell(notify, "cannot recover the spool of dead recorder %d in '%s': %s; left in "
			"place", (int)pid, path, bm_error_message());
		bm_spool_close(&spool);
		return -1;
	}
	bm_tell(notify, "recovered what dead recorder %d had recorded into '%s' (%.1f KiB)",
		(int)pid, target, bytes / 1024.0);
	return 0;
}

static int reclaim_spools(bm_tell_fn notify)
{
	pid_t pids[1024];
	int i, n, count = 0;

	if (bm_registry_check() < 0) {
		bm_tell(notify, "%s; the spools of dead recorders are not looked for",
			bm_error_message());
		return 0;
	}
	n = bm_registry_pids(pids, 1024, false);
	for (i = 0; i < n && i < 1024; i++) {
		char spool[PATH_MAX], output[PATH_MAX];

		if (bm_registry_read(pids[i], spool, sizeof(spool), output, sizeof(output)) < 0)
			continue;
		if (spool[0] && reclaim_spool(pids[i], spool, output, notify) < 0)
			continue;
		bm_registry_forget(pids[i]);
		count++;
	}
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

int bm_reclaim(bm_tell_fn notify)
{
	int count = reclaim_spools(notify);

	if (!tracefs_tracing_dir())
		return count;
	count += reclaim_instances(notify);	/* before the probes they enable */
	count += reclaim_probes(notify);
	return count;
}
