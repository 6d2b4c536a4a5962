/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_IOFEED_H
#define BLKMAP_ANALYSE_IOFEED_H

/*
 * The block I/O of a stream, read ahead by a thread of its own: it merges
 * the per-CPU pages and decodes the block events of a time window, in
 * batches, while the caller labels and accounts the previous ones.
 */
#include <stddef.h>
#include <stdint.h>

#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/merge.h"

struct bm_iofeed;

/* Read @stream from its start; events outside [@since, @until] are skipped. */
struct bm_iofeed *bm_iofeed_start(struct bm_stream *stream, const struct bm_decoder *dec,
				  uint64_t since, uint64_t until);
/*
 * The next batch into *@ios: its length; 0 at the end; -1 if reading
 * failed (message in bm_error_message()). A batch stays valid until the
 * next call. *@bytes_read: of page data, so far, for progress display.
 */
ssize_t bm_iofeed_next(struct bm_iofeed *feed, const struct bm_io **ios, uint64_t *bytes_read);
/* Stop reading (wherever it is) and free @feed. */
void bm_iofeed_stop(struct bm_iofeed *feed);

#endif
