/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_CONSUMER_H
#define BLKMAP_ANALYSE_CONSUMER_H

/*
 * What the tracker (analyse.c, stack.c) hands its consumers, and how. A
 * consumer is a file with its own state that sees the records below and
 * nothing of the tracker's (struct an_tracker, local.h: no entry in flight,
 * no incarnation table). Adding one is a file, a name in enum an_which, its
 * callbacks declared below and a line in analyse.c's table (consumers[]).
 *
 * The records: struct an_queued as a bio enters a device, struct an_io as
 * an I/O finishes, and, for a consumer that follows the events by rules of
 * its own (phases.c), struct an_step at each event while one asks for them.
 *
 * Cost: the tracker fills one record on the stack an I/O (an event, for
 * steps) and calls each consumer that has the callback, directly (see
 * below); a consumer's memory is its own to bound (processes a disk, pairs
 * of stacked devices, bios in flight by btt's rules; never the number of
 * events).
 */
#include <stdbool.h>
#include <stdint.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/map/cgroups.h"

/*
 * How long an I/O may be in flight before the tracker and the consumers
 * that keep bios (phases.c) take it for one whose completion the trace
 * lacks, and drop it: it stops counting as in flight then (a gap in the
 * recording drops what it held at once). The kernel counts an I/O in
 * flight for as long as a device's error handling holds it: NVMe fails a
 * request over after its command's and its abort's timeouts (30 s each)
 * and the controller's reset (62 s seen in a guest); SCSI tries six times,
 * 30 s each, 180 s in all before its error handler; NVMe over fabrics
 * holds requests up to ctrl_loss_tmo (600 s) and dm-multipath's
 * queue_if_no_path without a limit. Those past this are counted as lost:
 * the price is that a completion the trace lacks leaves its device busy
 * that long.
 */
#define AN_STALE_NS	(300ULL * 1000000000)

/*
 * The cgroup the kernel charged an I/O to (bm_cgroups_charged): its queuing
 * task's at its queue, or the one a flusher wrote back for. Basis
 * BM_CG_UNKNOWN where the task's is not known, or not asked
 * (bm_analysis_cgroups).
 */
struct an_cgroup {
	struct bm_cgroup cg;
	enum bm_cgroup_basis basis;
};

/*
 * A bio entering a device: queued on it, or remapped from a partition
 * (which counts the bios it remapped as its own).
 */
struct an_queued {
	const struct bm_disk_stats *disk;
	int32_t pid;		/* who submitted it (at the top of its stack) */
	int op;			/* BM_READ, BM_WRITE, -1 neither (a flush) */
	uint32_t sectors;
	uint64_t ts;
	struct an_cgroup cgroup;	/* of @pid at @ts */
};

/*
 * A finished I/O: a bio or request completed, or a bio that ended with the
 * request it was merged into. Phase stamps not seen are 0 and flagged off.
 */
struct an_io {
	/* the iostat consumers (latency.c) add their figures to @disk and @part */
	struct bm_disk_stats *disk;		/* completed on */
	const struct bm_disk_stats *queued_on;	/* queued on (usually @disk); NULL: not here */
	struct bm_disk_stats *part;		/* the partition it was submitted to; NULL */
	const struct bm_disk_stats *top;	/* the top of its stack; NULL: submitted here */
	int32_t pid;		/* who submitted it (at the top of its stack) */
	struct an_cgroup cgroup;	/* of @pid at its queue (at @c if not queued here) */
	int op;			/* BM_READ, BM_WRITE, -1 neither */
	uint64_t sector;	/* where it completed */
	uint32_t sectors;	/* the bio's size when queued, else the completion's */
	uint64_t q, d, c;	/* queued, issued (the request's), completed */
	uint64_t g, i;		/* its request made (getrq), inserted */
	/* has_d: the device's other requests in flight at its issue, their sectors */
	uint32_t inflight;
	uint64_t inflight_sectors;
	uint32_t behind;	/* requests issued there between its queue and its issue; UINT32_MAX */
	struct bm_by_pid by[BM_BY_SHOWN];	/* has_d: who queued those in flight, most first */
	bool has_q, has_d, has_g, has_i;
	bool request;		/* completed as a request, not a bio */
	bool merged;		/* ended with the request it merged into: no figures of its own */
};

/*
 * A block event as the tracker met it, with its incarnations, for a
 * consumer that follows the events by rules of its own (phases.c: btt
 * matches bios by sector range, counts merges, plugs and the requests
 * waiting at each queue). Handed before the tracker acts on the event, and
 * only once a consumer asked for them (bm_analysis_phases): no cost without.
 */
struct an_step {
	const struct bm_io *io;
	struct bm_disk_stats *disk;	/* its incarnation; NULL: a plug or unplug (a task's) */
	struct bm_disk_stats *from;	/* a remap's source; else NULL */
};

/*
 * A consumer's callbacks, each optional. @new makes its state (NULL: no
 * memory), @finish readies it for reading at the recording's end, @keep
 * drops what the filter does not pass (after @finish), @free releases it.
 * @step hears every event (struct an_step) while steps are asked for, @gap
 * that the recording lost events here: what it follows may have ended there.
 * @split: a bio on @q->disk was split (block_split, in the submitting
 * task, @q->pid, at @q->ts; @q->sectors 0): the piece split off goes on
 * as a bio of its own.
 */
struct an_consumer {
	void *(*new)(void);
	void (*queued)(void *state, const struct an_queued *q);
	void (*done)(void *state, const struct an_io *io);
	void (*finish)(void *state);
	void (*keep)(void *state, const struct bm_span_filter *f);
	void (*free)(void *state);
	void (*step)(void *state, const struct an_step *s);
	void (*gap)(void *state);
	void (*split)(void *state, const struct an_queued *q);
};

/* Incarnations in the views' order: by device number, then time. */
static inline int an_disk_order(const struct bm_disk_stats *a, const struct bm_disk_stats *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (a->life_from > b->life_from) - (a->life_from < b->life_from);
}

/* The consumers, as the tracker's table lists them. */
enum an_which {
	AN_PROCS,	/* procs.c: --top, who did the I/O */
	AN_STACKED,	/* stacked.c: --stack, what came down from above */
	AN_LATENCY,	/* latency.c: the iostat figures' Q2C and D2C */
	AN_SLOWEST,	/* slowest.c: --slowest, the slowest I/Os and what was in flight */
	AN_PHASES,	/* phases.c, seek.c: --phases, btt's phases, seeks, merges, plugs */
	AN_CGROUPS,	/* cgroups.c: --cgroups, which cgroup did the I/O */
	AN_PROCSERIES,	/* procseries.c: the plot's busiest processes over time */
	AN_NCONSUMERS
};

/*
 * Each consumer's callbacks, by its name: analyse.c's table names them
 * rather than pointing to a table in each file, so that the compiler sees
 * which it calls and makes them direct calls (the hot path: one an I/O).
 */
/* procs.c (keeps nothing until asked: an_procs_want) */
void *an_procs_new(void);
void an_procs_want(void *state);
void an_procs_queued(void *state, const struct an_queued *q);
void an_procs_done(void *state, const struct an_io *io);
void an_procs_finish(void *state);
void an_procs_keep(void *state, const struct bm_span_filter *f);
void an_procs_free(void *state);
size_t an_procs_rows(const void *state, const struct bm_top_row **list);
/* stacked.c (hears of no queue) */
void *an_stacked_new(void);
void an_stacked_done(void *state, const struct an_io *io);
void an_stacked_finish(void *state);
void an_stacked_keep(void *state, const struct bm_span_filter *f);
void an_stacked_free(void *state);
size_t an_stacked_rows(const void *state, const struct bm_stack_row **list);
/* latency.c (its figures are the incarnations': no state, nothing to finish) */
void an_latency_done(void *state, const struct an_io *io);
/* slowest.c (keeps nothing until told how many: an_slowest_want) */
void *an_slowest_new(void);
void an_slowest_done(void *state, const struct an_io *io);
void an_slowest_finish(void *state);
void an_slowest_keep(void *state, const struct bm_span_filter *f);
void an_slowest_free(void *state);
void an_slowest_want(void *state, size_t n);
size_t an_slowest_rows(const void *state, const struct bm_slow_row **list);
/* phases.c (hears steps and gaps only) */
void *an_phases_new(void);
void an_phases_step(void *state, const struct an_step *s);
void an_phases_gap(void *state);
void an_phases_free(void *state);
/* cgroups.c */
void *an_cgroups_new(void);
void an_cgroups_queued(void *state, const struct an_queued *q);
void an_cgroups_split(void *state, const struct an_queued *q);
void an_cgroups_done(void *state, const struct an_io *io);
void an_cgroups_finish(void *state);
void an_cgroups_keep(void *state, const struct bm_span_filter *f);
void an_cgroups_free(void *state);
void an_cgroups_want(void *state);	/* keeps nothing until asked */
size_t an_cgroups_rows(const void *state, const struct bm_cgroup_row **list);
/* procseries.c (keeps nothing until told the bins: an_procseries_want) */
void *an_procseries_new(void);
void an_procseries_done(void *state, const struct an_io *io);
void an_procseries_finish(void *state);
void an_procseries_keep(void *state, const struct bm_span_filter *f);
void an_procseries_free(void *state);
void an_procseries_want(void *state, size_t n, uint64_t first, uint64_t width, size_t nbins);
size_t an_procseries_rows(const void *state, const struct bm_proc_series **list);
/* series.c: a latency of kind @which (BM_LAT_Q2C, BM_LAT_D2C) of an I/O of @op that completed at @ts. */
void an_series_latency(struct bm_series *s, int which, int op, uint64_t ts, uint64_t v);

#endif
