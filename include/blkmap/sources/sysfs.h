/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_H
#define BLKMAP_SOURCES_H

/*
 * Map sources that work on every kernel. Each writes blkmap markers
 * (marker.h) through @mark, so they land in the recording's ring buffer
 * on its clock.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*bm_mark_fn)(void *ctx, const char *text, size_t len);

/* A block device as sysfs shows it. */
struct bm_blockdev {
	char dev[16];		/* "MAJ:MIN" */
	char name[64];
	bool partition;
	char parent[64];	/* a partition's disk */
	uint64_t diskseq;	/* 0 if the kernel has none */
	uint64_t sectors;	/* 512-byte */
	char dm[128];		/* device-mapper name */
};

typedef int (*bm_blockdev_fn)(void *ctx, const struct bm_blockdev *dev);

/* Call @fn for each disk and partition under @sysfs/dev/block; count or -1. */
int bm_sysfs_devices(const char *sysfs, bm_blockdev_fn fn, void *ctx);

/*
 * sysfs statedump: every disk and partition under @sysfs/dev/block as
 * "dump" markers between "dump-begin" and "dump-end". @sysfs is "/sys"
 * except in tests. Returns the number of devices, or -1.
 */
int bm_sysfs_dump(const char *sysfs, unsigned id, const char *reason,
		  bm_mark_fn mark, void *ctx);

/*
 * uevent listener: a thread receiving the kernel's block uevents and
 * writing a "uevent" marker for each, as soon as it arrives. The socket
 * is bound before this returns, so no later uevent is missed.
 */
struct bm_uevents;

struct bm_uevents *bm_uevents_start(bm_mark_fn mark, void *ctx);
/*
 * Write markers for what is still queued, then stop. Returns how many
 * markers were written in all; NULL is fine.
 */
uint64_t bm_uevents_stop(struct bm_uevents *u);
uint64_t bm_uevents_count(const struct bm_uevents *u);

#endif
