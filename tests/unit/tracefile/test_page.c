// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring-buffer page reader (page.h) against libtraceevent's kbuffer:
 * on hand-built pages with every kind of entry, in both byte orders and
 * long sizes, and on every page of the recorded fixtures, the two must
 * find the same events at the same times.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "blkmap/tracefile/page.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

#include "helpers.h"


/* A page as a writer of the given byte order and long size lays it out. */
struct raw_page {
	struct bm_page_format f;
	unsigned char data[TEST_PAGE_SIZE];
	size_t at;		/* write position */
};

static void put32(struct raw_page *p, uint32_t v)
{
	if (p->f.swap)
		v = __builtin_bswap32(v);
	memcpy(p->data + p->at, &v, 4);
	p->at += 4;
}

static void put_header(struct raw_page *p, uint32_t type_len, uint32_t delta)
{
	put32(p, p->f.big_endian ? type_len << 27 | delta : delta << 5 | type_len);
}

static void raw_init(struct raw_page *p, bool big_endian, int long_size, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	p->f.page_size = TEST_PAGE_SIZE;
	p->f.long_size = long_size;
	p->f.big_endian = big_endian;
	p->f.swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (p->f.swap)
		ts = __builtin_bswap64(ts);
	memcpy(p->data, &ts, 8);
	p->at = bm_page_header_size(&p->f);
}

/* An event of @words u32 of payload, each word its index + @tag. */
static void raw_event(struct raw_page *p, uint32_t delta, unsigned words, uint32_t tag)
{
	unsigned i;

	put_header(p, words, delta);
	for (i = 0; i < words; i++)
		put32(p, tag + i);
}

/* commit = bytes of events, with flags and a stored count if @missed. */
static void raw_finish(struct raw_page *p, uint64_t flags, uint64_t count)
{
	uint64_t commit = (p->at - bm_page_header_size(&p->f)) | flags;

	if (p->f.long_size == 8) {
		if (p->f.swap)
			commit = __builtin_bswap64(commit);
		memcpy(p->data + 8, &commit, 8);
	} else {
		uint32_t c = commit;

		if (p->f.swap)
			c = __builtin_bswap32(c);
		memcpy(p->data + 8, &c, 4);
	}
	if (flags & BM_PAGE_MISSED_STORED) {
		size_t at = p->at;

		if (p->f.long_size == 8) {
			put32(p, p->f.swap == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? count : 0);
			put32(p, p->f.swap == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ? 0 : count);
		} else {
			put32(p, count);
		}
		p->at = at;
	}
}

/* Both readers over @page; returns the events found (they must agree). */
static int compare_readers(const void *page, const struct bm_page_format *f)
{
	struct kbuffer *kb = kbuffer_alloc(f->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   f->big_endian ? KBUFFER_ENDIAN_BIG :
					   KBUFFER_ENDIAN_LITTLE);
	unsigned long long kts;
	struct bm_page_event ev;
	struct bm_page p;
	const char *why = NULL;
	int64_t missed;
	void *kdata;
	int n = 0, r;

	ck_assert_ptr_nonnull(kb);
	ck_assert_int_eq(kbuffer_load_subbuffer(kb, (void *)page), 0);
	ck_assert_int_eq(bm_page_load(&p, f, page, &missed, &why), 0);
	ck_assert_int_eq(missed, kbuffer_missed_events(kb) ? kbuffer_missed_events(kb) : 0);
	kdata = kbuffer_read_event(kb, &kts);
	while ((r = bm_page_next(&p, &ev, &why)) > 0) {
		ck_assert_msg(kdata, "event %d: only the page reader finds it", n);
		ck_assert_ptr_eq(ev.data, kdata);
		ck_assert_uint_eq(ev.size, kbuffer_event_size(kb));
		ck_assert_uint_eq(p.ts, kts);
		kdata = kbuffer_next_event(kb, &kts);
		n++;
	}
	ck_assert_msg(r == 0, "page reader: %s", why);
	ck_assert_msg(!kdata, "event %d: only kbuffer finds it", n);
	kbuffer_free(kb);
	return n;
}

static const struct {
	bool big_endian;
	int long_size;
} layouts[] = { { false, 8 }, { true, 8 }, { false, 4 }, { true, 4 } };

START_TEST(every_kind_of_entry_in_every_layout)
{
	struct raw_page p;
	struct bm_page_format f;
	struct bm_page reader;
	struct bm_page_event ev;
	const char *why;
	int64_t missed;
	uint64_t t0 = 1000000007ULL;

	raw_init(&p, layouts[_i].big_endian, layouts[_i].long_size, t0);
	raw_event(&p, 0, 3, 100);		/* t0 */
	raw_event(&p, 5, 28, 200);		/* the longest short event */
	put_header(&p, 0, 7);			/* a long event: 130 bytes of data */
	put32(&p, 130 + 4);
	for (int i = 0; i < 33; i++)
		put32(&p, 300 + i);
	put_header(&p, 30, 11);			/* time extend */
	put32(&p, 3);
	raw_event(&p, 0, 1, 400);
	put_header(&p, 29, 9);			/* a discarded event of 12 bytes */
	put32(&p, 12);
	put32(&p, 0xdead);
	put32(&p, 0xbeef);
	raw_event(&p, 2, 2, 500);
	put_header(&p, 31, 12345);		/* absolute time stamp */
	put32(&p, 77);
	raw_event(&p, 1, 1, 600);
	raw_finish(&p, BM_PAGE_MISSED_EVENTS | BM_PAGE_MISSED_STORED, 42);
	f = p.f;
	ck_assert_int_eq(compare_readers(p.data, &f), 6);

	/* And the times, written out: */
	ck_assert_int_eq(bm_page_load(&reader, &f, p.data, &missed, &why), 0);
	ck_assert_int_eq(missed, 42);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_uint_eq(reader.ts, t0);
	ck_assert_uint_eq(ev.size, 12);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_uint_eq(reader.ts, t0 + 5);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_uint_eq(reader.ts, t0 + 12);
	ck_assert_uint_eq(ev.size, 132);	/* rounded up, as kbuffer reports it */
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_uint_eq(reader.ts, t0 + 12 + (3ULL << 27) + 11);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_uint_eq(reader.ts, t0 + 12 + (3ULL << 27) + 11 + 9 + 2);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_uint_eq(reader.ts, (77ULL << 27 | 12345) + 1);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 0);
}
END_TEST

START_TEST(padding_ends_the_page_and_losses_without_a_count)
{
	struct raw_page p;
	struct bm_page reader;
	struct bm_page_event ev;
	const char *why;
	int64_t missed;

	raw_init(&p, false, 8, 10);
	raw_event(&p, 0, 1, 1);
	put_header(&p, 29, 0);	/* padding to the end: nothing after it counts */
	raw_event(&p, 1, 1, 2);
	raw_finish(&p, BM_PAGE_MISSED_EVENTS, 0);
	ck_assert_int_eq(bm_page_load(&reader, &p.f, p.data, &missed, &why), 0);
	ck_assert_int_eq(missed, -1);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 0);
}
END_TEST

START_TEST(a_damaged_page_is_refused)
{
	struct raw_page p;
	struct bm_page reader;
	struct bm_page_event ev;
	const char *why = NULL;
	int64_t missed;
	uint64_t commit;

	/* An event longer than the page's data. */
	raw_init(&p, false, 8, 10);
	raw_event(&p, 0, 2, 1);
	put_header(&p, 0, 1);
	put32(&p, 4000);
	raw_finish(&p, 0, 0);
	ck_assert_int_eq(bm_page_load(&reader, &p.f, p.data, &missed, &why), 0);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), 1);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), -1);
	ck_assert_ptr_nonnull(why);

	/* A long event whose length cannot hold itself. */
	raw_init(&p, false, 8, 10);
	put_header(&p, 0, 1);
	put32(&p, 3);
	raw_finish(&p, 0, 0);
	ck_assert_int_eq(bm_page_load(&reader, &p.f, p.data, &missed, &why), 0);
	ck_assert_int_eq(bm_page_next(&reader, &ev, &why), -1);

	/* A commit beyond the page, and a stored count that does not fit. */
	raw_init(&p, false, 8, 10);
	commit = TEST_PAGE_SIZE;
	memcpy(p.data + 8, &commit, 8);
	ck_assert_int_eq(bm_page_load(&reader, &p.f, p.data, &missed, &why), -1);
	commit = (TEST_PAGE_SIZE - 16 - 4) | BM_PAGE_MISSED_EVENTS | BM_PAGE_MISSED_STORED;
	memcpy(p.data + 8, &commit, 8);
	ck_assert_int_eq(bm_page_load(&reader, &p.f, p.data, &missed, &why), -1);
}
END_TEST

/* Every page of every recorded fixture. */
START_TEST(recorded_pages_read_alike)
{
	const char *data = getenv("TEST_DATA_DIR") ? getenv("TEST_DATA_DIR") : "tests/data";
	DIR *dir = opendir(data);
	struct dirent *de;
	int files = 0;
	long events = 0;

	ck_assert_msg(dir, "%s: set TEST_DATA_DIR to tests/data", data);
	while ((de = readdir(dir))) {
		const struct bm_trace_meta *m;
		struct bm_page_format f;
		struct tep_handle *tep;
		struct bm_trace *t;
		char path[512];
		unsigned char *page;
		size_t len = strlen(de->d_name);

		if (len < 4 || strcmp(de->d_name + len - 4, ".dat"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", data, de->d_name);
		t = bm_trace_open(path);
		ck_assert_msg(t, "%s", bm_error_message());
		m = bm_trace_get_meta(t);
		tep = bm_trace_tep(t);
		f.page_size = m->page_size;
		f.long_size = tep_get_long_size(tep);
		f.big_endian = tep_is_file_bigendian(tep);
		f.swap = f.big_endian != tep_is_local_bigendian(tep);
		page = malloc(m->page_size);
		for (int cpu = 0; cpu < m->ncpus; cpu++) {
			const struct bm_cpu_data *c = bm_trace_cpu(t, cpu);

			for (uint64_t off = 0; off < c->size; off += m->page_size) {
				ck_assert_int_eq(pread(c->fd, page, m->page_size, c->offset + off),
						 m->page_size);
				events += compare_readers(page, &f);
			}
		}
		free(page);
		bm_trace_close(t);
		files++;
	}
	closedir(dir);
	ck_assert_int_ge(files, 4);
	ck_assert_int_gt(events, 500);
}
END_TEST

/*
 * Pages written by the packer read back alike in both readers: small and
 * long events, deltas that need a time extend, a stored loss count, and a
 * page that takes events until it is full.
 */
START_TEST(packed_pages_read_back_in_both_readers)
{
	static const struct {
		uint64_t ts;
		uint32_t size;
	} events[] = { { 100, 4 }, { 100, 112 }, { 250, 116 }, { 250 + (1ULL << 27), 8 },
		       { 250 + (5ULL << 40), 400 }, { 250 + (5ULL << 40) + 1, 12 } };
	struct bm_page_format f = { .page_size = TEST_PAGE_SIZE, .long_size = 8,
				    .big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ };
	unsigned char page[TEST_PAGE_SIZE], data[400];
	struct bm_page_packer pk;
	struct bm_page_event ev;
	struct bm_page p;
	const char *why;
	int64_t missed;
	size_t i;
	int n;

	bm_pack_start(&pk, page, TEST_PAGE_SIZE, 8, 3);
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		memset(data, (int)i + 1, events[i].size);
		ck_assert_int_eq(bm_pack_add(&pk, events[i].ts, data, events[i].size), 0);
	}
	bm_pack_finish(&pk);
	ck_assert_int_eq(compare_readers(page, &f), (int)(sizeof(events) / sizeof(events[0])));
	ck_assert_int_eq(bm_page_load(&p, &f, page, &missed, &why), 0);
	ck_assert_int_eq(missed, 3);
	for (i = 0; bm_page_next(&p, &ev, &why) == 1; i++) {
		ck_assert_uint_eq(p.ts, events[i].ts);
		ck_assert_uint_eq(ev.size, events[i].size);
		ck_assert_int_eq(((const unsigned char *)ev.data)[events[i].size - 1], (int)i + 1);
	}
	ck_assert_uint_eq(i, sizeof(events) / sizeof(events[0]));

	/* Full: the event that does not fit is refused, and the page stays whole. */
	bm_pack_start(&pk, page, TEST_PAGE_SIZE, 8, 0);
	for (n = 0; bm_pack_add(&pk, 1000 + n, data, 100) == 0; n++)
		;
	ck_assert_int_eq(n, (TEST_PAGE_SIZE - 16) / 104);
	bm_pack_finish(&pk);
	ck_assert_int_eq(compare_readers(page, &f), n);
}
END_TEST

Suite *suite_page(void)
{
	Suite *s = suite_create("page");
	TCase *tc = tcase_create("page");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, every_kind_of_entry_in_every_layout, 0,
			    sizeof(layouts) / sizeof(layouts[0]));
	tcase_add_test(tc, padding_ends_the_page_and_losses_without_a_count);
	tcase_add_test(tc, a_damaged_page_is_refused);
	tcase_add_test(tc, recorded_pages_read_alike);
	tcase_add_test(tc, packed_pages_read_back_in_both_readers);
	suite_add_tcase(s, tc);
	return s;
}
