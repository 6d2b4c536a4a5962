/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_LANES_H
#define BLKMAP_TRACEFILE_LANES_H

/*
 * A stream's CPUs read in parallel and merged after (lanes.c): a pass
 * whose work on an event needs no other CPU's events (decoding, naming,
 * formatting) does it in worker threads, a CPU's pages at a time, into
 * items; the caller gets the items back in the order of bm_stream_next().
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "blkmap/tracefile/merge.h"

/*
 * What a worker fills: items, and bytes they may point into by offset
 * (a filler may grow them with bm_lane_bytes()).
 */
struct bm_lane_batch {
	void *items;		/* item_size bytes each, each starting with its uint64_t time */
	size_t n, cap;
	char *bytes;
	size_t nbytes, capbytes;
};

/* Room for @len more bytes at an 8-byte boundary: their offset, or -1 out of memory. */
ssize_t bm_lane_bytes(struct bm_lane_batch *b, size_t len);

struct bm_lanes_def {
	size_t item_size;	/* a multiple of 8 */
	size_t batch_items, batch_bytes;
	size_t state_size;	/* zeroed state for each CPU's filler, its own */
	/*
	 * Fill @b (empty) from @cpu's events, read with bm_stream_next_cpu():
	 * 1 if the CPU has more, 0 at its end, -1 on error (with bm_error).
	 * Items within a CPU in its order.
	 */
	int (*fill)(void *ctx, void *state, int cpu, struct bm_lane_batch *b);
	/* What a state holds besides itself, freed at the stop; may be NULL. */
	void (*release)(void *state);
	void *ctx;
};

struct bm_lanes;

/*
 * Read @stream from its start with @workers threads (at most one a CPU);
 * 0: the caller's thread fills as it merges.
 */
struct bm_lanes *bm_lanes_start(struct bm_stream *stream, const struct bm_lanes_def *def,
				int workers);
/*
 * The next item by (time, CPU) into *@item, and its batch's bytes into
 * *@bytes (may be NULL), valid until the next call: 1; 0 at the end; -1
 * if reading failed (message in bm_error_message()).
 */
int bm_lanes_next(struct bm_lanes *lanes, const void **item, const char **bytes);
/* Bytes of page data read so far, for progress display. */
uint64_t bm_lanes_bytes_read(const struct bm_lanes *lanes);
/* Stop reading (wherever it is) and free @lanes. */
void bm_lanes_stop(struct bm_lanes *lanes);

#endif
