// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader's cursor (reading.h): the headers are read field by field at
 * t->pos through a window of the file, or from a decompressed section that
 * stands for it; every size is checked against what the file holds before
 * it is used, and a failure names the offset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/util/error.h"

#include "reading.h"

/* Up to @n bytes at @at into @p, through the window; what was read, or -1. */
ssize_t rd_read_at(struct bm_trace *t, void *p, size_t n, uint64_t at)
{
	ssize_t r;

	if (at > t->size)
		return 0;
	if (t->section) {
		if (n > t->size - at)
			n = t->size - at;
		memcpy(p, t->section + at, n);
		return n;
	}
	if (n >= sizeof(t->window))
		return pread(t->fd, p, n, at);
	/* Never at + n: offsets come from the file, and may be near 2^64. */
	if (at < t->window_at || at - t->window_at > t->window_len ||
	    n > t->window_len - (at - t->window_at)) {
		r = pread(t->fd, t->window, sizeof(t->window), at);
		if (r < 0)
			return -1;
		t->window_at = at;
		t->window_len = r;
	}
	if (n > t->window_at + t->window_len - at)
		n = t->window_at + t->window_len - at;
	memcpy(p, t->window + (at - t->window_at), n);
	return n;
}

int rd_fail(struct bm_trace *t, uint64_t at, const char *what)
{
	if (t->section)
		bm_error("'%s': compressed section at %llu, offset %llu: %s", t->path,
			 (unsigned long long)t->section_at, (unsigned long long)at, what);
	else
		bm_error("'%s': offset %llu: %s", t->path, (unsigned long long)at, what);
	errno = EINVAL;
	return -1;
}

int rd_get(struct bm_trace *t, void *p, uint64_t n, const char *what)
{
	char msg[128];
	ssize_t r;

	if (t->pos > t->size || n > t->size - t->pos) {
		snprintf(msg, sizeof(msg), "file ends inside the %s", what);
		return rd_fail(t, t->pos, msg);
	}
	r = rd_read_at(t, p, n, t->pos);
	if (r < 0 || (uint64_t)r != n) {
		bm_error_errno("cannot read '%s' at offset %llu", t->path,
			       (unsigned long long)t->pos);
		return -1;
	}
	t->pos += n;
	return 0;
}

int rd_get_u16(struct bm_trace *t, uint16_t *v, const char *what)
{
	if (rd_get(t, v, 2, what) < 0)
		return -1;
	if (t->swap)
		*v = __builtin_bswap16(*v);
	return 0;
}

int rd_get_u32(struct bm_trace *t, uint32_t *v, const char *what)
{
	if (rd_get(t, v, 4, what) < 0)
		return -1;
	if (t->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

int rd_get_u64(struct bm_trace *t, uint64_t *v, const char *what)
{
	if (rd_get(t, v, 8, what) < 0)
		return -1;
	if (t->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

/* A block of @n bytes, NUL-terminated in memory. */
char *rd_get_block(struct bm_trace *t, uint64_t n, const char *what)
{
	uint64_t at = t->pos;
	char *p;

	if (t->pos > t->size || n > t->size - t->pos) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s size %llu runs past the end of the file",
			 what, (unsigned long long)n);
		rd_fail(t, at, msg);
		return NULL;
	}
	p = malloc(n + 1);
	if (!p) {
		bm_error_errno("cannot read '%s'", t->path);
		return NULL;
	}
	if (rd_get(t, p, n, what) < 0) {
		free(p);
		return NULL;
	}
	p[n] = '\0';
	return p;
}

/* A NUL-terminated string of at most @max bytes. */
char *rd_get_string(struct bm_trace *t, size_t max, const char *what)
{
	char buf[256];
	uint64_t at = t->pos;
	size_t n = max < sizeof(buf) ? max : sizeof(buf);
	ssize_t r;
	char *nul;

	if (t->pos > t->size)
		n = 0;
	else if (n > t->size - t->pos)
		n = t->size - t->pos;
	r = rd_read_at(t, buf, n, t->pos);
	if (r < 0) {
		bm_error_errno("cannot read '%s' at offset %llu", t->path,
			       (unsigned long long)at);
		return NULL;
	}
	nul = memchr(buf, '\0', r);
	if (!nul) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s is not a terminated string", what);
		rd_fail(t, at, msg);
		return NULL;
	}
	t->pos += nul - buf + 1;
	return strdup(buf);
}

int rd_expect(struct bm_trace *t, const char *word, size_t len)
{
	char buf[32];
	uint64_t at = t->pos;
	char msg[96];

	if (rd_get(t, buf, len, word) < 0)
		return -1;
	if (memcmp(buf, word, len) != 0) {
		snprintf(msg, sizeof(msg), "expected the \"%s\" section", word);
		return rd_fail(t, at, msg);
	}
	return 0;
}

/* The file's numbers, in its byte order. */
uint32_t rd_file_u32(const struct bm_trace *t, const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return t->swap ? __builtin_bswap32(v) : v;
}

uint64_t rd_file_u64(const struct bm_trace *t, const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return t->swap ? __builtin_bswap64(v) : v;
}
