// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency trigger (trigger.h): its syntax, and I/Os paired right
 * whichever CPU's pages come first: a slow one fires, fast ones never do.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "blkmap/record/trigger.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/page.h"
#include "blkmap/util/error.h"

#include "helpers.h"

#define ISSUE_ID	301
#define COMPLETE_ID	302
#define REQUEUE_ID	303
#define DEV		BM_MKDEV(7, 0)

#define RQ_FORMAT(NAME, ID)								\
	"name: " NAME "\nID: " ID "\nformat:\n"						\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"		\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"		\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"	\
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"			\
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"				\
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"			\
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n\n"		\
	"print fmt: \"%u %llu\", REC->dev, REC->sector\n"

static const char issue_format[] = RQ_FORMAT("block_rq_issue", "301");
static const char complete_format[] = RQ_FORMAT("block_rq_complete", "302");
static const char requeue_format[] = RQ_FORMAT("block_rq_requeue", "303");

struct rq {
	uint16_t id;
	uint16_t flags;
	int32_t pid;
	uint32_t dev, pad;
	uint64_t sector;
	uint32_t nr_sector, pad2;
};

static char meta_path[256];

static void setup(void)
{
	struct bm_trace_meta meta;
	int fd;

	test_tmpname(meta_path, sizeof(meta_path));
	test_meta_init(&meta, 2);
	free(meta.formats[0].system);
	free(meta.formats[0].text);
	meta.nformats = 0;
	bm_trace_meta_add_format(&meta, "block", issue_format, strlen(issue_format));
	bm_trace_meta_add_format(&meta, "block", complete_format, strlen(complete_format));
	bm_trace_meta_add_format(&meta, "block", requeue_format, strlen(requeue_format));
	fd = open(meta_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bm_trace_write(fd, meta_path, &meta, NULL), 0);
	close(fd);
	bm_trace_meta_release(&meta);
}

static void teardown(void)
{
	unlink(meta_path);
}

/* A page of @n requests' halves: { id, time, sector, sectors }. */
static void page_of(unsigned char *page, const uint64_t (*events)[4], int n)
{
	struct bm_page_packer p;
	int i;

	bm_pack_start(&p, page, TEST_PAGE_SIZE, 8, 0);
	for (i = 0; i < n; i++) {
		struct rq rq = { .id = events[i][0], .pid = 42, .dev = DEV,
				 .sector = events[i][2], .nr_sector = events[i][3] };

		ck_assert_int_eq(bm_pack_add(&p, events[i][1], &rq, sizeof(rq)), 0);
	}
	bm_pack_finish(&p);
}

START_TEST(the_syntax_is_checked)
{
	struct bm_trigger_spec s;

	ck_assert_int_eq(bm_trigger_parse("latency>20ms", &s), 0);
	ck_assert_uint_eq(s.latency_ns, 20000000);
	ck_assert_str_eq(s.disk, "");
	ck_assert_int_eq(bm_trigger_parse("latency>1.5s,disk=nullb1", &s), 0);
	ck_assert_uint_eq(s.latency_ns, 1500000000);
	ck_assert_str_eq(s.disk, "nullb1");
	ck_assert_int_eq(bm_trigger_parse("latency>500us", &s), 0);
	ck_assert_uint_eq(s.latency_ns, 500000);
	ck_assert_int_eq(bm_trigger_parse("latency>20", &s), -1);
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "ns, us, ms or s"));
	ck_assert_int_eq(bm_trigger_parse("latency>ms", &s), -1);
	ck_assert_int_eq(bm_trigger_parse("latency>-3ms", &s), -1);
	ck_assert_int_eq(bm_trigger_parse("lat>20ms", &s), -1);
	ck_assert_int_eq(bm_trigger_parse("latency>20ms,dev=7:0", &s), -1);
	ck_assert_int_eq(bm_trigger_parse("latency>20msx", &s), -1);
	ck_assert_int_eq(bm_trigger_parse("latency>20ms,disk=../x", &s), -1);
}
END_TEST

/*
 * Two requests on one sector, A slow-looking if paired wrongly: issued at
 * 1000 and 5000 on CPU 0, completed at 2000 and 5100 on CPU 1. Paired
 * right their D2C are 1000 and 100 ns: under the 1500 ns threshold.
 */
START_TEST(halves_pair_right_whichever_cpu_comes_first)
{
	static const uint64_t cpu0[][4] = { { ISSUE_ID, 1000, 64, 8 }, { ISSUE_ID, 5000, 64, 8 } };
	static const uint64_t cpu1[][4] = { { COMPLETE_ID, 2000, 64, 8 },
					    { COMPLETE_ID, 5100, 64, 8 } };
	struct bm_trigger_spec spec = { .latency_ns = 1500 };
	unsigned char p0[TEST_PAGE_SIZE], p1[TEST_PAGE_SIZE];
	struct bm_trigger_hit hit;
	int fd = eventfd(0, EFD_NONBLOCK), order;
	eventfd_t n;

	page_of(p0, cpu0, 2);
	page_of(p1, cpu1, 2);
	for (order = 0; order < 2; order++) {
		struct bm_trigger *t = bm_trigger_new(&spec, meta_path, fd);

		ck_assert_msg(t != NULL, "%s", bm_error_message());
		bm_trigger_pages(t, order ? p1 : p0, 1, TEST_PAGE_SIZE);
		bm_trigger_pages(t, order ? p0 : p1, 1, TEST_PAGE_SIZE);
		ck_assert_msg(!bm_trigger_take(t, &hit), "order %d: a %llu ns I/O", order,
			      (unsigned long long)hit.latency_ns);
		ck_assert_int_eq(eventfd_read(fd, &n), -1);
		bm_trigger_free(t);
	}
	close(fd);
}
END_TEST

START_TEST(a_slow_request_fires_once_with_its_latency)
{
	static const uint64_t cpu0[][4] = { { ISSUE_ID, 1000, 8, 8 }, { ISSUE_ID, 1200, 16, 8 },
					    { COMPLETE_ID, 1300, 16, 8 } };
	static const uint64_t cpu1[][4] = { { COMPLETE_ID, 10000, 8, 8 } };
	struct bm_trigger_spec spec = { .latency_ns = 1500 };
	unsigned char p0[TEST_PAGE_SIZE], p1[TEST_PAGE_SIZE];
	struct bm_trigger_hit hit;
	int fd = eventfd(0, EFD_NONBLOCK);
	struct bm_trigger *t = bm_trigger_new(&spec, meta_path, fd);
	eventfd_t n;

	page_of(p0, cpu0, 3);
	page_of(p1, cpu1, 1);
	bm_trigger_pages(t, p1, 1, TEST_PAGE_SIZE);
	bm_trigger_pages(t, p0, 1, TEST_PAGE_SIZE);
	ck_assert_int_eq(eventfd_read(fd, &n), 0);
	ck_assert(bm_trigger_take(t, &hit));
	ck_assert_uint_eq(hit.latency_ns, 9000);
	ck_assert_uint_eq(hit.sector, 8);
	ck_assert_uint_eq(hit.dev, DEV);
	ck_assert_uint_eq(hit.end_ts, 10000);
	ck_assert(hit.d2c);
	ck_assert(!bm_trigger_take(t, &hit));
	bm_trigger_free(t);

	/* Only the disk named: another's slow I/O does not fire. */
	strcpy(spec.disk, "no-such-disk");
	t = bm_trigger_new(&spec, meta_path, fd);
	bm_trigger_pages(t, p0, 1, TEST_PAGE_SIZE);
	bm_trigger_pages(t, p1, 1, TEST_PAGE_SIZE);
	ck_assert(!bm_trigger_take(t, &hit));
	bm_trigger_free(t);
	close(fd);
}
END_TEST


/* Runs @cpu0's and @cpu1's pages in both orders: true if either fired. */
static bool fires_either_way(const uint64_t (*cpu0)[4], int n0, const uint64_t (*cpu1)[4], int n1)
{
	struct bm_trigger_spec spec = { .latency_ns = 1500 };
	unsigned char p0[TEST_PAGE_SIZE], p1[TEST_PAGE_SIZE];
	struct bm_trigger_hit hit;
	int fd = eventfd(0, EFD_NONBLOCK), order;
	bool fired = false;

	page_of(p0, cpu0, n0);
	page_of(p1, cpu1, n1);
	for (order = 0; order < 2; order++) {
		struct bm_trigger *t = bm_trigger_new(&spec, meta_path, fd);

		ck_assert_msg(t != NULL, "%s", bm_error_message());
		bm_trigger_pages(t, order ? p1 : p0, 1, TEST_PAGE_SIZE);
		bm_trigger_pages(t, order ? p0 : p1, 1, TEST_PAGE_SIZE);
		fired |= bm_trigger_take(t, &hit);
		bm_trigger_free(t);
	}
	close(fd);
	return fired;
}

/*
 * A flush (no data) is issued at sector 0 and completes at 2^64 - 1; a
 * 100 ns write at sector 0 later must not pair with the flush's issue.
 */
START_TEST(a_request_without_data_never_pairs)
{
	static const uint64_t cpu0[][4] = { { ISSUE_ID, 1000, 0, 0 }, { ISSUE_ID, 5000, 0, 8 } };
	static const uint64_t cpu1[][4] = { { COMPLETE_ID, 1100, UINT64_MAX, 0 },
					    { COMPLETE_ID, 5100, 0, 8 } };

	ck_assert(!fires_either_way(cpu0, 2, cpu1, 2));
}
END_TEST

/* Issued, requeued, issued again and done 100 ns later: the first issue is not its start. */
START_TEST(a_requeued_issue_never_pairs)
{
	static const uint64_t cpu0[][4] = { { ISSUE_ID, 1000, 64, 8 }, { REQUEUE_ID, 1100, 64, 8 },
					    { ISSUE_ID, 5000, 64, 8 } };
	static const uint64_t cpu1[][4] = { { COMPLETE_ID, 5100, 64, 8 } };
	static const uint64_t slow[][4] = { { COMPLETE_ID, 9000, 64, 8 } };

	ck_assert(!fires_either_way(cpu0, 3, cpu1, 1));
	ck_assert(fires_either_way(cpu0, 3, slow, 1));	/* the re-issue's own latency still counts */
}
END_TEST

Suite *suite_trigger(void)
{
	Suite *s = suite_create("trigger");
	TCase *tc = tcase_create("trigger");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_syntax_is_checked);
	tcase_add_test(tc, halves_pair_right_whichever_cpu_comes_first);
	tcase_add_test(tc, a_slow_request_fires_once_with_its_latency);
	tcase_add_test(tc, a_request_without_data_never_pairs);
	tcase_add_test(tc, a_requeued_issue_never_pairs);
	suite_add_tcase(s, tc);
	return s;
}
