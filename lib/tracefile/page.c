// SPDX-License-Identifier: GPL-2.0-only
/* A ring-buffer page's header; its events are read inline (page.h). */
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
