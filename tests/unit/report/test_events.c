// SPDX-License-Identifier: GPL-2.0-only
/* The events view's CSV and JSON records: the columns blkmap-report(1) lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "blkmap/map/cgroups.h"
#include "blkmap/report/events.h"

#include "helpers.h"

static char out[4096];
static const struct bm_cgroups *cgroups;	/* the events' cgroups; NULL: none */

static const char *listing(enum bm_output_format format, const struct bm_event *ev,
			   const struct bm_labelled *l)
{
	struct tep_handle *tep = tep_alloc();
	FILE *f = fmemopen(out, sizeof(out), "w");
	struct bm_decoder *dec;
	struct bm_events_view *v;
	struct bm_rec rec = { .ts = ev->ts, .cpu = ev->cpu };

	ck_assert_ptr_nonnull(tep);
	ck_assert_ptr_nonnull(f);
	tep_register_comm(tep, "fio, job 1", 42);
	dec = bm_decoder_new(tep);
	ck_assert_ptr_nonnull(dec);
	v = bm_events_view_start(f, format, false, false, dec, NULL);
	ck_assert_ptr_nonnull(v);
	bm_events_view_cgroups(v, cgroups);
	if (ev)
		bm_events_view_print(v, &rec, ev, l);
	bm_events_view_flush(v);
	bm_events_view_free(v);
	bm_decoder_free(dec);
	fclose(f);
	tep_free(tep);
	return out;
}

static struct bm_span dm0 = { .dev = BM_MKDEV(254, 0), .name = "dm-0", .dm = "vg0-data",
			      .dm_names = { { 0, 0, "vg0-data" }, { 1000000000, 1200000000, "vg0-old" } },
			      .ndm = 2, .nth = 2,
			      .from = { .known = true, .lo = 900000000, .hi = 1000000000 },
			      .to = { .known = true, .lo = 1900000000, .hi = 2000000000 },
			      .dm_uuid = "LVM-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" };
static struct bm_span part = { .dev = BM_MKDEV(7, 1), .name = "loop0p1", .kind = BM_PARTITION,
			       .nth = 1 };

static const struct bm_event remap = {
	.ts = 1500000000, .cpu = 1, .pid = 42, .kind = BM_EV_BIO_REMAP,
	.name = "block_bio_remap", .dev = BM_MKDEV(254, 0), .old_dev = BM_MKDEV(7, 1),
	.sector = 2048, .old_sector = 0, .nr_sector = 8, .rwbs = "WS",
};

static const struct bm_labelled remap_names = {
	.span = &dm0, .old_span = &part, .basis = BM_LABEL_ONLY, .old_basis = BM_LABEL_PARENT,
};

START_TEST(csv_rows_have_every_column_in_the_documented_order)
{
	static const struct bm_event issue = {
		.ts = 2000000001, .pid = 42, .kind = BM_EV_RQ_ISSUE, .name = "block_rq_issue",
		.dev = BM_MKDEV(7, 0), .sector = 8, .nr_sector = 8, .bytes = 4096, .rwbs = "R",
	};
	static const struct bm_labelled unknown = { .basis = BM_LABEL_UNKNOWN };

	ck_assert_str_eq(listing(BM_FORMAT_CSV, &remap, &remap_names),
			 "ts_ns,cpu,pid,comm,event,dev,name,rwbs,sector,nr_sector,bytes,error,"
			 "old_dev,old_name,old_sector,name_basis,old_name_basis,dm,old_dm,details,"
			 "incarnation,old_incarnation,from_ns,to_ns,lv,old_lv,lv_layer,old_lv_layer,"
			 "backing_file,old_backing_file,mount,old_mount,cgroup,format_version\n"
			 "1500000000,1,42,\"fio, job 1\",block_bio_remap,254:0,dm-0,WS,2048,8,,,"
			 "7:1,loop0p1,0,only,parent,vg0-old,,,254:0#2,7:1#1,1000000000,2000000000,"
			 "vg0/old,,,,,,,,,1\n");
	ck_assert_str_eq(strchr(listing(BM_FORMAT_CSV, &issue, &unknown), '\n') + 1,
			 "2000000001,0,42,\"fio, job 1\",block_rq_issue,7:0,,R,8,8,4096,,,,,"
			 "unknown,,,,,,,,,,,,,,,,,,1\n");
}
END_TEST

START_TEST(json_records_hold_every_key_null_where_absent)
{
	ck_assert_str_eq(listing(BM_FORMAT_JSON, &remap, &remap_names),
			 "{\"ts_ns\":1500000000,\"cpu\":1,\"pid\":42,\"comm\":\"fio, job 1\","
			 "\"event\":\"block_bio_remap\",\"dev\":\"254:0\",\"name\":\"dm-0\","
			 "\"rwbs\":\"WS\",\"sector\":2048,\"nr_sector\":8,\"bytes\":null,"
			 "\"error\":null,\"old_dev\":\"7:1\",\"old_name\":\"loop0p1\","
			 "\"old_sector\":0,\"name_basis\":\"only\",\"old_name_basis\":\"parent\","
			 "\"dm\":\"vg0-old\",\"old_dm\":null,\"details\":null,"
			 "\"incarnation\":\"254:0#2\",\"old_incarnation\":\"7:1#1\","
			 "\"from_ns\":1000000000,\"to_ns\":2000000000,"
			 "\"lv\":\"vg0/old\",\"old_lv\":null,\"lv_layer\":null,"
			 "\"old_lv_layer\":null,\"backing_file\":null,"
			 "\"old_backing_file\":null,\"mount\":null,\"old_mount\":null,"
			 "\"cgroup\":null,\"format_version\":1}\n");
}
END_TEST

/* The process's cgroup then, as --cgroups shows it: a container's id cut short. */
START_TEST(an_event_names_its_processs_cgroup_then)
{
	struct bm_cgroups *cg = bm_cgroups_new();
	const char *line;

	ck_assert_ptr_nonnull(cg);
	ck_assert_int_eq(bm_cgroups_moved(cg, 1000000000, 42, 7, "/system.slice/docker-"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope"), 0);
	cgroups = cg;
	line = strchr(listing(BM_FORMAT_CSV, &remap, &remap_names), '\n') + 1;
	ck_assert_ptr_nonnull(strstr(line, ",/system.slice/docker-0123456789ab.scope,1\n"));
	cgroups = NULL;
	bm_cgroups_free(cg);
}
END_TEST

/* A completion without data names sector 2^64 - 1: past int64, so absent. */
START_TEST(sectors_past_int64_are_absent)
{
	static const struct bm_event done = {
		.ts = 2000000002, .pid = 0, .kind = BM_EV_RQ_COMPLETE, .name = "block_rq_complete",
		.dev = BM_MKDEV(7, 0), .sector = UINT64_MAX, .nr_sector = 0, .rwbs = "FF",
	};
	static const struct bm_labelled unknown = { .basis = BM_LABEL_UNKNOWN };

	ck_assert_ptr_nonnull(strstr(listing(BM_FORMAT_JSON, &done, &unknown),
				     "\"sector\":null,\"nr_sector\":0,"));
	ck_assert_ptr_nonnull(strstr(listing(BM_FORMAT_CSV, &done, &unknown), ",FF,,0,"));
}
END_TEST

Suite *suite_events(void)
{
	Suite *s = suite_create("events");
	TCase *tc = tcase_create("events");

	tcase_add_test(tc, csv_rows_have_every_column_in_the_documented_order);
	tcase_add_test(tc, json_records_hold_every_key_null_where_absent);
	tcase_add_test(tc, an_event_names_its_processs_cgroup_then);
	tcase_add_test(tc, sectors_past_int64_are_absent);
	suite_add_tcase(s, tc);
	return s;
}
