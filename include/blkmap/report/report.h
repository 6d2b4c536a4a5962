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

#include "blkmap/report/output.h"
#include "blkmap/util/tell.h"

enum bm_view {
	BM_VIEW_EVENTS,
	BM_VIEW_MAP,
	BM_VIEW_CONFLICTS,	/* the map's conflicts between sources */
	BM_VIEW_DISKS,		/* per incarnation: counts, rates, depth, latency */
	BM_VIEW_LATENCY,	/* per incarnation: log2 latency histograms */
	BM_VIEW_TOP,		/* per incarnation and process */
	BM_VIEW_STACK,		/* per incarnation and the device above it */
	BM_VIEW_INTERVAL,	/* blkmap top: one interval, per incarnation */
	BM_VIEW_NONE,		/* only the plot */
};

struct bm_report_opts {
	enum bm_view view;
	enum bm_output_format format;
	bool explain;		/* say how each label was obtained */
	/* Filters: a time window, a disk name, a device number (0: none). */
	uint64_t since, until;	/* ns, if set */
	bool since_set, until_set;
	bool since_relative, until_relative;	/* from the recording's start */
	const char *disk;
	uint32_t dev;
	const char *plot;	/* write an SVG or HTML picture here */
	/* CSV (and blkmap top's text) without the column names. */
	bool no_header;
	/* BM_VIEW_INTERVAL: the order of the rows. */
	int sort;		/* enum bm_interval_sort */
	/* Threads to read with, the caller's included; 0 or 1: the caller's alone. */
	int jobs;
	/* Warnings for the user (one line, no newline). */
	bm_tell_fn warn;
	/* Progress through the file, 0 to 100, for large files. */
	void (*progress)(const char *what, int percent);
};

/* 0 on success; -1 with a message naming the file and offset. */
int bm_report(const char *path, const struct bm_report_opts *opts, FILE *out);

#endif
