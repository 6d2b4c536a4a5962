// SPDX-License-Identifier: GPL-2.0-only
/* The report of a recording blkmap did not make: honest about what it lacks. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/report/report.h"
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
	/* Each block event: its number, no name, basis unknown (then no remap, no dm name). */
	line = strchr(out, '\n') + 1;
	ck_assert_ptr_nonnull(strstr(line, "block_bio_queue,"));
	ck_assert_ptr_nonnull(strstr(line, ",unknown,,,,,,,,,,,,,1\n"));
	line = strchr(line, '\n') + 1;
	ck_assert_ptr_nonnull(strstr(line, ",unknown,,,,,,,,,,,,,1\n"));
}
END_TEST

Suite *suite_report(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, a_recording_without_map_records_says_so_and_names_nothing);
	suite_add_tcase(s, tc);
	return s;
}
