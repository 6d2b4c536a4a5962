// SPDX-License-Identifier: GPL-2.0-only
/* Merging per-CPU streams by timestamp. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/analyse/iofeed.h"
#include "blkmap/map/map.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

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

/*
 * Block events on @ncpus CPUs, in runs of uneven length on each (one CPU
 * with none); sector = position in time order.
 */
static void write_spread(size_t n, int ncpus)
{
	struct test_event *per[4];
	const struct test_event *events[4];
	size_t counts[4] = { 0 }, i;
	int cpu;

	ck_assert_int_le(ncpus, 4);
	for (cpu = 0; cpu < ncpus; cpu++)
		events[cpu] = per[cpu] = calloc(n, sizeof(**per));
	for (i = 0; i < n; i++) {
		cpu = ncpus == 1 ? 0 : (i / (1 + i % 7)) % (ncpus - (ncpus > 2));
		per[cpu][counts[cpu]++] = (struct test_event){ 1000 + 5 * i, i };
	}
	test_write_block_trace(path, ncpus, events, counts);
	for (cpu = 0; cpu < ncpus; cpu++)
		free(per[cpu]);
}

/*
 * The feed's events, checked to be @first, @first + 1, ... of write_spread
 * (checked without ck_assert in the loop: check writes down each one).
 */
static ssize_t feed_all(struct bm_iofeed *feed, uint32_t first)
{
	const struct bm_fed_io *io;
	uint64_t last_bytes = 0;
	ssize_t total = 0;
	int r;

	while ((r = bm_iofeed_next(feed, &io)) > 0) {
		uint64_t want = first + total;

		if (bm_iofeed_bytes_read(feed) < last_bytes || io->io.kind != BM_EV_BIO_QUEUE ||
		    io->io.sector != want || io->io.ts != 1000 + 5 * want || io->io.pid != 4242 ||
		    io->span)	/* an empty map names nothing */
			ck_abort_msg("event %zd: sector %llu at %llu, wanted %llu at %llu", total,
				     (unsigned long long)io->io.sector,
				     (unsigned long long)io->io.ts, (unsigned long long)want,
				     (unsigned long long)(1000 + 5 * want));
		last_bytes = bm_iofeed_bytes_read(feed);
		total++;
	}
	return r < 0 ? -1 : total;
}

struct opened {
	struct bm_trace *trace;
	struct bm_stream *stream;
	struct bm_decoder *dec;
	struct bm_map *map;
};

static void open_written(struct opened *o)
{
	o->trace = bm_trace_open(path);
	ck_assert_msg(o->trace, "%s", bm_error_message());
	o->stream = bm_stream_open(o->trace);
	o->dec = bm_decoder_new(bm_trace_tep(o->trace));
	o->map = bm_map_new();
	ck_assert_ptr_nonnull(o->stream);
	ck_assert_ptr_nonnull(o->dec);
	ck_assert_ptr_nonnull(o->map);
}

static void close_written(struct opened *o)
{
	bm_map_free(o->map);
	bm_decoder_free(o->dec);
	bm_stream_close(o->stream);
	bm_trace_close(o->trace);
}

START_TEST(the_feed_yields_the_merged_stream_and_its_window_whatever_the_jobs)
{
	enum { N = 30000 };	/* many batches on each CPU */
	static const int ncpus[] = { 1, 2, 3, 4 }, jobs[] = { 1, 2, 3, 8 };
	struct bm_iofeed *feed;
	struct opened o;
	size_t c, j;

	for (c = 0; c < sizeof(ncpus) / sizeof(*ncpus); c++) {
		write_spread(N, ncpus[c]);
		open_written(&o);
		for (j = 0; j < sizeof(jobs) / sizeof(*jobs); j++) {
			feed = bm_iofeed_start(o.stream, o.dec, o.map, 0, UINT64_MAX, jobs[j]);
			ck_assert_ptr_nonnull(feed);
			ck_assert_int_eq(feed_all(feed, 0), N);
			bm_iofeed_stop(feed);

			/* A window: sectors 100..20099 are at 1500..101495 ns. */
			feed = bm_iofeed_start(o.stream, o.dec, o.map, 1500, 1000 + 5 * 20099,
					       jobs[j]);
			ck_assert_int_eq(feed_all(feed, 100), 20000);
			bm_iofeed_stop(feed);

			/* Stopped after one event: workers waiting for room must end. */
			feed = bm_iofeed_start(o.stream, o.dec, o.map, 0, UINT64_MAX, jobs[j]);
			{
				const struct bm_fed_io *io;

				ck_assert_int_eq(bm_iofeed_next(feed, &io), 1);
			}
			bm_iofeed_stop(feed);
		}
		close_written(&o);
	}
}
END_TEST

/*
 * A damaged page (CPU 1's 20th: its commit beyond the page) costs its own
 * events only: every other event comes out, in order, whatever the jobs,
 * and the stream has a loss that names the page's offset and its damage.
 */
START_TEST(a_damaged_page_costs_only_its_events)
{
	enum { N = 30000 };
	uint64_t commit = 1ULL << 20;	/* more than a page holds */
	struct bm_iofeed *feed;
	const struct bm_fed_io *io;
	const struct bm_loss *losses;
	struct opened o;
	uint64_t page_at;
	int fd, jobs, r;

	for (jobs = 1; jobs <= 3; jobs++) {
		uint64_t last_ts = 0;
		ssize_t total = 0, nlosses, i, damaged = 0;

		write_spread(N, 2);
		open_written(&o);
		page_at = bm_trace_cpu(o.trace, 1)->offset + 20 * TEST_PAGE_SIZE;
		fd = open(path, O_WRONLY);
		ck_assert_int_eq(pwrite(fd, &commit, 8, page_at + 8), 8);
		close(fd);
		feed = bm_iofeed_start(o.stream, o.dec, o.map, 0, UINT64_MAX, jobs);
		while ((r = bm_iofeed_next(feed, &io)) > 0) {
			if (io->io.ts < last_ts || io->io.ts != 1000 + 5 * io->io.sector)
				ck_abort_msg("event %zd out of order or changed", total);
			last_ts = io->io.ts;
			total++;
		}
		ck_assert_msg(r == 0, "%s", bm_error_message());
		bm_iofeed_stop(feed);
		/* A page holds at most a 16-byte event (header and 12 bytes) each 16 bytes. */
		ck_assert_int_lt(total, N);
		ck_assert_int_ge(total, N - TEST_PAGE_SIZE / 16);
		nlosses = bm_stream_losses(o.stream, &losses);
		for (i = 0; i < nlosses; i++)
			if (losses[i].damaged_at) {
				ck_assert_uint_eq(losses[i].damaged_at, page_at);
				ck_assert_int_eq(losses[i].cpu, 1);
				ck_assert_str_eq(losses[i].damage, "commit size exceeds the page");
				ck_assert_uint_lt(losses[i].from, losses[i].to);
				damaged++;
			}
		ck_assert_int_eq(damaged, 1);
		close_written(&o);
	}
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
	tcase_add_test(tc, the_feed_yields_the_merged_stream_and_its_window_whatever_the_jobs);
	tcase_add_test(tc, a_damaged_page_costs_only_its_events);
	suite_add_tcase(s, tc);
	return s;
}
