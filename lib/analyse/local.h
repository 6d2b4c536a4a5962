/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_LOCAL_H
#define BLKMAP_ANALYSE_LOCAL_H

/*
 * The tracker's state (struct an_tracker) and what its two files share:
 * analyse.c (queue, getrq, insert, issue, requeue, complete, loss; the
 * iostat counts, time in queue, busy time and depth, with series.c) and
 * stack.c (remaps, splits, where stacked I/O came from). No consumer
 * includes it: they see consumer.h's records. The state, besides the
 * incarnations and the consumers' states:
 *
 *   inflight   bios queued on a device and requests issued to it, by
 *              (device, sector): what a completion ends and counts
 *   links      remapped bios on their way down a stack, by the (device,
 *              sector) a remap sent them to: the top device and the
 *              process that a queue or issue there inherits
 *   ranges     the bios in flight on dm and md devices by sector range,
 *              for the pieces whose sector names no bio's start
 */
#include "blkmap/analyse/analyse.h"
#include "blkmap/analyse/inflight.h"
#include "blkmap/tracefile/merge.h"
#include "consumer.h"

/*
 * The counts as rq_counts and bio_counts hold them (reads, writes, their
 * bytes, others, flushes), set into the fields of those names of @to (a
 * disk or one of its bins) once the model says which to take.
 */
#define AN_SET_COUNTS(to, c)							\
	do {									\
		(to)->reads = (c)[0];						\
		(to)->writes = (c)[1];						\
		(to)->read_bytes = (c)[2];					\
		(to)->write_bytes = (c)[3];					\
		(to)->others = (c)[4];						\
		(to)->flushes = (c)[5];						\
	} while (0)

/* The tracker: every field is its own; consumer[] it only hands records to. */
struct an_tracker {
	uint64_t first, last;
	uint64_t bin_ns;	/* a series' bins: how long, how many (0: none) */
	size_t nbins;
	bool steps;		/* hand every event to the consumers (--phases) */
	bool merges;		/* the merge events are recorded */
	struct bm_tick tick;	/* ns 0: unknown, times in queue in ns */
	struct bm_disk_stats **disks;
	size_t ndisks, capdisks;
	int *index;		/* open addressing over disks, -1 empty */
	size_t index_size;
	struct bm_inflight_table inflight, links;
	struct bm_ranges ranges;
	uint64_t next_sweep;	/* when stale entries are dropped next */
	struct bm_loss *gaps;	/* the recording's */
	uint64_t *gap_edges;	/* their starts and ends, in time order */
	size_t ngaps, next_gap;	/* next_gap: the next edge to cross */
	void *consumer[AN_NCONSUMERS];	/* each consumer's state (consumer.h) */
	const struct bm_cgroups *cgroups;	/* whose I/O: NULL, not asked */
	/* the last lookup, as events of one disk come in runs */
	const struct bm_span *last_span;
	uint32_t last_dev;
	int last_disk;
};

/* analyse.c */
int an_disk_of(struct an_tracker *a, uint32_t dev, const struct bm_span *span,
	       enum bm_io_model model);
void an_account(struct bm_inflight_time *t, uint64_t now, int delta);
/* A bio of @io's entered incarnation @disk, submitted by @pid: to the consumers. */
void an_queued(struct an_tracker *a, int disk, int pid, const struct bm_io *io);
/* @io split a bio on incarnation @disk: to the consumers. */
void an_split_off(struct an_tracker *a, int disk, const struct bm_io *io);
/* @sectors of @e, a bio device-mapper split, completed below at @now (its clones'). */
void an_piece_done(struct an_tracker *a, struct bm_inflight *e, uint32_t sectors, uint64_t now);
/* Device-mapper split @e at @now: one more piece of it, taken up now. */
void an_piece_split(struct an_tracker *a, struct bm_inflight *e, uint64_t now);
/* Remove @e from the tables; pointers to other entries may then point elsewhere. */
void an_forget(struct an_tracker *a, struct bm_inflight *e);
/* The ranges of @dev, watched from now on with the bios it has in flight; NULL: no memory. */
struct bm_range_dev *an_watch(struct an_tracker *a, uint32_t dev);
/*
 * The bio of @op queued on @dev that holds @sector: at its start, else within
 * its range if @dev is watched (or, with @watch, from now on).
 */
struct bm_inflight *an_bio_at(struct an_tracker *a, uint32_t dev, uint64_t sector, int op,
			      bool watch);

/* series.c */
/* @d's series of @nbins bins @width long from @first, if @width: 0, or -1 without memory. */
int an_series_new(struct bm_disk_stats *d, uint64_t first, uint64_t width, size_t nbins);
void an_series_free(struct bm_series *s);
/* The bin of @ts (NULL without a series). */
struct bm_bin *an_bin(struct bm_series *s, uint64_t ts);
/* @total, of the double at offset @at of a bin, shared among the bins from @from to @to. */
void an_spread(struct bm_series *s, size_t at, uint64_t from, uint64_t to, double total);
/* @n reads or writes (@op) completed at @ts at @sector of a device of @size sectors. */
void an_series_offset(struct bm_series *s, bool bio, int op, uint64_t ts, uint64_t sector,
		      uint64_t n, uint64_t size);
/* Each bin's figures as @d's model counts them (@requests: its time in flight is its requests'). */
void an_series_finish(struct bm_disk_stats *d, bool requests);

/* stack.c */
void an_remap(struct an_tracker *a, const struct bm_io *io, const struct bm_span *old_span);
void an_split(struct an_tracker *a, const struct bm_io *io);
/* @e, new at (dev, sector), takes its top and writer from a link a remap left there. */
void an_adopt_link(struct an_tracker *a, struct bm_inflight *e, int32_t task);
/* @e, a clone, ended at @now: its bio above may have nothing in flight now. */
void an_clone_done(struct an_tracker *a, const struct bm_inflight *e, uint64_t now);
void an_stack_free(struct an_tracker *a);

#endif
