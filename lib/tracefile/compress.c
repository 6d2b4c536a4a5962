// SPDX-License-Identifier: GPL-2.0-only
/* zstd and zlib, through their own libraries, as trace-cmd uses them. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/util/error.h"

static const char *const names[] = {
	[BM_COMPRESS_NONE] = "none",
	[BM_COMPRESS_ZSTD] = "zstd",
	[BM_COMPRESS_ZLIB] = "zlib",
};

int bm_compression_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const char *bm_compression_name(enum bm_compression c)
{
	return names[c];
}

const char *bm_compression_version(enum bm_compression c)
{
	switch (c) {
	case BM_COMPRESS_ZSTD:
		return ZSTD_versionString();
	case BM_COMPRESS_ZLIB:
		return zlibVersion();
	default:
		return "";
	}
}

size_t bm_compress_bound(enum bm_compression c, size_t len)
{
	switch (c) {
	case BM_COMPRESS_ZSTD:
		return ZSTD_compressBound(len);
	case BM_COMPRESS_ZLIB:
		return compressBound(len);
	default:
		return len;
	}
}

size_t bm_compress(enum bm_compression c, const void *in, size_t len, void *out, size_t room)
{
	uLongf zn = room;
	size_t n;
	int z;

	switch (c) {
	case BM_COMPRESS_ZSTD:
		n = ZSTD_compress(out, room, in, len, 1);
		if (!ZSTD_isError(n))
			return n;
		bm_error("cannot compress: %s", ZSTD_getErrorName(n));
		return 0;
	case BM_COMPRESS_ZLIB:
		z = compress2(out, &zn, in, len, Z_BEST_SPEED);
		if (z == Z_OK)
			return zn;
		bm_error("cannot compress: %s", zError(z));
		return 0;
	default:
		memcpy(out, in, len);
		return len;
	}
}

static int damaged(const char *what, const char *why)
{
	bm_error("%s: cannot decompress: %s", what, why);
	errno = EINVAL;
	return -1;
}

int bm_decompress(enum bm_compression c, const void *in, size_t in_len, void *out,
		  size_t out_len, const char *what)
{
	size_t n;
	uLongf zn = out_len;
	int z;

	switch (c) {
	case BM_COMPRESS_NONE:
		if (in_len != out_len)
			return damaged(what, "its sizes differ");
		memcpy(out, in, out_len);
		return 0;
	case BM_COMPRESS_ZSTD:
		n = ZSTD_decompress(out, out_len, in, in_len);
		if (ZSTD_isError(n))
			return damaged(what, ZSTD_getErrorName(n));
		if (n != out_len)
			return damaged(what, "shorter than its header says");
		return 0;
	case BM_COMPRESS_ZLIB:
		z = uncompress(out, &zn, in, in_len);
		if (z != Z_OK)
			return damaged(what, zError(z));
		if (zn != out_len)
			return damaged(what, "shorter than its header says");
		return 0;
	}
	return damaged(what, "unknown compression");
}

struct bm_unpacker {
	enum bm_compression c;
	ZSTD_DCtx *zstd;
	z_stream zlib;
	bool zlib_ready;
};

struct bm_unpacker *bm_unpacker_new(enum bm_compression c)
{
	struct bm_unpacker *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->c = c;
	if (c == BM_COMPRESS_ZSTD && !(u->zstd = ZSTD_createDCtx())) {
		free(u);
		return NULL;
	}
	if (c == BM_COMPRESS_ZLIB) {
		if (inflateInit(&u->zlib) != Z_OK) {
			free(u);
			return NULL;
		}
		u->zlib_ready = true;
	}
	return u;
}

int bm_unpack(struct bm_unpacker *u, const void *in, size_t in_len, void *out, size_t out_len,
	      const char *what)
{
	size_t n;
	int z;

	switch (u->c) {
	case BM_COMPRESS_ZSTD:
		n = ZSTD_decompressDCtx(u->zstd, out, out_len, in, in_len);
		if (ZSTD_isError(n))
			return damaged(what, ZSTD_getErrorName(n));
		if (n != out_len)
			return damaged(what, "shorter than its header says");
		return 0;
	case BM_COMPRESS_ZLIB:
		inflateReset(&u->zlib);
		u->zlib.next_in = (Bytef *)in;
		u->zlib.avail_in = in_len;
		u->zlib.next_out = out;
		u->zlib.avail_out = out_len;
		z = inflate(&u->zlib, Z_FINISH);
		if (z != Z_STREAM_END)
			return damaged(what, z == Z_BUF_ERROR ? "longer than its header says" :
					     u->zlib.msg ? u->zlib.msg : zError(z));
		if (u->zlib.total_out != out_len)
			return damaged(what, "shorter than its header says");
		return 0;
	default:
		return bm_decompress(u->c, in, in_len, out, out_len, what);
	}
}

void bm_unpacker_free(struct bm_unpacker *u)
{
	if (!u)
		return;
	ZSTD_freeDCtx(u->zstd);
	if (u->zlib_ready)
		inflateEnd(&u->zlib);
	free(u);
}
