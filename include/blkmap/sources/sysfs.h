/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_SYSFS_H
#define BLKMAP_SOURCES_SYSFS_H

/*
 * The sysfs source: block devices as /sys shows them, and a statedump of
 * them as markers (marker.h) written through @mark, so that they land in
 * the recording's ring buffer on its clock. Works on every kernel.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/sources/marker.h"

/* A block device as sysfs shows it. */
struct bm_blockdev {
	char dev[16];		/* "MAJ:MIN" */
	char name[64];
	bool partition;
	char parent[64];	/* a partition's disk */
	uint64_t diskseq;	/* 0 if the kernel has none */
	uint64_t sectors;	/* 512-byte */
	char dm[128];		/* device-mapper name */
	char serial[64];	/* a disk's, bm_sysfs_serial() */
	char via[128];		/* an NVMe path disk's controller: "nvme1 tcp traddr=..." */
	char dm_uuid[160];	/* device-mapper UUID */
	char backing[256];	/* a loop device's backing file, while attached */
	char wwid[128];		/* a disk's world-wide name */
	char model[64];
	char firmware[32];
};

typedef int (*bm_blockdev_fn)(void *ctx, const struct bm_blockdev *dev);

/* The first line of @dir/@file, without its newline, into @out; "" if unreadable. */
void bm_sysfs_read_line(const char *dir, const char *file, char *out, size_t size);

/*
 * The identity a disk reports, from its sysfs directory @dir, into @out:
 * its serial number (virtio "serial", NVMe and others "device/serial",
 * SCSI VPD page 0x80 "device/vpd_pg80"), else its WWID ("wwid",
 * "device/wwid"); "" if none. Reading a virtio disk's serial sends it a
 * request of the driver's own (N).
 */
void bm_sysfs_serial(const char *dir, char *out, size_t size);
/* A device-mapper device's name, from its sysfs directory @dir ("" for others). */
void bm_sysfs_dm_name(const char *dir, char *out, size_t size);

/*
 * The labels of the device in sysfs directory @dir beside its name: dm name
 * and UUID; a disk's serial, WWID, model and firmware revision, a loop
 * device's backing file. The backing file is kept only if the disk's
 * diskseq is still @diskseq (0: not checked) once read: it belongs to that
 * attachment.
 */
void bm_sysfs_labels(const char *dir, bool partition, uint64_t diskseq, struct bm_blockdev *d);
/* @d's labels as marker fields; a field that does not fit is left out. */
void bm_sysfs_mark_labels(struct bm_marker *m, const struct bm_blockdev *d);

/* Call @fn for each disk and partition under @sysfs/dev/block; count or -1. */
int bm_sysfs_devices(const char *sysfs, bm_blockdev_fn fn, void *ctx);

/*
 * sysfs statedump: every disk and partition under @sysfs/dev/block as
 * "dump" markers between "dump-begin" and "dump-end". @sysfs is "/sys"
 * except in tests. Returns the number of devices, or -1.
 */
int bm_sysfs_dump(const char *sysfs, unsigned id, const char *reason,
		  bm_mark_fn mark, void *ctx);

#endif
