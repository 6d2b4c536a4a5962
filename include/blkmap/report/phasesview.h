/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_PHASESVIEW_H
#define BLKMAP_REPORT_PHASESVIEW_H

/*
 * --phases (phasesview.c): per incarnation and operation, btt's phases;
 * per incarnation its merges, request sizes, plugs, requests active at Q
 * and seek distances. Its keys are listed in blkmap-report(1).
 */
#include <stdbool.h>
#include <stdio.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/report/output.h"

/* @header: CSV's header row (not with --no-header). */
void bm_view_phases(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header);

#endif
