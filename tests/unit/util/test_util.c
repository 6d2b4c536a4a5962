// SPDX-License-Identifier: GPL-2.0-only
/* util/: whole writes, lines handed to a callback, the kernel's symbols. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blkmap/util/kallsyms.h"
#include "blkmap/util/sys.h"
#include "blkmap/util/tell.h"
#include "blkmap/util/tick.h"

#include "helpers.h"

START_TEST(a_full_write_goes_on_across_short_writes)
{
	size_t size = 1 << 20;
	char *buf = malloc(size), *back = malloc(size);
	int fds[2];
	pid_t child;
	size_t got = 0;
	int status;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(back);
	memset(buf, 'x', size);
	buf[size - 1] = 'y';
	/* A pipe holds 64 KiB: the writer is cut short again and again. */
	ck_assert_int_eq(pipe(fds), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		close(fds[0]);
		_exit(bm_write_full(fds[1], buf, size) == 0 ? 0 : 1);
	}
	close(fds[1]);
	while (got < size) {
		ssize_t n = read(fds[0], back + got, size - got);

		ck_assert_int_gt(n, 0);
		got += n;
	}
	ck_assert_int_eq(memcmp(buf, back, size), 0);
	close(fds[0]);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(buf);
	free(back);
}
END_TEST

/* An array grows by doubling, keeps what it held, and is left as it was when it cannot. */
START_TEST(an_array_grows_by_doubling)
{
	uint64_t *v = NULL;
	size_t n, cap = 0;

	for (n = 0; n < 100; n++) {
		ck_assert_int_eq(bm_grow(&v, n, &cap, sizeof(*v), 4), 0);
		ck_assert_uint_ge(cap, n + 1);
		v[n] = n * n;
	}
	ck_assert_uint_eq(cap, 128);
	for (n = 0; n < 100; n++)
		ck_assert_uint_eq(v[n], n * n);
	ck_assert_int_eq(bm_grow(&v, 100, &cap, sizeof(*v), 4), 0);	/* room left: as it was */
	ck_assert_uint_eq(cap, 128);
	cap = SIZE_MAX / 2 + 1;
	ck_assert_int_eq(bm_grow(&v, cap, &cap, sizeof(*v), 4), -1);
	ck_assert_uint_eq(v[99], 99 * 99);
	free(v);
}
END_TEST

START_TEST(a_failed_write_says_why)
{
	int fds[2];

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(fds), 0);
	close(fds[0]);
	errno = 0;
	ck_assert_int_eq(bm_write_full(fds[1], "abc", 3), -1);
	ck_assert_int_eq(errno, EPIPE);
	close(fds[1]);
}
END_TEST

static char told[2048];
static int times_told;

static void collect(const char *line)
{
	snprintf(told, sizeof(told), "%s", line);
	times_told++;
}

START_TEST(lines_are_told_formatted_and_cut_at_1023_bytes)
{
	char long_text[1500];

	times_told = 0;
	bm_tell(NULL, "nobody listens: %d", 1);
	bm_tell(collect, "%s %d:%d", "dev", 7, 0);
	ck_assert_str_eq(told, "dev 7:0");
	memset(long_text, 'a', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	bm_tell(collect, "%s", long_text);
	ck_assert_uint_eq(strlen(told), 1023);
	ck_assert_int_eq(times_told, 2);
}
END_TEST

struct scan {
	int seen;
	bool parsed;
};

static bool count_three(void *ctx, const struct bm_ksym *sym)
{
	struct scan *s = ctx;

	s->parsed &= sym->name[0] && sym->addr[0] && sym->type && strchr(sym->line, '\n') &&
		     !strchr(sym->name, ' ') && !strchr(sym->name, '\n');
	return ++s->seen < 3;
}

START_TEST(the_symbol_scan_stops_when_told)
{
	struct scan s = { 0, true };

	if (access("/proc/kallsyms", R_OK) != 0) {
		fprintf(stderr, "SKIP: the_symbol_scan_stops_when_told: no /proc/kallsyms\n");
		return;
	}
	ck_assert_int_eq(bm_kallsyms_scan(count_three, &s), 0);
	ck_assert_int_eq(s.seen, 3);
	ck_assert(s.parsed);
}
END_TEST

/* Lines of real /proc/timer_list files: this machine's (6.18), a guest's seconds after boot. */
START_TEST(the_kernel_s_tick_is_read_from_its_timer_list)
{
	struct bm_tick t = bm_tick_parse("now at 10461947096860 nsecs\n"
					 "  .last_tick      : 10461804000000 nsecs\n"
					 "jiffies: 4297507716\n");

	ck_assert_uint_eq(t.ns, 4000000);	/* HZ=250 */
	ck_assert_uint_eq(t.at, 10461804000000ULL);
	/* 5 s after boot, at HZ=1000: jiffies is still below 2^32 */
	t = bm_tick_parse("now at 5000000000 nsecs\n  .last_tick      : 4999000000 nsecs\n"
			  "jiffies: 4294672296\n");
	ck_assert_uint_eq(t.ns, 1000000);
	/* A 32-bit kernel's jiffies, wrapped past 2^32 five minutes after boot */
	t = bm_tick_parse("now at 10461947096860 nsecs\n  .last_tick      : 10461804000000 nsecs\n"
			  "jiffies: 2540420\n");
	ck_assert_uint_eq(t.ns, 4000000);
	t = bm_tick_parse("now at 5000000000 nsecs\n  .last_tick      : 4999000000 nsecs\n"
			  "jiffies: 12\n");
	ck_assert_uint_eq(t.ns, 0);	/* says no HZ */
	t = bm_tick_parse("now at 5000000000 nsecs\njiffies: 4294672296\n");
	ck_assert_uint_eq(t.ns, 0);	/* no tick's time */
	t = (struct bm_tick){ 4000000, 10000000 };
	ck_assert_uint_eq(bm_tick_floor(&t, 10000000), 10000000);
	ck_assert_uint_eq(bm_tick_floor(&t, 17999999), 14000000);
	ck_assert_uint_eq(bm_tick_floor(&t, 9999999), 6000000);
	ck_assert_uint_eq(bm_tick_floor(&t, 6000000), 6000000);
	t.ns = 0;
	ck_assert_uint_eq(bm_tick_floor(&t, 17999999), 17999999);
}
END_TEST

Suite *suite_util(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");

	tcase_add_test(tc, a_full_write_goes_on_across_short_writes);
	tcase_add_test(tc, a_failed_write_says_why);
	tcase_add_test(tc, an_array_grows_by_doubling);
	tcase_add_test(tc, lines_are_told_formatted_and_cut_at_1023_bytes);
	tcase_add_test(tc, the_symbol_scan_stops_when_told);
	tcase_add_test(tc, the_kernel_s_tick_is_read_from_its_timer_list);
	suite_add_tcase(s, tc);
	return s;
}
