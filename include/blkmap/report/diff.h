/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_DIFF_H
#define BLKMAP_REPORT_DIFF_H

/*
 * blkmap diff (diff.c): two recordings, or two sets of runs, side by side.
 * Each recording is analysed as `report --disks` analyses it; A's
 * incarnations are paired with B's by the strongest identity both carry
 * (serial, WWID, LVM volume, dm UUID or name, loop file, mount points,
 * kernel name), and every --disks figure printed for both with its change,
 * with a Mann-Whitney U test of the pair's per-I/O Q2C and D2C. Memory:
 * per incarnation its figures and latency histograms, whatever the number
 * of runs or events.
 */
#include <stddef.h>
#include <stdio.h>

#include "blkmap/report/report.h"

struct bm_diff_opts {
	/* The analysis of each recording: the time window (since, until) and jobs, warn. */
	struct bm_report_opts report;
	enum bm_output_format format;
	bool no_header;
	/* --disk, --dev: only the pairs of which either side passes (NULL: all). */
	const struct bm_span_filter *devices;
	/* --pair=A=B: pairings made first, by kernel name or incarnation (MAJ:MIN#N). */
	const char *pair_a[BM_FILTER_MAX], *pair_b[BM_FILTER_MAX];
	unsigned npairs;
	/* Told each recording's path before it is read (its warnings follow); may be NULL. */
	void (*reading)(const char *path);
};

/*
 * Recordings @a (@na of them, pooled) against @b (@nb); 0, or -1 with
 * bm_error() set (a recording that cannot be read, a --pair or --disk
 * that names nothing, no memory).
 */
int bm_diff(char *const *a, size_t na, char *const *b, size_t nb,
	    const struct bm_diff_opts *o, FILE *out);

#endif
