/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_MAP_BUILD_H
#define BLKMAP_MAP_BUILD_H

/* The map of a recording, from its map records (build.c). */
#include <stddef.h>
#include <stdint.h>

#include "blkmap/map/map.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/util/tick.h"

struct bm_map_pass {
	const char *path;		/* the recording, for messages */
	/* Called now and then with the bytes of pages read so far; may be NULL. */
	void (*progress)(void *ctx, uint64_t bytes_read);
	void *ctx;
	int jobs;			/* threads to read with, the caller's included */
	/* Out: the recording's span, its events, and its gaps (malloc'ed). */
	uint64_t first, last, events;
	/* Out: where a flight recording's events start (older ones were let go); 0 for none. */
	uint64_t window_from;
	/* Out: blkmap's markers and the disk registrations among them (none: not blkmap's). */
	uint64_t markers, registers;
	/* Out: the kernel's tick, if the recording says (record-begin); ns 0 if not. */
	struct bm_tick tick;
	/* Out: the wall clock at trace time mono_ns, if the recording says (record-begin); 0s if not. */
	uint64_t wall_ns, mono_ns;
	struct bm_loss *losses;
	size_t nlosses;
	/* Out: the second map, of processes to cgroups (bm_cgroups_free()). */
	struct bm_cgroups *cgroups;
};

struct bm_cgroups;

/*
 * Read every event of @stream (each CPU's on its own, from its start), feed the map
 * records among them to a new map in time order, and finish it. NULL with
 * a message on failure.
 */
struct bm_map *bm_map_build(struct bm_stream *stream, const struct bm_decoder *dec,
			    struct bm_map_pass *pass);

#endif
