// SPDX-License-Identifier: GPL-2.0-only
/* The schema's tables and the rows written from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/report/schema.h"

#include "helpers.h"

/* Every table: keys unique, format_version last, units and meanings written. */
START_TEST(every_view_has_unique_keys_and_ends_with_its_version)
{
	const struct bm_schema *const *list;
	size_t n = bm_schemas(&list), i, j, k;

	ck_assert_uint_ge(n, 8);
	for (i = 0; i < n; i++) {
		const struct bm_schema *s = list[i];

		ck_assert_ptr_eq(bm_schema_find(s->view), s);
		ck_assert_uint_le(s->nkeys, BM_ROW_KEYS);
		ck_assert_str_eq(s->keys[s->nkeys - 1].key, "format_version");
		for (j = 0; j < s->nkeys; j++) {
			ck_assert_msg(s->keys[j].meaning[0], "%s.%s has no meaning", s->view,
				      s->keys[j].key);
			for (k = 0; k < j; k++)
				ck_assert_msg(strcmp(s->keys[j].key, s->keys[k].key), "%s.%s twice",
					      s->view, s->keys[j].key);
		}
	}
	ck_assert_ptr_null(bm_schema_find("nosuch"));
}
END_TEST

static const char *row_of(enum bm_output_format format)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct bm_row *r = malloc(sizeof(*r));

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(r);
	bm_row_start(r, f, format, bm_schema_find("conflicts"));
	bm_row_str(r, "text", "a, \"quoted\" one");
	bm_row_u64(r, "ts_ns", UINT64_MAX);	/* past int64: absent */
	bm_row_end(r);
	bm_row_u64(r, "ts_ns", 42);
	bm_row_end(r);
	fclose(f);
	free(r);
	return buf;
}

/* Values by key in any order; every key on every line; null or empty where absent. */
START_TEST(rows_carry_every_key_null_or_empty_where_absent)
{
	ck_assert_str_eq(row_of(BM_FORMAT_CSV),
			 ",\"a, \"\"quoted\"\" one\",,,,,1\n42,,,,,,1\n");
	ck_assert_str_eq(row_of(BM_FORMAT_JSON),
			 "{\"ts_ns\":null,\"text\":\"a, \\\"quoted\\\" one\",\"dev\":null,"
			 "\"incarnation\":null,\"from_ns\":null,\"to_ns\":null,"
			 "\"format_version\":1}\n"
			 "{\"ts_ns\":42,\"text\":null,\"dev\":null,\"incarnation\":null,"
			 "\"from_ns\":null,\"to_ns\":null,\"format_version\":1}\n");
}
END_TEST

/* Row @r's line with "text" set to @a, then (if not NULL) to @b. */
static char *text_row(struct bm_row *r, const char *a, const char *b)
{
	char *buf = NULL;
	size_t size;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(f);
	bm_row_start(r, f, BM_FORMAT_CSV, bm_schema_find("conflicts"));
	bm_row_str(r, "text", a);
	if (b)
		bm_row_str(r, "text", b);
	bm_row_end(r);
	fclose(f);
	return buf;
}

/* A text longer than a row holds: cut at a character, marked; none past the end. */
START_TEST(a_row_text_too_long_is_cut_and_marked_and_never_overflows)
{
	struct bm_row *r = malloc(sizeof(*r));
	size_t room = sizeof(r->text) - 1, i;
	char *big = malloc(2 * sizeof(r->text)), *line, want[64];

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(big);
	/* Exactly full, then one more: left unset, nothing written past text[]. */
	memset(big, 'a', room);
	big[room] = '\0';
	line = text_row(r, big, "x");
	ck_assert_str_eq(line, ",,,,,,1\n");
	ck_assert_uint_eq(r->ntext, 0);
	free(line);
	/* Too long: cut, ending in "..." within text[]. */
	memset(big, 'b', 2 * room);
	big[2 * room] = '\0';
	line = text_row(r, big, NULL);
	ck_assert_uint_eq(strlen(line), 1 + room + strlen(",,,,,1\n"));
	snprintf(want, sizeof(want), "bbb...,,,,,1\n");
	ck_assert_str_eq(line + room + 1 - 6, want);
	free(line);
	/* Cut at a character's start, not inside its UTF-8 bytes. */
	big[0] = 'c';
	for (i = 1; i + 2 < 2 * room; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[i] = '\0';
	line = text_row(r, big, NULL);
	ck_assert_ptr_nonnull(strstr(line, "\xc3\xa9...,,,,,1\n"));
	ck_assert_uint_eq((strlen(line) - strlen(",c...,,,,,1\n")) % 2, 0);
	free(line);
	free(big);
	free(r);
}
END_TEST

Suite *suite_schema(void)
{
	Suite *s = suite_create("schema");
	TCase *tc = tcase_create("schema");

	tcase_add_test(tc, every_view_has_unique_keys_and_ends_with_its_version);
	tcase_add_test(tc, rows_carry_every_key_null_or_empty_where_absent);
	tcase_add_test(tc, a_row_text_too_long_is_cut_and_marked_and_never_overflows);
	suite_add_tcase(s, tc);
	return s;
}
