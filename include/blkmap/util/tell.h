/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_UTIL_TELL_H
#define BLKMAP_UTIL_TELL_H

/*
 * How lib/ passes notes, progress and warnings to cmd/, the only part
 * that talks to the user: a line of text, without its newline, handed to
 * a callback the caller chose (tell.c).
 */
typedef void (*bm_tell_fn)(const char *line);

/* Format a line and hand it to @to; nothing if @to is NULL. */
void bm_tell(bm_tell_fn to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
