// SPDX-License-Identifier: GPL-2.0-only
/*
 * The slowest I/Os (--slowest): a row an I/O, slowest first by Q2C (by
 * D2C where it was not queued on the device), with what its request found
 * at its issue (consumer.h's struct an_io). A consumer of the tracker;
 * each incarnation keeps a heap of its N slowest, so that --disk's and the
 * whole recording's are both right: memory grows with N and the devices,
 * never with the events.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/util/sys.h"
#include "consumer.h"

struct heap {
	const struct bm_disk_stats *disk;
	struct bm_slow_row *rows;	/* a min-heap on took: the quickest kept on top */
	size_t n, cap;			/* grown as rows come, to N at most */
};

struct slowest {
	size_t want;		/* 0: keep nothing */
	struct heap *heaps;
	size_t nheaps, cap, last;
	struct bm_slow_row *rows;	/* after finish: all, slowest first */
	size_t n;
};

static bool quicker(const struct bm_slow_row *a, const struct bm_slow_row *b)
{
	return a->took < b->took || (a->took == b->took && a->c > b->c);
}

static struct heap *heap_of(struct slowest *s, const struct bm_disk_stats *d)
{
	size_t i;

	if (s->last < s->nheaps && s->heaps[s->last].disk == d)
		return &s->heaps[s->last];
	for (i = 0; i < s->nheaps; i++)
		if (s->heaps[i].disk == d)
			goto found;
	if (bm_grow(&s->heaps, s->nheaps, &s->cap, sizeof(*s->heaps), 8) < 0)
		return NULL;
	i = s->nheaps;
	s->heaps[i] = (struct heap){ .disk = d };
	s->nheaps++;
found:
	s->last = i;
	return &s->heaps[i];
}

static void sift_down(struct bm_slow_row *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct bm_slow_row t;

		if (l < n && quicker(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && quicker(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void sift_up(struct bm_slow_row *h, size_t i)
{
	while (i && quicker(&h[i], &h[(i - 1) / 2])) {
		struct bm_slow_row t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void row_of(struct bm_slow_row *r, const struct an_io *io, uint64_t took)
{
	*r = (struct bm_slow_row){
		.disk = io->disk, .top = io->top, .pid = io->pid, .op = io->op,
		.sector = io->sector, .sectors = io->sectors,
		.q = io->q, .g = io->g, .i = io->i, .d = io->d, .c = io->c,
		.has_q = io->has_q && io->queued_on == io->disk, .has_g = io->has_g,
		.has_i = io->has_i, .has_d = io->has_d && io->request,
		.inflight = io->inflight, .inflight_sectors = io->inflight_sectors,
		.behind = io->behind, .took = took,
	};
	memcpy(r->by, io->by, sizeof(r->by));
}

void an_slowest_done(void *state, const struct an_io *io)
{
	struct slowest *s = state;
	struct bm_slow_row r;
	struct heap *h;
	uint64_t took;

	if (!s->want || io->merged || io->op < 0)
		return;
	/* Q2C where it was queued here; a request alone (a path's, a driver's): D2C */
	if (io->has_q && io->queued_on == io->disk && io->c >= io->q)
		took = io->c - io->q;
	else if (io->has_d && io->request && io->c >= io->d)
		took = io->c - io->d;
	else
		return;
	if (!(h = heap_of(s, io->disk)))
		return;
	row_of(&r, io, took);
	if (h->n < s->want) {
		if (bm_grow(&h->rows, h->n, &h->cap, sizeof(*h->rows), 16) < 0)
			return;
		h->rows[h->n] = r;
		sift_up(h->rows, h->n++);
	} else if (quicker(&h->rows[0], &r)) {
		h->rows[0] = r;
		sift_down(h->rows, h->n, 0);
	}
}

static int slowest_first(const void *x, const void *y)
{
	const struct bm_slow_row *a = x, *b = y;

	return quicker(b, a) ? -1 : quicker(a, b) ? 1 : 0;
}

/* All incarnations' heaps, slowest first; the N slowest of them (keep cuts to N again). */
void an_slowest_finish(void *state)
{
	struct slowest *s = state;
	size_t i, total = 0;

	for (i = 0; i < s->nheaps; i++)
		total += s->heaps[i].n;
	if (!total || !(s->rows = malloc(total * sizeof(*s->rows))))
		return;
	for (i = 0; i < s->nheaps; i++) {
		memcpy(s->rows + s->n, s->heaps[i].rows, s->heaps[i].n * sizeof(*s->rows));
		s->n += s->heaps[i].n;
	}
	qsort(s->rows, s->n, sizeof(*s->rows), slowest_first);
}

/* The filter's devices' (or what came to them from above), the N slowest of those. */
void an_slowest_keep(void *state, const struct bm_span_filter *f)
{
	struct slowest *s = state;
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		if (bm_span_filter_match(f, s->rows[i].disk->span, s->rows[i].disk->dev) ||
		    (s->rows[i].top &&
		     bm_span_filter_match(f, s->rows[i].top->span, s->rows[i].top->dev)))
			s->rows[n++] = s->rows[i];
	s->n = n;
}

void an_slowest_want(void *state, size_t n)
{
	((struct slowest *)state)->want = n;
}

void *an_slowest_new(void)
{
	return calloc(1, sizeof(struct slowest));
}

void an_slowest_free(void *state)
{
	struct slowest *s = state;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nheaps; i++)
		free(s->heaps[i].rows);
	free(s->heaps);
	free(s->rows);
	free(s);
}

size_t an_slowest_rows(const void *state, const struct bm_slow_row **list)
{
	const struct slowest *s = state;

	*list = s->rows;
	return s->n < s->want ? s->n : s->want;
}
