// SPDX-License-Identifier: GPL-2.0-only
/* Map sources: record's --sources and the evidence of a boundary, one enum. */
#include <errno.h>
#include <string.h>

#include "blkmap/sources/source.h"
#include "blkmap/util/error.h"

#include "helpers.h"

START_TEST(source_lists_parse_into_bits)
{
	unsigned mask;

	ck_assert_int_eq(bm_source_parse("sysfs,uevent", &mask), 0);
	ck_assert_uint_eq(mask, BM_SRC_SYSFS | BM_SRC_UEVENT);
	ck_assert_int_eq(bm_source_parse("all", &mask), 0);
	ck_assert_uint_eq(mask, BM_SRC_ALL);
	ck_assert(!(BM_SRC_ALL & BM_SRC_INFERENCE));
}
END_TEST

START_TEST(inference_is_evidence_not_a_source)
{
	unsigned mask = 0;

	errno = 0;
	ck_assert_int_eq(bm_source_parse("kprobe,inferred", &mask), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "'inferred'"));
	ck_assert_int_eq(bm_source_parse("sysfs,", &mask), 0);
	ck_assert_int_eq(bm_source_parse("disk", &mask), -1);
}
END_TEST

START_TEST(source_names_come_most_precise_first)
{
	char buf[64];

	ck_assert_str_eq(bm_sources_str(BM_SRC_SYSFS | BM_SRC_INFERENCE | BM_SRC_KPROBE, '+',
					buf, sizeof(buf)), "kprobe+sysfs+inferred");
	ck_assert_str_eq(bm_sources_str(BM_SRC_ALL, ',', buf, sizeof(buf)),
			 "module,kprobe,tracepoint,uevent,sysfs");
	ck_assert_str_eq(bm_sources_str(0, '+', buf, sizeof(buf)), "");
	/* Cut, never overrun. */
	ck_assert_str_eq(bm_sources_str(BM_SRC_ALL, ',', buf, 10), "module,kp");
}
END_TEST

Suite *suite_source(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("source");

	tcase_add_test(tc, source_lists_parse_into_bits);
	tcase_add_test(tc, inference_is_evidence_not_a_source);
	tcase_add_test(tc, source_names_come_most_precise_first);
	suite_add_tcase(s, tc);
	return s;
}
