// SPDX-License-Identifier: GPL-2.0-only
/*
 * A spool someone else crafted, read as a recording: its "collapsing" file
 * says where each CPU's pages are, and those are checked as a file's CPU
 * sections are (page-aligned, within the page file). A spool that fails is
 * refused, by report and by recover, with a message; one that passes reads
 * to its end. Never a read past the page file, never a hang (the suite's
 * timeout bounds each test).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/record/recover.h"
#include "blkmap/record/spool.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

#include "helpers.h"

#define NCPUS	2
#define PAGES	2	/* a CPU's */

static char dir[256], out[300];
static struct bm_spool sp = BM_SPOOL_INIT;
static struct bm_trace_meta meta;
static uint64_t region;

static void setup(void)
{
	char path[400];
	int fds[NCPUS], fd, cpu;

	snprintf(dir, sizeof(dir), "%s/blkmap-unit-crafted-spool-%d",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(out, sizeof(out), "%s.dat", dir);
	test_meta_init(&meta, NCPUS);
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_META, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(bm_trace_write(fd, path, &meta, NULL), 0);
	close(fd);
	ck_assert_msg(bm_spool_open(&sp, dir) == 0, "%s", bm_error_message());
	ck_assert_msg(bm_spool_create(&sp, NCPUS, fds, &region) == 0, "%s", bm_error_message());
	for (cpu = 0; cpu < NCPUS; cpu++) {
		for (int p = 0; p < PAGES; p++) {
			struct test_page page;

			test_page_init(&page);
			for (uint32_t i = 0; i < 10; i++)
				test_page_add(&page, 1000 + 100 * (p * 10 + i) + cpu, i);
			test_page_finish(&page, 0);
			ck_assert_int_eq(write(fds[cpu], page.data, TEST_PAGE_SIZE), TEST_PAGE_SIZE);
		}
		close(fds[cpu]);
	}
}

static void teardown(void)
{
	bm_spool_remove(&sp);
	unlink(out);
	bm_trace_meta_release(&meta);
}

/* "R header size0 size1", as a recorder killed while collapsing leaves it. */
static void write_collapsing(uint64_t r, uint64_t header, uint64_t size0, uint64_t size1)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" BM_SPOOL_COLLAPSING, dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", r, header, size0, size1);
	ck_assert_int_eq(fclose(f), 0);
}

/* Every event of the spool, read to its end; -1 if it is refused. */
static long read_spool(void)
{
	struct bm_trace *t = bm_trace_open(dir);
	struct bm_stream *s;
	struct bm_rec rec;
	long n = 0;
	int r;

	if (!t)
		return -1;
	s = bm_stream_open(t);
	ck_assert_msg(s, "%s", bm_error_message());
	while ((r = bm_stream_next(s, &rec)) > 0)
		n++;
	bm_stream_close(s);
	bm_trace_close(t);
	return n;
}

/* Refused by report and by recover, with a message saying so; the spool left as it was. */
static void refused(const char *what)
{
	struct stat st;
	char pages[400];

	ck_assert_msg(read_spool() < 0, "a spool with %s is read", what);
	ck_assert_msg(strstr(bm_error_message(), "collapsing"),
		      "the message does not name the collapsing file: %s", bm_error_message());
	ck_assert_msg(bm_recover(dir, out, NULL) < 0, "a spool with %s is recovered", what);
	ck_assert_int_ne(stat(out, &st), 0);
	snprintf(pages, sizeof(pages), "%s/" BM_SPOOL_PAGES, dir);
	ck_assert_int_eq(stat(pages, &st), 0);
}

START_TEST(an_untouched_spool_reads_to_its_end)
{
	ck_assert_int_eq(read_spool(), NCPUS * PAGES * 10);
}
END_TEST

START_TEST(sizes_of_2e40_are_refused)
{
	write_collapsing(region, TEST_PAGE_SIZE, 1ULL << 40, 1ULL << 40);
	refused("CPU sizes of 2^40");
}
END_TEST

START_TEST(sizes_past_the_page_file_are_refused)
{
	write_collapsing(region, TEST_PAGE_SIZE, PAGES * TEST_PAGE_SIZE, region);
	refused("CPU 1's pages past the page file");
}
END_TEST

START_TEST(regions_off_the_pages_are_refused)
{
	write_collapsing(region + 1, TEST_PAGE_SIZE, PAGES * TEST_PAGE_SIZE,
			 PAGES * TEST_PAGE_SIZE);
	refused("regions that are not page-aligned");
}
END_TEST

START_TEST(a_region_of_2e63_is_refused)
{
	write_collapsing(1ULL << 63, TEST_PAGE_SIZE, PAGES * TEST_PAGE_SIZE,
			 PAGES * TEST_PAGE_SIZE);
	refused("a region of 2^63");
}
END_TEST

/* A collapse not yet begun: the plan stands where the recorder wrote; sizes not whole pages are cut. */
START_TEST(a_plan_within_the_file_reads_to_its_end)
{
	write_collapsing(region, TEST_PAGE_SIZE, PAGES * TEST_PAGE_SIZE + 100,
			 PAGES * TEST_PAGE_SIZE);
	ck_assert_int_eq(read_spool(), NCPUS * PAGES * 10);
}
END_TEST

/*
 * A page file cut short (a full disk, a copy interrupted) inside the last
 * CPU's last page: the regions are where the recorder put them, and every
 * whole page there is reads.
 */
START_TEST(a_page_file_cut_short_reads_its_whole_pages)
{
	char pages[400];

	snprintf(pages, sizeof(pages), "%s/" BM_SPOOL_PAGES, dir);
	ck_assert_int_eq(truncate(pages, NCPUS * region + PAGES * TEST_PAGE_SIZE - 529), 0);
	ck_assert_int_eq(read_spool(), NCPUS * PAGES * 10 - 10);
}
END_TEST

Suite *suite_spool_read(void)
{
	Suite *s = suite_create("crafted spools");
	TCase *tc = tcase_create("collapsing file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, an_untouched_spool_reads_to_its_end);
	tcase_add_test(tc, sizes_of_2e40_are_refused);
	tcase_add_test(tc, sizes_past_the_page_file_are_refused);
	tcase_add_test(tc, regions_off_the_pages_are_refused);
	tcase_add_test(tc, a_region_of_2e63_is_refused);
	tcase_add_test(tc, a_plan_within_the_file_reads_to_its_end);
	tcase_add_test(tc, a_page_file_cut_short_reads_its_whole_pages);
	suite_add_tcase(s, tc);
	return s;
}
