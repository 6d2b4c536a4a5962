// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CPU page streams merged by timestamp. Each CPU has a cursor reading
 * its pages a chunk at a time; a binary heap keyed on (timestamp, CPU)
 * yields the earliest head event.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "blkmap/error.h"
#include "blkmap/stream.h"
#include "blkmap/tracefile.h"

#define CHUNK_PAGES	16
#define SLACK		64	/* kbuffer may peek a few bytes past a page */
#define MISSED_EVENTS	(1ULL << 31)
#define MISSED_STORED	(1ULL << 30)
/*
 * The kernel adds the flags to a long as the int (1 << 31), which sign-
 * extends: the bits above 31 are noise. The size is below the flags.
 */
#define COMMIT_SIZE	((1ULL << 30) - 1)

struct cursor {
	int cpu;
	int fd;
	uint64_t next_off, end_off;	/* file range of pages not yet read */
	char *chunk;			/* CHUNK_PAGES pages + SLACK */
	unsigned npages, page;		/* pages in chunk, current page */
	uint64_t page_off;		/* file offset of the current page */
	struct kbuffer *kbuf;
	void *event;			/* current event, NULL when exhausted */
	unsigned long long ts;
	uint64_t last_ts;		/* of the last event before this page */
	int last_offset;
	uint64_t missed;
	int uncounted;
};

struct bm_stream {
	struct bm_trace *trace;
	int ncpus;
	uint32_t page_size;
	int header_size;		/* timestamp + commit */
	int long_size;
	bool swap;
	struct cursor *cursors;
	int *heap, nheap;
	bool advance_top;		/* heap[0] was handed out, not yet advanced */
	int scan_cpu;			/* the CPU an unordered pass reads */
	uint64_t bytes_read;
	struct bm_loss *losses;
	size_t nlosses, caplosses;
};

static int corrupt(struct bm_stream *s, struct cursor *c, const char *what)
{
	bm_error("'%s': offset %llu: corrupt ring-buffer page of CPU %d: %s",
		 bm_trace_path(s->trace), (unsigned long long)c->page_off, c->cpu, what);
	errno = EINVAL;
	return -1;
}

static uint64_t page_commit(struct bm_stream *s, const char *page)
{
	uint64_t v;

	if (s->long_size == 8) {
		memcpy(&v, page + 8, 8);
		return s->swap ? __builtin_bswap64(v) : v;
	} else {
		uint32_t w;

		memcpy(&w, page + 8, 4);
		return s->swap ? __builtin_bswap32(w) : w;
	}
}

static void note_loss(struct bm_stream *s, struct cursor *c, uint64_t count)
{
	struct bm_loss *l;

	if (s->nlosses == s->caplosses) {
		size_t cap = s->caplosses ? 2 * s->caplosses : 16;

		l = realloc(s->losses, cap * sizeof(*l));
		if (!l)
			return;
		s->losses = l;
		s->caplosses = cap;
	}
	l = &s->losses[s->nlosses++];
	l->cpu = c->cpu;
	l->from = c->last_ts;
	l->to = c->event ? c->ts : c->last_ts;
	l->count = count;
}

/* Load the next non-empty page into the kbuffer; 0 at the end of the CPU. */
static int next_page(struct bm_stream *s, struct cursor *c)
{
	for (;;) {
		char *page;
		uint64_t commit, used;

		if (c->page + 1 < c->npages) {
			c->page++;
			c->page_off += s->page_size;
		} else {
			uint64_t left = c->end_off - c->next_off;
			size_t want = CHUNK_PAGES * (size_t)s->page_size;
			ssize_t n;

			if (!left)
				return 0;
			if (want > left)
				want = left;
			n = pread(c->fd, c->chunk, want, c->next_off);
			if (n < 0 || (size_t)n != want) {
				bm_error_errno("cannot read '%s' at offset %llu",
					       bm_trace_path(s->trace),
					       (unsigned long long)c->next_off);
				return -1;
			}
			c->page_off = c->next_off;
			c->next_off += want;
			c->npages = want / s->page_size;
			c->page = 0;
			s->bytes_read += want;
		}
		page = c->chunk + (size_t)c->page * s->page_size;
		commit = page_commit(s, page);
		used = commit & COMMIT_SIZE;
		if (used > s->page_size - s->header_size)
			return corrupt(s, c, "commit size exceeds the page");
		/* Stored counts sit after the data and must fit as well. */
		if ((commit & MISSED_STORED) &&
		    used + s->long_size > s->page_size - s->header_size)
			return corrupt(s, c, "lost-event count exceeds the page");
		if (kbuffer_load_subbuffer(c->kbuf, page) < 0)
			return corrupt(s, c, "unreadable page header");
		c->last_offset = -1;
		c->event = kbuffer_read_event(c->kbuf, &c->ts);
		if (commit & MISSED_EVENTS) {
			int missed = kbuffer_missed_events(c->kbuf);

			if (missed > 0)
				c->missed += missed;
			else
				c->uncounted = 1;
			note_loss(s, c, missed > 0 ? missed : 0);
		}
		if (c->event)
			return 1;
	}
}

static int check_event(struct bm_stream *s, struct cursor *c)
{
	const char *page = c->chunk + (size_t)c->page * s->page_size;
	const char *data_end = page + s->header_size + kbuffer_subbuffer_size(c->kbuf);
	int offset = kbuffer_curr_offset(c->kbuf);
	int size = kbuffer_event_size(c->kbuf);

	if (offset <= c->last_offset)
		return corrupt(s, c, "event offsets do not advance");
	c->last_offset = offset;
	if (size < 2 || (const char *)c->event < page ||
	    (const char *)c->event + size > data_end)
		return corrupt(s, c, "event runs past the page's data");
	return 0;
}

/* Advance @c to its next event; 0 when the CPU is exhausted. */
static int advance(struct bm_stream *s, struct cursor *c, bool first)
{
	if (!first) {
		c->last_ts = c->ts;
		c->event = kbuffer_next_event(c->kbuf, &c->ts);
		if (!c->event) {
			int r = next_page(s, c);

			if (r <= 0)
				return r;
		}
	} else {
		int r = next_page(s, c);

		if (r <= 0)
			return r;
	}
	return check_event(s, c) < 0 ? -1 : 1;
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
	s->bytes_read = 0;
	s->nlosses = 0;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		struct cursor *c = &s->cursors[cpu];
		const struct bm_cpu_data *d = bm_trace_cpu(s->trace, cpu);
		int r;

		c->fd = d->fd;
		c->next_off = d->offset;
		c->end_off = d->offset + d->size;
		c->npages = c->page = 0;
		c->missed = 0;
		c->uncounted = 0;
		c->last_ts = 0;
		c->event = NULL;
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
static int hand_out(struct bm_stream *s, struct cursor *c, struct bm_rec *rec)
{
	uint16_t type;

	memcpy(&type, c->event, sizeof(type));
	rec->ts = c->ts;
	rec->cpu = c->cpu;
	rec->type = s->swap ? __builtin_bswap16(type) : type;
	rec->data = c->event;
	rec->size = kbuffer_event_size(c->kbuf);
	s->advance_top = true;
	return 1;
}

int bm_stream_next(struct bm_stream *s, struct bm_rec *rec)
{
	/*
	 * The record handed out last time points into its cursor's chunk,
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
	return hand_out(s, &s->cursors[s->heap[0]], rec);
}

int bm_stream_next_unordered(struct bm_stream *s, struct bm_rec *rec)
{
	if (s->advance_top) {
		if (advance(s, &s->cursors[s->scan_cpu], false) < 0)
			return -1;
		s->advance_top = false;
	}
	/* Each CPU's events in turn: no heap, for passes that sort what they keep. */
	while (s->scan_cpu < s->ncpus && !s->cursors[s->scan_cpu].event)
		s->scan_cpu++;
	if (s->scan_cpu >= s->ncpus)
		return 0;
	return hand_out(s, &s->cursors[s->scan_cpu], rec);
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
	s->page_size = m->page_size;
	s->long_size = tep_get_long_size(tep);
	s->header_size = 8 + s->long_size;
	s->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	s->cursors = calloc(s->ncpus, sizeof(*s->cursors));
	s->heap = calloc(s->ncpus, sizeof(*s->heap));
	if (!s->cursors || !s->heap)
		goto nomem;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		struct cursor *c = &s->cursors[cpu];

		c->cpu = cpu;
		c->chunk = calloc(1, CHUNK_PAGES * (size_t)s->page_size + SLACK);
		c->kbuf = kbuffer_alloc(s->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					tep_is_file_bigendian(tep) ? KBUFFER_ENDIAN_BIG :
					KBUFFER_ENDIAN_LITTLE);
		if (!c->chunk || !c->kbuf)
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
		free(s->cursors[cpu].chunk);
		if (s->cursors[cpu].kbuf)
			kbuffer_free(s->cursors[cpu].kbuf);
	}
	free(s->cursors);
	free(s->heap);
	free(s->losses);
	free(s);
}

size_t bm_stream_losses(const struct bm_stream *s, const struct bm_loss **list)
{
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
	return s->bytes_read;
}
