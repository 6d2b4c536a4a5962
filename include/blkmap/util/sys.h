/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_UTIL_SYS_H
#define BLKMAP_UTIL_SYS_H

/* System calls as the rest of blkmap wants them (sys.c). */
#include <stddef.h>
#include <stdint.h>

/* Write all @len bytes, across short writes and EINTR; 0, or -1 with errno. */
int bm_write_full(int fd, const void *buf, size_t len);

/*
 * Room for one more element in the array *@v, @n of its *@cap elements of
 * @size bytes used: doubled when full, @first at first. 0, or -1 with
 * errno and the array as it was.
 */
int bm_grow(void *v, size_t n, size_t *cap, size_t size, size_t first);

/* CLOCK_MONOTONIC in milliseconds: for timeouts, not for trace times. */
int64_t bm_now_ms(void);
/* CLOCK_MONOTONIC in nanoseconds: the trace clock "mono", now. */
uint64_t bm_now_ns(void);

#endif
