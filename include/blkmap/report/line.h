/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_LINE_H
#define BLKMAP_REPORT_LINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Output built by hand: the events views print millions of lines, and
 * printf's format parsing was most of their time. What does not fit in the
 * buffer goes to @out at once, so nothing is ever cut.
 */
struct bm_line {
	FILE *out;
	char buf[32768];
	size_t n;
};

static inline void bm_line_init(struct bm_line *l, FILE *out)
{
	l->out = out;
	l->n = 0;
}

/* What does not fit in the buffer: flushed first, or written through. */
void bm_line_strn_slow(struct bm_line *l, const char *s, size_t n);
void bm_line_str(struct bm_line *l, const char *s);
/* @s padded with spaces to @width, on the left (@right) or the right. */
void bm_line_pad(struct bm_line *l, const char *s, int width, bool right);
void bm_line_u64(struct bm_line *l, uint64_t v);
void bm_line_i64(struct bm_line *l, int64_t v);
/* The number padded to @width: zeros if @zeros, else spaces on the left. */
void bm_line_u64w(struct bm_line *l, uint64_t v, int width, bool zeros);
void bm_line_dev(struct bm_line *l, uint32_t dev);
/* Write out what the buffer holds. */
void bm_line_write(struct bm_line *l);

/* Room for @n more bytes, written out first if need be: a line that fits is never split. */
static inline void bm_line_room(struct bm_line *l, size_t n)
{
	if (n > sizeof(l->buf) - l->n)
		bm_line_write(l);
}

/* Inline: separators, padding and short fields are most of the calls. */
static inline void bm_line_char(struct bm_line *l, char c)
{
	if (l->n == sizeof(l->buf))
		bm_line_write(l);
	l->buf[l->n++] = c;
}

static inline void bm_line_strn(struct bm_line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->n) {
		bm_line_strn_slow(l, s, n);
		return;
	}
	__builtin_memcpy(l->buf + l->n, s, n);
	l->n += n;
}

#endif
