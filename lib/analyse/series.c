// SPDX-License-Identifier: GPL-2.0-only
/*
 * An incarnation's figures as a series of bins (report --interval, the
 * plot): what completes counts in its completion's bin, as the kernel's
 * counters do; time (busy, in flight, in queue) is shared among the bins
 * it spans, in proportion, so that the bins add up to the whole.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"

int an_series_new(struct bm_disk_stats *d, uint64_t first, uint64_t width, size_t nbins)
{
	struct bm_series *s;

	if (!width)
		return 0;
	s = calloc(1, sizeof(*s));
	/* Large and zeroed: pages no bin of it touches cost no memory. */
	if (!s || !(s->bins = calloc(nbins, sizeof(*s->bins)))) {
		free(s);
		return -1;
	}
	s->first = first;
	s->width = width;
	s->nbins = nbins;
	d->series = s;
	d->rq_time.series = d->bio_time.series = s;
	d->rq_time.busy_at = offsetof(struct bm_bin, rq_busy);
	d->rq_time.depth_at = offsetof(struct bm_bin, rq_depth);
	d->bio_time.busy_at = offsetof(struct bm_bin, bio_busy);
	d->bio_time.depth_at = offsetof(struct bm_bin, bio_depth);
	return 0;
}

void an_series_free(struct bm_series *s)
{
	int i;

	if (!s)
		return;
	bm_hist_release(&s->cur[0]);
	bm_hist_release(&s->cur[1]);
	for (i = 0; i < 4; i++)
		bm_hist_release(&s->cur_op[i / 2][i % 2]);
	free(s->offsets);
	free(s->rq_offsets);
	free(s->bio_offsets);
	free(s->bins);
	free(s);
}

static size_t bin_index(const struct bm_series *s, uint64_t ts)
{
	uint64_t i = ts > s->first ? (ts - s->first) / s->width : 0;

	return i < s->nbins ? i : s->nbins - 1;
}

struct bm_bin *an_bin(struct bm_series *s, uint64_t ts)
{
	return s ? &s->bins[bin_index(s, ts)] : NULL;
}

static double *field(struct bm_series *s, size_t i, size_t at)
{
	return (double *)((char *)&s->bins[i] + at);
}

void an_spread(struct bm_series *s, size_t at, uint64_t from, uint64_t to, double total)
{
	size_t i, last;

	if (!s || !total)
		return;
	last = bin_index(s, to);
	i = bin_index(s, from);
	if (to <= from || i == last) {
		*field(s, last, at) += total;
		return;
	}
	for (; i <= last; i++) {
		uint64_t start = s->first + i * s->width, end = start + s->width;
		uint64_t lo = from > start || !i ? from : start, hi = i == last ? to : end;

		*field(s, i, at) += total * (double)(hi - lo) / (double)(to - from);
	}
}

/* @h emptied for the next bin. */
static void empty(struct bm_hist *h)
{
	memset(h->buckets, 0, BM_HIST_SIZE * sizeof(*h->buckets));
	h->count = h->sum = h->max = 0;
	h->min = UINT64_MAX;
}

/* The percentiles of the bin whose latencies cur holds (of both operations, of each), and cur emptied. */
static void close_bin(struct bm_series *s, int which)
{
	struct bm_hist *h = &s->cur[which];
	struct bm_bin *b = &s->bins[s->cur_bin[which]];
	int op;

	if (!h->count)
		return;
	b->lat_p50[which] = bm_hist_percentile(h, 50);
	b->lat_p99[which] = bm_hist_percentile(h, 99);
	b->lat_p999[which] = bm_hist_percentile(h, 99.9);
	empty(h);
	for (op = 0; op < 2; op++) {
		h = &s->cur_op[which][op];
		if (!h->count)
			continue;
		b->op_p99[which][op] = bm_hist_percentile(h, 99);
		b->op_p999[which][op] = bm_hist_percentile(h, 99.9);
		empty(h);
	}
}

void an_series_latency(struct bm_series *s, int which, int op, uint64_t ts, uint64_t v)
{
	size_t i;
	struct bm_bin *b;

	if (!s)
		return;
	i = bin_index(s, ts);
	b = &s->bins[i];
	if (op == BM_READ || op == BM_WRITE) {
		b->lat_sum[which][op] += v;
		b->lat_n[which][op]++;
		if (v > b->op_max[which][op])
			b->op_max[which][op] = v;
	}
	if (v > b->lat_max[which])
		b->lat_max[which] = v;
	/* Completions come in time order: a later bin closes the one before. */
	if (i > s->cur_bin[which])
		close_bin(s, which);
	if (i >= s->cur_bin[which])
		s->cur_bin[which] = i;
	bm_hist_add(&s->cur[which], v);
	if (op == BM_READ || op == BM_WRITE)
		bm_hist_add(&s->cur_op[which][op], v);
}

/* Twice the sectors a row holds: rows merged in pairs. */
static void coarser(struct bm_offsets *o)
{
	int op, r, c;

	for (op = 0; op < 2; op++)
		for (r = 0; r < BM_OFF_ROWS; r++)
			for (c = 0; c < BM_OFF_COLS; c++) {
				uint32_t v = o->n[op][r][c];

				o->n[op][r][c] = 0;
				o->n[op][r / 2][c] += v;
			}
	o->shift++;
}

void an_series_offset(struct bm_series *s, bool bio, int op, uint64_t ts, uint64_t sector,
		      uint64_t n, uint64_t size)
{
	struct bm_offsets **o = bio ? &s->bio_offsets : &s->rq_offsets;
	uint64_t span = s->nbins * s->width, c;

	if (op != BM_READ && op != BM_WRITE)
		return;
	if (!*o) {
		*o = calloc(1, sizeof(**o));
		if (!*o)
			return;		/* the plot goes without its offsets */
		/* The device's sectors in the rows, where its size is known. */
		while (((uint64_t)BM_OFF_ROWS << (*o)->shift) < size)
			(*o)->shift++;
	}
	while ((sector >> (*o)->shift) >= BM_OFF_ROWS)
		coarser(*o);
	c = ts > s->first && span ? (uint64_t)((double)(ts - s->first) * BM_OFF_COLS / span) : 0;
	if (c >= BM_OFF_COLS)
		c = BM_OFF_COLS - 1;
	(*o)->n[op][sector >> (*o)->shift][c] += n;
}

void an_series_finish(struct bm_disk_stats *d, bool requests)
{
	struct bm_series *s = d->series;
	size_t i;

	if (!s)
		return;
	if (!s->offsets) {
		bool bio = d->model == BM_IO_BIO;

		s->offsets = bio ? s->bio_offsets : s->rq_offsets;
		*(bio ? &s->bio_offsets : &s->rq_offsets) = NULL;
	}
	close_bin(s, BM_LAT_Q2C);
	close_bin(s, BM_LAT_D2C);
	for (i = 0; i < s->nbins; i++) {
		struct bm_bin *b = &s->bins[i];
		const uint64_t *c = d->model == BM_IO_BIO ? b->bio_counts : b->rq_counts;

		if (!(c[0] | c[1] | c[4] | c[5]) && !b->rq_busy && !b->bio_busy)
			continue;	/* nothing: leave its page untouched */
		AN_SET_COUNTS(b, c);
		b->busy_ns = requests ? b->rq_busy : b->bio_busy;
		b->depth_ns = requests ? b->rq_depth : b->bio_depth;
	}
}
