/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_HIST_H
#define BLKMAP_ANALYSE_HIST_H

/*
 * Latencies in a log-linear histogram (hist.c): 32 sub-buckets per power
 * of two, so a percentile is within 3% of the exact value (min, max, mean
 * are exact).
 */
#include <stdint.h>

#define BM_HIST_SUB	32
#define BM_HIST_SIZE	(64 * BM_HIST_SUB)

struct bm_hist {
	uint64_t count, sum, min, max;
	uint32_t *buckets;	/* BM_HIST_SIZE, allocated with the first value */
};

/* Count @v; a value that finds no memory for the buckets is not counted. */
void bm_hist_add(struct bm_hist *h, uint64_t v);
uint64_t bm_hist_percentile(const struct bm_hist *h, double p);
/* Counts in [2^k, 2^(k+1)) microseconds (k = 0 holds [0, 2)), like biolatency. */
void bm_hist_log2_us(const struct bm_hist *h, uint64_t out[64]);
/*
 * Add @src's latencies to @dst (the runs of one side of blkmap diff, pooled):
 * 0, or -1 (errno ENOMEM) with @dst as it was.
 */
int bm_hist_merge(struct bm_hist *dst, const struct bm_hist *src);
void bm_hist_release(struct bm_hist *h);

#endif
