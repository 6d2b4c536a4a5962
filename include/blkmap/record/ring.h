/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_RING_H
#define BLKMAP_RECORD_RING_H

/*
 * A flight recording (record --ring=SIZE): each CPU's pages go round a
 * ring of SIZE / ncpus bytes in its spool region, so that only the newest
 * are kept however long the recording runs. Before a page is overwritten
 * its map records (markers, probe and module events, bdi registrations)
 * are kept apart, packed into pages of their own in the spool file
 * "kept.CPU": a file written from the ring holds, per CPU, the kept pages
 * and then the ring's, in time order, so the map of its window is complete
 * even when a device was added hours before the window starts.
 *
 * What is dropped: block I/O events and events asked for with --event.
 * Of the uevent listener's idle markers (one a second) only the last one
 * before each kept record is kept, and the last one before the window: all
 * the map takes of one is the bound it sets for the next uevent marker.
 * Until the recording's formats are known (bm_ring_learn) a page that
 * leaves the ring is kept whole.
 *
 * A hold (a triggered snapshot, due --post seconds after its slow I/O)
 * keeps whole every page that leaves the ring from then on, in the spool
 * file "held.CPU", between the kept pages and the ring: a file written
 * then holds every page the ring had at the hold and every page since,
 * however much came after the trigger. A ring's worth a CPU is reserved
 * for them in the spool; once a CPU has held that much, the snapshot is
 * due at once.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blkmap/tracefile/compress.h"

struct bm_output;
struct bm_ring;
struct bm_trace_meta;

#define BM_RING_MIN_PAGES	8		/* per CPU */

/*
 * A ring of @bytes (all CPUs together) in the spool directory @dfd (named
 * @dir in messages; its files are made from @dfd), whose page file
 * descriptors @fds are each at its CPU's region of @region bytes (0: a
 * file per CPU, at its start). The descriptors stay the caller's.
 */
struct bm_ring *bm_ring_new(int dfd, const char *dir, int ncpus, uint32_t page_size,
			    uint64_t bytes, const int *fds, uint64_t region);
/* The recording's formats, from the trace file @meta_path (the spool's meta.dat). */
int bm_ring_learn(struct bm_ring *r, const char *meta_path);
/*
 * Put @npages pages read from CPU @cpu's buffer into its ring (one thread
 * a CPU). 0; 1 when a hold has just filled (a CPU held a ring's worth;
 * said once a hold); -1 on failure.
 */
int bm_ring_put(struct bm_ring *r, int cpu, const void *pages, size_t npages);
/* Has CPU @cpu's ring gone round: do its pages leave it now? */
bool bm_ring_went_round(struct bm_ring *r, int cpu);
/*
 * Hold every page that leaves the ring from now on (any thread; a hold
 * already on goes on). Each hold begun counts: bm_ring_hold_gen().
 */
void bm_ring_hold(struct bm_ring *r);
uint64_t bm_ring_hold_gen(struct bm_ring *r);
/* Has a CPU held a ring's worth since the last release? */
bool bm_ring_hold_full(struct bm_ring *r);
/* Reserve the spool's room for a ring's worth of held pages a CPU (a trigger's). */
int bm_ring_reserve_hold(struct bm_ring *r);
/*
 * Let the held pages go, their map records kept; the hold ends unless one
 * began since @gen was read (bm_ring_hold_gen()), which goes on holding
 * from here. 0, or -1 with a message, the pages still held.
 */
int bm_ring_release(struct bm_ring *r, uint64_t gen);
/*
 * Write what the ring holds, with @meta, to @output (a version 7 file,
 * compressed, unless @compression is BM_COMPRESS_NONE), straight from the
 * ring: once its capture has stopped. *@bytes: the file's size.
 */
int bm_ring_write(struct bm_ring *r, const struct bm_trace_meta *meta,
		  const struct bm_output *output, enum bm_compression compression,
		  uint64_t *bytes);
/*
 * The same while the capture goes on: the rings are copied aside (the
 * capture waits for that copy only), then the file is written.
 */
int bm_ring_snapshot(struct bm_ring *r, const struct bm_trace_meta *meta,
		     const struct bm_output *output, enum bm_compression compression,
		     uint64_t *bytes);
/* Bytes of events dropped with their pages so far, and of map records kept. */
void bm_ring_stats(struct bm_ring *r, uint64_t *dropped, uint64_t *kept);
void bm_ring_free(struct bm_ring *r);

#endif
