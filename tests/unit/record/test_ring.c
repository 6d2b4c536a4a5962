// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder's ring (ring.h): of pages that leave it, the map
 * records and only those are kept, ticks thinned, losses carried; the file
 * it writes holds them, then the ring's pages, and marks where the window
 * of events starts.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/record/output.h"
#include "blkmap/record/ring.h"
#include "blkmap/tracefile/page.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

#include "helpers.h"

#define PRINT_ID	5
#define BLOCK_ID	TEST_EVENT_ID
#define NPAGES		20
#define SLOTS		8

/* A meta with print and a block event, written as a trace file without pages. */
static void write_meta(const char *path, struct bm_trace_meta *meta)
{
	int fd;

	test_meta_init(meta, 1);
	free(meta->formats[0].system);
	free(meta->formats[0].text);
	meta->nformats = 0;
	bm_trace_meta_add_format(meta, "ftrace", test_print_format, strlen(test_print_format));
	bm_trace_meta_add_format(meta, "block", test_block_format, strlen(test_block_format));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bm_trace_write(fd, path, meta, NULL), 0);
	close(fd);
}

static void add_block(struct bm_page_packer *p, uint64_t ts, uint32_t sector)
{
	uint32_t rec[3] = { BLOCK_ID, 4242, sector };

	ck_assert_int_eq(bm_pack_add(p, ts, rec, sizeof(rec)), 0);
}

static void add_print(struct bm_page_packer *p, uint64_t ts, const char *text)
{
	unsigned char rec[128] = { 0 };
	uint16_t id = PRINT_ID;
	uint32_t size = (16 + strlen(text) + 1 + 3) & ~3U;

	memcpy(rec, &id, 2);
	memcpy(rec + 16, text, strlen(text));
	ck_assert_int_eq(bm_pack_add(p, ts, rec, size), 0);
}

/*
 * Page i: a block event of sector i at time 1000 i; page 1 lost 7 events
 * before it; a dump marker on page 2, idle markers on 3, 4, 5 and 9, a
 * uevent marker on page 6.
 */
static void make_page(unsigned char *page, int i)
{
	struct bm_page_packer p;
	uint64_t ts = 1000 * (uint64_t)(i + 1);

	bm_pack_start(&p, page, TEST_PAGE_SIZE, 8, i == 1 ? 7 : 0);
	add_block(&p, ts, i);
	if (i == 2)
		add_print(&p, ts + 1, "blkmap:dump id=1 dev=7:0 name=loop0\n");
	if (i == 3 || i == 4 || i == 5 || i == 9)
		add_print(&p, ts + 2, "blkmap:uevent-idle\n");
	if (i == 6)
		add_print(&p, ts + 3, "blkmap:uevent action=add\n");
	bm_pack_finish(&p);
}

struct seen {
	uint64_t ts;
	uint16_t id;
	char text[64];
	int64_t missed;		/* of the page it was on */
};

/* Every event of CPU 0 of @path, in order. */
static int read_back(const char *path, struct seen *out, int max)
{
	struct bm_trace *t = bm_trace_open(path);
	const struct bm_cpu_data *cpu;
	struct bm_page_format f = { .page_size = TEST_PAGE_SIZE, .long_size = 8 };
	unsigned char page[TEST_PAGE_SIZE];
	uint64_t at;
	int n = 0;

	ck_assert_msg(t != NULL, "%s", bm_error_message());
	cpu = bm_trace_cpu(t, 0);
	for (at = 0; at < cpu->size; at += TEST_PAGE_SIZE) {
		struct bm_page_event ev;
		struct bm_page p;
		const char *why;
		int64_t missed;

		ck_assert_int_eq(pread(cpu->fd, page, TEST_PAGE_SIZE, cpu->offset + at),
				 TEST_PAGE_SIZE);
		ck_assert_int_eq(bm_page_load(&p, &f, page, &missed, &why), 0);
		while (bm_page_next(&p, &ev, &why) == 1 && n < max) {
			out[n] = (struct seen){ .ts = p.ts, .missed = missed };
			memcpy(&out[n].id, ev.data, 2);
			if (out[n].id == PRINT_ID)
				snprintf(out[n].text, sizeof(out[n].text), "%s",
					 (const char *)ev.data + 16);
			out[n].text[strcspn(out[n].text, "\n")] = '\0';
			missed = 0;
			n++;
		}
	}
	bm_trace_close(t);
	return n;
}

/* bm_ring_write() and bm_ring_snapshot() into the file @path. */
static int ring_out(struct bm_ring *r, const struct bm_trace_meta *m, const char *path,
		    enum bm_compression compression, uint64_t *bytes, bool snapshot)
{
	struct bm_output o;
	int ret;

	ck_assert_msg(bm_output_open(&o, path) == 0, "%s", bm_error_message());
	ret = snapshot ? bm_ring_snapshot(r, m, &o, compression, bytes) :
			 bm_ring_write(r, m, &o, compression, bytes);
	bm_output_close(&o);
	return ret;
}

static int ring_write(struct bm_ring *r, const struct bm_trace_meta *m, const char *path,
		      enum bm_compression compression, uint64_t *bytes)
{
	return ring_out(r, m, path, compression, bytes, false);
}

static int ring_snapshot(struct bm_ring *r, const struct bm_trace_meta *m, const char *path,
			 enum bm_compression compression, uint64_t *bytes)
{
	return ring_out(r, m, path, compression, bytes, true);
}

static struct bm_ring *ring_of(char *dir, size_t size, int *fd)
{
	char path[300];
	struct bm_ring *ring;
	int dfd;

	snprintf(dir, size, "%s/blkmap-ring-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pages", dir);
	*fd = open(path, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(*fd, 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	ring = bm_ring_new(dfd, dir, 1, TEST_PAGE_SIZE, SLOTS * TEST_PAGE_SIZE, fd, 0);
	close(dfd);
	ck_assert_msg(ring != NULL, "%s", bm_error_message());
	return ring;
}

/* Each test's ring, its recording's formats, and where it writes. */
static struct bm_trace_meta meta;
static char dir[256], meta_path[256], out[256];
static struct bm_ring *r;
static int fd;

static void setup(void)
{
	test_tmpname(meta_path, sizeof(meta_path));
	test_tmpname(out, sizeof(out));
	write_meta(meta_path, &meta);
	r = ring_of(dir, sizeof(dir), &fd);
}

static void teardown(void)
{
	char path[300];

	bm_ring_free(r);
	close(fd);
	snprintf(path, sizeof(path), "%s/pages", dir);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0);	/* the ring left nothing else */
	unlink(out);
	unlink(meta_path);
	bm_trace_meta_release(&meta);
}

START_TEST(pages_leaving_the_ring_leave_their_map_records_behind)
{
	unsigned char pages[NPAGES][TEST_PAGE_SIZE];
	struct seen seen[64];
	int i, n, k = 0;

	ck_assert_msg(bm_ring_learn(r, meta_path) == 0, "%s", bm_error_message());
	for (i = 0; i < NPAGES; i++)
		make_page(pages[i], i);
	/* In uneven batches, as a capture thread reads them. */
	for (i = 0; i < NPAGES; i += 3)
		ck_assert_int_eq(bm_ring_put(r, 0, pages[i], NPAGES - i < 3 ? NPAGES - i : 3), 0);
	ck_assert_msg(ring_write(r, &meta, out, BM_COMPRESS_NONE, NULL) == 0, "%s",
		      bm_error_message());
	n = read_back(out, seen, 64);

	/* Kept: the loss before page 1, the dump, the idle marker before the uevent... */
	ck_assert_int_eq(seen[k].missed, 7);
	ck_assert_str_eq(seen[k].text, "blkmap:dump id=1 dev=7:0 name=loop0");
	ck_assert_uint_eq(seen[k++].ts, 3001);
	ck_assert_str_eq(seen[k].text, "blkmap:uevent-idle");
	ck_assert_uint_eq(seen[k++].ts, 6002);
	ck_assert_str_eq(seen[k].text, "blkmap:uevent action=add");
	ck_assert_uint_eq(seen[k++].ts, 7003);
	/* ...and the last idle marker before the window, which starts at page 12. */
	ck_assert_str_eq(seen[k].text, "blkmap:uevent-idle");
	ck_assert_uint_eq(seen[k++].ts, 10002);
	ck_assert_str_eq(seen[k].text, "blkmap:window-begin");
	ck_assert_uint_eq(seen[k++].ts, 13000);
	/* No block event of a page that left; every one of the ring's. */
	for (i = NPAGES - SLOTS; i < NPAGES; i++, k++) {
		ck_assert_int_eq(seen[k].id, BLOCK_ID);
		ck_assert_uint_eq(seen[k].ts, 1000 * (uint64_t)(i + 1));
	}
	ck_assert_int_eq(n, k);
}
END_TEST

START_TEST(until_the_formats_are_known_pages_leaving_are_kept_whole)
{
	unsigned char pages[SLOTS + 2][TEST_PAGE_SIZE];
	struct seen seen[64];
	int i, n, blocks = 0;

	for (i = 0; i < SLOTS + 2; i++) {
		make_page(pages[i], i);
		ck_assert_int_eq(bm_ring_put(r, 0, pages[i], 1), 0);
	}
	ck_assert_int_eq(ring_write(r, &meta, out, BM_COMPRESS_NONE, NULL), 0);
	n = read_back(out, seen, 64);
	for (i = 0; i < n; i++)
		blocks += seen[i].id == BLOCK_ID;
	ck_assert_int_eq(blocks, SLOTS + 2);
	for (i = 1; i < n; i++)
		ck_assert_uint_ge(seen[i].ts, seen[i - 1].ts);
}
END_TEST

/* Equal files: a snapshot copies the rings aside, the last write-out writes from them. */
static bool same_bytes(const char *a, const char *b)
{
	static char da[1 << 20], db[1 << 20];
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	ssize_t na = read(fa, da, sizeof(da)), nb = read(fb, db, sizeof(db));

	close(fa);
	close(fb);
	return na > 0 && na == nb && memcmp(da, db, na) == 0;
}

START_TEST(a_snapshot_holds_what_the_last_write_out_holds)
{
	unsigned char pages[NPAGES][TEST_PAGE_SIZE];
	char snap[256];
	int i;

	test_tmpname(snap, sizeof(snap));
	ck_assert_msg(bm_ring_learn(r, meta_path) == 0, "%s", bm_error_message());
	for (i = 0; i < NPAGES; i++)
		make_page(pages[i], i);
	ck_assert_int_eq(bm_ring_put(r, 0, pages[0], NPAGES), 0);
	ck_assert_msg(ring_snapshot(r, &meta, snap, BM_COMPRESS_NONE, NULL) == 0, "%s",
		      bm_error_message());
	ck_assert_int_eq(ring_write(r, &meta, out, BM_COMPRESS_NONE, NULL), 0);
	ck_assert(same_bytes(snap, out));
	/* The ring goes on: the next snapshot holds the new pages. */
	ck_assert_int_eq(bm_ring_put(r, 0, pages[3], 1), 0);
	unlink(snap);
	ck_assert_int_eq(ring_snapshot(r, &meta, snap, BM_COMPRESS_NONE, NULL), 0);
	ck_assert(!same_bytes(snap, out));
	unlink(snap);
}
END_TEST

/*
 * A hold keeps every page the ring had and every page since, whole, in
 * time order and with no window mark (nothing was let go), and says once
 * when it has held a ring's worth; released, the held pages leave as
 * pages do, their map records kept, and the next file marks its window.
 */
START_TEST(a_hold_keeps_every_page_until_released)
{
	unsigned char pages[NPAGES][TEST_PAGE_SIZE];
	struct seen seen[64];
	int i, n, k, full = 0;

	ck_assert_msg(bm_ring_learn(r, meta_path) == 0, "%s", bm_error_message());
	for (i = 0; i < NPAGES; i++)
		make_page(pages[i], i);
	ck_assert_int_eq(bm_ring_put(r, 0, pages[0], 3), 0);
	bm_ring_hold(r);
	for (i = 3; i < NPAGES; i += 2) {
		int got = bm_ring_put(r, 0, pages[i], NPAGES - i < 2 ? NPAGES - i : 2);

		ck_assert_int_ge(got, 0);
		full += got;
		/* Held: SLOTS pages once NPAGES - SLOTS... have left, page SLOTS - 1 the last. */
		ck_assert_int_eq(bm_ring_hold_full(r), i + 2 > 2 * SLOTS - 1);
	}
	ck_assert_int_eq(full, 1);
	ck_assert_msg(ring_write(r, &meta, out, BM_COMPRESS_NONE, NULL) == 0, "%s",
		      bm_error_message());
	n = read_back(out, seen, 64);
	for (i = k = 0; k < n; k++) {
		ck_assert_str_ne(seen[k].text, "blkmap:window-begin");
		if (seen[k].id != BLOCK_ID)
			continue;
		ck_assert_uint_eq(seen[k].ts, 1000 * (uint64_t)(i + 1));
		i++;
	}
	ck_assert_int_eq(i, NPAGES);

	ck_assert_int_eq(bm_ring_release(r, bm_ring_hold_gen(r)), 0);
	ck_assert(!bm_ring_hold_full(r));
	unlink(out);
	ck_assert_int_eq(ring_write(r, &meta, out, BM_COMPRESS_NONE, NULL), 0);
	n = read_back(out, seen, 64);
	for (i = k = 0; k < n; k++)
		i += seen[k].id == BLOCK_ID;
	ck_assert_int_eq(i, SLOTS);
	for (k = 0; k < n && strcmp(seen[k].text, "blkmap:dump id=1 dev=7:0 name=loop0"); k++)
		;
	ck_assert_int_lt(k, n);
	for (; k < n && strcmp(seen[k].text, "blkmap:window-begin"); k++)
		;
	ck_assert_int_lt(k, n);
}
END_TEST

/* A hold begun after the main loop looked survives the release it then asks for. */
START_TEST(a_hold_begun_since_the_release_was_asked_for_goes_on)
{
	unsigned char pages[NPAGES][TEST_PAGE_SIZE];
	struct seen seen[64];
	uint64_t gen;
	int i, n, k;

	ck_assert_msg(bm_ring_learn(r, meta_path) == 0, "%s", bm_error_message());
	for (i = 0; i < NPAGES; i++)
		make_page(pages[i], i);
	ck_assert_int_eq(bm_ring_put(r, 0, pages[0], SLOTS + 2), 0);
	bm_ring_hold(r);
	gen = bm_ring_hold_gen(r);
	ck_assert_int_eq(bm_ring_put(r, 0, pages[SLOTS + 2], 2), 0);
	bm_ring_hold(r);	/* a second slow I/O */
	ck_assert_int_eq(bm_ring_release(r, gen), 0);
	ck_assert_int_eq(bm_ring_put(r, 0, pages[SLOTS + 4], 3), 0);
	ck_assert_int_eq(ring_write(r, &meta, out, BM_COMPRESS_NONE, NULL), 0);
	n = read_back(out, seen, 64);
	for (i = k = 0; k < n; k++)
		i += seen[k].id == BLOCK_ID;
	/* The ring, and the 3 pages that left it since the release. */
	ck_assert_int_eq(i, SLOTS + 3);
	ck_assert_int_eq(bm_ring_release(r, bm_ring_hold_gen(r)), 0);
	ck_assert_int_eq(bm_ring_put(r, 0, pages[SLOTS + 7], 1), 0);
	unlink(out);
	ck_assert_int_eq(ring_write(r, &meta, out, BM_COMPRESS_NONE, NULL), 0);
	n = read_back(out, seen, 64);
	for (i = k = 0; k < n; k++)
		i += seen[k].id == BLOCK_ID;
	ck_assert_int_eq(i, SLOTS);
}
END_TEST

START_TEST(a_ring_too_small_is_refused_with_the_least_size)
{
	int fds[2] = { -1, -1 };

	ck_assert_ptr_null(bm_ring_new(-1, "/tmp", 2, TEST_PAGE_SIZE, 7 * 2 * TEST_PAGE_SIZE, fds, 0));
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "at least 64 KiB"));
}
END_TEST

Suite *suite_ring(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("ring");
	TCase *sizes = tcase_create("sizes");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pages_leaving_the_ring_leave_their_map_records_behind);
	tcase_add_test(tc, until_the_formats_are_known_pages_leaving_are_kept_whole);
	tcase_add_test(tc, a_snapshot_holds_what_the_last_write_out_holds);
	tcase_add_test(tc, a_hold_keeps_every_page_until_released);
	tcase_add_test(tc, a_hold_begun_since_the_release_was_asked_for_goes_on);
	tcase_add_test(sizes, a_ring_too_small_is_refused_with_the_least_size);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sizes);
	return s;
}
