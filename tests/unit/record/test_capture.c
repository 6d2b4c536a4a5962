// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU capture: a start that fails half-way touches no descriptor it did not open. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "blkmap/record/capture.h"
#include "blkmap/record/spool.h"

#include "helpers.h"

/*
 * Only one more descriptor may be opened: CPU 0's eventfd gets it, CPU 1's
 * fails. Standard input is a pipe we watch: nothing may be written to it
 * or close it.
 */
START_TEST(a_start_failing_at_a_later_cpu_leaves_fd_0_alone)
{
	struct bm_spool nowhere = { .fd = -1, .parent = -1, .path = "/nonexistent" };
	struct rlimit lim, old;
	int p[2], lowest;
	char byte;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(dup2(p[1], 0), 0);
	close(p[1]);
	lowest = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(lowest, 0);
	close(lowest);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = lowest + 1;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);

	ck_assert_ptr_null(bm_capture_start(NULL, 4, TEST_PAGE_SIZE, &nowhere, 0, -1));

	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	ck_assert_msg(fcntl(0, F_GETFD) >= 0, "fd 0 was closed");
	ck_assert_int_eq(read(p[0], &byte, 1), -1);
	ck_assert_msg(errno == EAGAIN, "something was written to fd 0");
	/* And the descriptor it did open is closed again. */
	ck_assert_int_eq(open("/dev/null", O_RDONLY), lowest);
}
END_TEST

static uint32_t put_word(char *page, uint32_t off, uint32_t v)
{
	memcpy(page + 16 + off, &v, 4);
	return off + 4;
}

/*
 * A page of 1000 ns: a 4-byte event at +5, a time extend of 2^27 + 3, an
 * 8-byte event at +7, a long event (24 bytes) at +2, a 4-byte one at +9.
 */
static uint32_t sample_page(char *page)
{
	uint64_t ts = 1000, commit;
	uint32_t off = 0;

	memset(page, 0, TEST_PAGE_SIZE);
	memcpy(page, &ts, 8);
	off = put_word(page, off, 1 | 5 << 5);
	off = put_word(page, off, 0xaaaa);
	off = put_word(page, off, 30 | 3 << 5);
	off = put_word(page, off, 1);
	off = put_word(page, off, 2 | 7 << 5);
	off = put_word(page, off, 0xbbbb);
	off = put_word(page, off, 0xbbbc);
	off = put_word(page, off, 0 | 2 << 5);
	off = put_word(page, off, 20);
	off = put_word(page, off, 0xcccc);
	off = put_word(page, off, 0xcccd);
	off = put_word(page, off, 0xccce);
	off = put_word(page, off, 0xcccf);
	off = put_word(page, off, 9 << 5 | 1);
	off = put_word(page, off, 0xdddd);
	commit = off | 1ULL << 31;	/* events lost before it: not the rest's */
	memcpy(page + 8, &commit, 8);
	return off;
}

/* The rest of a page put in part keeps every event's time. */
START_TEST(the_rest_of_a_page_starts_at_the_time_of_the_last_event_put)
{
	char page[TEST_PAGE_SIZE], orig[TEST_PAGE_SIZE];
	uint32_t len = sample_page(page);
	uint64_t ts, commit;

	memcpy(orig, page, sizeof(page));
	/* After the 8-byte event: 1000 + 5 + 2^27 + 3 + 7. */
	ck_assert_int_eq(bm_page_rest(page, 28, TEST_PAGE_SIZE), 0);
	memcpy(&ts, page, 8);
	memcpy(&commit, page + 8, 8);
	ck_assert_uint_eq(ts, 1000 + 5 + (1ULL << 27) + 3 + 7);
	ck_assert_uint_eq(commit, len - 28);
	ck_assert_mem_eq(page + 16, orig + 16 + 28, len - 28);
	ck_assert_int_eq(page[16 + len - 28], 0);
	/* After the long event as well. */
	memcpy(page, orig, sizeof(page));
	ck_assert_int_eq(bm_page_rest(page, 52, TEST_PAGE_SIZE), 0);
	memcpy(&ts, page, 8);
	ck_assert_uint_eq(ts, 1000 + 5 + (1ULL << 27) + 3 + 7 + 2);
	/* Nothing put yet: the page as it was, less the lost-events flag. */
	memcpy(page, orig, sizeof(page));
	ck_assert_int_eq(bm_page_rest(page, 0, TEST_PAGE_SIZE), 0);
	memcpy(&ts, page, 8);
	memcpy(&commit, page + 8, 8);
	ck_assert_uint_eq(ts, 1000);
	ck_assert_uint_eq(commit, len);
}
END_TEST

START_TEST(a_rest_that_would_start_inside_an_event_is_refused)
{
	char page[TEST_PAGE_SIZE], orig[TEST_PAGE_SIZE];
	uint32_t len = sample_page(page);

	memcpy(orig, page, sizeof(page));
	ck_assert_int_eq(bm_page_rest(page, 4, TEST_PAGE_SIZE), -1);
	ck_assert_int_eq(bm_page_rest(page, 32, TEST_PAGE_SIZE), -1);
	ck_assert_int_eq(bm_page_rest(page, len + 4, TEST_PAGE_SIZE), -1);
	ck_assert_mem_eq(page, orig, sizeof(page));
}
END_TEST

Suite *suite_capture(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("capture");

	tcase_add_test(tc, a_start_failing_at_a_later_cpu_leaves_fd_0_alone);
	tcase_add_test(tc, the_rest_of_a_page_starts_at_the_time_of_the_last_event_put);
	tcase_add_test(tc, a_rest_that_would_start_inside_an_event_is_refused);
	suite_add_tcase(s, tc);
	return s;
}
