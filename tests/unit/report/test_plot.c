// SPDX-License-Identifier: GPL-2.0-only
/* The plot's time axis: round times from the start, or of the local wall clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/map/map.h"
#include "blkmap/report/plot.h"

#include "helpers.h"

#define S 1000000000ULL
#define FIRST (5 * S)

/* 2026-12-01T10:07:13Z, in ns since the epoch. */
static uint64_t at_10_07_13(void)
{
	struct tm tm = { .tm_year = 126, .tm_mon = 11, .tm_mday = 1, .tm_hour = 10, .tm_min = 7,
			 .tm_sec = 13 };

	return (uint64_t)timegm(&tm) * S;
}

/*
 * The time axis' labels of an empty window from FIRST, @span_ns long, its
 * start at @wall_ns on the wall clock (0: seconds from the start), in @tz,
 * joined by '|'.
 */
static const char *axis(uint64_t span_ns, uint64_t wall_ns, const char *tz, char *out, size_t size)
{
	struct bm_analysis *a = bm_analysis_new(FIRST, FIRST + span_ns, span_ns / 400 + 1);
	char dir[] = "/tmp/blkmap-plot-XXXXXX", path[64], line[4096];
	const char *p;
	size_t n = 0;
	FILE *f;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("TZ", tz, 1);
	tzset();
	bm_analysis_finish(a);
	bm_analysis_keep(a, &(struct bm_span_filter){ 0 });
	snprintf(path, sizeof(path), "%s/p.svg", dir);
	ck_assert_int_eq(bm_plot(path, a, &(struct bm_plot_opts){ .first = FIRST,
		.last = FIRST + span_ns, .wall_ns = wall_ns, .mono_ns = FIRST }), 0);
	out[0] = '\0';
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, "class='ttick'")) && (p = strchr(p, '>')))
			n += snprintf(out + n, size - n, "%s%.*s", n ? "|" : "",
				      (int)strcspn(p + 1, "<"), p + 1);
	fclose(f);
	unlink(path);
	rmdir(dir);
	bm_analysis_free(a);
	unsetenv("TZ");
	tzset();
	return out;
}

START_TEST(the_time_axis_is_at_round_times)
{
	char out[2048];

	/* seconds from the start, 1 apart */
	ck_assert_str_eq(axis(8450000000ULL, 0, "UTC", out, sizeof(out)),
			 "0 s|1 s|2 s|3 s|4 s|5 s|6 s|7 s|8 s");
	ck_assert_str_eq(axis(900000000ULL, 0, "UTC", out, sizeof(out)),
			 "0 s|0.1 s|0.2 s|0.3 s|0.4 s|0.5 s|0.6 s|0.7 s|0.8 s|0.9 s");
	/* the wall clock: from the first round time after the start */
	ck_assert_str_eq(axis(900000000ULL, at_10_07_13() + 550000000ULL, "UTC", out, sizeof(out)),
			 "10:07:13.6|10:07:13.7|10:07:13.8|10:07:13.9|10:07:14.0|10:07:14.1|"
			 "10:07:14.2|10:07:14.3|10:07:14.4");
	ck_assert_str_eq(axis(25 * S, at_10_07_13(), "UTC", out, sizeof(out)),
			 "10:07:15|10:07:20|10:07:25|10:07:30|10:07:35");
	/* a minute or more: steps a clock's face knows, at round times of local time */
	ck_assert_str_eq(axis(3 * 3600 * S, at_10_07_13(), "UTC", out, sizeof(out)),
			 "10:20:00|10:40:00|11:00:00|11:20:00|11:40:00|12:00:00|12:20:00|"
			 "12:40:00|13:00:00");
	ck_assert_str_eq(axis(3 * 3600 * S, at_10_07_13(), "IST-5:30", out, sizeof(out)),
			 "15:40:00|16:00:00|16:20:00|16:40:00|17:00:00|17:20:00|17:40:00|"
			 "18:00:00|18:20:00");
}
END_TEST

Suite *suite_plot(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("plot");

	tcase_add_test(tc, the_time_axis_is_at_round_times);
	suite_add_tcase(s, tc);
	return s;
}
