// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lines of output built by hand, without printf; what depends on the
 * output's settings (times as --time says, CSV and JSON strings) is
 * output.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/report/line.h"
#include "blkmap/tracefile/decode.h"

void bm_line_write(struct bm_line *l)
{
	/* A line without a file is taken whole (events.c): never written out. */
	if (!l->out)
		abort();
	fwrite(l->buf, 1, l->n, l->out);
	l->n = 0;
}

void bm_line_strn_slow(struct bm_line *l, const char *s, size_t n)
{
	bm_line_write(l);
	if (n > sizeof(l->buf)) {
		fwrite(s, 1, n, l->out);
		return;
	}
	memcpy(l->buf, s, n);
	l->n = n;
}

void bm_line_str(struct bm_line *l, const char *s)
{
	bm_line_strn(l, s, strlen(s));
}

/* @n of @c; @n is a field's width, far below the buffer's size. */
static void fill(struct bm_line *l, char c, int n)
{
	if (n <= 0)
		return;
	bm_line_room(l, n);
	memset(l->buf + l->n, c, n);
	l->n += n;
}

void bm_line_pad(struct bm_line *l, const char *s, int width, bool right)
{
	int len = strlen(s);

	if (right)
		fill(l, ' ', width - len);
	bm_line_strn(l, s, len);
	if (!right)
		fill(l, ' ', width - len);
}

static const char two_digits[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/*
 * The digits of @v, ending at @end; returns where they start. Two at a
 * time, and in 32-bit arithmetic below 10^8: timestamps, sectors and
 * sizes are most of a listing's output.
 */
static char *digits(char *end, uint64_t v)
{
	uint32_t w;
	int i;

	while (v >= 100000000) {
		w = v % 100000000;
		v /= 100000000;
		for (i = 0; i < 4; i++, w /= 100)
			memcpy(end -= 2, two_digits + 2 * (w % 100), 2);
	}
	for (w = v; w >= 100; w /= 100)
		memcpy(end -= 2, two_digits + 2 * (w % 100), 2);
	if (w >= 10)
		memcpy(end -= 2, two_digits + 2 * w, 2);
	else
		*--end = '0' + w;
	return end;
}

void bm_line_u64w(struct bm_line *l, uint64_t v, int width, bool zeros)
{
	char buf[20], *end = buf + sizeof(buf), *start = digits(end, v);

	fill(l, zeros ? '0' : ' ', width - (int)(end - start));
	bm_line_strn(l, start, end - start);
}

void bm_line_u64(struct bm_line *l, uint64_t v)
{
	bm_line_u64w(l, v, 0, false);
}

void bm_line_i64(struct bm_line *l, int64_t v)
{
	if (v < 0) {
		bm_line_char(l, '-');
		bm_line_u64(l, -(uint64_t)v);
	} else {
		bm_line_u64(l, v);
	}
}

void bm_line_dev(struct bm_line *l, uint32_t dev)
{
	bm_line_u64(l, BM_MAJOR(dev));
	bm_line_char(l, ':');
	bm_line_u64(l, BM_MINOR(dev));
}
