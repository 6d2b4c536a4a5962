// SPDX-License-Identifier: GPL-2.0-only
/* Merging per-CPU streams by timestamp. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/error.h"
#include "blkmap/stream.h"
#include "blkmap/tracefile.h"
#include "helpers.h"

static char path[256];

static void setup(void)
{
	test_tmpname(path, sizeof(path));
}

static void teardown(void)
{
	unlink(path);
}

struct seen {
	uint64_t ts;
	int cpu;
	uint32_t seq;
};

static size_t read_seen(struct seen *out, size_t max)
{
	struct bm_trace *t = bm_trace_open(path);
	struct bm_stream *s;
	struct bm_rec rec;
	size_t n = 0;

	ck_assert_msg(t, "%s", bm_error_message());
	s = bm_stream_open(t);
	ck_assert_ptr_nonnull(s);
	while (bm_stream_next(s, &rec) > 0) {
		ck_assert_uint_lt(n, max);
		out[n].ts = rec.ts;
		out[n].cpu = rec.cpu;
		memcpy(&out[n].seq, (char *)rec.data + 8, 4);
		n++;
	}
	bm_stream_close(s);
	bm_trace_close(t);
	return n;
}

START_TEST(equal_timestamps_go_to_the_lower_cpu_and_keep_cpu_order)
{
	static const struct test_event c0[] = { { 100, 1 }, { 200, 4 }, { 200, 5 } };
	static const struct test_event c1[] = { { 100, 2 }, { 150, 3 }, { 200, 6 } };
	static const struct test_event c2[] = { { 50, 0 }, { 200, 7 } };
	const struct test_event *events[] = { c0, c1, c2 };
	size_t counts[] = { 3, 3, 2 };
	static const struct { uint64_t ts; int cpu; uint32_t seq; } want[] = {
		{ 50, 2, 0 }, { 100, 0, 1 }, { 100, 1, 2 }, { 150, 1, 3 },
		{ 200, 0, 4 }, { 200, 0, 5 }, { 200, 1, 6 }, { 200, 2, 7 },
	};
	struct seen got[16];
	size_t i, n;

	test_write_trace(path, 3, events, counts);
	n = read_seen(got, 16);
	ck_assert_uint_eq(n, 8);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(got[i].ts, want[i].ts);
		ck_assert_int_eq(got[i].cpu, want[i].cpu);
		ck_assert_uint_eq(got[i].seq, want[i].seq);
	}
}
END_TEST

START_TEST(many_pages_long_gaps_and_an_empty_cpu)
{
	enum { N = 20000 };
	struct test_event *c0 = calloc(N, sizeof(*c0)), *c2 = calloc(N, sizeof(*c2));
	const struct test_event *events[] = { c0, NULL, c2 };
	size_t counts[] = { N, 0, N };
	struct seen *got = calloc(2 * N, sizeof(*got));
	uint64_t ts = 1;
	size_t i, n;

	/* Gaps up to ~1 s need time-extend entries; pages fill after ~200 events. */
	for (i = 0; i < N; i++) {
		ts += (i % 97 == 0) ? 900000000ULL : 1000 + i % 7;
		c0[i].ts = ts;
		c0[i].seq = 2 * i;
		c2[i].ts = ts + 1;
		c2[i].seq = 2 * i + 1;
	}
	test_write_trace(path, 3, events, counts);
	n = read_seen(got, 2 * N);
	ck_assert_uint_eq(n, 2 * N);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(got[i].seq, i);
		ck_assert_uint_eq(got[i].ts, (i % 2) ? c2[i / 2].ts : c0[i / 2].ts);
	}
	free(c0);
	free(c2);
	free(got);
}
END_TEST

START_TEST(rewind_replays_the_same_stream)
{
	static const struct test_event c0[] = { { 10, 1 }, { 30, 3 } };
	static const struct test_event c1[] = { { 20, 2 } };
	const struct test_event *events[] = { c0, c1 };
	size_t counts[] = { 2, 1 };
	struct bm_trace *t;
	struct bm_stream *s;
	struct bm_rec rec;
	uint64_t first[3];
	int pass, n;

	test_write_trace(path, 2, events, counts);
	t = bm_trace_open(path);
	s = bm_stream_open(t);
	for (pass = 0; pass < 2; pass++) {
		for (n = 0; bm_stream_next(s, &rec) > 0; n++) {
			if (pass == 0)
				first[n] = rec.ts;
			else
				ck_assert_uint_eq(rec.ts, first[n]);
		}
		ck_assert_int_eq(n, 3);
		ck_assert_int_eq(bm_stream_rewind(s), 0);
	}
	bm_stream_close(s);
	bm_trace_close(t);
}
END_TEST

Suite *suite_merge(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("merge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, equal_timestamps_go_to_the_lower_cpu_and_keep_cpu_order);
	tcase_add_test(tc, many_pages_long_gaps_and_an_empty_cpu);
	tcase_add_test(tc, rewind_replays_the_same_stream);
	suite_add_tcase(s, tc);
	return s;
}
