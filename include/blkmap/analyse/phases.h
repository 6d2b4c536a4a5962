/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_PHASES_H
#define BLKMAP_ANALYSE_PHASES_H

/*
 * Where an incarnation's time goes, as btt splits it (phases.c), and its
 * access pattern (seek.c). Every phase is counted per bio (btt's Q), from
 * the events that carry data: a bio queued (Q), its request made (G),
 * inserted (I), merged into another (M: block_bio_backmerge,
 * block_bio_frontmerge, and block_rq_merge as blktrace reports it), issued
 * (D), completed (C), and remapped on from a bio-based device (A).
 * Memory: per incarnation a few histograms, the bios in flight and the
 * distinct seek distances (at most BM_SEEK_DISTINCT).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/analyse/hist.h"

enum bm_phase {
	BM_Q2Q, BM_Q2G, BM_G2I, BM_Q2M, BM_I2D, BM_M2D, BM_D2C, BM_Q2C, BM_Q2A,
	BM_NPHASES
};

/* Operations a phase row is for; BM_PH_ALL holds them all. */
enum bm_phase_op { BM_PH_READ, BM_PH_WRITE, BM_PH_DISCARD, BM_PH_ALL, BM_PH_NOPS };

#define BM_SEEK_DISTINCT	65536

/* Distances in sectors between consecutive I/Os, as btt's seek.c measures them. */
struct bm_seek {
	uint64_t n, sequential;		/* sequential: distance 0 */
	double sum;			/* of absolute distances */
	uint64_t last_start, last_end;
	/* distinct absolute distances and their counts, open addressing */
	uint64_t *dist, *count;
	size_t size, used;
	bool overflow;			/* more than BM_SEEK_DISTINCT: median and mode approximate */
};

#define BM_SIZE_BUCKETS	24	/* request sizes: [2^k, 2^(k+1)) KiB, k = 0 holds < 2 KiB */

struct bm_phases_pending;

struct bm_phases {
	struct bm_hist h[BM_PH_NOPS][BM_NPHASES];
	uint64_t last_q[BM_PH_NOPS];	/* for Q2Q */
	uint64_t queued, issued;	/* btt's #Q and #D: bios and requests with data */
	uint64_t merges, rq_merges;	/* bios merged into a request; requests into another */
	uint64_t requeues, plugs, unplugs, unplugged;	/* unplugged: requests the unplugs flushed */
	/* completed request sizes (btt's BLKmin, BLKavg, BLKmax, Total), in sectors */
	uint64_t c_count, c_min, c_max, c_total;
	uint64_t sizes[BM_SIZE_BUCKETS];	/* requests issued, by size */
	/* requests waiting at each Q (queued, neither issued nor merged yet): btt's */
	uint64_t active, active_sum;
	struct bm_seek q2q, d2d;
	struct bm_phases_pending *pending;
};

/* Seek distances: add the I/O at [@start, @start + @sectors). */
void bm_seek_add(struct bm_seek *s, uint64_t start, uint32_t sectors);
double bm_seek_mean(const struct bm_seek *s);
/* The median and the most frequent absolute distance (the smallest of equals). */
uint64_t bm_seek_median(const struct bm_seek *s);
uint64_t bm_seek_mode(const struct bm_seek *s, uint64_t *count);
void bm_seek_release(struct bm_seek *s);

#endif
