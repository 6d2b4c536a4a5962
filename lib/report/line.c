// SPDX-License-Identifier: GPL-2.0-only
/* Lines of output built by hand, without printf. */
#include <string.h>

#include "blkmap/report/line.h"
#include "blkmap/tracefile/decode.h"

void bm_line_write(struct bm_line *l)
{
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

static void spaces(struct bm_line *l, int n)
{
	while (n-- > 0)
		bm_line_char(l, ' ');
}

void bm_line_pad(struct bm_line *l, const char *s, int width, bool right)
{
	int len = strlen(s);

	if (right)
		spaces(l, width - len);
	bm_line_strn(l, s, len);
	if (!right)
		spaces(l, width - len);
}

void bm_line_u64w(struct bm_line *l, uint64_t v, int width, bool zeros)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = '0' + v % 10;
	while ((v /= 10));
	while (width-- > n)
		bm_line_char(l, zeros ? '0' : ' ');
	while (n)
		bm_line_char(l, digits[--n]);
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

void bm_line_ts(struct bm_line *l, uint64_t ns)
{
	bm_line_u64(l, ns / 1000000000);
	bm_line_char(l, '.');
	bm_line_u64w(l, ns % 1000000000, 9, true);
}

void bm_line_dev(struct bm_line *l, uint32_t dev)
{
	bm_line_u64(l, BM_MAJOR(dev));
	bm_line_char(l, ':');
	bm_line_u64(l, BM_MINOR(dev));
}
