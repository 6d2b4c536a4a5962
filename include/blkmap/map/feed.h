/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_MAP_FEED_H
#define BLKMAP_MAP_FEED_H

/*
 * From a recording's records to map observations: blkmap's markers
 * (statedumps, uevents) and the writeback_bdi_register tracepoint.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blkmap/tracefile/decode.h"
#include "blkmap/util/tick.h"

struct bm_map;
struct bm_cgroups;

#define BM_FEEDER_PENDING 16

/* A removal whose probe entry was seen, waiting for its return. */
struct bm_pending_removal {
	int pid;
	enum bm_kind kind;	/* BM_EV_K_DISK_DEL, BM_EV_K_PART_DEL or BM_EV_K_LOOP_OFF */
	uint32_t dev;
	char name[64];
	uint64_t diskseq;	/* a disk's; a partition's disk's, as it is at removal */
	uint64_t ts;
};

struct bm_feeder {
	struct bm_map *map;
	struct bm_cgroups *cgroups;	/* the second map, of processes to cgroups; NULL: none */
	struct bm_pending_removal pending[BM_FEEDER_PENDING];
	int npending;
	uint64_t listener_ts;	/* the uevent listener's previous marker */
	uint64_t sent_after;	/* the last uevent was sent after this */
	bool have_listener;
	char sources[128];	/* from record-begin */
	struct bm_tick tick;	/* from record-begin; ns 0 if it does not say */
	uint64_t wall_ns, mono_ns;	/* from record-begin: the wall clock at mono_ns; 0s if not */
	uint64_t window_from;	/* a flight recording's window-begin; 0 for none */
	uint64_t markers;	/* blkmap markers seen */
	uint64_t registers;	/* disk registrations seen (writeback_bdi_register) */
};

/* Is an event of this kind ever a map record? */
static inline bool bm_feeds_map(enum bm_kind kind)
{
	return kind == BM_EV_PRINT || kind == BM_EV_BDI_REGISTER ||
	       (kind >= BM_EV_CG_MOVE && kind <= BM_EV_EXIT) || kind >= BM_EV_K_ADD;
}

/* A feeder of @map and of @cgroups (NULL: the cgroup records are left alone). */
void bm_feeder_init(struct bm_feeder *f, struct bm_map *map, struct bm_cgroups *cgroups);
/* Feed one decoded event; events that are not map records are ignored. */
void bm_feed(struct bm_feeder *f, const struct bm_event *ev);
/* The recording ended at @last: removals still in progress end by then. */
void bm_feeder_finish(struct bm_feeder *f, uint64_t last);

/* Parse "MAJ:MIN" into a kernel dev_t; -1 if it is not one. */
int bm_parse_dev(const char *text, uint32_t *dev);

#endif
