/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_REPORT_H
#define BLKMAP_REPORT_REPORT_H

/*
 * The report pipeline: read -> merge -> build map -> label -> output.
 * The map is built in a first pass over map records only, so that a late
 * record (a uevent marker written after the I/O it explains) still labels
 * every event; the second pass labels and prints.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "blkmap/map/map.h"
#include "blkmap/report/output.h"
#include "blkmap/util/tell.h"

struct bm_analysis;

/* Operations, as --op names them, from a block event's RWBS. */
enum {
	BM_OPS_READ = 1 << 0,		/* R */
	BM_OPS_WRITE = 1 << 1,		/* W */
	BM_OPS_FLUSH = 1 << 2,		/* F: a flush, a preflush or FUA */
	BM_OPS_DISCARD = 1 << 3,	/* D */
};

/* The BM_OPS_* bits of @rwbs. */
unsigned bm_rwbs_ops(const char *rwbs);
/* "read", "write", "flush", "discard": the bit, or 0. */
unsigned bm_ops_parse(const char *name);
/* The names of @ops, joined with ", ", into @buf. */
const char *bm_ops_str(unsigned ops, char *buf, size_t size);

enum bm_view {
	BM_VIEW_EVENTS,
	BM_VIEW_MAP,
	BM_VIEW_CONFLICTS,	/* the map's conflicts between sources */
	BM_VIEW_DISKS,		/* per incarnation: counts, rates, depth, latency */
	BM_VIEW_LATENCY,	/* per incarnation: log2 latency histograms */
	BM_VIEW_TOP,		/* per incarnation and process */
	BM_VIEW_STACK,		/* per incarnation and the device above it */
	BM_VIEW_SLOWEST,	/* the slowest I/Os, with what was in flight */
	BM_VIEW_PHASES,		/* per incarnation and operation: btt's phases, seeks */
	BM_VIEW_INTERVAL,	/* blkmap top: one interval, per incarnation */
	BM_VIEW_SERIES,		/* --interval: the recording interval by interval */
	BM_VIEW_CGROUPS,	/* per incarnation and cgroup: which cgroup did the I/O */
	BM_VIEW_NONE,		/* only the plot */
};

struct bm_report_opts {
	enum bm_view view;
	size_t slowest;		/* BM_VIEW_SLOWEST: how many */
	enum bm_output_format format;
	bool explain;		/* say how each label was obtained */
	enum bm_time_mode time;	/* how text prints times */
	bool kernel_names;	/* text: the kernel names alone (--names=kernel) */
	/* Filters: a time window, disk names and numbers, processes, operations. */
	struct bm_time_arg since, until;	/* as bm_time_parse() reads them, if set */
	bool since_set, until_set;
	struct bm_span_filter devices;
	int pids[BM_FILTER_MAX];
	unsigned npids;
	const char *comms[BM_FILTER_MAX];
	unsigned ncomms;
	unsigned ops;		/* BM_OPS_* bits; 0: every operation */
	const char *cgroup;	/* a cgroup and those below it (bm_cgroup_wanted); NULL: all */
	const char *plot;	/* write an SVG or HTML picture here */
	uint64_t interval_ns;	/* BM_VIEW_SERIES, and the plot: the bins' width */
	unsigned bins;		/* the plot's number of bins, without interval_ns (0: 400) */
	/*
	 * blkmap top's: a live recording's interval, which may reach past its
	 * events and name a disk that comes later (BM_VIEW_INTERVAL is always).
	 */
	bool live;
	/* CSV (and blkmap top's text) without the column names. */
	bool no_header;
	/* BM_VIEW_INTERVAL, _SERIES, _DISKS: the order of the rows. */
	int sort;		/* enum bm_interval_sort */
	/* Threads to read with, the caller's included; 0 or 1: the caller's alone. */
	int jobs;
	/* Warnings for the user (one line, no newline). */
	bm_tell_fn warn;
	/* Progress through the file, 0 to 100, for large files. */
	void (*progress)(const char *what, int percent);
	/*
	 * BM_VIEW_NONE: the finished analysis and the map, to a caller that
	 * takes what it needs before both are freed (blkmap diff); 0, or -1
	 * with bm_error() set, which fails the report.
	 */
	int (*analysed)(void *ctx, const struct bm_analysis *a, const struct bm_map *map);
	void *ctx;
};

/* 0 on success; -1 with a message naming the file and offset. */
int bm_report(const char *path, const struct bm_report_opts *opts, FILE *out);
/*
 * The same of a recording already open, which stays open: what a caller
 * reporting on the same file many times (the fuzzer) uses.
 */
struct bm_trace;
int bm_report_trace(struct bm_trace *trace, const struct bm_report_opts *opts, FILE *out);

#endif
