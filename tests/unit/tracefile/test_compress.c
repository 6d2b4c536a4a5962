// SPDX-License-Identifier: GPL-2.0-only
/* Version 7's compressions: what zstd and zlib packed comes back, damage is refused. */
#include <errno.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/util/error.h"

#include "helpers.h"

static char pages[3 * 4096];

static void fill_pages(void)
{
	size_t i;

	for (i = 0; i < sizeof(pages); i++)
		pages[i] = (char)(i % 251 < 200 ? 0 : i);
}

START_TEST(zstd_and_zlib_chunks_come_back_whole)
{
	char packed[sizeof(pages) + 1024], back[sizeof(pages)];
	size_t zn;
	uLongf ln = sizeof(packed);

	fill_pages();
	zn = ZSTD_compress(packed, sizeof(packed), pages, sizeof(pages), 3);
	ck_assert(!ZSTD_isError(zn));
	ck_assert_int_eq(bm_decompress(BM_COMPRESS_ZSTD, packed, zn, back, sizeof(back), "zstd"), 0);
	ck_assert_int_eq(memcmp(back, pages, sizeof(pages)), 0);

	memset(back, 0, sizeof(back));
	ck_assert_int_eq(compress2((Bytef *)packed, &ln, (const Bytef *)pages, sizeof(pages), 6),
			 Z_OK);
	ck_assert_int_eq(bm_decompress(BM_COMPRESS_ZLIB, packed, ln, back, sizeof(back), "zlib"), 0);
	ck_assert_int_eq(memcmp(back, pages, sizeof(pages)), 0);
}
END_TEST

START_TEST(damage_and_wrong_sizes_are_refused)
{
	char packed[sizeof(pages) + 1024], back[sizeof(pages) + 4096];
	size_t zn;

	fill_pages();
	zn = ZSTD_compress(packed, sizeof(packed), pages, sizeof(pages), 3);
	ck_assert(!ZSTD_isError(zn));
	/* Its header says 3 pages: a chunk said to hold 4 is damaged. */
	errno = 0;
	ck_assert_int_eq(bm_decompress(BM_COMPRESS_ZSTD, packed, zn, back, sizeof(back), "a chunk"),
			 -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "a chunk: cannot decompress"));
	/* Cut short; not of the compression named. */
	ck_assert_int_eq(bm_decompress(BM_COMPRESS_ZSTD, packed, zn - 5, back, sizeof(pages), "x"),
			 -1);
	ck_assert_int_eq(bm_decompress(BM_COMPRESS_ZLIB, packed, zn, back, sizeof(pages), "x"), -1);
}
END_TEST

START_TEST(compressions_are_known_by_trace_cmds_names)
{
	ck_assert_int_eq(bm_compression_of("zstd"), BM_COMPRESS_ZSTD);
	ck_assert_int_eq(bm_compression_of("zlib"), BM_COMPRESS_ZLIB);
	ck_assert_int_eq(bm_compression_of("none"), BM_COMPRESS_NONE);
	ck_assert_int_eq(bm_compression_of("lz4"), -1);
	ck_assert_str_eq(bm_compression_name(BM_COMPRESS_ZSTD), "zstd");
}
END_TEST

Suite *suite_compress(void)
{
	Suite *s = suite_create("compress");
	TCase *tc = tcase_create("compress");

	tcase_add_test(tc, zstd_and_zlib_chunks_come_back_whole);
	tcase_add_test(tc, damage_and_wrong_sizes_are_refused);
	tcase_add_test(tc, compressions_are_known_by_trace_cmds_names);
	suite_add_tcase(s, tc);
	return s;
}
