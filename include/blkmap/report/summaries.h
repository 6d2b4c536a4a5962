/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_SUMMARIES_H
#define BLKMAP_REPORT_SUMMARIES_H

/* The per-incarnation views of an analysis (summaries.c): --disks, --latency, --top. */
#include <stdio.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/report/output.h"

struct tep_handle;

void bm_view_disks(FILE *out, enum bm_output_format format, const struct bm_analysis *a);
void bm_view_latency(FILE *out, enum bm_output_format format, const struct bm_analysis *a);
void bm_view_top(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		 struct tep_handle *tep);

#endif
