// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU capture: a start that fails half-way touches no descriptor it did not open. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "blkmap/record/capture.h"

#include "helpers.h"

/*
 * Only one more descriptor may be opened: CPU 0's eventfd gets it, CPU 1's
 * fails. Standard input is a pipe we watch: nothing may be written to it
 * or close it.
 */
START_TEST(a_start_failing_at_a_later_cpu_leaves_fd_0_alone)
{
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

	ck_assert_ptr_null(bm_capture_start(NULL, 4, TEST_PAGE_SIZE, "/nonexistent", 0, -1));

	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	ck_assert_msg(fcntl(0, F_GETFD) >= 0, "fd 0 was closed");
	ck_assert_int_eq(read(p[0], &byte, 1), -1);
	ck_assert_msg(errno == EAGAIN, "something was written to fd 0");
	/* And the descriptor it did open is closed again. */
	ck_assert_int_eq(open("/dev/null", O_RDONLY), lowest);
}
END_TEST

Suite *suite_capture(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("capture");

	tcase_add_test(tc, a_start_failing_at_a_later_cpu_leaves_fd_0_alone);
	suite_add_tcase(s, tc);
	return s;
}
