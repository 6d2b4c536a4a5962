// SPDX-License-Identifier: GPL-2.0-only
/* Analyses: hand-computed latencies, counts, partitions, percentiles. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/map/map.h"

#include "helpers.h"

#define US 1000ULL
#define DISK BM_MKDEV(7, 0)
#define PART BM_MKDEV(259, 0)

static struct bm_span disk_span = { .dev = DISK, .name = "loop0", .kind = BM_DISK };
static struct bm_span part_span = { .dev = PART, .name = "loop0p1", .kind = BM_PARTITION,
				    .parent = "loop0" };

static void event(struct bm_analysis *a, enum bm_kind kind, uint64_t ts, uint64_t sector,
		  uint32_t sectors, const char *rwbs)
{
	struct bm_io ev = { .ts = ts, .kind = kind, .dev = DISK, .sector = sector,
			    .nr_sector = sectors, .pid = 42 };

	ev.op = bm_rwbs_op(rwbs, sectors);
	ev.flags = bm_io_flags(&ev, rwbs, (int)strlen(rwbs));
	if (kind == BM_EV_BIO_REMAP)
		ev.old_dev = PART;
	bm_analysis_event(a, &ev, &disk_span, kind == BM_EV_BIO_REMAP ? &part_span : NULL);
}

static const struct bm_disk_stats *find(const struct bm_analysis *a, uint32_t dev)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks);

	for (i = 0; i < n; i++)
		if (disks[i]->dev == dev)
			return disks[i];
	return NULL;
}

START_TEST(request_latencies_match_a_hand_computation)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_disk_stats *d;

	/* Three writes of 4 KiB: Q, D, C at these times (µs). */
	static const uint64_t q[] = { 0, 100, 200 }, dd[] = { 10, 150, 1200 }, c[] = { 110, 400, 1300 };
	int i;

	for (i = 0; i < 3; i++)
		event(a, BM_EV_BIO_QUEUE, q[i] * US, 1000 + 8 * i, 8, "W");
	for (i = 0; i < 3; i++) {
		event(a, BM_EV_RQ_ISSUE, dd[i] * US, 1000 + 8 * i, 8, "W");
		event(a, BM_EV_RQ_COMPLETE, c[i] * US, 1000 + 8 * i, 8, "W");
	}
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->model, BM_IO_REQUEST);
	ck_assert_uint_eq(d->writes, 3);
	ck_assert_uint_eq(d->write_bytes, 3 * 4096);
	ck_assert_uint_eq(d->reads, 0);
	/* D2C: 100, 250, 100 µs; Q2C: 110, 300, 1100 µs. */
	ck_assert_uint_eq(d->d2c.count, 3);
	ck_assert_uint_eq(d->d2c.sum, 450 * US);
	ck_assert_uint_eq(d->d2c.max, 250 * US);
	ck_assert_uint_eq(d->d2c.min, 100 * US);
	ck_assert_uint_eq(d->q2c.sum, 1510 * US);
	ck_assert_uint_eq(d->q2c.max, 1100 * US);
	/* In flight: [10,110] [150,400] [1200,1300]: 450 µs busy, depth 450/10000. */
	ck_assert_uint_eq(d->busy_ns, 450 * US);
	ck_assert(fabs(d->depth_ns - 450.0 * US) < 1);
	bm_analysis_free(a);
}
END_TEST

/*
 * A series of 500 µs bins: each completion counts in its bin, with its
 * latencies (per operation); busy time, depth and time in queue are shared
 * among the bins an I/O spans, in proportion, and the bins add up to the
 * whole.
 */
START_TEST(series_bins_add_up_to_the_whole)
{
	struct bm_analysis *a = bm_analysis_new(0, 2000 * US, 500 * US);
	const struct bm_disk_stats *d;
	const struct bm_bin *b;
	double busy = 0, queue = 0;
	uint64_t width;
	size_t i;

	ck_assert_uint_eq(bm_analysis_bins(a, &width), 5);
	ck_assert_uint_eq(width, 500 * US);
	/* A write from 100 to 1300 µs (issued at 400), a read from 1400 to 1600. */
	event(a, BM_EV_BIO_QUEUE, 100 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_GETRQ, 100 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_ISSUE, 400 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_COMPLETE, 1300 * US, 1000, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 1400 * US, 2000, 16, "R");
	event(a, BM_EV_RQ_GETRQ, 1400 * US, 2000, 16, "R");
	event(a, BM_EV_RQ_ISSUE, 1450 * US, 2000, 16, "R");
	event(a, BM_EV_RQ_COMPLETE, 1600 * US, 2000, 16, "R");
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_ptr_nonnull(d->series);
	b = d->series->bins;
	/* Counted where they completed: the write in bin 2, the read in bin 3. */
	ck_assert_uint_eq(b[2].writes, 1);
	ck_assert_uint_eq(b[2].write_bytes, 4096);
	ck_assert_uint_eq(b[3].reads, 1);
	ck_assert_uint_eq(b[3].read_bytes, 8192);
	ck_assert_uint_eq(b[0].writes + b[1].writes + b[3].writes + b[4].writes, 0);
	ck_assert_uint_eq(b[2].lat_sum[BM_LAT_Q2C][BM_WRITE], 1200 * US);
	ck_assert_uint_eq(b[2].lat_sum[BM_LAT_D2C][BM_WRITE], 900 * US);
	ck_assert_uint_eq(b[3].lat_sum[BM_LAT_Q2C][BM_READ], 200 * US);
	ck_assert_uint_eq(b[3].lat_n[BM_LAT_D2C][BM_READ], 1);
	ck_assert_uint_eq(b[3].lat_max[BM_LAT_D2C], 150 * US);
	ck_assert_uint_eq(d->lat_sum[BM_LAT_Q2C][BM_WRITE], 1200 * US);
	ck_assert_uint_eq(d->lat_n[BM_LAT_Q2C][BM_READ], 1);
	/* Busy (from the issue): 400..1300 and 1450..1600 µs, cut at 500, 1000, 1500. */
	ck_assert(fabs(b[0].busy_ns - 100.0 * US) < 1);
	ck_assert(fabs(b[1].busy_ns - 500.0 * US) < 1);
	ck_assert(fabs(b[2].busy_ns - (300.0 + 50) * US) < 1);
	ck_assert(fabs(b[3].busy_ns - 100.0 * US) < 1);
	ck_assert(fabs(b[3].depth_ns - 100.0 * US) < 1);
	/* In queue (from the request): 100..1300 and 1400..1600 µs. */
	ck_assert(fabs(b[0].queue_ns - 400.0 * US) < 1);
	ck_assert(fabs(b[1].queue_ns - 500.0 * US) < 1);
	ck_assert(fabs(b[2].queue_ns - (300.0 + 100) * US) < 1);
	ck_assert(fabs(b[3].queue_ns - 100.0 * US) < 1);
	for (i = 0; i < 5; i++) {
		busy += b[i].busy_ns;
		queue += b[i].queue_ns;
	}
	ck_assert(fabs(busy - d->busy_ns) < 1);
	ck_assert(fabs(queue - d->queue_ns) < 1);
	bm_analysis_free(a);
}
END_TEST

/*
 * The offsets' grid: each read and write in its time column and offset row,
 * rows merged in pairs as sectors grow.
 */
static uint64_t grid_sum(const struct bm_offsets *o, int op)
{
	uint64_t n = 0;
	int r, c;

	for (r = 0; r < BM_OFF_ROWS; r++)
		for (c = 0; c < BM_OFF_COLS; c++)
			n += o->n[op][r][c];
	return n;
}

START_TEST(offsets_are_placed_by_time_and_sector_and_bounded)
{
	struct bm_analysis *a = bm_analysis_new(0, 2000 * US, 500 * US);
	const struct bm_offsets *o;
	const struct bm_disk_stats *d;
	uint64_t far = (uint64_t)BM_OFF_ROWS << 20;	/* beyond the first rows: a coarser grid */
	unsigned shift;

	event(a, BM_EV_BIO_QUEUE, 100 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_GETRQ, 100 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_ISSUE, 400 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_COMPLETE, 1300 * US, 1000, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 1400 * US, far, 16, "R");
	event(a, BM_EV_RQ_GETRQ, 1400 * US, far, 16, "R");
	event(a, BM_EV_RQ_ISSUE, 1450 * US, far, 16, "R");
	event(a, BM_EV_RQ_COMPLETE, 1600 * US, far, 16, "R");
	bm_analysis_finish(a);
	d = find(a, DISK);
	o = d->series->offsets;
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(grid_sum(o, BM_WRITE), d->writes);
	ck_assert_uint_eq(grid_sum(o, BM_READ), d->reads);
	shift = o->shift;
	/* The read's sector is in the last rows: the grid grew to hold it, no more than twice. */
	ck_assert_uint_lt(far >> shift, BM_OFF_ROWS);
	ck_assert_uint_ge(far >> shift, BM_OFF_ROWS / 2);
	/* The series' 5 bins of 500 µs in BM_OFF_COLS columns: 1300 µs and 1600 µs. */
	ck_assert_uint_eq(d->series->nbins * d->series->width, 2500 * US);
	ck_assert_uint_eq(o->n[BM_WRITE][1000 >> shift][1300 * BM_OFF_COLS / 2500], 1);
	ck_assert_uint_eq(o->n[BM_READ][far >> shift][1600 * BM_OFF_COLS / 2500], 1);
	bm_analysis_free(a);
}
END_TEST

/* A series of more than BM_SERIES_MAX_BINS bins is refused. */
START_TEST(series_of_too_many_bins_is_refused)
{
	errno = 0;
	ck_assert_ptr_null(bm_analysis_new(0, 1000000000, 1000));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/*
 * The kernel's time in queue (/proc/diskstats field 11) runs from a
 * request's allocation (block_getrq) to its completion: not from its bio's
 * queue when the bio waited for a tag, and nothing of its own for a bio
 * merged into the request. The partition's requests count for it too.
 */
START_TEST(time_in_queue_runs_from_each_request_s_start)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_disk_stats *d, *p;

	event(a, BM_EV_BIO_REMAP, 0, 1000, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 0, 1000, 8, "W");
	event(a, BM_EV_RQ_GETRQ, 100 * US, 1000, 8, "W");	/* after a wait for a tag */
	event(a, BM_EV_RQ_ISSUE, 150 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_COMPLETE, 1000 * US, 1000, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 200 * US, 2000, 8, "W");
	event(a, BM_EV_RQ_GETRQ, 210 * US, 2000, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 220 * US, 2008, 8, "W");	/* merged into it */
	event(a, BM_EV_RQ_ISSUE, 230 * US, 2000, 16, "W");
	event(a, BM_EV_RQ_COMPLETE, 330 * US, 2000, 16, "W");
	/* A recording without block_getrq: from the bio's queue. */
	event(a, BM_EV_BIO_QUEUE, 400 * US, 3000, 8, "W");
	event(a, BM_EV_RQ_ISSUE, 410 * US, 3000, 8, "W");
	event(a, BM_EV_RQ_COMPLETE, 500 * US, 3000, 8, "W");
	bm_analysis_finish(a);
	d = find(a, DISK);
	p = find(a, PART);
	ck_assert_uint_eq(d->writes, 3);
	ck_assert(fabs(d->queue_ns - (900.0 + 120 + 100) * US) < 1);
	ck_assert(fabs(p->queue_ns - 900.0 * US) < 1);
	bm_analysis_free(a);
}
END_TEST

/*
 * Flushes count in the time in queue from their issue, an empty preflush
 * write from its request to its end ("WS 0 + 0"), a write with FUA to its
 * flush sequence's end.
 */
START_TEST(time_in_queue_has_flushes_and_flush_sequences)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *d;

	event(a, BM_EV_RQ_ISSUE, 10 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_COMPLETE, 30 * US, UINT64_MAX, 0, "FF");		/* 20 */
	event(a, BM_EV_BIO_QUEUE, 39 * US, 0, 0, "FWS");
	event(a, BM_EV_RQ_GETRQ, 40 * US, 0, 0, "FWS");
	event(a, BM_EV_RQ_ISSUE, 41 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_COMPLETE, 45 * US, UINT64_MAX, 0, "FF");		/* 4 */
	event(a, BM_EV_RQ_COMPLETE, 46 * US, UINT64_MAX, 0, "WS");		/* 6 */
	event(a, BM_EV_BIO_QUEUE, 50 * US, 100, 8, "FWFS");
	event(a, BM_EV_RQ_GETRQ, 51 * US, 100, 8, "FWFS");
	event(a, BM_EV_RQ_ISSUE, 52 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_COMPLETE, 55 * US, UINT64_MAX, 0, "FF");		/* 3 */
	event(a, BM_EV_RQ_ISSUE, 56 * US, 100, 8, "WS");
	event(a, BM_EV_RQ_COMPLETE, 60 * US, 100, 8, "WS");
	event(a, BM_EV_RQ_ISSUE, 61 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_COMPLETE, 65 * US, UINT64_MAX, 0, "FF");		/* 4 */
	event(a, BM_EV_RQ_COMPLETE, 66 * US, 100, 0, "WS");			/* 15 */
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_uint_eq(d->writes, 2);
	ck_assert_uint_eq(d->others, 4);
	ck_assert(fabs(d->queue_ns - 52.0 * US) < 1);
	bm_analysis_free(a);
}
END_TEST

/*
 * A flush requeued (the device was busy) is issued again: it started at its
 * first issue, and the next flush is not counted from a stale start.
 */
START_TEST(a_requeued_flush_starts_at_its_first_issue)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);

	event(a, BM_EV_RQ_ISSUE, 10 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_REQUEUE, 12 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_ISSUE, 20 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_COMPLETE, 30 * US, UINT64_MAX, 0, "FF");	/* 20 */
	event(a, BM_EV_RQ_ISSUE, 40 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_COMPLETE, 45 * US, UINT64_MAX, 0, "FF");	/* 5 */
	bm_analysis_finish(a);
	ck_assert(fabs(find(a, DISK)->queue_ns - 25.0 * US) < 1);
	bm_analysis_free(a);
}
END_TEST

START_TEST(partition_io_is_counted_for_the_partition_and_its_disk)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *d, *p;

	event(a, BM_EV_BIO_REMAP, 0, 4096, 16, "R");
	event(a, BM_EV_BIO_QUEUE, 1 * US, 4096, 16, "R");
	event(a, BM_EV_RQ_ISSUE, 5 * US, 4096, 16, "R");
	event(a, BM_EV_RQ_COMPLETE, 55 * US, 4096, 16, "R");
	event(a, BM_EV_BIO_COMPLETE, 56 * US, 4096, 16, "R");	/* the remapped bio */
	bm_analysis_finish(a);
	d = find(a, DISK);
	p = find(a, PART);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->model, BM_IO_REMAP);
	ck_assert_uint_eq(p->reads, 1);
	ck_assert_uint_eq(p->read_bytes, 8192);
	ck_assert_uint_eq(p->q2c.sum, 55 * US);
	ck_assert_uint_eq(d->reads, 1);
	ck_assert_uint_eq(d->read_bytes, 8192);
	ck_assert_uint_eq(d->d2c.sum, 50 * US);
	bm_analysis_free(a);
}
END_TEST

/*
 * Two writes to a partition, the second back-merged into the first's
 * request: the request's completion ends both, so the partition is busy
 * for about 1 ms of the 1000, not until the end: from the request's issue,
 * as the kernel counts a partition in flight, by its requests.
 */
/*
 * With the merge events recorded, the reads and writes merged as the
 * kernel counts them (diskstats fields 2 and 6): a write back-merged, a
 * write front-merged, a read request merged into another, each in the bin
 * it happened in; a discard merged is not iostat's (field 13).
 */
START_TEST(merges_are_counted_by_operation_where_they_happen)
{
	struct bm_analysis *a = bm_analysis_new(0, 2000 * US, 500 * US);
	const struct bm_disk_stats *d;
	const struct bm_bin *b;

	bm_analysis_merges(a);
	event(a, BM_EV_BIO_QUEUE, 100 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_GETRQ, 100 * US, 1000, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 110 * US, 1008, 8, "W");
	event(a, BM_EV_BIO_BACKMERGE, 110 * US, 1008, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 600 * US, 992, 8, "W");
	event(a, BM_EV_BIO_FRONTMERGE, 600 * US, 992, 8, "W");
	event(a, BM_EV_RQ_ISSUE, 700 * US, 992, 24, "W");
	event(a, BM_EV_RQ_COMPLETE, 800 * US, 992, 24, "W");
	event(a, BM_EV_RQ_MERGE, 1100 * US, 4000, 8, "R");
	event(a, BM_EV_BIO_BACKMERGE, 1200 * US, 9000, 8, "D");
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_ptr_nonnull(d);
	ck_assert(d->merges_known);
	ck_assert_uint_eq(d->wmerges, 2);
	ck_assert_uint_eq(d->rmerges, 1);
	b = d->series->bins;
	ck_assert_uint_eq(b[0].wmerges, 1);
	ck_assert_uint_eq(b[1].wmerges, 1);
	ck_assert_uint_eq(b[2].rmerges, 1);
	ck_assert_uint_eq(b[0].rmerges + b[1].rmerges + b[2].wmerges + b[3].wmerges, 0);
	bm_analysis_free(a);
}
END_TEST

/* Without them, the merges are unknown, not none. */
START_TEST(merges_are_unknown_without_their_events)
{
	struct bm_analysis *a = bm_analysis_new(0, 2000 * US, false);
	const struct bm_disk_stats *d;

	event(a, BM_EV_BIO_QUEUE, 100 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_COMPLETE, 800 * US, 1000, 8, "W");
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_ptr_nonnull(d);
	ck_assert(!d->merges_known);
	ck_assert(!bm_analysis_merges_known(a));
	bm_analysis_free(a);
}
END_TEST

/*
 * --top's Q2C: each process's bios, from their queueing to their
 * completion, on the incarnation they were queued on.
 */
START_TEST(each_process_has_the_q2c_of_its_own_bios)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_top_row *rows;
	static const int pid[] = { 7, 8, 7 };
	static const uint64_t q[] = { 0, 100, 200 }, c[] = { 50, 400, 1200 };
	size_t i, n;
	int k, seen = 0;

	bm_analysis_processes(a);	/* --top's rows */
	for (k = 0; k < 3; k++) {
		struct bm_io ev = { .ts = q[k] * US, .kind = BM_EV_BIO_QUEUE, .dev = DISK,
				    .sector = 1000 + 8 * k, .nr_sector = 8, .pid = pid[k],
				    .op = BM_WRITE };

		bm_analysis_event(a, &ev, &disk_span, NULL);
	}
	for (k = 0; k < 3; k++) {
		event(a, BM_EV_RQ_ISSUE, (c[k] - 10) * US, 1000 + 8 * k, 8, "W");
		event(a, BM_EV_RQ_COMPLETE, c[k] * US, 1000 + 8 * k, 8, "W");
	}
	bm_analysis_finish(a);
	n = bm_analysis_top(a, &rows);
	for (i = 0; i < n; i++) {
		if (rows[i].pid == 7) {		/* 50 and 1000 µs */
			ck_assert_uint_eq(rows[i].q2c.count, 2);
			ck_assert_uint_eq(rows[i].q2c.sum, 1050 * US);
			ck_assert_uint_eq(rows[i].q2c.max, 1000 * US);
			seen |= 1;
		} else if (rows[i].pid == 8) {	/* 300 µs */
			ck_assert_uint_eq(rows[i].q2c.count, 1);
			ck_assert_uint_eq(rows[i].q2c.sum, 300 * US);
			seen |= 2;
		} else {
			ck_assert_uint_eq(rows[i].q2c.count, 0);
		}
	}
	ck_assert_int_eq(seen, 3);
	bm_analysis_free(a);
}
END_TEST

START_TEST(a_merged_bio_ends_with_its_request)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000000 * US, false);
	const struct bm_disk_stats *p;

	event(a, BM_EV_BIO_REMAP, 100 * US, 2048, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 100 * US, 2048, 8, "W");
	event(a, BM_EV_BIO_REMAP, 110 * US, 2056, 8, "W");
	event(a, BM_EV_BIO_QUEUE, 110 * US, 2056, 8, "W");
	event(a, BM_EV_RQ_ISSUE, 120 * US, 2048, 16, "W");
	event(a, BM_EV_RQ_COMPLETE, 1100 * US, 2048, 16, "W");
	bm_analysis_finish(a);
	p = find(a, PART);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->writes, 1);
	ck_assert_uint_eq(p->write_bytes, 8192);
	ck_assert_uint_eq(p->busy_ns, 980 * US);
	/* One request in flight for 980 µs. */
	ck_assert(fabs(p->depth_ns - 980.0 * US) < 1);
	bm_analysis_free(a);
}
END_TEST

/* A request of 8 sectors at @sector, remapped and issued at @ts; completed @took later, or never (0). */
static void request(struct bm_analysis *a, uint64_t ts, uint64_t sector, const char *rwbs,
		    uint64_t took)
{
	event(a, BM_EV_BIO_REMAP, ts, sector, 8, rwbs);
	event(a, BM_EV_RQ_ISSUE, ts, sector, 8, rwbs);
	if (took)
		event(a, BM_EV_RQ_COMPLETE, ts + took, sector, 8, rwbs);
}

/*
 * A bio whose completion never comes (merged under a key the trace does
 * not show) is dropped after a while, and it stops counting as busy then.
 */
START_TEST(a_bio_that_never_completes_stops_counting_when_dropped)
{
	struct bm_analysis *a = bm_analysis_new(0, 10800ULL * 1000000 * US, false);
	const struct bm_disk_stats *p;
	uint64_t t, i;

	/* Requests issued whose completion the trace lacks: at 1 s, then one each half hour. */
	request(a, 1000000 * US, 8, "W", 0);
	/* Three hours of completed 1 ms writes, one every 10 s. */
	for (i = 1; i < 1080; i++) {
		t = i * 10000000 * US;
		request(a, t, 1000000 + 8 * i, "W", 1000 * US);
		if (i % 180 == 0)
			request(a, t, 50000000 + i, "W", 0);
	}
	bm_analysis_finish(a);
	p = find(a, PART);
	ck_assert_ptr_nonnull(p);
	/*
	 * The 6 lost are busy until dropped: 300 s after their issue, at the
	 * next sweep (every 37.5 s) and event (every 10 s): between 1 800 s
	 * and 6 x 347.5 s, plus the other writes' 1 ms each; not the 3 hours.
	 */
	ck_assert_msg(p->busy_ns >= 1800ULL * 1000000 * US && p->busy_ns < 2090ULL * 1000000 * US,
		      "partition busy %llu s of 10 800", (unsigned long long)(p->busy_ns / 1000000000ULL));
	bm_analysis_free(a);
}
END_TEST

/*
 * A write that completes 70 s after its issue, as when its command timed
 * out (NVMe: 30 s), its abort did too (30 s more) and the controller's
 * reset failed it over: the kernel counts it in flight all along, and so
 * must blkmap, however many I/Os pass meanwhile. (With 30 s to go stale, it
 * was dropped at the sweep after 60 s and its completion counted nothing.)
 */
START_TEST(an_io_in_flight_through_a_controller_reset_is_counted)
{
	struct bm_analysis *a = bm_analysis_new(0, 3600ULL * 1000000 * US, false);
	const struct bm_disk_stats *p;
	uint64_t i;

	request(a, 1000000 * US, 8, "W", 0);
	/* Reads of 1 ms, one a second, on the other path meanwhile. */
	for (i = 2; i < 71; i++)
		request(a, i * 1000000 * US, 1000000 + 8 * i, "R", 1000 * US);
	event(a, BM_EV_RQ_COMPLETE, 71ULL * 1000000 * US, 8, 8, "W");
	bm_analysis_finish(a);
	p = find(a, PART);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->writes, 1);
	ck_assert_uint_eq(p->reads, 69);
	/* Busy from its issue to its completion, the reads inside that. */
	ck_assert_msg(p->busy_ns == 70ULL * 1000000 * US, "partition busy %llu us of 70 000 000",
		      (unsigned long long)(p->busy_ns / 1000ULL));
	/* In queue: its 70 s and the reads' 69 ms. */
	ck_assert_msg(fabs(p->queue_ns - 70.069e9) < 1e3, "partition in queue %.0f ns", p->queue_ns);
	bm_analysis_free(a);
}
END_TEST

/* A view other than --top keeps no process rows: none is asked for. */
START_TEST(processes_are_kept_only_when_asked_for)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_top_row *rows;
	struct bm_io ev = { .ts = 0, .kind = BM_EV_BIO_QUEUE, .dev = DISK, .sector = 1000,
			    .nr_sector = 8, .pid = 7, .op = BM_WRITE };

	bm_analysis_event(a, &ev, &disk_span, NULL);
	event(a, BM_EV_RQ_ISSUE, 10 * US, 1000, 8, "W");
	event(a, BM_EV_RQ_COMPLETE, 50 * US, 1000, 8, "W");
	bm_analysis_finish(a);
	ck_assert_ptr_nonnull(find(a, DISK));
	ck_assert_uint_eq(find(a, DISK)->writes, 1);
	ck_assert_uint_eq(bm_analysis_top(a, &rows), 0);
	bm_analysis_free(a);
}
END_TEST

/* Nothing to analyse: every table is empty, and nothing touches a NULL one. */
START_TEST(an_analysis_without_io_has_empty_tables)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *const *disks;
	const struct bm_top_row *top;

	bm_analysis_finish(a);
	ck_assert_uint_eq(bm_analysis_disks(a, &disks), 0);
	ck_assert_uint_eq(bm_analysis_top(a, &top), 0);
	bm_analysis_free(a);
}
END_TEST

START_TEST(bio_based_devices_count_bio_completions)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *d;

	event(a, BM_EV_BIO_QUEUE, 0, 0, 8, "WS");
	event(a, BM_EV_BIO_COMPLETE, 3 * US, 0, 8, "WS");
	event(a, BM_EV_BIO_QUEUE, 10 * US, 8, 8, "R");
	event(a, BM_EV_BIO_COMPLETE, 12 * US, 8, 8, "R");
	event(a, BM_EV_BIO_QUEUE, 20 * US, 0, 0, "FWS");	/* a flush: no data */
	event(a, BM_EV_BIO_COMPLETE, 21 * US, 0, 0, "FWS");
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_int_eq(d->model, BM_IO_BIO);
	ck_assert_uint_eq(d->writes, 1);
	ck_assert_uint_eq(d->reads, 1);
	ck_assert_uint_eq(d->write_bytes + d->read_bytes, 8192);
	ck_assert_uint_eq(d->q2c.count, 2);	/* the flush is counted apart */
	ck_assert_uint_eq(d->others, 1);
	ck_assert_uint_eq(d->d2c.count, 0);
	bm_analysis_free(a);
}
END_TEST

/*
 * Requests that move no data, a driver's own (N: a disk's serial number
 * read, SCSI VPD pages) and flushes, are issued at sector 0 and complete
 * at sector 2^64 - 1. They are counted apart and never in flight: busy
 * time and depth are those of reads and writes only, as the kernel's
 * io_ticks (field 10 of /sys/block/X/stat).
 */
START_TEST(requests_without_data_are_counted_apart_and_never_in_flight)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *d;
	int i;

	for (i = 0; i < 5; i++) {
		event(a, BM_EV_RQ_ISSUE, (100 * i) * US, 0, 0, "N");
		event(a, BM_EV_RQ_COMPLETE, (100 * i + 2) * US, UINT64_MAX, 0, "N");
	}
	event(a, BM_EV_RQ_ISSUE, 600 * US, 0, 0, "FF");
	event(a, BM_EV_RQ_COMPLETE, 601 * US, UINT64_MAX, 0, "FF");
	event(a, BM_EV_BIO_QUEUE, 700 * US, 8, 8, "R");
	event(a, BM_EV_RQ_ISSUE, 700 * US, 8, 8, "R");
	event(a, BM_EV_RQ_COMPLETE, 710 * US, 8, 8, "R");
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_int_eq(d->model, BM_IO_REQUEST);
	ck_assert_uint_eq(d->reads, 1);
	ck_assert_uint_eq(d->writes, 0);
	ck_assert_uint_eq(d->others, 6);
	ck_assert_uint_eq(d->d2c.count, 1);
	ck_assert_uint_eq(d->busy_ns, 10 * US);	/* the read's, nothing else */
	bm_analysis_free(a);
}
END_TEST

/* ---- stacks: dm, md, partitions ---- */

#define DM BM_MKDEV(253, 0)
#define MD BM_MKDEV(9, 0)
#define LEG1 BM_MKDEV(7, 1)
#define TOP_PID 100	/* the process writing to the top of the stack */
#define WORKER 200	/* a dm or md kernel thread */

static struct bm_span dm_span = { .dev = DM, .name = "dm-0", .dm = "secret", .kind = BM_DISK };
static struct bm_span md_span = { .dev = MD, .name = "md0", .kind = BM_DISK };
static struct bm_span leg1_span = { .dev = LEG1, .name = "loop1", .kind = BM_DISK };
static struct bm_span vdb_span = { .dev = BM_MKDEV(254, 16), .name = "vdb", .kind = BM_DISK };

/* A second dm volume, on a second partition of loop0, written by its own process. */
#define DM2 BM_MKDEV(253, 1)
#define PART2 BM_MKDEV(259, 3)
#define TOP_PID2 101
static struct bm_span dm2_span = { .dev = DM2, .name = "dm-1", .kind = BM_DISK };
static struct bm_span part2_span = { .dev = PART2, .name = "loop0p2", .kind = BM_PARTITION,
				     .parent = "loop0" };

#define NVME_HEAD BM_MKDEV(259, 1)
#define NVME_PATH BM_MKDEV(259, 2)
static struct bm_span head_span = { .dev = NVME_HEAD, .name = "nvme0n1", .kind = BM_DISK };
static struct bm_span path_span = { .dev = NVME_PATH, .name = "nvme0c0n1", .kind = BM_DISK };

static const struct bm_span *span_of(uint32_t dev)
{
	switch (dev) {
	case NVME_HEAD:
		return &head_span;
	case NVME_PATH:
		return &path_span;
	case DM:
		return &dm_span;
	case MD:
		return &md_span;
	case LEG1:
		return &leg1_span;
	case BM_MKDEV(254, 16):
		return &vdb_span;
	case PART:
		return &part_span;
	case DM2:
		return &dm2_span;
	case PART2:
		return &part2_span;
	default:
		return &disk_span;
	}
}

/* An event on @dev by @pid (a remap's source: @old_dev at @old_sector), one write of 4 KiB. */
static void write_event(struct bm_analysis *a, enum bm_kind kind, uint64_t ts, uint32_t dev,
			uint64_t sector, int pid, uint32_t old_dev, uint64_t old_sector)
{
	struct bm_io ev = { .ts = ts, .kind = kind, .dev = dev, .sector = sector,
			    .nr_sector = 8, .pid = pid, .op = 1, .old_dev = old_dev,
			    .old_sector = old_sector };

	bm_analysis_event(a, &ev, span_of(dev), old_dev ? span_of(old_dev) : NULL);
}

static const struct bm_stack_row *stack_row(const struct bm_analysis *a, uint32_t lower,
					    uint32_t upper)
{
	const struct bm_stack_row *rows;
	size_t i, n = bm_analysis_stack(a, &rows);

	for (i = 0; i < n; i++)
		if (rows[i].lower->dev == lower && rows[i].upper->dev == upper)
			return &rows[i];
	return NULL;
}

static int top_pid(const struct bm_analysis *a, uint32_t dev)
{
	const struct bm_top_row *rows;
	size_t i, n = bm_analysis_top(a, &rows);

	for (i = 0; i < n; i++)
		if (rows[i].disk->dev == dev)
			return rows[i].pid;
	return -1;
}

/* TOP_PID's write to dm-0 over loop0p1, from 10 us to 200 us: see the next test. */
static void dm_over_partition_write(struct bm_analysis *a)
{
	write_event(a, BM_EV_BIO_QUEUE, 10 * US, DM, 320, TOP_PID, 0, 0);
	write_event(a, BM_EV_BIO_REMAP, 100 * US, DISK, 320, WORKER, DM, 320);
	write_event(a, BM_EV_BIO_REMAP, 101 * US, DISK, 2368, WORKER, PART, 320);
	write_event(a, BM_EV_BIO_QUEUE, 102 * US, DISK, 2368, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 103 * US, DISK, 2368, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 150 * US, DISK, 2368, 0, 0, 0);
	write_event(a, BM_EV_BIO_COMPLETE, 200 * US, DM, 320, 0, 0, 0);
}

/*
 * dm-crypt over a partition, as 6.x kernels trace it: dm's remap names the
 * clone's whole disk (bio_dev() is the disk's number) at the partition's
 * sector; the partition's remap follows. The volume counts its own bio,
 * once; the partition and the disk count it as coming from the volume, and
 * the writer is the process that wrote to the volume, not dm's thread.
 */
START_TEST(a_dm_volume_over_a_partition_is_followed_to_the_disk)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *dm, *p, *d;
	const struct bm_stack_row *r;

	bm_analysis_processes(a);	/* --top's rows */
	dm_over_partition_write(a);
	bm_analysis_finish(a);
	dm = find(a, DM);
	p = find(a, PART);
	d = find(a, DISK);
	ck_assert_ptr_nonnull(dm);
	ck_assert_int_eq(dm->model, BM_IO_BIO);
	ck_assert_uint_eq(dm->writes, 1);
	ck_assert_uint_eq(dm->write_bytes, 4096);
	ck_assert_uint_eq(dm->q2c.sum, 190 * US);
	ck_assert_uint_eq(dm->busy_ns, 190 * US);
	ck_assert_uint_eq(p->writes, 1);
	ck_assert_uint_eq(p->busy_ns, 47 * US);		/* its request's, issued at 103, done at 150 */
	ck_assert_uint_eq(d->writes, 1);
	ck_assert_uint_eq(d->busy_ns, 47 * US);
	r = stack_row(a, DISK, DM);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->writes, 1);
	ck_assert_uint_eq(r->write_bytes, 4096);
	r = stack_row(a, PART, DM);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->writes, 1);
	ck_assert_ptr_null(stack_row(a, DISK, PART));	/* the partition is not the top */
	ck_assert_int_eq(top_pid(a, DISK), TOP_PID);
	ck_assert_int_eq(top_pid(a, PART), TOP_PID);
	ck_assert_int_eq(top_pid(a, DM), TOP_PID);
	bm_analysis_free(a);
}
END_TEST

/*
 * An md raid1 write, cloned to both legs by the writer itself: the array
 * counts it once (its own bio), each leg once, through the array.
 */
START_TEST(an_md_mirror_counts_a_write_once_and_each_leg_through_it)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *md;
	const struct bm_stack_row *r;
	uint32_t legs[2] = { DISK, LEG1 };
	int i;

	write_event(a, BM_EV_BIO_QUEUE, 5 * US, MD, 128, TOP_PID, 0, 0);
	for (i = 0; i < 2; i++) {
		write_event(a, BM_EV_BIO_REMAP, (10 + i) * US, legs[i], 2176, TOP_PID, MD, 128);
		write_event(a, BM_EV_BIO_QUEUE, (10 + i) * US, legs[i], 2176, TOP_PID, 0, 0);
		write_event(a, BM_EV_RQ_ISSUE, (20 + i) * US, legs[i], 2176, TOP_PID, 0, 0);
	}
	for (i = 0; i < 2; i++)
		write_event(a, BM_EV_RQ_COMPLETE, (50 + i) * US, legs[i], 2176, 0, 0, 0);
	write_event(a, BM_EV_BIO_COMPLETE, 60 * US, MD, 128, 0, 0, 0);
	bm_analysis_finish(a);
	md = find(a, MD);
	ck_assert_int_eq(md->model, BM_IO_BIO);
	ck_assert_uint_eq(md->writes, 1);
	ck_assert_uint_eq(md->write_bytes, 4096);
	ck_assert_uint_eq(md->busy_ns, 50 * US);	/* from its first remap, as md_account_bio */
	for (i = 0; i < 2; i++) {
		ck_assert_uint_eq(find(a, legs[i])->writes, 1);
		r = stack_row(a, legs[i], MD);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->writes, 1);
		ck_assert_uint_eq(r->write_bytes, 4096);
	}
	bm_analysis_free(a);
}
END_TEST

/* Writes straight to a partition: the disk's come from it, their writer is the writer's. */
START_TEST(a_partition_is_the_top_of_its_own_writes)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_stack_row *r;

	bm_analysis_processes(a);	/* --top's rows */
	write_event(a, BM_EV_BIO_REMAP, 0, DISK, 4096, TOP_PID, PART, 2048);
	write_event(a, BM_EV_BIO_QUEUE, 1 * US, DISK, 4096, TOP_PID, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 2 * US, DISK, 4096, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 9 * US, DISK, 4096, 0, 0, 0);
	bm_analysis_finish(a);
	r = stack_row(a, DISK, PART);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->writes, 1);
	ck_assert_uint_eq(r->write_bytes, 4096);
	ck_assert_uint_eq(find(a, PART)->writes, 1);
	ck_assert_int_eq(top_pid(a, DISK), TOP_PID);
	bm_analysis_free(a);
}
END_TEST

/* A process's bin of the plot, or NULL. */
static const struct bm_proc_series *proc_of(const struct bm_analysis *a, int pid)
{
	const struct bm_proc_series *rows;
	size_t i, n = bm_analysis_proc_series_rows(a, &rows);

	for (i = 0; i < n; i++)
		if (rows[i].pid == pid)
			return &rows[i];
	return NULL;
}

/*
 * The plot's processes: a bio once, where it was submitted (a dm volume
 * over a partition, a partition, a disk), not again on the devices below,
 * in the bin of its completion; the busiest kept, most first; --disk keeps
 * those submitted to (or completed on) its devices.
 */
START_TEST(the_plot_counts_a_process_s_bio_once_at_the_top_of_its_stack)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, 500 * US);
	struct bm_span_filter f = { .names = { "dm-0" }, .nnames = 1 };
	const struct bm_proc_series *rows, *p;

	bm_analysis_proc_series(a, 2);
	/* dm-crypt over a partition: TOP_PID's write, done at 200 us (bin 0) */
	dm_over_partition_write(a);
	/* 300 writes to the partition, done at 600 us (bin 1), and to the disk twice */
	write_event(a, BM_EV_BIO_REMAP, 500 * US, DISK, 4096, 300, PART, 2048);
	write_event(a, BM_EV_BIO_QUEUE, 501 * US, DISK, 4096, 300, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 502 * US, DISK, 4096, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 600 * US, DISK, 4096, 0, 0, 0);
	write_event(a, BM_EV_BIO_QUEUE, 700 * US, DISK, 8000, 300, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 701 * US, DISK, 8000, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 710 * US, DISK, 8000, 0, 0, 0);
	/* 400 once, to the disk: less busy than both, not kept */
	write_event(a, BM_EV_BIO_QUEUE, 800 * US, DISK, 9000, 400, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 801 * US, DISK, 9000, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 810 * US, DISK, 9000, 0, 0, 0);
	bm_analysis_finish(a);
	bm_analysis_keep(a, &(struct bm_span_filter){ 0 });
	ck_assert_uint_eq(bm_analysis_proc_series_rows(a, &rows), 2);
	ck_assert_int_eq(rows[0].pid, 300);
	ck_assert_int_eq(rows[1].pid, TOP_PID);
	p = proc_of(a, TOP_PID);
	ck_assert_uint_eq(p->write_bytes, 4096);
	ck_assert_uint_eq(p->read_bytes, 0);
	ck_assert_uint_eq(p->n, 1);
	ck_assert_uint_eq(p->bins[0].bin, 0);
	ck_assert_uint_eq(p->bins[0].writes, 1);
	p = proc_of(a, 300);
	ck_assert_uint_eq(p->write_bytes, 8192);
	ck_assert_uint_eq(p->n, 1);
	ck_assert_uint_eq(p->bins[0].bin, 1);
	ck_assert_uint_eq(p->bins[0].writes, 2);
	ck_assert_ptr_null(proc_of(a, 400));
	ck_assert_ptr_null(proc_of(a, WORKER));
	/* --disk dm-0: its writer alone */
	bm_analysis_keep(a, &f);
	ck_assert_uint_eq(bm_analysis_proc_series_rows(a, &rows), 1);
	ck_assert_int_eq(rows[0].pid, TOP_PID);
	bm_analysis_free(a);
}
END_TEST

/*
 * A write to the whole disk in flight at the sector a partition write starts
 * at (in the partition): it is not that write's past, and both count.
 */
START_TEST(a_disk_write_at_a_partition_sector_is_not_its_stack)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);

	write_event(a, BM_EV_BIO_QUEUE, 1 * US, DISK, 320, WORKER, 0, 0);
	write_event(a, BM_EV_BIO_REMAP, 2 * US, DISK, 2368, TOP_PID, PART, 320);
	write_event(a, BM_EV_BIO_QUEUE, 3 * US, DISK, 2368, TOP_PID, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 4 * US, DISK, 320, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 4 * US, DISK, 2368, TOP_PID, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 9 * US, DISK, 320, 0, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 9 * US, DISK, 2368, 0, 0, 0);
	bm_analysis_finish(a);
	ck_assert_uint_eq(find(a, DISK)->writes, 2);
	ck_assert_uint_eq(find(a, PART)->writes, 1);
	ck_assert_uint_eq(stack_row(a, DISK, PART)->writes, 1);
	bm_analysis_free(a);
}
END_TEST


/* ---- real-sized I/O through stacks, as Debian's 6.1 and 6.12 trace it ---- */

#define VDB BM_MKDEV(254, 16)

/* An event of @sectors on @dev (@rwbs), by @pid; a remap's source or a split's rest in @old_*. */
static void io_event(struct bm_analysis *a, enum bm_kind kind, uint64_t ts, uint32_t dev,
		     uint64_t sector, uint32_t sectors, const char *rwbs, int pid, uint32_t old_dev,
		     uint64_t old_sector)
{
	struct bm_io ev = { .ts = ts, .kind = kind, .dev = dev, .sector = sector,
			    .nr_sector = sectors, .pid = pid, .old_dev = old_dev,
			    .old_sector = old_sector };

	ev.op = bm_rwbs_op(rwbs, sectors);
	ev.flags = bm_io_flags(&ev, rwbs, (int)strlen(rwbs));
	bm_analysis_event(a, &ev, span_of(dev), old_dev && kind == BM_EV_BIO_REMAP ?
			  span_of(old_dev) : NULL);
}

/*
 * A 1 MiB read of a dm-stripe volume with 64 KiB chunks (6.1 and 6.12): dm
 * maps one chunk, trims the bio to the rest and traces block_split, sixteen
 * times; the kernel counts sixteen reads. The bio completes once, at its
 * last piece's start. Pieces alternate between the two legs; the volume is
 * in flight while a piece is, not between a piece's end and the next's map.
 */
START_TEST(a_dm_bio_split_in_chunks_counts_each_piece)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_disk_stats *dm;
	uint32_t legs[2] = { DISK, VDB };
	int k;

	bm_analysis_processes(a);	/* --top's rows */
	io_event(a, BM_EV_BIO_QUEUE, 1 * US, DM, 65536, 2048, "RS", TOP_PID, 0, 0);
	for (k = 0; k < 16; k++) {
		uint64_t t = (1 + 100 * k) * US, at = 32768 + 128 * (k / 2);

		io_event(a, BM_EV_BIO_REMAP, t, legs[k % 2], at, 128, "RS", TOP_PID, DM,
			 65536 + 128 * k);
		if (k < 15)
			io_event(a, BM_EV_BIO_SPLIT, t, DM, 65536 + 128 * (k + 1), 0, "RS", TOP_PID,
				 0, 65536 + 128 * (k + 1));
		io_event(a, BM_EV_BIO_QUEUE, t, legs[k % 2], at, 128, "RS", TOP_PID, 0, 0);
		io_event(a, BM_EV_RQ_ISSUE, t + 1 * US, legs[k % 2], at, 128, "RS", TOP_PID, 0, 0);
		io_event(a, BM_EV_RQ_COMPLETE, t + 50 * US, legs[k % 2], at, 128, "RS", 0, 0, 0);
	}
	io_event(a, BM_EV_BIO_COMPLETE, 1552 * US, DM, 65536 + 1920, 128, "RS", 0, 0, 0);
	bm_analysis_finish(a);
	dm = find(a, DM);
	ck_assert_int_eq(dm->model, BM_IO_BIO);
	ck_assert_uint_eq(dm->reads, 16);
	ck_assert_uint_eq(dm->read_bytes, 1 << 20);
	ck_assert_uint_eq(dm->q2c.count, 1);
	ck_assert_uint_eq(dm->q2c.sum, 1551 * US);
	/* 16 pieces of 50 µs, the last one until the bio completes 1 µs later */
	ck_assert_uint_eq(dm->busy_ns, (15 * 50 + 51) * US);
	/*
	 * The kernel counts each piece from when dm took it up (the bio's
	 * queue, then once the clone before it was issued) to its clone's end:
	 * 50 µs, then 15 of 149; and each the work after its clone that the
	 * last piece had, 1 µs.
	 */
	ck_assert(fabs(dm->queue_ns - (50.0 + 15 * 149 + 16) * US) < 16);
	ck_assert_uint_eq(find(a, DISK)->reads, 8);
	ck_assert_uint_eq(stack_row(a, DISK, DM)->read_bytes, 8 * 65536);
	ck_assert_uint_eq(stack_row(a, VDB, DM)->read_bytes, 8 * 65536);
	ck_assert_int_eq(top_pid(a, VDB), TOP_PID);
	bm_analysis_free(a);
}
END_TEST

/*
 * dm-crypt in 6.12 splits a 1 MiB write in 128 KiB pieces as dd submits
 * it, and its write thread remaps the clones later, each at its piece's
 * start: eight writes for the kernel, all written by dd below. A read of
 * the same sectors is in flight meanwhile: a reader's and a writer's bios
 * at one sector are two.
 */
START_TEST(dm_crypt_pieces_remapped_late_are_the_bio_s)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_disk_stats *dm;
	int k;

	bm_analysis_processes(a);	/* --top's rows */
	io_event(a, BM_EV_BIO_QUEUE, 1 * US, DM, 0, 512, "RS", TOP_PID + 1, 0, 0);
	io_event(a, BM_EV_BIO_SPLIT, 1 * US, DM, 256, 0, "RS", TOP_PID + 1, 0, 256);
	io_event(a, BM_EV_BIO_QUEUE, 2 * US, DM, 0, 2048, "WS", TOP_PID, 0, 0);
	for (k = 1; k < 8; k++)
		io_event(a, BM_EV_BIO_SPLIT, (2 + k) * US, DM, 256 * k, 0, "WS", TOP_PID, 0, 256 * k);
	for (k = 0; k < 8; k++) {
		uint64_t t = (100 + 10 * k) * US;

		io_event(a, BM_EV_BIO_REMAP, t, DISK, 256 * k, 256, "WS", WORKER, DM, 256 * k);
		io_event(a, BM_EV_BIO_QUEUE, t, DISK, 256 * k, 256, "WS", WORKER, 0, 0);
		io_event(a, BM_EV_RQ_ISSUE, t, DISK, 256 * k, 256, "WS", WORKER, 0, 0);
		io_event(a, BM_EV_RQ_COMPLETE, t + 5 * US, DISK, 256 * k, 256, "WS", 0, 0, 0);
	}
	io_event(a, BM_EV_BIO_COMPLETE, 300 * US, DM, 256, 256, "RS", 0, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 176 * US, DM, 1792, 256, "WS", 0, 0, 0);
	bm_analysis_finish(a);
	dm = find(a, DM);
	ck_assert_uint_eq(dm->writes, 8);
	ck_assert_uint_eq(dm->write_bytes, 1 << 20);
	ck_assert_uint_eq(dm->reads, 2);
	ck_assert_uint_eq(dm->read_bytes, 256 * 1024);
	/*
	 * Time in queue: the write's pieces from 2, 3, ... 9 µs to their
	 * clones' ends at 105, 115, ... 175 µs, and 1 µs more each, the last
	 * piece's after its clone; the read's two from 1 µs to the read's end
	 * at 300 µs (no clone of theirs was seen).
	 */
	ck_assert(fabs(dm->queue_ns - (1120.0 - 44 + 8 + 2 * 299) * US) < 16);
	ck_assert_uint_eq(stack_row(a, DISK, DM)->writes, 8);
	ck_assert_int_eq(top_pid(a, DISK), TOP_PID);	/* not dm-crypt's thread */
	bm_analysis_free(a);
}
END_TEST

/* A remap from dm whose bio was queued before the recording: dm still counts its own bios. */
START_TEST(a_remap_from_an_unknown_bio_leaves_its_source_bio_based)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *dm;

	io_event(a, BM_EV_BIO_REMAP, 1 * US, DISK, 4096, 8, "W", WORKER, DM, 777);
	io_event(a, BM_EV_BIO_QUEUE, 1 * US, DISK, 4096, 8, "W", WORKER, 0, 0);
	io_event(a, BM_EV_BIO_QUEUE, 10 * US, DM, 0, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_BIO_REMAP, 11 * US, DISK, 0, 8, "W", TOP_PID, DM, 0);
	io_event(a, BM_EV_BIO_QUEUE, 11 * US, DISK, 0, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 12 * US, DISK, 0, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 20 * US, DISK, 0, 8, "W", 0, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 21 * US, DM, 0, 8, "W", 0, 0, 0);
	bm_analysis_finish(a);
	dm = find(a, DM);
	ck_assert_int_eq(dm->model, BM_IO_BIO);
	ck_assert_uint_eq(dm->writes, 1);
	ck_assert_uint_eq(dm->write_bytes, 4096);
	bm_analysis_free(a);
}
END_TEST

/*
 * dm over a partition at 2048: dm's remap names the partition's disk at the
 * partition's sector r, where a write to the whole disk is in flight. The
 * link it leaves is not that request: both count, each from its own top.
 */
START_TEST(a_dm_link_is_not_a_request_in_flight_at_its_sector)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);

	bm_analysis_processes(a);	/* --top's rows */
	io_event(a, BM_EV_BIO_QUEUE, 1 * US, DISK, 320, 8, "W", WORKER, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 2 * US, DISK, 320, 8, "W", WORKER, 0, 0);
	io_event(a, BM_EV_BIO_QUEUE, 3 * US, DM, 0, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_BIO_REMAP, 4 * US, DISK, 320, 8, "W", TOP_PID, DM, 0);
	io_event(a, BM_EV_BIO_REMAP, 5 * US, DISK, 2368, 8, "W", TOP_PID, PART, 320);
	io_event(a, BM_EV_BIO_QUEUE, 5 * US, DISK, 2368, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 6 * US, DISK, 2368, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 9 * US, DISK, 320, 8, "W", 0, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 10 * US, DISK, 2368, 8, "W", 0, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 11 * US, DM, 0, 8, "W", 0, 0, 0);
	bm_analysis_finish(a);
	ck_assert_uint_eq(find(a, DISK)->writes, 2);
	ck_assert_uint_eq(find(a, PART)->writes, 1);
	ck_assert_uint_eq(find(a, DM)->writes, 1);
	ck_assert_uint_eq(stack_row(a, DISK, DM)->writes, 1);
	ck_assert_uint_eq(stack_row(a, PART, DM)->writes, 1);
	ck_assert_int_eq(top_pid(a, PART), TOP_PID);
	bm_analysis_free(a);
}
END_TEST

/* The one process --top shows writing to @dev; -1 if none, -2 if several. */
static int sole_writer(const struct bm_analysis *a, uint32_t dev)
{
	const struct bm_top_row *rows;
	size_t i, n = bm_analysis_top(a, &rows);
	int pid = -1;

	for (i = 0; i < n; i++)
		if (rows[i].disk->dev == dev && rows[i].write_bytes)
			pid = pid == -1 || pid == rows[i].pid ? rows[i].pid : -2;
	return pid;
}

/*
 * A write at relative sector @r to dm-0 (dm-crypt on loop0p1 at 2048: its
 * thread WORKER remaps) and to dm-1 (a stripe on loop0p2 at 65536: its
 * writer TOP_PID2 remaps), from @t: dm's remaps both name the disk at @r.
 * Each partition's remap follows in the task that made dm's; dm-0's first
 * if @crypt_first, else dm-1's.
 */
static void two_volumes_at_one_sector(struct bm_analysis *a, uint64_t t, uint64_t r,
				      bool crypt_first)
{
	uint64_t p1 = 2048 + r, p2 = 65536 + r;
	int k;

	write_event(a, BM_EV_BIO_QUEUE, t + 1 * US, DM, r, TOP_PID, 0, 0);
	write_event(a, BM_EV_BIO_QUEUE, t + 2 * US, DM2, r, TOP_PID2, 0, 0);
	write_event(a, BM_EV_BIO_REMAP, t + 3 * US, DISK, r, TOP_PID2, DM2, r);
	write_event(a, BM_EV_BIO_REMAP, t + 4 * US, DISK, r, WORKER, DM, r);
	for (k = 0; k < 2; k++) {
		if ((k == 0) == crypt_first) {
			write_event(a, BM_EV_BIO_REMAP, t + (5 + k) * US, DISK, p1, WORKER, PART, r);
			write_event(a, BM_EV_BIO_QUEUE, t + (5 + k) * US, DISK, p1, WORKER, 0, 0);
		} else {
			write_event(a, BM_EV_BIO_REMAP, t + (5 + k) * US, DISK, p2, TOP_PID2, PART2, r);
			write_event(a, BM_EV_BIO_QUEUE, t + (5 + k) * US, DISK, p2, TOP_PID2, 0, 0);
		}
	}
	write_event(a, BM_EV_RQ_ISSUE, t + 7 * US, DISK, p1, WORKER, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, t + 7 * US, DISK, p2, TOP_PID2, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, t + 9 * US, DISK, p1, 0, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, t + 10 * US, DISK, p2, 0, 0, 0);
	write_event(a, BM_EV_BIO_COMPLETE, t + 11 * US, DM, r, 0, 0, 0);
	write_event(a, BM_EV_BIO_COMPLETE, t + 12 * US, DM2, r, 0, 0, 0);
}

/*
 * Two dm volumes on two partitions of one disk, each written at one
 * relative sector at once: each partition takes up its own volume's
 * writer, not the other's, whichever partition's remap comes first (the
 * link made first, or last). A 6.12 guest under CI load: dm-crypt's writes
 * on vda1 written by dmcrypt_write, not dd.
 */
START_TEST(two_partitions_remapped_at_one_relative_sector_keep_their_writers)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);

	bm_analysis_processes(a);	/* --top's rows */
	two_volumes_at_one_sector(a, 0, 320, true);
	two_volumes_at_one_sector(a, 20 * US, 640, false);
	bm_analysis_finish(a);
	ck_assert_int_eq(sole_writer(a, PART), TOP_PID);
	ck_assert_int_eq(sole_writer(a, PART2), TOP_PID2);
	ck_assert_uint_eq(stack_row(a, PART, DM)->writes, 2);
	ck_assert_uint_eq(stack_row(a, PART2, DM2)->writes, 2);
	ck_assert_ptr_null(stack_row(a, PART, DM2));
	ck_assert_ptr_null(stack_row(a, PART2, DM));
	bm_analysis_free(a);
}
END_TEST

/*
 * A link nobody took up (its partition remap lost) stays until stale; a
 * later one at its key, taken up by another task than made it (md submits
 * from its thread or at unplug), is the newer's, not the orphan's.
 */
START_TEST(a_link_left_over_does_not_stand_before_a_new_one)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	uint64_t p2 = 65536 + 320;

	bm_analysis_processes(a);	/* --top's rows */
	write_event(a, BM_EV_BIO_QUEUE, 1 * US, DM, 320, TOP_PID, 0, 0);
	write_event(a, BM_EV_BIO_REMAP, 2 * US, DISK, 320, WORKER, DM, 320);
	write_event(a, BM_EV_BIO_COMPLETE, 3 * US, DM, 320, 0, 0, 0);
	write_event(a, BM_EV_BIO_QUEUE, 100 * US, DM2, 320, TOP_PID2, 0, 0);
	write_event(a, BM_EV_BIO_REMAP, 101 * US, DISK, 320, TOP_PID2, DM2, 320);
	write_event(a, BM_EV_BIO_REMAP, 102 * US, DISK, p2, 300, PART2, 320);
	write_event(a, BM_EV_BIO_QUEUE, 102 * US, DISK, p2, 300, 0, 0);
	write_event(a, BM_EV_RQ_ISSUE, 103 * US, DISK, p2, 300, 0, 0);
	write_event(a, BM_EV_RQ_COMPLETE, 110 * US, DISK, p2, 0, 0, 0);
	write_event(a, BM_EV_BIO_COMPLETE, 111 * US, DM2, 320, 0, 0, 0);
	bm_analysis_finish(a);
	ck_assert_int_eq(sole_writer(a, PART2), TOP_PID2);
	ck_assert_uint_eq(stack_row(a, PART2, DM2)->writes, 1);
	ck_assert_ptr_null(stack_row(a, PART2, DM));
	bm_analysis_free(a);
}
END_TEST

/* md raid1 (6.1) cuts a 1 MiB write in two without a trace: each piece completes apart. */
START_TEST(md_pieces_complete_one_by_one)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *md;
	int k;

	io_event(a, BM_EV_BIO_QUEUE, 1 * US, MD, 0, 2048, "WS", TOP_PID, 0, 0);
	for (k = 0; k < 2; k++) {	/* once the array let it through */
		io_event(a, BM_EV_BIO_REMAP, 5 * US, DISK, 2048 + 1024 * k, 1024, "WS", TOP_PID, MD,
			 1024 * k);
		io_event(a, BM_EV_BIO_QUEUE, 5 * US, DISK, 2048 + 1024 * k, 1024, "WS", TOP_PID, 0, 0);
		io_event(a, BM_EV_RQ_ISSUE, 2 * US, DISK, 2048 + 1024 * k, 1024, "WS", TOP_PID, 0, 0);
	}
	io_event(a, BM_EV_RQ_COMPLETE, 50 * US, DISK, 2048, 1024, "WS", 0, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 51 * US, MD, 0, 1024, "WS", 0, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 60 * US, DISK, 3072, 1024, "WS", 0, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 61 * US, MD, 1024, 1024, "WS", 0, 0, 0);
	bm_analysis_finish(a);
	md = find(a, MD);
	ck_assert_uint_eq(md->writes, 2);
	ck_assert_uint_eq(md->write_bytes, 1 << 20);
	ck_assert_uint_eq(md->q2c.count, 1);
	ck_assert_uint_eq(md->busy_ns, 56 * US);
	/* md_account_bio: each piece from the first remap to its own end */
	ck_assert(fabs(md->queue_ns - (46.0 + 56) * US) < 1);
	ck_assert_uint_eq(stack_row(a, DISK, MD)->write_bytes, 1 << 20);
	bm_analysis_free(a);
}
END_TEST

/*
 * A bio-based device counts its time in queue in whole jiffies
 * (bdev_start_io_acct): with the tick known, blkmap counts as it does.
 */
START_TEST(a_bio_based_device_s_time_in_queue_is_in_jiffies)
{
	struct bm_analysis *a = bm_analysis_new(0, 100000 * US, false);
	struct bm_tick tick = { 4000 * US, 2000 * US };	/* ticks at 2, 6, 10 ms... */

	bm_analysis_tick(a, &tick);
	io_event(a, BM_EV_BIO_QUEUE, 5900 * US, DM, 0, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 6100 * US, DM, 0, 8, "W", 0, 0, 0);	/* a tick: 4 ms */
	io_event(a, BM_EV_BIO_QUEUE, 6100 * US, DM, 8, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 9900 * US, DM, 8, 8, "W", 0, 0, 0);	/* none: 0 */
	io_event(a, BM_EV_BIO_QUEUE, 1000 * US, DISK, 64, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 1100 * US, DISK, 64, 8, "W", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 2100 * US, DISK, 64, 8, "W", 0, 0, 0);	/* requests: ns */
	bm_analysis_finish(a);
	ck_assert(fabs(find(a, DM)->queue_ns - 4000.0 * US) < 1);
	ck_assert(fabs(find(a, DISK)->queue_ns - 1100.0 * US) < 1);
	bm_analysis_free(a);
}
END_TEST

/*
 * NVMe native multipath in 6.12: the head's bio moves to a hidden path disk
 * (a remap, no queue there), gets a request, and the head's completion is
 * traced with the path's number before the request's. nvme counts the
 * head's I/O from the path request's issue (nvme_mpath_start_request), the
 * path's from the request's allocation.
 */
START_TEST(an_nvme_head_is_in_queue_from_its_path_s_issue)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);

	io_event(a, BM_EV_BIO_QUEUE, 0, NVME_HEAD, 64, 8, "WS", TOP_PID, 0, 0);
	io_event(a, BM_EV_BIO_REMAP, 1 * US, NVME_PATH, 64, 8, "WS", TOP_PID, NVME_HEAD, 64);
	io_event(a, BM_EV_RQ_GETRQ, 2 * US, NVME_PATH, 64, 8, "WS", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 3 * US, NVME_PATH, 64, 8, "WS", TOP_PID, 0, 0);
	io_event(a, BM_EV_BIO_COMPLETE, 20 * US, NVME_PATH, 64, 8, "WS", 0, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 20 * US, NVME_PATH, 64, 8, "WS", 0, 0, 0);
	bm_analysis_finish(a);
	ck_assert_uint_eq(find(a, NVME_HEAD)->writes, 1);
	ck_assert_uint_eq(find(a, NVME_PATH)->writes, 1);
	ck_assert(fabs(find(a, NVME_HEAD)->queue_ns - 17.0 * US) < 1);
	ck_assert(fabs(find(a, NVME_PATH)->queue_ns - 18.0 * US) < 1);
	bm_analysis_free(a);
}
END_TEST

/*
 * A partition's 1 MiB write, split at the disk's limit (block_split from
 * the piece to the rest): two requests, both the partition's, as the
 * kernel counts them (req->part).
 */
START_TEST(a_split_bio_s_requests_are_all_its_partition_s)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *p;

	io_event(a, BM_EV_BIO_REMAP, 1 * US, DISK, 4096, 2048, "WS", TOP_PID, PART, 2048);
	io_event(a, BM_EV_BIO_QUEUE, 1 * US, DISK, 4096, 2048, "WS", TOP_PID, 0, 0);
	io_event(a, BM_EV_BIO_SPLIT, 1 * US, DISK, 4096, 0, "WS", TOP_PID, 0, 5120);
	io_event(a, BM_EV_RQ_ISSUE, 2 * US, DISK, 4096, 1024, "WS", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 3 * US, DISK, 5120, 1024, "WS", TOP_PID, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 20 * US, DISK, 4096, 1024, "WS", 0, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 30 * US, DISK, 5120, 1024, "WS", 0, 0, 0);
	bm_analysis_finish(a);
	p = find(a, PART);
	ck_assert_uint_eq(p->writes, 2);
	ck_assert_uint_eq(p->write_bytes, 1 << 20);
	ck_assert_uint_eq(p->busy_ns, 28 * US);
	ck_assert_uint_eq(find(a, DISK)->writes, 2);
	ck_assert_uint_eq(stack_row(a, DISK, PART)->write_bytes, 1 << 20);
	bm_analysis_free(a);
}
END_TEST

/*
 * md's superblock write (PREFLUSH, FUA, 512 bytes) on a disk with a write
 * cache: a flush, the data, a flush, and the write's end with no data. One
 * write; an empty preflush write (a file system's fsync) is one too.
 */
START_TEST(a_flush_sequence_s_end_is_not_another_write)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	const struct bm_disk_stats *d;

	io_event(a, BM_EV_BIO_QUEUE, 1 * US, DISK, 8, 1, "FWFSM", WORKER, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 1 * US, DISK, 0, 0, "FF", WORKER, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 2 * US, DISK, UINT64_MAX, 0, "FF", 0, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 3 * US, DISK, 8, 1, "WSM", WORKER, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 4 * US, DISK, 8, 1, "WSM", 0, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 5 * US, DISK, 0, 0, "FF", WORKER, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 6 * US, DISK, UINT64_MAX, 0, "FF", 0, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 6 * US, DISK, 8, 0, "WSM", 0, 0, 0);
	io_event(a, BM_EV_BIO_QUEUE, 10 * US, DISK, 0, 0, "FWS", WORKER, 0, 0);
	io_event(a, BM_EV_RQ_ISSUE, 11 * US, DISK, 0, 0, "FF", WORKER, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 12 * US, DISK, UINT64_MAX, 0, "FF", 0, 0, 0);
	io_event(a, BM_EV_RQ_COMPLETE, 12 * US, DISK, 0, 0, "WS", 0, 0, 0);
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_uint_eq(d->writes, 2);
	ck_assert_uint_eq(d->write_bytes, 512);
	ck_assert_uint_eq(d->others, 3);
	ck_assert_uint_eq(d->busy_ns, 1 * US);
	bm_analysis_free(a);
}
END_TEST

/*
 * Events lost at 100 µs: a write issued before whose completion came after
 * is no longer in flight from the gap on, and the disk says it overlaps one.
 */
START_TEST(nothing_is_in_flight_past_a_gap)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000 * US, false);
	struct bm_loss gap = { .cpu = 1, .from = 100 * US, .to = 150 * US };
	const struct bm_disk_stats *d;

	ck_assert_int_eq(bm_analysis_gaps(a, &gap, 1), 0);
	event(a, BM_EV_BIO_QUEUE, 10 * US, 0, 8, "W");
	event(a, BM_EV_RQ_ISSUE, 10 * US, 0, 8, "W");
	event(a, BM_EV_RQ_ISSUE, 200 * US, 8, 8, "W");
	event(a, BM_EV_RQ_COMPLETE, 210 * US, 8, 8, "W");
	bm_analysis_finish(a);
	d = find(a, DISK);
	ck_assert_uint_eq(d->busy_ns, 90 * US + 10 * US);
	ck_assert(d->events_lost);
	bm_analysis_free(a);
}
END_TEST

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

START_TEST(percentiles_are_within_three_percent_of_exact)
{
	enum { N = 200000 };
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct bm_hist h = { 0 };
	size_t i;

	srand(7);
	for (i = 0; i < N; i++) {
		/* Log-normal-ish, from 1 µs to about a second. */
		double u = (rand() + 1.0) / (RAND_MAX + 2.0), w = (rand() + 1.0) / (RAND_MAX + 2.0);
		double z = sqrt(-2 * log(u)) * cos(2 * M_PI * w);

		v[i] = (uint64_t)exp(11.5 + 2.0 * z) + 1000;
	}
	{	/* through the analysis itself: a bio-based device, Q then C */
		struct bm_analysis *a = bm_analysis_new(0, UINT64_MAX / 2, false);
		const struct bm_disk_stats *d;

		for (i = 0; i < N; i++) {
			event(a, BM_EV_BIO_QUEUE, 1000000000ULL * i, 8 * i, 8, "R");
			event(a, BM_EV_BIO_COMPLETE, 1000000000ULL * i + v[i], 8 * i, 8, "R");
		}
		bm_analysis_finish(a);
		d = find(a, DISK);
		h = d->q2c;
		qsort(v, N, sizeof(*v), cmp_u64);
		ck_assert_uint_eq(h.count, N);
		ck_assert_uint_eq(h.min, v[0]);
		ck_assert_uint_eq(h.max, v[N - 1]);
		for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
			uint64_t exact = v[(size_t)ceil(ps[i] / 100 * N) - 1];
			uint64_t got = bm_hist_percentile(&h, ps[i]);

			ck_assert_msg(fabs((double)got - exact) <= 0.032 * exact,
				      "p%g: %llu, exact %llu", ps[i], (unsigned long long)got,
				      (unsigned long long)exact);
		}
		bm_analysis_free(a);
	}
	free(v);
}
END_TEST

START_TEST(log2_buckets_follow_biolatency)
{
	struct bm_analysis *a = bm_analysis_new(0, 1000000 * US, false);
	const struct bm_disk_stats *d;
	uint64_t buckets[64];

	/* 1 µs, 3 µs, 5 µs, 700 µs */
	event(a, BM_EV_BIO_QUEUE, 0, 0, 8, "R");
	event(a, BM_EV_BIO_COMPLETE, 1 * US, 0, 8, "R");
	event(a, BM_EV_BIO_QUEUE, 10 * US, 8, 8, "R");
	event(a, BM_EV_BIO_COMPLETE, 13 * US, 8, 8, "R");
	event(a, BM_EV_BIO_QUEUE, 20 * US, 16, 8, "R");
	event(a, BM_EV_BIO_COMPLETE, 25 * US, 16, 8, "R");
	event(a, BM_EV_BIO_QUEUE, 30 * US, 24, 8, "R");
	event(a, BM_EV_BIO_COMPLETE, 730 * US, 24, 8, "R");
	bm_analysis_finish(a);
	d = find(a, DISK);
	bm_hist_log2_us(&d->q2c, buckets);
	ck_assert_uint_eq(buckets[0], 1);	/* 0..1 */
	ck_assert_uint_eq(buckets[1], 1);	/* 2..3 */
	ck_assert_uint_eq(buckets[2], 1);	/* 4..7 */
	ck_assert_uint_eq(buckets[9], 1);	/* 512..1023 */
	bm_analysis_free(a);
}
END_TEST

Suite *suite_analyse(void)
{
	Suite *s = suite_create("analyse");
	TCase *tc = tcase_create("analyse");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, request_latencies_match_a_hand_computation);
	tcase_add_test(tc, an_io_in_flight_through_a_controller_reset_is_counted);
	tcase_add_test(tc, time_in_queue_runs_from_each_request_s_start);
	tcase_add_test(tc, series_bins_add_up_to_the_whole);
	tcase_add_test(tc, the_plot_counts_a_process_s_bio_once_at_the_top_of_its_stack);
	tcase_add_test(tc, series_of_too_many_bins_is_refused);
	tcase_add_test(tc, offsets_are_placed_by_time_and_sector_and_bounded);
	tcase_add_test(tc, time_in_queue_has_flushes_and_flush_sequences);
	tcase_add_test(tc, a_requeued_flush_starts_at_its_first_issue);
	tcase_add_test(tc, partition_io_is_counted_for_the_partition_and_its_disk);
	tcase_add_test(tc, merges_are_counted_by_operation_where_they_happen);
	tcase_add_test(tc, merges_are_unknown_without_their_events);
	tcase_add_test(tc, each_process_has_the_q2c_of_its_own_bios);
	tcase_add_test(tc, a_merged_bio_ends_with_its_request);
	tcase_add_test(tc, processes_are_kept_only_when_asked_for);
	tcase_add_test(tc, an_analysis_without_io_has_empty_tables);
	tcase_add_test(tc, a_bio_that_never_completes_stops_counting_when_dropped);
	tcase_add_test(tc, bio_based_devices_count_bio_completions);
	tcase_add_test(tc, requests_without_data_are_counted_apart_and_never_in_flight);
	tcase_add_test(tc, a_dm_volume_over_a_partition_is_followed_to_the_disk);
	tcase_add_test(tc, an_md_mirror_counts_a_write_once_and_each_leg_through_it);
	tcase_add_test(tc, a_partition_is_the_top_of_its_own_writes);
	tcase_add_test(tc, a_disk_write_at_a_partition_sector_is_not_its_stack);
	tcase_add_test(tc, a_dm_bio_split_in_chunks_counts_each_piece);
	tcase_add_test(tc, dm_crypt_pieces_remapped_late_are_the_bio_s);
	tcase_add_test(tc, a_remap_from_an_unknown_bio_leaves_its_source_bio_based);
	tcase_add_test(tc, a_dm_link_is_not_a_request_in_flight_at_its_sector);
	tcase_add_test(tc, two_partitions_remapped_at_one_relative_sector_keep_their_writers);
	tcase_add_test(tc, a_link_left_over_does_not_stand_before_a_new_one);
	tcase_add_test(tc, md_pieces_complete_one_by_one);
	tcase_add_test(tc, a_bio_based_device_s_time_in_queue_is_in_jiffies);
	tcase_add_test(tc, an_nvme_head_is_in_queue_from_its_path_s_issue);
	tcase_add_test(tc, a_split_bio_s_requests_are_all_its_partition_s);
	tcase_add_test(tc, a_flush_sequence_s_end_is_not_another_write);
	tcase_add_test(tc, nothing_is_in_flight_past_a_gap);
	tcase_add_test(tc, percentiles_are_within_three_percent_of_exact);
	tcase_add_test(tc, log2_buckets_follow_biolatency);
	suite_add_tcase(s, tc);
	return s;
}
