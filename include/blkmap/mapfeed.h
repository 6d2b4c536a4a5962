/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_MAPFEED_H
#define BLKMAP_MAPFEED_H

/*
 * From a recording's records to map observations: blkmap's markers
 * (statedumps, uevents) and the writeback_bdi_register tracepoint.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blkmap/decode.h"

struct bm_map;

struct bm_feeder {
	struct bm_map *map;
	uint64_t listener_ts;	/* the uevent listener's previous marker */
	bool have_listener;
	char sources[128];	/* from record-begin */
	uint64_t markers;	/* blkmap markers seen */
};

/* Is an event of this kind ever a map record? */
static inline bool bm_feeds_map(enum bm_kind kind)
{
	return kind == BM_EV_PRINT || kind == BM_EV_BDI_REGISTER;
}

void bm_feeder_init(struct bm_feeder *f, struct bm_map *map);
/* Feed one decoded event; events that are not map records are ignored. */
void bm_feed(struct bm_feeder *f, const struct bm_event *ev);

/* Parse "MAJ:MIN" into a kernel dev_t; -1 if it is not one. */
int bm_parse_dev(const char *text, uint32_t *dev);

#endif
