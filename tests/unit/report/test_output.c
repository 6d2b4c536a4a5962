// SPDX-License-Identifier: GPL-2.0-only
/* Output encodings: JSON strings stay valid whatever bytes a name or comm holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

Suite *suite_output(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("output");

	tcase_add_test(tc, json_strings_escape_controls_and_replace_invalid_utf8);
	tcase_add_test(tc, xml_text_escapes_markup_and_drops_what_xml_forbids);
	tcase_add_test(tc, numbers_are_written_as_printf_writes_them);
	suite_add_tcase(s, tc);
	return s;
}
