/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_MAP_NAMES_H
#define BLKMAP_MAP_NAMES_H

/*
 * The names people know a device by, beside its kernel name: LVM's volume
 * group and logical volume (lvm.c), a loop device's backing file (loop.c),
 * and what `--disk NAME` matches (names.c). Each is read from an
 * incarnation's labels in the map; the time-ranged ones (an LV renamed)
 * take the time they are wanted at.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/map/map.h"

struct bm_lvm {
	char vg[128];
	char lv[128];
	char layer[32];		/* "" for the LV itself; real, cow, tpool, ... */
};

/*
 * Split a device-mapper name as `dmsetup splitname` does: VG-LV[-LAYER],
 * "--" standing for a hyphen inside a name.
 */
void bm_lvm_split(const char *dm_name, struct bm_lvm *out);
/* Is @uuid a device-mapper UUID of LVM's: "LVM-" then the VG's and LV's UUIDs? */
bool bm_lvm_uuid(const char *uuid);
/*
 * @s's volume group, logical volume and layer at @ts, from its dm name then
 * and its UUID; false (and @out empty) if @s is not an LVM device.
 */
bool bm_span_lvm_at(const struct bm_span *s, uint64_t ts, struct bm_lvm *out);
/*
 * "vg0/data" into @buf, for the volume and for its layers (the -real
 * under it: bm_span_lvm_at() says which layer); "" if not LVM's.
 */
const char *bm_span_lv_at(const struct bm_span *s, uint64_t ts, char *buf, size_t size);
/* A layer as text views name it: "origin layer real", "snapshot layer cow", "layer X". */
const char *bm_lvm_layer_text(const char *layer, char *buf, size_t size);

/* A loop device's backing file without its directories ("" if none). */
const char *bm_span_backing_base(const struct bm_span *s);

/*
 * The mount points @s carried at @ts (@ts 0: any time in its life),
 * separated by ';'; a mount counts over its windows too (it may have been
 * mounted then). "" if none.
 */
const char *bm_span_mounts_at(const struct bm_span *s, uint64_t ts, char *buf, size_t size);
/* Is @path a mount point of @s at @ts (0: at any time)? */
bool bm_span_mounted_at(const struct bm_span *s, const char *path, uint64_t ts);
/*
 * bm_span_named() at @ts: a mount point names the device only while it is
 * mounted there.
 */
bool bm_span_named_at(const struct bm_span *s, const char *name, uint64_t ts);

/*
 * What a person calls @s at @ts, for text views: "vg0/data" (a layer:
 * "vg0/data, origin layer real"), "a.img";
 * its dm name for other dm devices; "path via nvme1, tcp traddr=..." for
 * an NVMe path; then " on /srv" for its mount points
 * (@ts 0: any in its life); "" if nothing beside the kernel name.
 */
const char *bm_span_known_as(const struct bm_span *s, uint64_t ts, char *buf, size_t size);

#endif
