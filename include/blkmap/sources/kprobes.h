/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_KPROBES_H
#define BLKMAP_SOURCES_KPROBES_H

/*
 * The kprobe source: probe events, in a group of the recording's own
 * ("blkmap_PID"), on the kernel functions that add and remove disks and
 * partitions, and on part_stat_read_all() for a statedump while blkmap
 * reads /proc/diskstats. Struct offsets come from the kernel's BTF, or the
 * probes use BTF-typed arguments where the kernel has them.
 *
 * Events (fields):
 *	bdev_add	devt, name, partno, disk, seq	a disk or partition added
 *	disk_add	type, devt, name, partno, disk	a disk's device_add() (before 5.12)
 *	part_add	type, devt, name, partno, disk	a partition's device_add() (before 5.12)
 *	disk_del	major, minor, name, seq		del_gendisk() entered
 *	disk_gone	(none)				del_gendisk() returned
 *	disk_hidden	major, minor, name, flags, seq	a hidden disk (an NVMe path)
 *							registered: blk_register_queue()
 *	part_del	type, devt, name, partno, disk, seq	a partition's device_del()
 *	part_gone	(none)				a device_del() returned
 *	dump		devt, name, partno, disk, seq	seen while reading diskstats
 *	dm_name		major, minor, name, action, dm	a dm device's name (resume, rename)
 *	loop_on		major, minor, name, seq, file	a loop device bound to file (or named)
 *	loop_off	major, minor, name, seq, file	__loop_clr_fd() entered
 *	loop_gone	(none)				__loop_clr_fd() returned
 * partno: the partition number in its low 8 bits (0 for a whole disk).
 */
#include "blkmap/sources/marker.h"

struct bm_session;
struct bm_kprobes;

/* NULL with a message saying why this kernel cannot have the source. */
struct bm_kprobes *bm_kprobes_arm(struct bm_session *session);
/* A statedump between "dump-begin" and "dump-end" markers written by @mark. */
int bm_kprobes_dump(struct bm_kprobes *k, unsigned id, const char *reason, bm_mark_fn mark,
		    void *ctx);
/* Which functions are probed, and how the fields are fetched. */
const char *bm_kprobes_summary(const struct bm_kprobes *k);
/* Remove every probe; the instance must no longer enable them. NULL is fine. */
void bm_kprobes_remove(struct bm_kprobes *k);

#endif
