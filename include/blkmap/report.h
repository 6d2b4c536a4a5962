/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_H
#define BLKMAP_REPORT_H

/*
 * The report pipeline: read -> merge -> build map -> label -> output.
 * The map is built in a first pass over map records only, so that a late
 * record (a uevent marker written after the I/O it explains) still labels
 * every event; the second pass labels and prints.
 */
#include <stdbool.h>
#include <stdio.h>

#include "blkmap/output.h"

enum bm_view { BM_VIEW_EVENTS, BM_VIEW_MAP };

struct bm_report_opts {
	enum bm_view view;
	enum bm_output_format format;
	bool explain;		/* say how each label was obtained */
	/* Warnings for the user (one line, no newline). */
	void (*warn)(const char *line);
};

/* 0 on success; -1 with a message naming the file and offset. */
int bm_report(const char *path, const struct bm_report_opts *opts, FILE *out);

#endif
