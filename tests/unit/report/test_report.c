// SPDX-License-Identifier: GPL-2.0-only
/* The report of a recording blkmap did not make: honest about what it lacks. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/map/map.h"
#include "blkmap/report/report.h"
#include "blkmap/report/summaries.h"
#include <stdlib.h>
#include "blkmap/util/error.h"

#include "helpers.h"

static char warned[1024];

static void warn(const char *line)
{
	snprintf(warned, sizeof(warned), "%s", line);
}

START_TEST(a_recording_without_map_records_says_so_and_names_nothing)
{
	static const struct test_event c0[] = { { 1000, 8 }, { 2000, 16 } };
	const struct test_event *events[] = { c0 };
	size_t counts[] = { 2 };
	struct bm_report_opts opts = { .view = BM_VIEW_EVENTS, .format = BM_FORMAT_CSV,
				       .warn = warn };
	char path[256], out[4096], *line;
	FILE *f;

	test_tmpname(path, sizeof(path));
	test_write_block_trace(path, 1, events, counts);
	f = fmemopen(out, sizeof(out), "w");
	ck_assert_msg(bm_report(path, &opts, f) == 0, "%s", bm_error_message());
	fclose(f);
	unlink(path);
	ck_assert_ptr_nonnull(strstr(warned, "none of blkmap record's map records"));
	ck_assert_ptr_nonnull(strstr(warned, "'unknown'"));
	/*
	 * Each block event: its number, no name, basis unknown (then no remap,
	 * no dm name, no incarnation and its life).
	 */
	line = strchr(out, '\n') + 1;
	ck_assert_ptr_nonnull(strstr(line, "block_bio_queue,"));
	ck_assert_ptr_nonnull(strstr(line, ",unknown,,,,,,,,,,,,,,,,,,1\n"));
	line = strchr(line, '\n') + 1;
	ck_assert_ptr_nonnull(strstr(line, ",unknown,,,,,,,,,,,,,,,,,,1\n"));
}
END_TEST

/*
 * blkmap top's rows by name: those of one name (a name's incarnations, a
 * stack's idle ones) by device number and incarnation, whatever the order
 * they were found in (with I/O first, then those only added or removed).
 */
START_TEST(an_interval_orders_rows_alike_by_number_and_incarnation)
{
	struct bm_report_opts opts = { .view = BM_VIEW_INTERVAL, .format = BM_FORMAT_CSV,
				       .sort = BM_SORT_NAME, .jobs = 1 };
	char *out = NULL, *line, *next, last_name[64] = "";
	double last_key = -1;
	unsigned pairs = 0;
	size_t size;
	FILE *f = open_memstream(&out, &size);

	ck_assert_msg(bm_report("tests/data/host-hotplug.dat", &opts, f) == 0, "%s",
		      bm_error_message());
	fclose(f);
	for (line = strchr(out, '\n') + 1; *line; line = next) {
		const char *name = strchr(strchr(line, ',') + 1, ',') + 1;
		const char *inc = strchr(line, '#');
		double key;

		next = strchr(line, '\n') + 1;
		/* MAJ:MIN#N as one number, in the order of number, then incarnation. */
		while (inc > line && inc[-1] != ',')
			inc--;
		key = strtoul(inc, NULL, 10) * 1e9 + strtoul(strchr(inc, ':') + 1, NULL, 10) * 1e3 +
		      strtoul(strchr(inc, '#') + 1, NULL, 10);
		if (!strncmp(name, last_name, strlen(last_name)) &&
		    name[strlen(last_name)] == ',') {
			ck_assert_msg(key > last_key, "rows of %s out of order: %s", last_name,
				      out);
			pairs++;
		}
		snprintf(last_name, sizeof(last_name), "%.*s", (int)strcspn(name, ","), name);
		last_key = key;
	}
	ck_assert_msg(pairs >= 2, "premise missing: %u rows after one of the same name", pairs);
	free(out);
}
END_TEST

/* One word for an interval's state, in blkmap top and report --interval alike. */
START_TEST(an_add_and_a_removal_fall_in_one_interval_each)
{
	/* Added within [100, 300], removed within [700, 900]: its life is [100, 900). */
	struct bm_span s = { .from = { .known = true, .lo = 100, .hi = 300 },
			     .to = { .known = true, .lo = 700, .hi = 900 } };

	ck_assert_str_eq(bm_span_state(&s, 0, 200), "new");
	ck_assert_str_eq(bm_span_state(&s, 200, 400), "");	/* added by then, maybe later */
	ck_assert_str_eq(bm_span_state(&s, 600, 800), "");	/* maybe removed, maybe not */
	ck_assert_str_eq(bm_span_state(&s, 800, 1000), "gone");
	ck_assert_str_eq(bm_span_state(&s, 900, 1000), "gone");
	ck_assert_str_eq(bm_span_state(&s, 901, 1000), "");
	ck_assert_str_eq(bm_span_state(&s, 0, 1000), "new+gone");
	ck_assert_str_eq(bm_span_state(&s, 100, 101), "new");
	ck_assert_str_eq(bm_span_state(&s, 101, 900), "");
	s.from.known = s.to.known = false;	/* there before the recording and after */
	ck_assert_str_eq(bm_span_state(&s, 0, 1000), "");
	ck_assert_str_eq(bm_span_state(NULL, 0, 1000), "");
}
END_TEST

Suite *suite_report(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, a_recording_without_map_records_says_so_and_names_nothing);
	tcase_add_test(tc, an_add_and_a_removal_fall_in_one_interval_each);
	tcase_add_test(tc, an_interval_orders_rows_alike_by_number_and_incarnation);
	suite_add_tcase(s, tc);
	return s;
}
