/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_MAPVIEW_H
#define BLKMAP_REPORT_MAPVIEW_H

/* The map view (mapview.c): the incarnations of the map, and its conflicts. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blkmap/report/output.h"
#include "blkmap/tracefile/merge.h"

struct bm_bound;
struct bm_map;

struct bm_map_view_opts {
	const struct bm_span_filter *filter;	/* only these incarnations (NULL: all) */
	uint64_t since, until;		/* only incarnations alive in this window */
	const struct bm_loss *losses;	/* the recording's gaps, to flag incarnations near one */
	size_t nlosses;
	bool no_header;			/* CSV without its header row */
};

/*
 * A boundary in words, @is_from for the add: "T exact (kprobe)",
 * "LO..HI (uevent)", "before the recording (...)", "still present".
 */
const char *bm_bound_str(const struct bm_bound *b, bool is_from, char *buf, size_t size);

/* 0, or -1 (errno set: no memory) with nothing written. */
int bm_view_map(FILE *out, enum bm_output_format format, const struct bm_map *map,
		const struct bm_map_view_opts *opts);
/* The conflicts between sources (in text, --map prints them after its rows); 0 or -1. */
int bm_view_conflicts(FILE *out, enum bm_output_format format, const struct bm_map *map,
		      const struct bm_map_view_opts *opts);

#endif
