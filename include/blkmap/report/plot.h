/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_PLOT_H
#define BLKMAP_REPORT_PLOT_H

#include <stdint.h>

struct bm_analysis;

/*
 * Whether @path may take a plot of the recording @input: its name ends in
 * .svg, .html or .htm (any case), or it is "-" (standard output, SVG); and
 * it is not @input, nor a file that is not a plot blkmap wrote. 0, or -1
 * with a message. Checked before the recording is read.
 */
int bm_plot_check(const char *path, const char *input);
/*
 * An SVG picture (or an HTML page holding it): throughput and latency over
 * time; written beside @path and renamed over it when whole.
 */
int bm_plot(const char *path, const struct bm_analysis *a, uint64_t first, uint64_t last);

#endif
