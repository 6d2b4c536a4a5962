/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_VIEWS_H
#define BLKMAP_VIEWS_H

/* The per-disk views of an analysis, in text, CSV or JSON; and plots. */
#include <stdio.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/report/output.h"

struct tep_handle;

void bm_view_disks(FILE *out, enum bm_output_format format, const struct bm_analysis *a);
void bm_view_latency(FILE *out, enum bm_output_format format, const struct bm_analysis *a);
void bm_view_top(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		 struct tep_handle *tep);
/* An SVG picture (or an HTML page holding it): throughput and latency over time. */
int bm_plot(const char *path, const struct bm_analysis *a, uint64_t first, uint64_t last);

#endif
