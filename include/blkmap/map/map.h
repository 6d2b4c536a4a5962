/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_MAP_MAP_H
#define BLKMAP_MAP_MAP_H

/*
 * The time-ranged device map: for each device number, the sequence of
 * names (incarnations) it carried, each valid from an add to a removal.
 * Every boundary is a window [lo, hi] in which the change happened, with
 * the source that bounded it; lo == hi when a source saw it exactly.
 *
 * Observations are fed in timestamp order; bm_map_finish() closes the
 * model; then events are labelled with bm_map_label().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/sources/source.h"

enum bm_dev_kind { BM_DISK, BM_PARTITION };

struct bm_bound {
	bool known;		/* false: before (from) or after (to) the recording */
	uint64_t lo, hi;	/* the change happened within [lo, hi] */
	unsigned by;		/* enum bm_source bits */
};

/*
 * A device-mapper name an incarnation had from some time in [lo, hi] on
 * (lo = hi = 0: from its start): set at create, changed by a rename.
 */
#define BM_DM_NAMES 4		/* a name and its first renames */
struct bm_dm_name {
	uint64_t lo, hi;
	char name[128];
};

/*
 * A mount of an incarnation's file system: made within [from_lo, from_hi]
 * (from_known false: before the recording), undone within [to_lo, to_hi]
 * (to_known false: still mounted at the end).
 */
struct bm_mount {
	char path[256];
	char fstype[32];
	bool from_known, to_known;
	uint64_t from_lo, from_hi, to_lo, to_hi;
};

struct bm_span {
	uint32_t dev;
	char name[64];
	char parent[64];	/* partitions: the disk's name */
	char dm[128];		/* dm devices: /dev/mapper name */
	char serial[64];	/* disks: the serial number (or WWID) it reports */
	char via[128];		/* NVMe path disks: the controller, its transport and address */
	char dm_uuid[160];	/* dm devices: the UUID (LVM's: LVM-<vg uuid><lv uuid>[-layer]) */
	char backing[256];	/* loop devices: the backing file of this attachment */
	char wwid[128];		/* disks: the world-wide name the device reports */
	char model[64];		/* disks: the model */
	char firmware[32];	/* disks: the firmware revision */
	struct bm_dm_name dm_names[BM_DM_NAMES];	/* dm[] first, then its renames */
	unsigned ndm;
	struct bm_mount *mounts;	/* in the order they were made (malloc'ed) */
	unsigned nmounts, capmounts;
	enum bm_dev_kind kind;
	uint64_t diskseq;	/* 0 if unknown */
	uint64_t seq_after;	/* diskseq unknown: greater than this (a detach's, from its probe) */
	uint64_t size;		/* sectors, 0 if unknown */
	struct bm_bound from, to;
	unsigned nth;		/* which incarnation of its number, from 1 (bm_map_finish) */
	bool reseq;		/* opened by its disk's diskseq growing, no removal before */
	bool empty;		/* no medium (a detached loop device): it does no I/O */
	bool backing_probed;	/* backing is lo_file_name, from a probe: sysfs's path is better */
	uint64_t seen;		/* latest time the device certainly existed */
	uint64_t removed_before;	/* internal: its removal precedes this (0: not known) */
};

enum bm_obs_type {
	BM_OBS_ADD,		/* a device was added (at, or before, ts) */
	BM_OBS_REMOVE,		/* a device was removed (at, or before, ts) */
	BM_OBS_CHANGE,		/* a device changed (diskseq) */
	BM_OBS_PRESENT,		/* a statedump saw the device */
	BM_OBS_DUMP_BEGIN,
	BM_OBS_DUMP_END,
	BM_OBS_REGISTER,	/* a whole disk registered at exactly ts, no name */
	BM_OBS_MOUNT,		/* a file system on dev was mounted at @mount (by ts, after after) */
	BM_OBS_UMOUNT,		/* ... unmounted from @mount */
	BM_OBS_MOUNTED,		/* ... was mounted at @mount when the recording began */
	BM_OBS_CTRL_ADD,	/* NVMe controller @name added (by ts, after after) */
	BM_OBS_CTRL_REMOVE,	/* ... removed: the paths via it were gone by ts */
	BM_OBS_DETACH,		/* a loop device's attachment of diskseq @diskseq ended at ts */
};

struct bm_obs {
	enum bm_obs_type type;
	uint64_t ts;
	bool exact;		/* happened at ts (a kernel-side record); else at or before ts */
	uint64_t after;		/* not exact: the source knows it happened after this */
	unsigned by;		/* enum bm_source */
	uint32_t dev;
	const char *name, *parent, *dm, *serial, *via;
	const char *dm_uuid, *backing, *wwid, *model, *firmware;
	const char *mount, *fstype;	/* MOUNT, UMOUNT, MOUNTED: the mount point, its type */
	bool empty;		/* CHANGE: the disk had no medium (size 0) with this diskseq */
	bool attach;		/* CHANGE: a new attachment (a loop bound), where no diskseq says so */
	enum bm_dev_kind kind;
	uint64_t diskseq, size;
	unsigned listed;	/* DUMP_END: devices the dump says it listed (0: not said) */
};

/* How a label was obtained. */
enum bm_label_basis {
	BM_LABEL_UNKNOWN,	/* no incarnation of the device fits */
	BM_LABEL_ONLY,		/* exactly one incarnation can have existed */
	BM_LABEL_PARENT,	/* several could; the I/O's disk picked one */
	BM_LABEL_GUESS,		/* several could; the nearest was taken */
};

struct bm_map;

struct bm_map *bm_map_new(void);
void bm_map_free(struct bm_map *map);
void bm_map_observe(struct bm_map *map, const struct bm_obs *obs);
/*
 * Events were lost between @from and @to (0: since the recording began): a
 * change may have happened there unseen, so labels there are guesses.
 */
void bm_map_lost(struct bm_map *map, uint64_t from, uint64_t to);
/* No more observations; @first and @last bound the recording. */
void bm_map_finish(struct bm_map *map, uint64_t first, uint64_t last);

/*
 * The incarnation of @dev at @ts, or NULL. @disk_dev, if not 0, is the
 * whole disk the I/O went to (remaps of partitions), which picks among
 * candidates by their parent.
 */
const struct bm_span *bm_map_label(const struct bm_map *map, uint32_t dev, uint64_t ts,
				   uint32_t disk_dev, enum bm_label_basis *basis);
/*
 * The same answers, remembered per device while the time stays where its
 * only possible incarnation holds: a device's events then cost no search.
 * Zero-initialise the cache; it is valid for one finished map.
 */
#define BM_LABEL_CACHE_SLOTS 64
struct bm_label_hold {
	uint32_t dev;
	uint64_t from, to;
	const struct bm_span *span;	/* NULL: empty */
};
struct bm_label_cache {
	struct bm_label_hold slot[BM_LABEL_CACHE_SLOTS];
};
const struct bm_span *bm_map_label_cached(const struct bm_map *map, struct bm_label_cache *cache,
					  uint32_t dev, uint64_t ts, uint32_t disk_dev,
					  enum bm_label_basis *basis);

size_t bm_map_count(const struct bm_map *map);
/* Spans ordered by device number, then time. */
const struct bm_span *bm_map_span(const struct bm_map *map, size_t i);

/*
 * Conflicts between sources, as sentences with a timestamp; where they
 * concern one incarnation, its device number and a moment of its life
 * (bm_map_label() finds it).
 */
struct bm_conflict {
	uint64_t ts;
	bool has_dev;
	uint32_t dev;
	uint64_t at;	/* has_dev: the incarnation concerned existed then */
	char text[256];
};
size_t bm_map_conflicts(const struct bm_map *map, const struct bm_conflict **list);

const char *bm_label_basis_name(enum bm_label_basis basis);

/*
 * @s's key, stable within a recording: "MAJ:MIN#N", its number and which
 * incarnation of that number it is, counted from 1 in time order.
 */
const char *bm_span_key(const struct bm_span *s, char *buf, size_t size);

/*
 * @s's device-mapper name at @ts ("" for other devices): the newest name
 * certainly set by then (a rename seen within a window counts from its end).
 */
const char *bm_span_dm_at(const struct bm_span *s, uint64_t ts);
/*
 * Is @name one of @s's names (names.c): its kernel name (or /dev/NAME), a
 * device-mapper name it had (or /dev/mapper/NAME), an LVM volume it was
 * (VG/LV, /dev/VG/LV), a loop device's backing file, a mount point it carried?
 */
bool bm_span_named(const struct bm_span *s, const char *name);

/*
 * Which incarnations a report keeps: those with any of @names (kernel or
 * device-mapper names) and any of @devs; a list left empty keeps all.
 */
#define BM_FILTER_MAX	32
struct bm_span_filter {
	const char *names[BM_FILTER_MAX];
	unsigned nnames;
	uint32_t devs[BM_FILTER_MAX];
	unsigned ndevs;
};

/* Does the incarnation @s of number @dev (@s NULL: none fits) pass @f (names.c)? */
bool bm_span_filter_match(const struct bm_span_filter *f, const struct bm_span *s, uint32_t dev);
/* ... at @ts: a mount point names a device only while it is mounted there. */
bool bm_span_filter_match_at(const struct bm_span_filter *f, const struct bm_span *s,
			     uint32_t dev, uint64_t ts);

static inline bool bm_span_filter_set(const struct bm_span_filter *f)
{
	return f && (f->nnames || f->ndevs);
}

#endif
