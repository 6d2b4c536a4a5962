/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_IOSTAT_H
#define BLKMAP_REPORT_IOSTAT_H

/*
 * iostat -x's figures of some time of an incarnation (iostat.c): its whole
 * life in the window (--disks), one interval of blkmap top, or one bin of
 * a series (--interval). One computation, so that every view says the same.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blkmap/analyse/analyse.h"

struct bm_iostat {
	uint64_t from, to;	/* the time the figures are of */
	double seconds;
	uint64_t reads, writes, read_bytes, write_bytes, others, flushes;
	double busy_ns, queue_ns;
	double r_s, w_s, rkb_s, wkb_s, areq_kb, aqu_sz, depth, util_pct, f_s;
	/* reads and writes merged, if merges_known (the merge events recorded) */
	uint64_t rmerges, wmerges;
	bool merges_known;
	double rrqm_s, wrqm_s;	/* NAN if not merges_known */
	/* NAN where there is nothing to average (no read, no write, no flush timed) */
	double r_await_ms, w_await_ms, r_d2c_ms, w_d2c_ms, f_await_ms;
	/* [BM_LAT_Q2C or BM_LAT_D2C]: how many, percentiles and max (us); count 0: none */
	uint64_t lat_count[2];
	double lat_p50_us[2], lat_p99_us[2], lat_p999_us[2], lat_max_us[2];
	/* [BM_LAT_Q2C or BM_LAT_D2C][BM_READ or BM_WRITE]: each operation's tail; count 0: none */
	uint64_t op_count[2][2];
	double op_p99_us[2][2], op_p999_us[2][2], op_max_us[2][2];
};

/* @d over its life in the window. */
void bm_iostat_disk(struct bm_iostat *s, const struct bm_disk_stats *d);
/*
 * Bin @i of @d's series, over the part of it within @d's life: false if
 * none is (its row would say nothing).
 */
bool bm_iostat_bin(struct bm_iostat *s, const struct bm_disk_stats *d, size_t i);

/* An incarnation and its figures, to sort (bm_iostat_sort). */
struct bm_iostat_item {
	const struct bm_disk_stats *d;	/* NULL: no I/O (s all 0, its means NAN) */
	const struct bm_span *span;	/* the incarnation (NULL: none fits) */
	uint32_t dev;
	struct bm_iostat s;
};

/* @it as @d (its span and number) and its figures over its life in the window. */
void bm_iostat_item_disk(struct bm_iostat_item *it, const struct bm_disk_stats *d);
/*
 * The order of @sort (enum bm_interval_sort): the most first, or by name,
 * then by device number and time (the incarnations in order), so that
 * equal rows (idle disks) always come in one order.
 */
int bm_iostat_cmp(const struct bm_iostat_item *a, const struct bm_iostat_item *b, int sort);
/* Order @items by @sort, as blkmap top orders its rows. */
void bm_iostat_sort(struct bm_iostat_item *items, size_t n, int sort);

struct bm_row;

/* The IOSTAT keys of the schema (and the latencies' p50, p99, max with @percentiles). */
/* Each operation's tail (r_ and w_ q2c and d2c p99, p99.9, max), where it has latencies. */
void bm_iostat_op_tails(struct bm_row *r, const struct bm_iostat *s);
void bm_iostat_row(struct bm_row *r, const struct bm_iostat *s, bool percentiles);

/* The text columns, their names with units, and one row's. */
void bm_iostat_text_header(FILE *out);
void bm_iostat_text(FILE *out, const struct bm_iostat *s);

/*
 * Does a gap in the recording (events the kernel lost, a damaged page, a
 * file cut short: to its end) overlap [@from, @to)? Then an interval's
 * figures may lack I/O: an interval row's events_lost.
 */
bool bm_iostat_gap_in(const struct bm_analysis *a, uint64_t from, uint64_t to);

#endif
