// SPDX-License-Identifier: GPL-2.0-only
/* Output encodings: JSON strings stay valid whatever bytes a name or comm holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blkmap/report/line.h"
#include "blkmap/report/output.h"

#include "helpers.h"

static char *json_of(const char *s)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ck_assert_ptr_nonnull(f);
	bm_json_str(f, s);
	fclose(f);
	return buf;
}

START_TEST(json_strings_escape_controls_and_replace_invalid_utf8)
{
	/* Valid multi-byte UTF-8 is kept as it is. */
	ck_assert_str_eq(json_of("d\xc3\xa9j\xc3\xa0 \xe2\x82\xac \xf0\x9f\x92\xbe"),
			 "\"d\xc3\xa9j\xc3\xa0 \xe2\x82\xac \xf0\x9f\x92\xbe\"");
	ck_assert_str_eq(json_of("a\"b\\c\n\x01\x7f"), "\"a\\\"b\\\\c\\u000a\\u0001\x7f\"");
	/* A stray continuation byte, a lone lead byte, a cut sequence. */
	ck_assert_str_eq(json_of("x\x80y"), "\"x\\ufffdy\"");
	ck_assert_str_eq(json_of("\xff"), "\"\\ufffd\"");
	ck_assert_str_eq(json_of("\xe2\x82"), "\"\\ufffd\\ufffd\"");
	/* Overlong encodings, UTF-16 surrogates and code points past U+10FFFF. */
	ck_assert_str_eq(json_of("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
	ck_assert_str_eq(json_of("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
	ck_assert_str_eq(json_of("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}
END_TEST

START_TEST(xml_text_escapes_markup_and_drops_what_xml_forbids)
{
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	bm_xml_str(f, "<a&'\"b>\t\x01\x80\xc3\xa9\xef\xbf\xbe");
	fclose(f);
	ck_assert_str_eq(buf, "&lt;a&amp;&apos;&quot;b&gt;\t&#xfffd;&#xfffd;\xc3\xa9&#xfffd;");
}
END_TEST

/* Numbers written by hand agree with printf at every digit count and chunk edge. */
START_TEST(numbers_are_written_as_printf_writes_them)
{
	static const uint64_t values[] = {
		0, 7, 9, 10, 42, 99, 100, 999, 1000, 65535, 99999999, 100000000, 100000001,
		1234567890123ULL, 9999999999999999ULL, 10000000000000000ULL, UINT64_MAX,
	};
	char got[64], want[64];
	struct bm_line *l = malloc(sizeof(*l));
	size_t i;

	ck_assert_ptr_nonnull(l);
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		FILE *f = fmemopen(got, sizeof(got), "w");

		ck_assert_ptr_nonnull(f);
		bm_line_init(l, f);
		bm_line_u64(l, values[i]);
		bm_line_char(l, '|');
		bm_line_u64w(l, values[i] % 1000, 3, true);
		bm_line_char(l, '|');
		bm_line_u64w(l, values[i], 21, false);
		bm_line_char(l, '|');
		bm_line_ts(l, values[i]);
		bm_line_write(l);
		fclose(f);
		snprintf(want, sizeof(want), "%llu|%03llu|%21llu|%llu.%09llu",
			 (unsigned long long)values[i], (unsigned long long)(values[i] % 1000),
			 (unsigned long long)values[i], (unsigned long long)(values[i] / 1000000000),
			 (unsigned long long)(values[i] % 1000000000));
		ck_assert_str_eq(got, want);
	}
	free(l);
}
END_TEST

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static uint64_t wall(const char *arg)
{
	uint64_t ns = 0;

	ck_assert_msg(bm_wall_parse(arg, &ns) == 0, "'%s' refused", arg);
	return ns;
}

/* @ns printed, then read back: the same. */
static const char *wall_round_trip(uint64_t ns)
{
	static char buf[64];

	bm_wall_str(ns, buf, sizeof(buf));
	ck_assert_uint_eq(wall(buf), ns);
	return buf;
}

#define S	UINT64_C(1000000000)
/* 2026-03-29T01:00:00Z: Europe/London goes from GMT to BST. */
#define SPRING	(UINT64_C(1774746000) * S)

/* Wall-clock times print as --since/--until read them, with TZ's offset. */
START_TEST(wall_times_print_and_parse_back_in_every_zone)
{
	char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;

	set_tz("UTC0");
	ck_assert_str_eq(wall_round_trip(SPRING + 5), "2026-03-29T01:00:00.000000005Z");
	ck_assert_uint_eq(wall("2026-03-29T01:00:00Z"), SPRING);
	ck_assert_uint_eq(wall("2026-03-29T01:00:00,5Z"), SPRING + S / 2);
	ck_assert_uint_eq(wall("2026-03-29T01:00:00"), SPRING);	/* local: UTC */
	set_tz("IST-5:30");
	ck_assert_str_eq(wall_round_trip(SPRING), "2026-03-29T06:30:00.000000000+05:30");
	ck_assert_uint_eq(wall("2026-03-29T06:30:00"), SPRING);
	ck_assert_uint_eq(wall("2026-03-29T01:00:00-05:30"), SPRING + (5 * 3600 + 1800) * S);
	/* Europe/London's rules: the hour before the change in GMT, the one after in BST. */
	set_tz("GMT0BST,M3.5.0/1,M10.5.0");
	ck_assert_str_eq(wall_round_trip(SPRING - 1), "2026-03-29T00:59:59.999999999Z");
	ck_assert_str_eq(wall_round_trip(SPRING), "2026-03-29T02:00:00.000000000+01:00");
	ck_assert_uint_eq(wall("2026-03-29T00:30:00"), SPRING - 1800 * S);
	ck_assert_uint_eq(wall("2026-03-29T02:30:00"), SPRING + 1800 * S);
	ck_assert_uint_eq(wall("2026-03-29T02:30:00+01:00"), SPRING + 1800 * S);
	if (old)
		set_tz(old);
	else
		unsetenv("TZ");
	tzset();
	free(old);
}
END_TEST

/* Exactly the shape bm_wall_str() prints: two digits, no signs, no spaces. */
START_TEST(wall_times_refuse_what_is_not_printed)
{
	static const char *const bad[] = {
		"2026-03-29T01:00:00+5:30", "2026-03-29T01:00:00+ 5:30",
		"2026-03-29T01:00:00+-1:00", "2026-03-29T01:00:00--1:00",
		"2026-03-29T01:00:00+05:3", "2026-03-29T01:00:00+0530",
		"2026-03-29T01:00:00+05:30 ", "2026-03-29T01:00:00+24:00",
		"2026-03-29T01:00:00+05:60", "2026-03-29T01:00:00-+1:00",
		"2026-3-29T01:00:00Z", "2026-03-29T1:00:00Z", " 2026-03-29T01:00:00Z",
		"2026-03-29T01:00:0Z", "2026-03-29T01:00:00.Z", "2026-13-29T01:00:00Z",
		"2026-03-29T24:00:00Z", "2026-03-29t01:00:00Z", "2026-03-29T01:00:00ZZ",
		"2026-03-29T-1:00:00Z", "2026-03-29T01:00",
	};
	struct bm_time_arg t;
	uint64_t ns;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(bm_wall_parse(bad[i], &ns) < 0, "'%s' read", bad[i]);
		ck_assert_msg(bm_time_parse(bad[i], &t) < 0, "'%s' read as a time", bad[i]);
	}
}
END_TEST

/* --time=rel prints "-S.N" before the start: --since and --until read it back. */
START_TEST(relative_times_before_the_start_read_as_printed)
{
	struct bm_timefmt f = { .mode = BM_TIME_REL, .first = 10 * S };
	struct bm_time_arg t;
	char buf[64];

	bm_time_show(&f);
	bm_ts_str(10 * S - S / 4, buf, sizeof(buf));
	bm_time_show(NULL);
	ck_assert_str_eq(buf, "-0.250000000");
	ck_assert_int_eq(bm_time_parse(buf, &t), 0);
	ck_assert(t.relative && t.before && !t.wall);
	ck_assert_uint_eq(t.ns, S / 4);
	ck_assert_int_eq(bm_time_parse("+0.25", &t), 0);
	ck_assert(t.relative && !t.before);
	ck_assert_int_eq(bm_time_parse("-250ms", &t), 0);
	ck_assert(t.relative && t.before && t.ns == S / 4);
	ck_assert_int_eq(bm_time_parse("775.5", &t), 0);
	ck_assert(!t.relative && !t.before && t.ns == 775 * S + S / 2);
	ck_assert_int_lt(bm_time_parse("--1", &t), 0);
	ck_assert_int_lt(bm_time_parse("-+1", &t), 0);
	ck_assert_int_lt(bm_time_parse("+-1", &t), 0);
	ck_assert_int_lt(bm_time_parse("-", &t), 0);
	ck_assert_int_lt(bm_time_parse("- 1", &t), 0);
}
END_TEST

Suite *suite_output(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("output");

	tcase_add_test(tc, json_strings_escape_controls_and_replace_invalid_utf8);
	tcase_add_test(tc, xml_text_escapes_markup_and_drops_what_xml_forbids);
	tcase_add_test(tc, numbers_are_written_as_printf_writes_them);
	tcase_add_test(tc, wall_times_print_and_parse_back_in_every_zone);
	tcase_add_test(tc, wall_times_refuse_what_is_not_printed);
	tcase_add_test(tc, relative_times_before_the_start_read_as_printed);
	suite_add_tcase(s, tc);
	return s;
}
