/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_COMPRESS_H
#define BLKMAP_TRACEFILE_COMPRESS_H

/*
 * The compressions of trace.dat version 7 (compress.c): trace-cmd names
 * them "zstd" and "zlib" in the file's compression header; "none" is none.
 */
#include <stddef.h>

enum bm_compression { BM_COMPRESS_NONE, BM_COMPRESS_ZSTD, BM_COMPRESS_ZLIB };

/* The compression named @name, or -1. */
int bm_compression_of(const char *name);
const char *bm_compression_name(enum bm_compression c);

/*
 * Decompress @in into exactly @out_len bytes at @out: 0, or -1 (and a
 * message naming @what) when the data is damaged or of another size.
 */
int bm_decompress(enum bm_compression c, const void *in, size_t in_len, void *out,
		  size_t out_len, const char *what);

#endif
