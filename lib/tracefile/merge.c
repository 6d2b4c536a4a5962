// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CPU page streams merged by timestamp. Each CPU has a cursor reading
 * its pages a window at a time; a binary heap keyed on (timestamp, CPU)
 * yields the earliest head event.
 *
 * Windows are read with pread(2). Mapping them instead was measured
 * slower: setting up and tearing down the mappings costs more than the
 * copy out of the page cache.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/page.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

#define WINDOW_BYTES	(1u << 16)	/* measured: fits the cache, fewest calls */

struct cursor {
	int cpu;
	int fd;
	const struct bm_cpu_data *data;
	size_t chunk;			/* compressed data: the next chunk to read */
	char *packed;			/* and room for the largest one */
	struct bm_unpacker *unpacker;
	uint64_t next_off, end_off;	/* file range of pages not yet read */
	char *window;			/* window_size bytes of pages */
	size_t window_size;		/* window_bytes, or all this CPU has if less */
	unsigned npages, page;		/* pages in the window, current page */
	uint64_t page_off;		/* file offset of the current page */
	struct bm_page reader;
	struct bm_page_event event;	/* current event; data NULL when exhausted */
	uint64_t ts;
	uint64_t last_ts;		/* of the last event before this page */
	uint64_t missed;
	int uncounted;
	uint64_t damaged_at;		/* a damaged page since the last event; 0 if none */
	const char *damage;
	bool handed;			/* bm_stream_next_cpu handed out the event */
	uint64_t bytes_read;		/* written by the thread reading this CPU only */
	struct bm_loss *losses;		/* seen since the last rewind */
	size_t nlosses, caplosses;
};

struct bm_stream {
	struct bm_trace *trace;
	int ncpus;
	struct bm_page_format format;
	size_t window_bytes;		/* whole pages, at least one */
	struct cursor *cursors;
	int *heap, nheap;
	bool advance_top;		/* heap[0] was handed out, not yet advanced */
	int scan_cpu;			/* the CPU an unordered pass reads */
	struct bm_loss *losses;		/* every CPU's, CPU by CPU, when asked */
	size_t nlosses;
	const struct bm_ts_adjust *adjust;	/* the file's, NULL if none */
};

/* The time of @c's event, as trace-cmd would report it (most files: as written). */
static inline uint64_t ts_of(const struct bm_stream *s, const struct cursor *c)
{
	return s->adjust ? bm_ts_adjusted(s->adjust, c->cpu, c->reader.ts) : c->reader.ts;
}

static struct bm_loss *new_loss(struct cursor *c)
{
	struct bm_loss *l;

	if (c->nlosses == c->caplosses) {
		size_t cap = c->caplosses ? 2 * c->caplosses : 16;

		l = realloc(c->losses, cap * sizeof(*l));
		if (!l)
			return NULL;
		c->losses = l;
		c->caplosses = cap;
	}
	l = &c->losses[c->nlosses++];
	l->cpu = c->cpu;
	l->from = c->last_ts;
	l->to = c->event.data ? c->ts : c->last_ts;
	l->count = 0;
	l->damaged_at = 0;
	l->damage = NULL;
	l->cut = 0;
	return l;
}

static void note_loss(struct cursor *c, uint64_t count)
{
	struct bm_loss *l = new_loss(c);

	if (l)
		l->count = count;
}

/*
 * The page (or chunk) at @offset cannot be read: its events are left out,
 * as a loss from the last event before it to the first after (noted once
 * that one is found, or at the CPU's end), and the pages after it read.
 */
static void damaged(struct cursor *c, uint64_t offset, const char *why)
{
	if (c->damaged_at)
		return;		/* one loss for damaged pages in a row, at the first */
	c->damaged_at = offset;
	c->damage = why;
}

/* The damage before @c's event (or the CPU's end), as a loss. */
static void note_damage(struct cursor *c)
{
	struct bm_loss *l;

	if (!c->damaged_at)
		return;
	if ((l = new_loss(c))) {
		l->damaged_at = c->damaged_at;
		l->damage = c->damage;
	}
	c->damaged_at = 0;
}

/* At the end of @c's pages: the file lacks the rest of them, from its last event on. */
static void note_cut(struct cursor *c)
{
	struct bm_loss *l;

	if (!c->data->cut || !(l = new_loss(c)))
		return;
	l->to = UINT64_MAX;
	l->damaged_at = c->data->offset + c->data->size;
	l->cut = c->data->cut;
}

/*
 * What a cursor keeps is its own: CPUs may be read by threads of their
 * own. Read by other threads for progress: a relaxed store is all they need.
 */
static void count_read(struct cursor *c, uint64_t bytes)
{
	__atomic_store_n(&c->bytes_read, c->bytes_read + bytes, __ATOMIC_RELAXED);
}

/* Compressed pages: a chunk at a time is the window; one that does not decompress is skipped. */
static int next_chunk(struct bm_stream *s, struct cursor *c)
{
	for (;;) {
		const struct bm_chunk *k;
		char what[160];
		ssize_t n;

		if (c->chunk == c->data->nchunks)
			return 0;
		k = &c->data->chunks[c->chunk++];
		n = pread(c->fd, c->packed, k->packed, k->offset);
		if (n < 0) {
			bm_error_errno("cannot read '%s' at offset %llu", bm_trace_path(s->trace),
				       (unsigned long long)k->offset);
			return -1;
		}
		snprintf(what, sizeof(what), "'%s': the chunk of CPU %d pages at offset %llu",
			 bm_trace_path(s->trace), c->cpu, (unsigned long long)k->offset);
		if ((size_t)n != k->packed) {
			bm_error("%s: the file ends inside it (cut while read?)", what);
			errno = EINVAL;
			return -1;
		}
		if (bm_unpack(c->unpacker, c->packed, k->packed, c->window, k->size, what) < 0) {
			damaged(c, k->offset, "its compressed data does not decompress");
			continue;
		}
		c->page_off = k->offset;
		c->npages = k->size / s->format.page_size;
		c->page = 0;
		count_read(c, k->size);
		return 1;
	}
}

/* Read the next window of @c's pages; 0 at the end of the CPU. */
static int next_window(struct bm_stream *s, struct cursor *c)
{
	uint64_t left = c->end_off - c->next_off;
	size_t want = c->window_size;
	ssize_t n;

	if (c->data->nchunks)
		return next_chunk(s, c);
	if (!left)
		return 0;
	if (want > left)
		want = left;
	n = pread(c->fd, c->window, want, c->next_off);
	if (n < 0) {
		bm_error_errno("cannot read '%s' at offset %llu", bm_trace_path(s->trace),
			       (unsigned long long)c->next_off);
		return -1;
	}
	if ((size_t)n != want) {
		bm_error("'%s': offset %llu: the file ends before its pages do (cut while read?)",
			 bm_trace_path(s->trace), (unsigned long long)(c->next_off + n));
		errno = EINVAL;
		return -1;
	}
	c->page_off = c->next_off;
	c->next_off += want;
	c->npages = want / s->format.page_size;
	c->page = 0;
	count_read(c, want);
	return 1;
}

/* Move @c to the next page that holds an event; 0 at the end of the CPU. */
static int next_page(struct bm_stream *s, struct cursor *c)
{
	uint32_t page_size = s->format.page_size;

	for (;;) {
		const char *why;
		int64_t missed;
		int r;

		if (c->page + 1 < c->npages) {
			c->page++;
			c->page_off += page_size;
		} else {
			r = next_window(s, c);
			if (r < 0)
				return r;
			if (!r) {
				note_damage(c);
				note_cut(c);
				return 0;
			}
		}
		if (bm_page_load(&c->reader, &s->format,
				 c->window + (size_t)c->page * page_size, &missed, &why) < 0) {
			damaged(c, c->page_off, why);
			continue;
		}
		r = bm_page_next(&c->reader, &c->event, &why);
		if (r < 0) {
			damaged(c, c->page_off, why);
			continue;
		}
		c->event.data = r ? c->event.data : NULL;
		c->ts = ts_of(s, c);
		if (r)
			note_damage(c);
		if (missed) {
			if (missed > 0)
				c->missed += missed;
			else
				c->uncounted = 1;
			note_loss(c, missed > 0 ? missed : 0);
		}
		if (r)
			return 1;
	}
}

/* Advance @c to its next event; 0 when the CPU is exhausted. */
static int advance(struct bm_stream *s, struct cursor *c, bool first)
{
	const char *why;
	int r;

	if (first)
		return next_page(s, c);
	c->last_ts = c->ts;
	r = bm_page_next(&c->reader, &c->event, &why);
	if (r < 0)	/* the rest of the page is left out */
		damaged(c, c->page_off, why);
	if (r <= 0) {
		c->event.data = NULL;
		return next_page(s, c);
	}
	c->ts = ts_of(s, c);
	return 1;
}

static bool before(const struct bm_stream *s, int a, int b)
{
	const struct cursor *x = &s->cursors[a], *y = &s->cursors[b];

	return x->ts < y->ts || (x->ts == y->ts && x->cpu < y->cpu);
}

static void sift_down(struct bm_stream *s, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i, tmp;

		if (l < s->nheap && before(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < s->nheap && before(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = tmp;
		i = m;
	}
}

int bm_stream_rewind(struct bm_stream *s)
{
	int cpu, i;

	s->nheap = 0;
	s->scan_cpu = 0;
	s->advance_top = false;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		struct cursor *c = &s->cursors[cpu];
		const struct bm_cpu_data *d = bm_trace_cpu(s->trace, cpu);
		int r;

		c->fd = d->fd;
		c->data = d;
		c->chunk = 0;
		c->next_off = d->offset;
		c->end_off = d->offset + d->size;
		c->npages = c->page = 0;
		c->missed = 0;
		c->uncounted = 0;
		c->damaged_at = 0;
		c->last_ts = 0;
		c->event.data = NULL;
		c->handed = false;
		c->bytes_read = 0;
		c->nlosses = 0;
		r = advance(s, c, true);
		if (r < 0)
			return -1;
		if (r > 0)
			s->heap[s->nheap++] = cpu;
	}
	for (i = s->nheap / 2 - 1; i >= 0; i--)
		sift_down(s, i);
	return 0;
}

/* The event @c stands on, into @rec; the cursor moves on at the next call. */
static void hand_out(struct bm_stream *s, struct cursor *c, struct bm_rec *rec)
{
	uint16_t type;

	memcpy(&type, c->event.data, sizeof(type));
	rec->ts = c->ts;
	rec->cpu = c->cpu;
	rec->type = s->format.swap ? __builtin_bswap16(type) : type;
	rec->data = (void *)c->event.data;
	rec->size = c->event.size;
}

int bm_stream_next(struct bm_stream *s, struct bm_rec *rec)
{
	/*
	 * The record handed out last time points into its cursor's window,
	 * which advancing may refill: so the cursor moves on only now.
	 */
	if (s->advance_top) {
		int r = advance(s, &s->cursors[s->heap[0]], false);

		if (r < 0)
			return -1;
		if (r == 0)
			s->heap[0] = s->heap[--s->nheap];
		sift_down(s, 0);
		s->advance_top = false;
	}
	if (!s->nheap)
		return 0;
	hand_out(s, &s->cursors[s->heap[0]], rec);
	s->advance_top = true;
	return 1;
}

int bm_stream_next_unordered(struct bm_stream *s, struct bm_rec *rec)
{
	if (s->advance_top) {
		if (advance(s, &s->cursors[s->scan_cpu], false) < 0)
			return -1;
		s->advance_top = false;
	}
	/* Each CPU's events in turn: no heap, for passes that sort what they keep. */
	while (s->scan_cpu < s->ncpus && !s->cursors[s->scan_cpu].event.data)
		s->scan_cpu++;
	if (s->scan_cpu >= s->ncpus)
		return 0;
	hand_out(s, &s->cursors[s->scan_cpu], rec);
	s->advance_top = true;
	return 1;
}

int bm_stream_next_cpu(struct bm_stream *s, int cpu, struct bm_rec *rec)
{
	struct cursor *c = &s->cursors[cpu];
	int r;

	if (c->handed) {
		c->handed = false;
		r = advance(s, c, false);
		if (r <= 0)
			return r;
	} else if (!c->event.data) {
		return 0;
	}
	hand_out(s, c, rec);
	c->handed = true;
	return 1;
}

bool bm_stream_cpu_has_events(const struct bm_stream *s, int cpu)
{
	return s->cursors[cpu].event.data != NULL;
}

int bm_stream_ncpus(const struct bm_stream *s)
{
	return s->ncpus;
}

struct bm_stream *bm_stream_open(struct bm_trace *trace)
{
	const struct bm_trace_meta *m = bm_trace_get_meta(trace);
	struct tep_handle *tep = bm_trace_tep(trace);
	struct bm_stream *s;
	int cpu;

	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->trace = trace;
	s->ncpus = m->ncpus;
	s->adjust = m->ts.any ? &m->ts : NULL;
	s->format.page_size = m->page_size;
	/* As trace-cmd does: the commit field's size says how pages are laid out. */
	s->format.long_size = tep_get_header_page_size(tep);
	if (s->format.long_size != 4 && s->format.long_size != 8)
		s->format.long_size = tep_get_long_size(tep);
	s->format.big_endian = tep_is_file_bigendian(tep);
	s->format.swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	s->window_bytes = WINDOW_BYTES - WINDOW_BYTES % m->page_size;
	if (s->window_bytes < m->page_size)
		s->window_bytes = m->page_size;
	s->cursors = calloc(s->ncpus, sizeof(*s->cursors));
	s->heap = calloc(s->ncpus, sizeof(*s->heap));
	if (!s->cursors || !s->heap)
		goto nomem;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		const struct bm_cpu_data *d = bm_trace_cpu(trace, cpu);
		struct cursor *c = &s->cursors[cpu];
		size_t i, packed = 0;

		c->cpu = cpu;
		/* No more than the CPU has: recordings often leave most CPUs empty. */
		c->window_size = s->window_bytes;
		if (c->window_size > d->size)
			c->window_size = d->size;
		if (d->nchunks) {
			c->window_size = 0;
			for (i = 0; i < d->nchunks; i++) {
				if (d->chunks[i].size > c->window_size)
					c->window_size = d->chunks[i].size;
				if (d->chunks[i].packed > packed)
					packed = d->chunks[i].packed;
			}
			c->packed = malloc(packed ? packed : 1);
			c->unpacker = bm_unpacker_new(d->compression);
			if (!c->packed || !c->unpacker)
				goto nomem;
		}
		if (!c->window_size)
			continue;
		c->window = malloc(c->window_size);
		if (!c->window)
			goto nomem;
	}
	if (bm_stream_rewind(s) < 0) {
		bm_stream_close(s);
		return NULL;
	}
	return s;
nomem:
	bm_error_errno("cannot read '%s'", bm_trace_path(trace));
	bm_stream_close(s);
	return NULL;
}

void bm_stream_close(struct bm_stream *s)
{
	int cpu;

	if (!s)
		return;
	for (cpu = 0; s->cursors && cpu < s->ncpus; cpu++) {
		free(s->cursors[cpu].window);
		free(s->cursors[cpu].packed);
		bm_unpacker_free(s->cursors[cpu].unpacker);
		free(s->cursors[cpu].losses);
	}
	free(s->cursors);
	free(s->heap);
	free(s->losses);
	free(s);
}

ssize_t bm_stream_losses(struct bm_stream *s, const struct bm_loss **list)
{
	size_t n = 0;
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		n += s->cursors[cpu].nlosses;
	free(s->losses);
	s->losses = malloc((n ? n : 1) * sizeof(*s->losses));
	if (!s->losses)
		return -1;
	s->nlosses = 0;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		const struct cursor *c = &s->cursors[cpu];

		if (c->nlosses)
			memcpy(s->losses + s->nlosses, c->losses, c->nlosses * sizeof(*c->losses));
		s->nlosses += c->nlosses;
	}
	*list = s->losses;
	return s->nlosses;
}

uint64_t bm_stream_missed(const struct bm_stream *s, int cpu, int *uncounted)
{
	if (cpu < 0 || cpu >= s->ncpus)
		return 0;
	if (uncounted)
		*uncounted = s->cursors[cpu].uncounted;
	return s->cursors[cpu].missed;
}

uint64_t bm_stream_bytes_read(const struct bm_stream *s)
{
	uint64_t sum = 0;
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		sum += __atomic_load_n(&s->cursors[cpu].bytes_read, __ATOMIC_RELAXED);
	return sum;
}
