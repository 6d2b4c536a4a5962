/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_PLOT_H
#define BLKMAP_REPORT_PLOT_H

#include <stdint.h>

struct bm_analysis;

/* An SVG picture (or an HTML page holding it): throughput and latency over time. */
int bm_plot(const char *path, const struct bm_analysis *a, uint64_t first, uint64_t last);

#endif
