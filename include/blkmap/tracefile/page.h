/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_PAGE_H
#define BLKMAP_TRACEFILE_PAGE_H

/*
 * One ring-buffer page ("sub-buffer") as the kernel hands it out through
 * trace_pipe_raw, read event by event. The layout (kernel/trace/ring_buffer.c):
 *
 *   u64 time_stamp;  long commit;  events...
 *
 * commit holds the bytes of events and, in bits 31 and 30, "events were
 * lost before this page" and "their count is stored after the events".
 * Each event starts with a u32 of type_len:5 and time_delta:27 (a bit-field:
 * on a big-endian writer type_len is the top five bits):
 *   type_len 1..28   data of type_len * 4 bytes follows
 *   type_len 0       a u32 length (data + 4) follows, then the data
 *   type_len 29      padding: with time_delta 0 the rest of the page,
 *                    else a discarded event whose u32 length follows
 *   type_len 30      time extend: a u32 of the delta's bits 27..58
 *   type_len 31      absolute time stamp: bits 27..58 in the next u32
 *
 * This is what libtraceevent's kbuffer reads too; it is written out here so
 * that the per-event step is a few instructions the compiler can inline into
 * the merge (kbuffer costs a call and several branches per event, which was
 * the largest item of a report's profile). tests/unit/test_page.c holds the
 * two readers to the same results.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct bm_page_format {
	uint32_t page_size;
	int long_size;		/* 4 or 8: the size of commit */
	bool big_endian;	/* the writer's byte order */
	bool swap;		/* not ours */
};

struct bm_page {
	const unsigned char *next, *end;	/* events not yet read */
	uint64_t ts;				/* of the event read last */
	bool swap, big_endian;
};

#define BM_PAGE_MISSED_EVENTS	(1ULL << 31)
#define BM_PAGE_MISSED_STORED	(1ULL << 30)
/*
 * The kernel adds the flags to a long as the int (1 << 31), which sign-
 * extends: bits above 31 are noise. The size is below the flags.
 */
#define BM_PAGE_COMMIT_SIZE	((1ULL << 30) - 1)

/* Bytes before the first event. */
static inline int bm_page_header_size(const struct bm_page_format *f)
{
	return 8 + f->long_size;
}

/*
 * Start reading @page. Returns 0, or -1 with *why set if its header is
 * impossible. *missed: -1 if events were lost before the page without a
 * count, else how many (0 for none).
 */
int bm_page_load(struct bm_page *p, const struct bm_page_format *f, const void *page,
		 int64_t *missed, const char **why);

static inline uint32_t bm_page_u32(const struct bm_page *p, const unsigned char *at)
{
	uint32_t v;

	memcpy(&v, at, 4);
	return p->swap ? __builtin_bswap32(v) : v;
}

/* An event's data: its common fields first, then its own. */
struct bm_page_event {
	const void *data;
	uint32_t size;		/* at least 4, rounded up to 4 as kbuffer reports it */
};

/*
 * The next event of the page into @ev, its time stamp in p->ts.
 * 1: an event; 0: the page is read; -1: the page is corrupt (*why says how).
 */
static inline __attribute__((always_inline)) int
bm_page_next(struct bm_page *p, struct bm_page_event *ev, const char **why)
{
	while (p->end - p->next >= 4) {
		uint32_t h = bm_page_u32(p, p->next), type_len, delta, len;

		type_len = p->big_endian ? h >> 27 : h & 31;
		delta = p->big_endian ? h & ((1U << 27) - 1) : h >> 5;
		if (type_len >= 1 && type_len <= 28) {
			len = type_len * 4;
			if ((uint32_t)(p->end - p->next) - 4 < len)
				break;
			p->ts += delta;
			ev->data = p->next + 4;
			ev->size = len;
			p->next += 4 + len;
			return 1;
		}
		if (p->end - p->next < 8)
			break;
		len = bm_page_u32(p, p->next + 4);
		switch (type_len) {
		case 0:		/* long event: the length counts itself */
			if (len < 4 + 4)
				goto corrupt;
			len = ((len - 4) + 3) & ~3U;
			if ((uint32_t)(p->end - p->next) - 8 < len)
				break;
			p->ts += delta;
			ev->data = p->next + 8;
			ev->size = len;
			p->next += 8 + len;
			return 1;
		case 29:	/* padding */
			if (!delta) {
				p->next = p->end;
				return 0;
			}
			if ((uint32_t)(p->end - p->next) - 4 < len)
				break;
			p->ts += delta;
			p->next += 4 + len;
			continue;
		case 30:	/* time extend */
			p->ts += ((uint64_t)len << 27) + delta;
			p->next += 8;
			continue;
		default:	/* 31: absolute; bits 59..63 are the page's */
			p->ts = ((uint64_t)len << 27 | delta) | (p->ts & ~((1ULL << 59) - 1));
			p->next += 8;
			continue;
		}
		break;
	}
	if (p->next == p->end)
		return 0;
corrupt:
	*why = "an event runs past the page's data";
	return -1;
}

/*
 * Writing pages, in this machine's byte order: what a flight recording
 * keeps of pages it drops (ring.h). Events are laid out as the kernel
 * does, a time extend before one whose delta does not fit in 27 bits.
 */
struct bm_page_packer {
	unsigned char *page;	/* page_size bytes, the header included */
	uint32_t page_size;
	int long_size;
	uint32_t used;		/* bytes of events */
	uint64_t ts;		/* of the event packed last */
	int64_t missed;		/* as bm_page_load() says, for this page */
};

/* Start @page, empty; @missed: events lost before it (-1: an unknown count). */
void bm_pack_start(struct bm_page_packer *p, void *page, uint32_t page_size, int long_size,
		   int64_t missed);
/*
 * Add an event of @size bytes of data (a multiple of 4), at time @ts, not
 * before the last one. 0; -1 if the page has no room for it (finish the
 * page, start another).
 */
int bm_pack_add(struct bm_page_packer *p, uint64_t ts, const void *data, uint32_t size);
/* Write the header: the page is complete. */
void bm_pack_finish(struct bm_page_packer *p);

#endif
