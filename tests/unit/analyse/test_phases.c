// SPDX-License-Identifier: GPL-2.0-only
/* btt's phases and seek distances, on hand-made event sequences. */
#include <string.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/analyse/phases.h"
#include "blkmap/map/map.h"

#include "helpers.h"

#define US 1000ULL
#define DISK BM_MKDEV(254, 0)
#define DM BM_MKDEV(253, 0)

static struct bm_span disk_span = { .dev = DISK, .name = "vda", .kind = BM_DISK };
static struct bm_span dm_span = { .dev = DM, .name = "dm-0", .kind = BM_DISK };

static void ev(struct bm_analysis *a, enum bm_kind kind, uint64_t us, uint64_t sector,
	       uint32_t sectors, const char *rwbs, int pid)
{
	struct bm_io io = { .ts = us * US, .kind = kind, .dev = DISK, .sector = sector,
			    .nr_sector = sectors, .pid = pid };

	io.op = bm_rwbs_op(rwbs, sectors);
	io.flags = bm_io_flags(&io, rwbs, (int)strlen(rwbs));
	bm_analysis_event(a, &io, &disk_span, NULL);
}

static const struct bm_phases *phases_of(const struct bm_analysis *a, uint32_t dev)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks);

	for (i = 0; i < n; i++)
		if (disks[i]->dev == dev)
			return disks[i]->phases;
	return NULL;
}

/*
 * Two writes: the first (sectors 0-7) gets a request, the second (8-15)
 * merges into it at its end; the request (0-15) is issued and completes.
 * A read (1000-1007) goes through alone. Times in µs.
 */
START_TEST(phases_follow_each_bio_as_btt_does)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_phases *ph;

	bm_analysis_phases(a);
	ev(a, BM_EV_BIO_QUEUE, 100, 0, 8, "W", 7);
	ev(a, BM_EV_RQ_GETRQ, 103, 0, 8, "W", 7);
	ev(a, BM_EV_PLUG, 104, 0, 0, "", 7);
	ev(a, BM_EV_BIO_QUEUE, 110, 8, 8, "W", 7);
	ev(a, BM_EV_BIO_BACKMERGE, 112, 8, 8, "W", 7);
	ev(a, BM_EV_UNPLUG, 119, 0, 1, "", 7);
	ev(a, BM_EV_RQ_INSERT, 120, 0, 16, "W", 7);
	ev(a, BM_EV_RQ_ISSUE, 150, 0, 16, "W", 7);
	ev(a, BM_EV_BIO_QUEUE, 200, 1000, 8, "R", 8);
	ev(a, BM_EV_RQ_GETRQ, 201, 1000, 8, "R", 8);
	ev(a, BM_EV_RQ_INSERT, 205, 1000, 8, "R", 8);
	ev(a, BM_EV_RQ_COMPLETE, 350, 0, 16, "W", 0);
	ev(a, BM_EV_RQ_ISSUE, 400, 1000, 8, "R", 8);
	ev(a, BM_EV_RQ_COMPLETE, 500, 1000, 8, "R", 0);
	bm_analysis_finish(a);
	ph = phases_of(a, DISK);
	ck_assert_ptr_nonnull(ph);
	/* Q2Q: 10, 90 */
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2Q].count, 2);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2Q].sum, 100 * US);
	/* Q2G: 3 (write), 1 (read); G2I: 17, 4 */
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2G].count, 2);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2G].sum, 4 * US);
	ck_assert_uint_eq(ph->h[BM_PH_WRITE][BM_Q2G].sum, 3 * US);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_G2I].sum, 21 * US);
	/* Q2M: 2; M2D: 38; I2D: 30 (write), 195 (read) */
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2M].count, 1);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2M].sum, 2 * US);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_M2D].sum, 38 * US);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_I2D].count, 2);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_I2D].sum, 225 * US);
	/* D2C per bio: 200 twice (the request's two bios), 100 */
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_D2C].count, 3);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_D2C].sum, 500 * US);
	ck_assert_uint_eq(ph->h[BM_PH_WRITE][BM_D2C].count, 2);
	/* Q2C: 250, 240, 300 */
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2C].count, 3);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2C].sum, 790 * US);
	ck_assert_uint_eq(ph->h[BM_PH_READ][BM_Q2C].sum, 300 * US);
	ck_assert_uint_eq(ph->queued, 3);
	ck_assert_uint_eq(ph->issued, 2);
	ck_assert_uint_eq(ph->merges, 1);
	ck_assert_uint_eq(ph->c_min, 8);
	ck_assert_uint_eq(ph->c_max, 16);
	ck_assert_uint_eq(ph->c_total, 24);
	/* The plug is the disk's: its task made a request there just before. */
	ck_assert_uint_eq(ph->plugs, 1);
	ck_assert_uint_eq(ph->unplugs, 1);
	ck_assert_uint_eq(ph->unplugged, 1);
	/* Active at Q: 0, 1 (the first write's), 0 (merged, issued) */
	ck_assert_uint_eq(ph->active_sum, 1);
	bm_analysis_free(a);
}
END_TEST

/*
 * A plug and an unplug by a task that made no request are no disk's, pid 0
 * too (whose slot in the table of tasks starts out zeroed).
 */
START_TEST(a_plug_of_a_task_without_requests_is_no_disks)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_phases *ph;

	bm_analysis_phases(a);
	ev(a, BM_EV_BIO_QUEUE, 100, 0, 8, "W", 7);
	ev(a, BM_EV_PLUG, 101, 0, 0, "", 0);
	ev(a, BM_EV_UNPLUG, 102, 0, 1, "", 0);
	ev(a, BM_EV_PLUG, 103, 0, 0, "", 9);
	ev(a, BM_EV_UNPLUG, 104, 0, 1, "", 9);
	bm_analysis_finish(a);
	ph = phases_of(a, DISK);
	ck_assert_ptr_nonnull(ph);
	ck_assert_uint_eq(ph->plugs, 0);
	ck_assert_uint_eq(ph->unplugs, 0);
	ck_assert_uint_eq(ph->unplugged, 0);
	bm_analysis_free(a);
}
END_TEST

/* A second bio at the start of one in flight is ignored, as btt ignores it. */
START_TEST(a_bio_at_a_busy_start_is_ignored)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	const struct bm_phases *ph;

	bm_analysis_phases(a);
	ev(a, BM_EV_BIO_QUEUE, 100, 64, 8, "W", 7);
	ev(a, BM_EV_BIO_QUEUE, 101, 64, 8, "W", 7);
	ev(a, BM_EV_RQ_ISSUE, 150, 64, 8, "W", 7);
	ev(a, BM_EV_RQ_COMPLETE, 250, 64, 8, "W", 0);
	bm_analysis_finish(a);
	ph = phases_of(a, DISK);
	ck_assert_uint_eq(ph->queued, 1);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2C].count, 1);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2C].sum, 150 * US);
	bm_analysis_free(a);
}
END_TEST

/* A bio queued before a gap is not followed past it: its completion may be another's. */
START_TEST(nothing_is_followed_across_a_gap)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	struct bm_loss gap = { .cpu = 0, .from = 300 * US, .to = 400 * US, .count = 5 };
	const struct bm_phases *ph;

	ck_assert_int_eq(bm_analysis_gaps(a, &gap, 1), 0);
	bm_analysis_phases(a);
	ev(a, BM_EV_BIO_QUEUE, 100, 64, 8, "W", 7);
	ev(a, BM_EV_RQ_ISSUE, 150, 64, 8, "W", 7);
	ev(a, BM_EV_RQ_COMPLETE, 500, 64, 8, "W", 0);
	ev(a, BM_EV_BIO_QUEUE, 600, 64, 8, "W", 7);
	ev(a, BM_EV_RQ_ISSUE, 650, 64, 8, "W", 7);
	ev(a, BM_EV_RQ_COMPLETE, 700, 64, 8, "W", 0);
	bm_analysis_finish(a);
	ph = phases_of(a, DISK);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2C].count, 1);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2C].sum, 100 * US);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2Q].count, 0);
	bm_analysis_free(a);
}
END_TEST

/* A dm bio: Q on dm-0, remapped to vda (Q2A), completed on dm-0 (Q2C). */
START_TEST(a_bio_based_device_has_q2a_and_q2c)
{
	struct bm_analysis *a = bm_analysis_new(0, 10000 * US, false);
	struct bm_io q = { .ts = 100 * US, .kind = BM_EV_BIO_QUEUE, .dev = DM, .sector = 0,
			   .nr_sector = 8, .op = 1, .pid = 7 };
	struct bm_io r = { .ts = 130 * US, .kind = BM_EV_BIO_REMAP, .dev = DISK, .sector = 2048,
			   .nr_sector = 8, .op = 1, .old_dev = DM, .old_sector = 0, .pid = 7 };
	struct bm_io c = { .ts = 400 * US, .kind = BM_EV_BIO_COMPLETE, .dev = DM, .sector = 0,
			   .nr_sector = 8, .op = 1 };
	const struct bm_phases *ph;

	bm_analysis_phases(a);
	bm_analysis_event(a, &q, &dm_span, NULL);
	bm_analysis_event(a, &r, &disk_span, &dm_span);
	bm_analysis_event(a, &c, &dm_span, NULL);
	bm_analysis_finish(a);
	ph = phases_of(a, DM);
	ck_assert_ptr_nonnull(ph);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2A].count, 1);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2A].sum, 30 * US);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_Q2C].sum, 300 * US);
	ck_assert_uint_eq(ph->h[BM_PH_ALL][BM_D2C].count, 0);
	bm_analysis_free(a);
}
END_TEST

/* btt's rule: 0 when touching or overlapping, else from the nearer edge. */
START_TEST(seek_distances_follow_btt)
{
	struct bm_seek s = { 0 };
	uint64_t count;

	bm_seek_add(&s, 100, 8);	/* from 0: 100 */
	bm_seek_add(&s, 108, 8);	/* touches: 0 */
	bm_seek_add(&s, 112, 8);	/* overlaps: 0 */
	bm_seek_add(&s, 40, 8);		/* before: 112 - 40 = 72 */
	bm_seek_add(&s, 48, 8);		/* 0 */
	ck_assert_uint_eq(s.n, 5);
	ck_assert_uint_eq(s.sequential, 3);
	ck_assert(bm_seek_mean(&s) == 172.0 / 5);
	ck_assert_uint_eq(bm_seek_median(&s), 0);
	ck_assert_uint_eq(bm_seek_mode(&s, &count), 0);
	ck_assert_uint_eq(count, 3);
	bm_seek_add(&s, 1000, 8);	/* 944 */
	bm_seek_add(&s, 2000, 8);	/* 992 */
	bm_seek_add(&s, 3000, 8);	/* 992 */
	/* sorted: 0 0 0 72 100 944 992 992: the fifth */
	ck_assert_uint_eq(bm_seek_median(&s), 100);
	bm_seek_release(&s);
}
END_TEST

Suite *suite_phases(void)
{
	Suite *s = suite_create("phases");
	TCase *tc = tcase_create("phases");

	tcase_add_test(tc, phases_follow_each_bio_as_btt_does);
	tcase_add_test(tc, a_bio_at_a_busy_start_is_ignored);
	tcase_add_test(tc, nothing_is_followed_across_a_gap);
	tcase_add_test(tc, a_plug_of_a_task_without_requests_is_no_disks);
	tcase_add_test(tc, a_bio_based_device_has_q2a_and_q2c);
	tcase_add_test(tc, seek_distances_follow_btt);
	suite_add_tcase(s, tc);
	return s;
}
