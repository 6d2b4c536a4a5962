// SPDX-License-Identifier: GPL-2.0-only
/* Marker payloads: the file-format contract of blkmap.dat(5). */
#include <stdio.h>
#include <string.h>

#include "blkmap/sources/marker.h"

#include "helpers.h"

START_TEST(values_round_trip_through_escapes)
{
	static const char *const values[] = {
		"loop0p1", "", "my disk=fast", "100%", "tab\there", "ünï", "a b  c",
	};
	struct bm_marker m;
	struct bm_marker_parsed p;
	char key[8];
	size_t i;

	bm_marker_begin(&m, "dump");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		bm_marker_add(&m, key, values[i]);
	}
	ck_assert(!m.overflow);
	ck_assert_ptr_null(strchr(m.text, '\t'));
	ck_assert_int_eq(bm_marker_parse(&p, m.text, m.len), 0);
	ck_assert_str_eq(p.type, "dump");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		ck_assert_str_eq(bm_marker_get(&p, key), values[i]);
	}
	ck_assert_ptr_null(bm_marker_get(&p, "missing"));
}
END_TEST

START_TEST(the_kernels_trailing_newline_is_ignored)
{
	struct bm_marker_parsed p;
	const char *text = "blkmap:uevent action=add dev=7:0\n";

	ck_assert_int_eq(bm_marker_parse(&p, text, strlen(text)), 0);
	ck_assert_str_eq(bm_marker_get(&p, "dev"), "7:0");
}
END_TEST

START_TEST(other_markers_are_not_ours)
{
	struct bm_marker_parsed p;

	ck_assert_int_lt(bm_marker_parse(&p, "hello world", 11), 0);
	ck_assert_int_lt(bm_marker_parse(&p, "blkmap", 6), 0);
}
END_TEST

START_TEST(an_oversized_marker_is_flagged)
{
	struct bm_marker m;
	char big[600];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bm_marker_begin(&m, "dump");
	bm_marker_add(&m, "a", big);
	ck_assert(!m.overflow);
	bm_marker_add(&m, "b", big);
	ck_assert(m.overflow);
	ck_assert_uint_le(m.len, BM_MARKER_MAX);
}
END_TEST

Suite *suite_marker(void)
{
	Suite *s = suite_create("marker");
	TCase *tc = tcase_create("marker");

	tcase_add_test(tc, values_round_trip_through_escapes);
	tcase_add_test(tc, the_kernels_trailing_newline_is_ignored);
	tcase_add_test(tc, other_markers_are_not_ours);
	tcase_add_test(tc, an_oversized_marker_is_flagged);
	suite_add_tcase(s, tc);
	return s;
}
