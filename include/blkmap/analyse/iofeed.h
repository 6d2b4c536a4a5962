/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_IOFEED_H
#define BLKMAP_ANALYSE_IOFEED_H

/*
 * The block I/O of a stream, labelled, in the stream's order. Each CPU's
 * pages are read, decoded and labelled on their own, by worker threads
 * when there are jobs for them; the caller's thread merges the CPUs'
 * decoded events by time, the order bm_stream_next() gives, and accounts
 * them while the workers read on.
 */
#include <stddef.h>
#include <stdint.h>

#include "blkmap/map/map.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/merge.h"

struct bm_fed_io {
	struct bm_io io;
	const struct bm_span *span, *old_span;	/* NULL: no incarnation fits */
};

struct bm_iofeed;

/*
 * Read @stream from its start, labelling with @map; events outside
 * [@since, @until] are skipped. @jobs: threads to use, the caller's
 * included; 1 reads in the caller's thread alone.
 */
struct bm_iofeed *bm_iofeed_start(struct bm_stream *stream, const struct bm_decoder *dec,
				  const struct bm_map *map, uint64_t since, uint64_t until,
				  int jobs);
/*
 * The next event into *@io, valid until the next call: 1; 0 at the end;
 * -1 if reading failed (message in bm_error_message()).
 */
int bm_iofeed_next(struct bm_iofeed *feed, const struct bm_fed_io **io);
/* Bytes of page data read so far, for progress display. */
uint64_t bm_iofeed_bytes_read(const struct bm_iofeed *feed);
/* Stop reading (wherever it is) and free @feed. */
void bm_iofeed_stop(struct bm_iofeed *feed);

#endif
