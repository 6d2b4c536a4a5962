/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_ANALYSE_H
#define BLKMAP_ANALYSE_ANALYSE_H

/*
 * Per-incarnation analyses of labelled block events: counts and bytes,
 * rates over the incarnation's life in the recording, queue depth and busy
 * time, latency distributions, the processes that did the I/O, and time
 * series for plots. Memory grows with incarnations, processes and requests
 * in flight, never with the number of events.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/analyse/hist.h"
#include "blkmap/map/cgroups.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/util/tick.h"

struct bm_span;
struct bm_phases;

/* The most bins a series may have (an incarnation's are allocated as touched). */
#define BM_SERIES_MAX_BINS 100000

/* Latency kinds, and operations, as the sums below index them. */
enum { BM_LAT_Q2C, BM_LAT_D2C };
enum { BM_READ, BM_WRITE };

/*
 * What an incarnation did within one bin of a series, [start, start +
 * width): the disk's own figures, cut at the bin's edges. Counts, bytes and
 * latencies belong to the bin their completion falls in, as the kernel's
 * counters do; busy time, the depth and the time in queue are shared among
 * the bins an I/O spans, so the bins' sums are the whole's. The bins' start
 * is the first's: the time before it counts in bin 0, after the last bin's
 * end in the last.
 */
struct bm_bin {
	uint64_t reads, writes, read_bytes, write_bytes, others, flushes;
	uint64_t rmerges, wmerges;	/* bios and requests merged, as they merged */
	double busy_ns, depth_ns, queue_ns, flush_ns;
	/* [BM_LAT_Q2C or BM_LAT_D2C][BM_READ or BM_WRITE]; max and percentiles of both ops */
	uint64_t lat_sum[2][2], lat_n[2][2], lat_max[2], lat_p50[2], lat_p99[2], lat_p999[2];
	/* [BM_LAT_Q2C or BM_LAT_D2C][BM_READ or BM_WRITE]: each operation's tail */
	uint64_t op_p99[2][2], op_p999[2][2], op_max[2][2];
	/* internal: as seen by requests and by bios, until the model is known */
	uint64_t rq_counts[6], bio_counts[6];
	double rq_busy, bio_busy, rq_depth, bio_depth;
};

/*
 * Where the reads and writes completed, over time: a fixed grid of time
 * columns (over the series' span) by offset rows, so its size is bounded
 * however long the recording. Row r holds sectors [r << shift, (r + 1) << shift).
 */
#define BM_OFF_COLS	240
#define BM_OFF_ROWS	40
struct bm_offsets {
	unsigned shift;
	uint32_t n[2][BM_OFF_ROWS][BM_OFF_COLS];	/* [BM_READ or BM_WRITE][row][column] */
};

struct bm_series {
	uint64_t first, width;	/* bin i is [first + i * width, first + (i + 1) * width) */
	size_t nbins;
	struct bm_bin *bins;
	struct bm_offsets *offsets;	/* NULL: no read or write completed */
	/* internal: as seen by requests and by bios, until the model is known */
	struct bm_offsets *rq_offsets, *bio_offsets;
	/* internal: the latencies of the bin being filled, for its percentiles */
	struct bm_hist cur[2], cur_op[2][2];
	size_t cur_bin[2];
};

/* How a device's I/O is seen, and so counted (the views' "basis" column). */
enum bm_io_model {
	BM_IO_REQUEST,	/* request-based: insert/issue/complete */
	BM_IO_BIO,	/* bio-based (zram, dm...): queue/complete only */
	BM_IO_REMAP,	/* a partition: the bios remapped from it */
};

/* --slowest's inflight_by: the processes counted a device, those named a row. */
#define BM_BY_PIDS	8
#define BM_BY_SHOWN	3
#define BM_BY_OTHERS	INT32_MIN

struct bm_disk_stats {
	const struct bm_span *span;	/* NULL: events no incarnation fits */
	uint32_t dev;
	enum bm_io_model model;
	uint64_t reads, writes, read_bytes, write_bytes;	/* completed */
	uint64_t others;	/* completed without data: flushes, a driver's own (N) */
	uint64_t flushes;	/* of them, flushes */
	/*
	 * Reads and writes merged (the kernel's fields 2 and 6): bios merged
	 * into a request and requests into another; merges_known: the
	 * recording has the merge events (bm_analysis_merges).
	 */
	uint64_t rmerges, wmerges;
	bool merges_known;
	double flush_ns;	/* their time in queue, as the kernel's (field 17) */
	/* Latencies by kind and operation: [BM_LAT_Q2C or BM_LAT_D2C][BM_READ or BM_WRITE] */
	uint64_t lat_sum[2][2], lat_n[2][2];
	uint64_t first_io, last_io;
	uint64_t life_from, life_to;	/* its life within the recording */
	uint64_t busy_ns;		/* with at least one I/O in flight */
	double depth_ns;		/* integral of the number in flight */
	/*
	 * The kernel's time in queue (/proc/diskstats field 11, iostat's
	 * aqu-sz over time): each completed I/O's time from the kernel's start
	 * of it, a request's allocation, to its completion.
	 */
	double queue_ns;
	struct bm_hist q2c, d2c;
	struct bm_hist lat_op[2][2];	/* [BM_LAT_Q2C or BM_LAT_D2C][BM_READ or BM_WRITE] */
	struct bm_series *series;	/* with a series only: bm_analysis_new's bin */
	struct bm_phases *phases;	/* with bm_analysis_phases() only (phases.h) */
	bool events_lost;	/* its life overlaps a gap in the recording */
	/* internal: counts and time in flight, for requests and for bios */
	uint64_t rq_counts[6], bio_counts[6];	/* reads, writes, rbytes, wbytes, others, flushes */
	double rq_flush_ns;			/* request-based flushes' time in queue */
	uint64_t queued;			/* bios queued on it */
	bool in_flight_from_map;		/* md: a bio counts from its first remap */
	/* flushes issued (FF) and empty preflush writes made, by time, oldest first */
	struct bm_starts {
		uint64_t t[8];
		unsigned first, n;
		unsigned requeued;	/* flushes requeued, to be issued again */
	} flush_starts, preflush_starts;
	struct bm_inflight_time {
		unsigned inflight;
		uint64_t changed, busy_ns;
		/* rq_time: the sectors of the requests in flight, the requests issued so far */
		uint64_t sectors, issued;
		/*
		 * rq_time: who queued the requests in flight, BM_BY_PIDS at most;
		 * the rest under pid BM_BY_OTHERS (--slowest's inflight_by)
		 */
		struct bm_by_pid { int32_t pid; uint32_t n; } by[BM_BY_PIDS];
		double depth_ns;
		struct bm_series *series;	/* shared among its bins too */
		size_t busy_at, depth_at;	/* where in a bin */
	} rq_time, bio_time;
};

struct bm_top_row {
	const struct bm_disk_stats *disk;
	int pid;
	/* the cgroup it queued from (a row each it moved through); basis unknown: not asked */
	struct bm_cgroup cgroup;
	enum bm_cgroup_basis cgroup_basis;
	uint64_t reads, writes, read_bytes, write_bytes;	/* queued */
	struct bm_hist q2c;	/* its bios' Q2C, as they completed */
};

/*
 * Bios that reached a lower device from the top of their stack: the device
 * a process submitted them to (a dm or md device, or a partition), followed
 * through block_bio_remap. Counted as they complete on the lower device.
 */
struct bm_stack_row {
	const struct bm_disk_stats *lower, *upper;
	uint64_t reads, writes, read_bytes, write_bytes;
};

struct bm_analysis;

/*
 * An analysis of the events from @first to @last; with @bin_ns, each
 * incarnation's figures also as a series of bins that long from @first
 * (NULL with errno EINVAL if that makes more than BM_SERIES_MAX_BINS).
 */
struct bm_analysis *bm_analysis_new(uint64_t first, uint64_t last, uint64_t bin_ns);
void bm_analysis_free(struct bm_analysis *a);
/*
 * Also split each incarnation's time into btt's phases and measure its
 * seeks and plugs (phases.h), from the next event on.
 */
void bm_analysis_phases(struct bm_analysis *a);
/*
 * The recording has the merge events (record --events=phases): count the
 * reads and writes merged (rmerges, wmerges), from the next event on.
 */
void bm_analysis_merges(struct bm_analysis *a);
bool bm_analysis_merges_known(const struct bm_analysis *a);
/* Which phases @ph has, as "Q2Q,Q2G,...", into @buf. */
const char *bm_phases_present(const struct bm_phases *ph, char *buf, size_t size);
/* A block event; @span labels its device, @old_span a remap's source. */
void bm_analysis_event(struct bm_analysis *a, const struct bm_io *io,
		       const struct bm_span *span, const struct bm_span *old_span);
void bm_analysis_finish(struct bm_analysis *a);
/*
 * The kernel's tick on the recording's clock, before the first event: the
 * time in queue of a bio-based device is then counted in whole jiffies, as
 * the kernel counts it. Without it, in nanoseconds.
 */
void bm_analysis_tick(struct bm_analysis *a, const struct bm_tick *tick);
/*
 * The recording's gaps (@n losses, any order), before the first event: an
 * I/O in flight at a gap may have lost its completion, so it stops counting
 * in flight there; each incarnation whose life overlaps one is marked.
 */
int bm_analysis_gaps(struct bm_analysis *a, const struct bm_loss *losses, size_t n);
struct bm_span_filter;
/* Keep only the incarnations @f passes (NULL: all). */
void bm_analysis_keep(struct bm_analysis *a, const struct bm_span_filter *f);

/* Incarnations with I/O, ordered by device number then time. */
size_t bm_analysis_disks(const struct bm_analysis *a, const struct bm_disk_stats *const **list);
/*
 * Processes per incarnation, most bytes first, kept from the event after
 * bm_analysis_processes() on (none before: the other views need none). A
 * bio that came down a stack counts for the process that submitted it at
 * the top.
 */
void bm_analysis_processes(struct bm_analysis *a);
size_t bm_analysis_top(const struct bm_analysis *a, const struct bm_top_row **list);
/* Stacked I/O, ordered by lower device, then upper device. */
size_t bm_analysis_stack(const struct bm_analysis *a, const struct bm_stack_row **list);

/*
 * One of the slowest I/Os (--slowest): slowest first by Q2C, by D2C where
 * it was not queued here. Stamps not seen are 0 and flagged off.
 */
struct bm_slow_row {
	const struct bm_disk_stats *disk;	/* completed on */
	const struct bm_disk_stats *top;	/* the top of its stack; NULL: submitted here */
	int32_t pid;
	int op;
	uint64_t sector;
	uint32_t sectors;
	uint64_t q, g, i, d, c;
	bool has_q, has_g, has_i, has_d;
	uint32_t inflight;		/* has_d: the device's other requests in flight at its issue */
	uint64_t inflight_sectors;
	uint32_t behind;		/* issued between its queue and its issue; UINT32_MAX unknown */
	struct bm_by_pid by[BM_BY_SHOWN];	/* who queued those in flight, most first; n 0: none */
	uint64_t took;			/* what it is ranked by: Q2C, else D2C */
};

/*
 * The I/O of a cgroup (of cgroup v2) on an incarnation (--cgroups), as the
 * kernel's io.stat counts it: the bios queued there (by the cgroup's tasks),
 * each charged to the cgroup its task was in when it queued it; their Q2C
 * and D2C as they completed.
 */
struct bm_cgroup_row {
	const struct bm_disk_stats *disk;
	struct bm_cgroup cgroup;	/* id 0: not known */
	enum bm_cgroup_basis basis;	/* the weakest of its I/Os' */
	uint64_t reads, writes, read_bytes, write_bytes;	/* queued */
	struct bm_hist q2c, d2c;
};

/*
 * Tell each I/O's cgroup by @cgroups, from the next event on, for
 * bm_analysis_cgroup_rows() and the cgroup of --top's rows. @cgroups is
 * read until the analysis is freed.
 */
void bm_analysis_cgroups(struct bm_analysis *a, const struct bm_cgroups *cgroups);
/* Cgroups per incarnation, ordered by device number, then cgroup path and incarnation. */
size_t bm_analysis_cgroup_rows(const struct bm_analysis *a, const struct bm_cgroup_row **list);

/* Keep the @n slowest I/Os, from the next event on (memory: @n rows). */
void bm_analysis_slowest(struct bm_analysis *a, size_t n);
size_t bm_analysis_slowest_rows(const struct bm_analysis *a, const struct bm_slow_row **list);
/* A process's I/O in one bin of the series: the bins' index, what completed in it. */
struct bm_proc_bin {
	size_t bin;
	uint64_t reads, writes, read_bytes, write_bytes;
};
/*
 * A process's I/O over time: the bios it submitted, each once, at the top
 * of its stack, in the bin of their completion (the bins with any, in
 * time order).
 */
struct bm_proc_series {
	int pid;
	uint64_t read_bytes, write_bytes;
	struct bm_proc_bin *bins;
	size_t n;
};
/* Follow the @n busiest processes over the series' bins, from the next event on. */
void bm_analysis_proc_series(struct bm_analysis *a, size_t n);
/* After bm_analysis_keep(): those processes, busiest first, on the devices kept. */
size_t bm_analysis_proc_series_rows(const struct bm_analysis *a,
				    const struct bm_proc_series **list);
/* The gaps given to bm_analysis_gaps(), in no particular order. */
size_t bm_analysis_gap_list(const struct bm_analysis *a, const struct bm_loss **list);
/* The series' bins: their number, and how long each is (0: no series). */
size_t bm_analysis_bins(const struct bm_analysis *a, uint64_t *width);

#endif
