/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_TRIGGER_H
#define BLKMAP_RECORD_TRIGGER_H

/*
 * A flight recorder's trigger (record --snapshot-on=latency>DURATION):
 * the capture threads look at each page as it arrives, pair each I/O's
 * start and end, and signal the recorder when one took longer than
 * DURATION. The latency is the one the report's LAT column shows: from
 * block_rq_issue to block_rq_complete (D2C) for a request, from
 * block_bio_queue to block_bio_complete (Q2C) for a bio of a bio-based
 * device (zram, dm). Either half may arrive first: CPUs are drained in
 * their own time.
 *
 * I/Os in flight are tracked in a table of fixed size, indexed by device
 * and sector: one that collides with a newer one is forgotten (a slow I/O
 * may then go unnoticed; a fast one is never taken for slow).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bm_trigger;

struct bm_trigger_spec {
	uint64_t latency_ns;	/* an I/O slower than this fires */
	char disk[64];		/* only this disk or partition (its name now); "" for any */
};

/* Parse "latency>DURATION[,disk=NAME]" (DURATION: 500us, 20ms, 1.5s). -1 with a message. */
int bm_trigger_parse(const char *text, struct bm_trigger_spec *spec);

/*
 * Watch for @spec in pages of the recording whose formats are in the
 * trace file @meta_path. @notify_fd (an eventfd) is signalled on each slow I/O.
 */
struct bm_trigger *bm_trigger_new(const struct bm_trigger_spec *spec, const char *meta_path,
				  int notify_fd);
/*
 * Look at @npages pages just read from a CPU (any thread). True when a
 * slow I/O was seen in them (the notify descriptor signalled).
 */
bool bm_trigger_pages(struct bm_trigger *t, const void *pages, size_t npages, uint32_t page_size);
/* Signal the notify descriptor without a slow I/O: the ring's hold is full. */
void bm_trigger_poke(struct bm_trigger *t);

struct bm_trigger_hit {
	uint32_t dev;		/* kernel dev_t encoding, as in the events */
	uint64_t sector;
	uint64_t latency_ns;
	uint64_t end_ts;	/* trace time of its completion */
	bool d2c;		/* a request's D2C, else a bio's Q2C */
};

/* The slowest I/O since the last call, if any (the main loop's). */
bool bm_trigger_take(struct bm_trigger *t, struct bm_trigger_hit *hit);
void bm_trigger_free(struct bm_trigger *t);

#endif
