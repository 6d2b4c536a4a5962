// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/hist.h"

static int hist_index(uint64_t v)
{
	int p;

	if (v < 2 * BM_HIST_SUB)
		return v;
	p = 63 - __builtin_clzll(v);	/* 2^p <= v, p >= log2(2 * SUB) */
	return (p - 4) * BM_HIST_SUB + ((v >> (p - 5)) & (BM_HIST_SUB - 1));
}

static uint64_t hist_value(int i, uint64_t *width)
{
	int p;

	if (i < 2 * BM_HIST_SUB) {
		*width = 1;
		return i;
	}
	p = i / BM_HIST_SUB + 4;
	*width = 1ULL << (p - 5);
	return (uint64_t)(BM_HIST_SUB + i % BM_HIST_SUB) << (p - 5);
}

void bm_hist_add(struct bm_hist *h, uint64_t v)
{
	if (!h->buckets) {
		h->buckets = calloc(BM_HIST_SIZE, sizeof(*h->buckets));
		if (!h->buckets)
			return;
		h->min = v;
	}
	h->buckets[hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

uint64_t bm_hist_percentile(const struct bm_hist *h, double p)
{
	uint64_t want, seen = 0, width, v;
	int i;

	if (!h->count)
		return 0;
	want = (uint64_t)(p / 100.0 * h->count + 0.5);
	if (want < 1)
		want = 1;
	for (i = 0; i < BM_HIST_SIZE; i++) {
		seen += h->buckets[i];
		if (seen >= want) {
			v = hist_value(i, &width) + width / 2;
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

void bm_hist_log2_us(const struct bm_hist *h, uint64_t out[64])
{
	uint64_t width, v;
	int i;

	memset(out, 0, 64 * sizeof(*out));
	for (i = 0; h->buckets && i < BM_HIST_SIZE; i++) {
		if (!h->buckets[i])
			continue;
		v = hist_value(i, &width) / 1000;	/* the bucket's start, in µs */
		out[v < 2 ? 0 : 63 - __builtin_clzll(v)] += h->buckets[i];
	}
}

int bm_hist_merge(struct bm_hist *dst, const struct bm_hist *src)
{
	int i;

	if (!src->count)
		return 0;
	if (!dst->buckets) {
		dst->buckets = calloc(BM_HIST_SIZE, sizeof(*dst->buckets));
		if (!dst->buckets)
			return -1;
		dst->min = src->min;
	}
	for (i = 0; i < BM_HIST_SIZE; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

void bm_hist_release(struct bm_hist *h)
{
	free(h->buckets);
	h->buckets = NULL;
}
