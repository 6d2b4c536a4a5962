/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_UTIL_ERROR_H
#define BLKMAP_UTIL_ERROR_H

/*
 * Library functions return -1 (or NULL) on failure and leave a message
 * describing what failed, on what, here. Only cmd/ prints it.
 */
void bm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like bm_error(), appending ": strerror(errno)". */
void bm_error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *bm_error_message(void);

#endif
