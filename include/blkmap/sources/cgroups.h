/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_CGROUPS_H
#define BLKMAP_SOURCES_CGROUPS_H

/*
 * The cgroup map's source (cgroups.c): a statedump of cgroup v2 as markers
 * written through @mark, beside the kernel's own events of the changes
 * (cgroup:cgroup_attach_task and _transfer_tasks, cgroup_mkdir, _rmdir,
 * _rename; sched:sched_process_fork and _exit; writeback:writeback_single_inode_start
 * and writeback_single_inode, whose cgroup_ino is the cgroup a flusher's bios
 * are charged to), which the recorder enables where the kernel has them.
 *
 *	blkmap:cgroup-dump-begin id=N
 *	blkmap:cgroup id=INO path=/PATH          every cgroup of the hierarchy
 *	blkmap:cgroup-tasks id=INO pids=P,P,...  the tasks in one (several markers)
 *	blkmap:cgroup-dump-end id=N cgroups=N tasks=N
 *
 * A cgroup's id is its directory's inode number in the cgroup2 file
 * system, the id the kernel's events carry. A task's cgroup is the "0::"
 * line of /proc/PID/task/TID/cgroup, the cgroup v2 place of every task
 * even where the controllers are mounted as cgroup v1 (a hybrid host).
 */
#include <stddef.h>

#include "blkmap/sources/marker.h"

/* The events of the cgroup map, "SYSTEM:EVENT", NULL-terminated. */
extern const char *const bm_cgroup_events[];

/*
 * Dump the cgroup v2 hierarchy under @cgroot ("" to find it in
 * /proc/self/mountinfo) and every task of @proc ("/proc"): 0, or -1 with a
 * message (no cgroup2 mount, out of memory, a marker not written).
 */
int bm_cgroups_dump(const char *cgroot, const char *proc, unsigned id, bm_mark_fn mark,
		    void *ctx);

#endif
