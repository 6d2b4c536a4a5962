// SPDX-License-Identifier: GPL-2.0-only
/*
 * A ring-buffer page's header; its events are read inline (page.h). And
 * pages written, as the kernel would.
 */
#include "blkmap/tracefile/page.h"

static uint64_t read_long(const struct bm_page_format *f, const unsigned char *at)
{
	if (f->long_size == 8) {
		uint64_t v;

		memcpy(&v, at, 8);
		return f->swap ? __builtin_bswap64(v) : v;
	} else {
		uint32_t v;

		memcpy(&v, at, 4);
		return f->swap ? __builtin_bswap32(v) : v;
	}
}

int bm_page_load(struct bm_page *p, const struct bm_page_format *f, const void *page,
		 int64_t *missed, const char **why)
{
	const unsigned char *start = page;
	uint32_t room = f->page_size - bm_page_header_size(f);
	uint64_t commit, used;

	memcpy(&p->ts, start, 8);
	if (f->swap)
		p->ts = __builtin_bswap64(p->ts);
	p->swap = f->swap;
	p->big_endian = f->big_endian;
	commit = read_long(f, start + 8);
	used = commit & BM_PAGE_COMMIT_SIZE;
	if (used > room) {
		*why = "commit size exceeds the page";
		return -1;
	}
	p->next = start + bm_page_header_size(f);
	p->end = p->next + used;
	*missed = 0;
	if (commit & BM_PAGE_MISSED_EVENTS) {
		*missed = -1;
		if (commit & BM_PAGE_MISSED_STORED) {
			/* The count sits after the events and must fit as well. */
			if (used + f->long_size > room) {
				*why = "lost-event count exceeds the page";
				return -1;
			}
			*missed = (int64_t)read_long(f, p->end);
			if (*missed <= 0)
				*missed = -1;
		}
	}
	return 0;
}

#define DELTA_BITS	27
#define SMALL_DATA_MAX	(28 * 4)	/* the largest data type_len can say */
#define TYPE_TIME_EXTEND 30

static void put_u32(struct bm_page_packer *p, uint32_t v)
{
	memcpy(p->page + 8 + p->long_size + p->used, &v, 4);
	p->used += 4;
}

static void put_header(struct bm_page_packer *p, uint32_t type_len, uint32_t delta)
{
	put_u32(p, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? type_len << 27 | delta :
							    delta << 5 | type_len);
}

void bm_pack_start(struct bm_page_packer *p, void *page, uint32_t page_size, int long_size,
		   int64_t missed)
{
	p->page = page;
	p->page_size = page_size;
	p->long_size = long_size;
	p->used = 0;
	p->ts = 0;
	p->missed = missed;
	memset(page, 0, page_size);
}

int bm_pack_add(struct bm_page_packer *p, uint64_t ts, const void *data, uint32_t size)
{
	uint32_t room = p->page_size - 8 - p->long_size - p->used;
	uint64_t delta = p->used ? ts - p->ts : 0;
	uint32_t need = 4 + size + (size > SMALL_DATA_MAX ? 4 : 0);

	if (delta >> DELTA_BITS)
		need += 8;
	/* A stored loss count takes a long after the events. */
	if (need + (p->missed > 0 ? p->long_size : 0) > room)
		return -1;
	if (!p->used)
		memcpy(p->page, &ts, 8);
	if (delta >> DELTA_BITS) {
		put_header(p, TYPE_TIME_EXTEND, delta & ((1U << DELTA_BITS) - 1));
		put_u32(p, delta >> DELTA_BITS);
		delta = 0;
	}
	if (size > SMALL_DATA_MAX) {
		put_header(p, 0, delta);
		put_u32(p, size + 4);
	} else {
		put_header(p, size / 4, delta);
	}
	memcpy(p->page + 8 + p->long_size + p->used, data, size);
	p->used += size;
	p->ts = ts;
	return 0;
}

void bm_pack_finish(struct bm_page_packer *p)
{
	uint64_t commit = p->used;
	unsigned char *at = p->page + 8;

	if (p->missed)
		commit |= BM_PAGE_MISSED_EVENTS;
	if (p->missed > 0) {
		commit |= BM_PAGE_MISSED_STORED;
		if (p->long_size == 8) {
			uint64_t n = p->missed;

			memcpy(at + 8 + p->used, &n, 8);
		} else {
			uint32_t n = p->missed;

			memcpy(at + 4 + p->used, &n, 4);
		}
	}
	if (p->long_size == 8) {
		memcpy(at, &commit, 8);
	} else {
		uint32_t c = commit;

		memcpy(at, &c, 4);
	}
}
