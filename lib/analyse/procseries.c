// SPDX-License-Identifier: GPL-2.0-only
/*
 * The busiest processes' I/O over time (the plot's process tracks): per
 * process, the bytes of the bios it submitted, each bio once, at the top
 * of its stack (the device it was submitted to: a dm device, a partition,
 * a disk), in the bin of its completion. A consumer of the tracker
 * (consumer.h); it keeps nothing until told the bins (an_procseries_want).
 * Memory grows with the (device, process, bin with I/O) triples, at most
 * the bins per (device, process), never with the events.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/util/sys.h"
#include "consumer.h"

/* A process's bins on one device: what --disk keeps or drops. */
struct track {
	const struct bm_disk_stats *dev, *disk;	/* submitted to, completed on */
	int pid;
	struct bm_proc_bin *bins;		/* in time order */
	size_t n, cap;
};

struct procseries {
	size_t want;			/* processes shown; 0: keep nothing */
	uint64_t first, width;
	size_t nbins;
	struct track *tracks;
	size_t ntracks, cap, last;
	struct bm_proc_series *rows;	/* after finish (and keep): the busiest, most first */
	size_t nrows;
};

static struct track *track_of(struct procseries *s, const struct an_io *io,
			      const struct bm_disk_stats *dev)
{
	size_t i;

	if (s->last < s->ntracks && s->tracks[s->last].dev == dev &&
	    s->tracks[s->last].pid == io->pid)
		return &s->tracks[s->last];
	for (i = 0; i < s->ntracks; i++)
		if (s->tracks[i].dev == dev && s->tracks[i].pid == io->pid)
			goto found;
	if (bm_grow(&s->tracks, s->ntracks, &s->cap, sizeof(*s->tracks), 16) < 0)
		return NULL;
	i = s->ntracks++;
	s->tracks[i] = (struct track){ .dev = dev, .disk = io->disk, .pid = io->pid };
found:
	s->last = i;
	return &s->tracks[i];
}

void an_procseries_done(void *state, const struct an_io *io)
{
	struct procseries *s = state;
	const struct bm_disk_stats *dev;
	struct bm_proc_bin *b;
	struct track *t;
	uint64_t bin;

	/* Once a bio: where it was submitted, not again for each device below. */
	if (!s->want || io->op < 0 || !io->has_q || !io->queued_on ||
	    (io->top && io->top != io->part))
		return;
	dev = io->top ? io->top : io->queued_on;
	if (!(t = track_of(s, io, dev)))
		return;
	bin = io->c > s->first ? (io->c - s->first) / s->width : 0;
	if (bin >= s->nbins)
		bin = s->nbins - 1;
	/* Completions come in time order: a bin is the last one, or a new one. */
	if (!t->n || t->bins[t->n - 1].bin < bin) {
		if (bm_grow(&t->bins, t->n, &t->cap, sizeof(*t->bins), 8) < 0)
			return;
		t->bins[t->n++] = (struct bm_proc_bin){ .bin = bin };
	}
	b = &t->bins[t->n - 1];
	if (io->op == BM_WRITE) {
		b->writes++;
		b->write_bytes += (uint64_t)io->sectors * 512;
	} else {
		b->reads++;
		b->read_bytes += (uint64_t)io->sectors * 512;
	}
}

static void rows_free(struct procseries *s)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		free(s->rows[i].bins);
	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
}

static int busiest_first(const void *x, const void *y)
{
	const struct bm_proc_series *a = x, *b = y;
	uint64_t ab = a->read_bytes + a->write_bytes, bb = b->read_bytes + b->write_bytes;

	if (ab != bb)
		return ab < bb ? 1 : -1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

/* @t's bins added into @r's (both in time order): 0, or -1 (no memory). */
static int add_bins(struct bm_proc_series *r, const struct track *t)
{
	struct bm_proc_bin *m = malloc((r->n + t->n) * sizeof(*m));
	size_t i = 0, j = 0, n = 0;

	if (!m)
		return -1;
	while (i < r->n || j < t->n) {
		if (j == t->n || (i < r->n && r->bins[i].bin < t->bins[j].bin)) {
			m[n++] = r->bins[i++];
		} else if (i == r->n || t->bins[j].bin < r->bins[i].bin) {
			m[n++] = t->bins[j++];
		} else {
			m[n] = r->bins[i++];
			m[n].reads += t->bins[j].reads;
			m[n].writes += t->bins[j].writes;
			m[n].read_bytes += t->bins[j].read_bytes;
			m[n++].write_bytes += t->bins[j++].write_bytes;
		}
	}
	free(r->bins);
	r->bins = m;
	r->n = n;
	return 0;
}

/* The tracks merged per process, the @want busiest kept, their bins added up. */
static void merge(struct procseries *s)
{
	size_t i, j, k;

	rows_free(s);
	if (!s->ntracks || !(s->rows = calloc(s->ntracks, sizeof(*s->rows))))
		return;
	for (i = 0; i < s->ntracks; i++) {
		const struct track *t = &s->tracks[i];

		for (j = 0; j < s->nrows && s->rows[j].pid != t->pid; j++)
			;
		s->rows[j].pid = t->pid;
		s->nrows += j == s->nrows;
		for (k = 0; k < t->n; k++) {
			s->rows[j].read_bytes += t->bins[k].read_bytes;
			s->rows[j].write_bytes += t->bins[k].write_bytes;
		}
	}
	qsort(s->rows, s->nrows, sizeof(*s->rows), busiest_first);
	if (s->nrows > s->want)
		s->nrows = s->want;
	for (i = 0; i < s->ntracks; i++)
		for (j = 0; j < s->nrows; j++)
			if (s->rows[j].pid == s->tracks[i].pid && add_bins(&s->rows[j], &s->tracks[i]) < 0)
				s->rows[j].n = 0;	/* no memory: the track goes without bins */
}

void an_procseries_finish(void *state)
{
	merge(state);
}

/* The filter's devices' (where submitted or completed), merged anew. */
void an_procseries_keep(void *state, const struct bm_span_filter *f)
{
	struct procseries *s = state;
	size_t i, n = 0;

	for (i = 0; i < s->ntracks; i++)
		if (bm_span_filter_match(f, s->tracks[i].dev->span, s->tracks[i].dev->dev) ||
		    bm_span_filter_match(f, s->tracks[i].disk->span, s->tracks[i].disk->dev))
			s->tracks[n++] = s->tracks[i];
		else
			free(s->tracks[i].bins);
	s->ntracks = n;
	s->last = 0;
	merge(s);
}

void an_procseries_want(void *state, size_t n, uint64_t first, uint64_t width, size_t nbins)
{
	struct procseries *s = state;

	if (!width || !nbins)
		return;
	s->want = n;
	s->first = first;
	s->width = width;
	s->nbins = nbins;
}

void *an_procseries_new(void)
{
	return calloc(1, sizeof(struct procseries));
}

void an_procseries_free(void *state)
{
	struct procseries *s = state;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ntracks; i++)
		free(s->tracks[i].bins);
	free(s->tracks);
	rows_free(s);
	free(s);
}

size_t an_procseries_rows(const void *state, const struct bm_proc_series **list)
{
	const struct procseries *s = state;

	*list = s->rows;
	return s->nrows;
}
