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

/* The library's version, as trace-cmd writes it after the name. */
const char *bm_compression_version(enum bm_compression c);

/* The room bm_compress() may need for @len bytes. */
size_t bm_compress_bound(enum bm_compression c, size_t len);
/*
 * Compress @in into @out, @room bytes (bm_compress_bound()): the size
 * written, or 0 with a message. Both at their fastest level: a recording
 * is compressed while the user waits for its file.
 */
size_t bm_compress(enum bm_compression c, const void *in, size_t len, void *out, size_t room);

/*
 * Decompress @in into exactly @out_len bytes at @out: 0, or -1 (and a
 * message naming @what) when the data is damaged or of another size.
 */
int bm_decompress(enum bm_compression c, const void *in, size_t in_len, void *out,
		  size_t out_len, const char *what);

/*
 * The same for many chunks: the libraries' decompression state is set up
 * once, not for each chunk (a zstd context is most of the cost of a small
 * chunk). NULL when out of memory.
 */
struct bm_unpacker;
struct bm_unpacker *bm_unpacker_new(enum bm_compression c);
int bm_unpack(struct bm_unpacker *u, const void *in, size_t in_len, void *out, size_t out_len,
	      const char *what);
void bm_unpacker_free(struct bm_unpacker *u);

#endif
