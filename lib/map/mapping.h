/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_MAP_MAPPING_H
#define BLKMAP_MAP_MAPPING_H

/*
 * What the map's files share (not a public header): the map and each
 * device number's incarnations.
 *   map.c    reconciliation: observations in, incarnations and their
 *            bounds out, conflicts noted (the writing side)
 *   gaps.c   where events were lost, merged at the finish
 *   label.c  which incarnation a device number was at a time, and the
 *            finished map read (the reading side)
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "blkmap/map/map.h"

struct devstate {
	uint32_t dev;
	struct bm_span *spans;
	size_t n, capspans;
	bool open;		/* spans[n - 1] is still present */
	uint64_t registered;	/* exact time of a registration not yet paired */
	uint64_t absent_since;	/* begin of the last dump that did not list it */
	unsigned listed_in;	/* the last dump that listed it */
	/* Mounts present when the recording began, seen before the device: its first span's. */
	struct bm_mount *early_mounts;
	unsigned nearly, capearly;
};

struct bm_map {
	struct devstate *devs;	/* sorted by dev */
	size_t ndevs, capdevs;
	unsigned dump_seq;
	uint64_t dump_begin;
	unsigned dump_by;	/* the source of the current dump */
	unsigned dump_listed;	/* devices the current dump listed */
	uint64_t no_history_lo;	/* begin of the last complete dump */
	struct bm_conflict *conflicts;
	size_t nconflicts, capconflicts;
	struct gap { uint64_t from, to; } *gaps;	/* lost events; merged at finish */
	size_t ngaps, capgaps;
	const struct bm_span **sorted;
	size_t nsorted;
	/* NVMe controllers added (uevents): the last add of each name */
	struct ctrl_add { char name[32]; uint64_t ts, after; } *ctrls;
	size_t nctrls, capctrls;
};

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* map.c: the index of @dev in m->devs, or -1 (and where it would go in *@insert_at). */
ssize_t map_find_index(const struct bm_map *m, uint32_t dev, size_t *insert_at);

/* gaps.c */
/* In time order, overlapping ones merged. */
void map_merge_gaps(struct bm_map *m);
/*
 * Is @ts in a gap? If not, narrow [*from, *to] to the times around it
 * that are in none.
 */
bool map_in_gap(const struct bm_map *m, uint64_t ts, uint64_t *from, uint64_t *to);

#endif
