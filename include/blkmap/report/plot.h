/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_PLOT_H
#define BLKMAP_REPORT_PLOT_H

#include <stdint.h>

struct bm_analysis;
struct tep_handle;

/* What a plot shows besides the analysis. */
struct bm_plot_opts {
	uint64_t first, last;		/* the window, its time axis */
	struct tep_handle *tep;		/* the processes' names */
	uint64_t wall_ns, mono_ns;	/* wall_ns not 0: the axis on the wall clock (mono_ns then) */
};

/*
 * Whether @path may take a plot of the recording @input: its name ends in
 * .svg, .html or .htm (any case), or it is "-" (standard output, SVG); and
 * it is not @input, nor a file that is not a plot blkmap wrote. 0, or -1
 * with a message. Checked before the recording is read.
 */
int bm_plot_check(const char *path, const char *input);
/*
 * An SVG picture (or an HTML page holding it): throughput, latency and
 * offsets over time per incarnation, the busiest processes' throughput;
 * written beside @path and renamed over it when whole. Follow the
 * processes (bm_analysis_proc_series) and the slowest I/Os
 * (bm_analysis_slowest) before the events for their tracks and marks.
 */
int bm_plot(const char *path, const struct bm_analysis *a, const struct bm_plot_opts *o);

#endif
