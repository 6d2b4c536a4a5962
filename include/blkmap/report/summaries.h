/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_SUMMARIES_H
#define BLKMAP_REPORT_SUMMARIES_H

/*
 * The per-incarnation views of an analysis (summaries.c): --disks,
 * --latency, --top, --stack, and blkmap top's interval.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/report/output.h"

struct tep_handle;
struct bm_map;

/*
 * The views return 0, or -1 (errno set: no memory) with the view cut short.
 * @header: CSV's header row (--no-header leaves it out); ordered by @sort
 * (enum bm_interval_sort).
 */
int bm_view_disks(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		  bool header, int sort);
struct bm_row;
/*
 * The keys of @d's --disks row, into @r (of the disks schema), but for an
 * NVMe path's share of its head: what blkmap diff compares, key by key.
 */
void bm_disks_row_fill(struct bm_row *r, const struct bm_disk_stats *d);
int bm_view_latency(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header);
/*
 * Rows of the processes @wanted says (NULL: all), in the cgroups @cgroup
 * keeps (bm_cgroup_wanted); the rows written, or -1.
 */
ssize_t bm_view_top(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		   bool header, struct tep_handle *tep, const char *cgroup,
		   bool (*wanted)(int pid, const char *comm, void *ctx), void *ctx);
/* The slowest I/Os (bm_analysis_slowest), slowest first, with what was in flight at their issue. */
int bm_view_slowest(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header, struct tep_handle *tep);
/* Per lower incarnation, the I/O that came down to it from each upper one (dm, md, partition). */
int bm_view_stack(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		  bool header);

/*
 * What became of incarnation @s within [@from, @to): "new" (its life began
 * there: the earliest moment it may have been added), "gone" (its life ended
 * there: the latest moment it may have been removed), "new+gone", or "".
 * Each add and removal falls in one interval of a series.
 */
const char *bm_span_state(const struct bm_span *s, uint64_t from, uint64_t to);

struct bm_row;
/*
 * The keys every per-incarnation row has: name, incarnation, from_ns and
 * to_ns (of @s, where one fits: NULL leaves them null), and dev (@dev).
 */
void bm_row_span(struct bm_row *r, const struct bm_span *s, uint32_t dev);

enum bm_interval_sort { BM_SORT_DEV, BM_SORT_NAME, BM_SORT_IOPS, BM_SORT_BYTES, BM_SORT_UTIL,
			BM_SORT_LATENCY };

/* --sort's KEY: dev, name, iops, bytes, util, latency. 0, or -1 if none of them. */
int bm_sort_parse(const char *key, int *sort);

struct bm_interval_opts {
	uint64_t since, until;	/* the interval */
	bool header;		/* print the column names (text, CSV) */
	enum bm_interval_sort sort;	/* by number, or the most first */
	const struct bm_span_filter *filter;	/* only these incarnations (NULL: all) */
};

/*
 * One interval of blkmap top: per incarnation with I/O in it, or added or
 * removed in it (marked), iostat's rates, depth and utilisation, and Q2C
 * and D2C p50, p99 and max.
 */
int bm_view_interval(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		     const struct bm_map *map, const struct bm_interval_opts *o);

struct bm_series_opts {
	uint64_t since, until;	/* the window: the first interval starts at since */
	bool header;		/* print the column names (text, CSV) */
	int sort;		/* enum bm_interval_sort, within each interval */
};

/*
 * --interval: per interval of the analysis' series, a row per incarnation
 * alive in it, with the interval view's keys.
 */
int bm_view_series(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		   const struct bm_series_opts *o);

#endif
