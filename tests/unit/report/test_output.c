// SPDX-License-Identifier: GPL-2.0-only
/* Output encodings: JSON strings stay valid whatever bytes a name or comm holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

Suite *suite_output(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("output");

	tcase_add_test(tc, json_strings_escape_controls_and_replace_invalid_utf8);
	tcase_add_test(tc, xml_text_escapes_markup_and_drops_what_xml_forbids);
	suite_add_tcase(s, tc);
	return s;
}
