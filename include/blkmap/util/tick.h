/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_UTIL_TICK_H
#define BLKMAP_UTIL_TICK_H

/*
 * The kernel's jiffy: bio-based devices (dm, md, zram, an NVMe head) count
 * their time in queue in whole jiffies (bdev_start_io_acct), so the
 * analysis needs the tick's length and where ticks fall on the trace clock
 * (CLOCK_MONOTONIC) to count as they do. Read from /proc/timer_list: its
 * "now at", a CPU's ".last_tick" (a tick's time), and "jiffies", whose
 * value since boot (from INITIAL_JIFFIES, -300 s) says HZ.
 */
#include <stdint.h>

struct bm_tick {
	uint64_t ns;	/* a jiffy's length (TICK_NSEC); 0: unknown */
	uint64_t at;	/* the CLOCK_MONOTONIC time of one tick */
};

/* The tick of a kernel whose /proc/timer_list reads @text; ns 0 if it does not say. */
struct bm_tick bm_tick_parse(const char *text);
/* This kernel's; ns 0 if /proc/timer_list cannot be read or does not say. */
struct bm_tick bm_tick_read(void);
/* @t rounded down to a tick of @tick (@t itself if the tick is unknown). */
static inline uint64_t bm_tick_floor(const struct bm_tick *tick, uint64_t t)
{
	if (!tick->ns)
		return t;
	return t >= tick->at ? t - (t - tick->at) % tick->ns
			     : t - (tick->ns - 1 - (tick->at - t - 1) % tick->ns);
}

#endif
