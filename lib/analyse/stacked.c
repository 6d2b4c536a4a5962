// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where stacked I/O came from (--stack): a row a (lower, upper)
 * incarnation, the reads and writes that completed on the lower device
 * having been submitted to the upper one (a dm or md device, an NVMe head,
 * a partition), with the bytes the bio had when submitted. A consumer of
 * the tracker (consumer.h), which follows the stacks (stack.c); memory
 * grows with the pairs of devices, never with the events.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/util/sys.h"
#include "consumer.h"

struct stacked {
	struct bm_stack_row *rows;
	size_t n, cap;
	size_t last;	/* the row found last */
};

static struct bm_stack_row *row_of(struct stacked *s, const struct bm_disk_stats *lo,
				   const struct bm_disk_stats *up)
{
	size_t i;

	if (s->last < s->n && s->rows[s->last].lower == lo && s->rows[s->last].upper == up)
		return &s->rows[s->last];
	for (i = 0; i < s->n; i++)
		if (s->rows[i].lower == lo && s->rows[i].upper == up)
			goto found;
	if (bm_grow(&s->rows, s->n, &s->cap, sizeof(*s->rows), 16) < 0)
		return NULL;
	i = s->n++;
	memset(&s->rows[i], 0, sizeof(s->rows[i]));
	s->rows[i].lower = lo;
	s->rows[i].upper = up;
found:
	s->last = i;
	return &s->rows[i];
}

static void came_down(struct stacked *s, const struct bm_disk_stats *lower, const struct an_io *io)
{
	struct bm_stack_row *r;

	if (io->op < 0 || lower == io->top || !(r = row_of(s, lower, io->top)))
		return;
	if (io->op) {
		r->writes++;
		r->write_bytes += (uint64_t)io->sectors * 512;
	} else {
		r->reads++;
		r->read_bytes += (uint64_t)io->sectors * 512;
	}
}

/* To the device it completed on, and to the partition it went through (its disk's). */
void an_stacked_done(void *state, const struct an_io *io)
{
	if (!io->top)
		return;
	came_down(state, io->disk, io);
	if (io->part && io->part != io->disk)
		came_down(state, io->part, io);
}

static int by_lower_then_upper(const void *x, const void *y)
{
	const struct bm_stack_row *a = x, *b = y;
	int r = an_disk_order(a->lower, b->lower);

	return r ? r : an_disk_order(a->upper, b->upper);
}

void an_stacked_finish(void *state)
{
	struct stacked *s = state;

	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), by_lower_then_upper);
}

/* What a device's I/O went through, or what came to it. */
void an_stacked_keep(void *state, const struct bm_span_filter *f)
{
	struct stacked *s = state;
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		if (bm_span_filter_match(f, s->rows[i].lower->span, s->rows[i].lower->dev) ||
		    bm_span_filter_match(f, s->rows[i].upper->span, s->rows[i].upper->dev))
			s->rows[n++] = s->rows[i];
	s->n = n;
}

void *an_stacked_new(void)
{
	return calloc(1, sizeof(struct stacked));
}

void an_stacked_free(void *state)
{
	struct stacked *s = state;

	if (s)
		free(s->rows);
	free(s);
}

size_t an_stacked_rows(const void *state, const struct bm_stack_row **list)
{
	const struct stacked *s = state;

	*list = s->rows;
	return s->n;
}
