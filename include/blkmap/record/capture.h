/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_CAPTURE_H
#define BLKMAP_RECORD_CAPTURE_H

/*
 * Per-CPU capture: one thread per CPU drains the instance's trace_pipe_raw
 * into a spool file as the ring buffer fills, so a recording's length does
 * not depend on the buffer size.
 */
#include <stdbool.h>
#include <stdint.h>

struct tracefs_instance;
struct bm_capture;
struct bm_ring;
struct bm_trigger;
struct bm_spool;

/*
 * Start draining CPUs 0..@ncpus-1 of @inst into the page file of
 * @spool (spool.h); with @ring_bytes, into a ring of that size in it
 * (ring.h).
 * @notify_fd (an eventfd, or -1) is signalled if a thread fails.
 */
struct bm_capture *bm_capture_start(struct tracefs_instance *inst, int ncpus,
				    uint32_t page_size, const struct bm_spool *spool,
				    uint64_t ring_bytes,
				    int notify_fd);
/*
 * Drain what is left and stop the threads. Call with tracing off, so the
 * buffers hold a final state. -1 if any thread failed (message set).
 */
int bm_capture_stop(struct bm_capture *c);
/*
 * Until when every CPU's events are in the spool: the CLOCK_MONOTONIC time
 * (the trace clock mono) the oldest of the CPUs' last drains began at.
 */
uint64_t bm_capture_drained(struct bm_capture *c);
/* Have every thread drain its buffer into its spool now, and wait for it. */
void bm_capture_flush(struct bm_capture *c);
/* Has a thread failed (disk full, I/O error)? Its message, or NULL. */
const char *bm_capture_failure(struct bm_capture *c);
uint64_t bm_capture_bytes(struct bm_capture *c);
/* The flight recording's ring, or NULL. */
struct bm_ring *bm_capture_ring(struct bm_capture *c);
/* Show every page read from now on to @t (the caller frees it after bm_capture_stop). */
void bm_capture_set_trigger(struct bm_capture *c, struct bm_trigger *t);
/*
 * Read @pipe_fd (a trace_pipe_raw, non-blocking) until empty, writing whole
 * pages to @out_fd, @batch_pages at a time through @batch. Adds what it
 * wrote to @bytes, which may not pass @room (EFBIG). -1 with errno;
 * @write_failed says which side failed.
 */
int bm_drain_pages(int pipe_fd, int out_fd, uint32_t page_size, char *batch,
		   size_t batch_pages, uint64_t room, uint64_t *bytes, bool *write_failed);

/*
 * How pages are taken, the same for every CPU, in words for the start
 * line: read(2) or splice(2) of trace_pipe_raw, or the ring buffer mapped
 * (Linux 6.10+), and why.
 */
const char *bm_capture_path(struct bm_capture *c);
/*
 * Make the rest of @page after its first @from data bytes a page of its own:
 * the data moved to the front, the time stamp that of the last event left
 * out (time extends and absolute stamps followed). -1 if @from does not
 * fall between two events.
 */
int bm_page_rest(char *page, uint32_t from, uint32_t page_size);

/* Close what capture opened; the spool stays (bm_spool_remove). NULL is fine. */
void bm_capture_free(struct bm_capture *c);

#endif
