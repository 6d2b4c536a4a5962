// SPDX-License-Identifier: GPL-2.0-only
/*
 * iostat -x's figures, from an incarnation's counts and times as the
 * analysis made them (the kernel's rules: see analyse.c). As iostat's:
 * r/s and w/s completed reads and writes per second, rkB/s and wkB/s their
 * kB (1024 bytes), areq-sz the kB per read or write, aqu-sz the kernel's
 * time in queue (diskstats field 11) over the time, %util the time with
 * I/O in flight (field 10), f/s flushes completed and f_await their mean
 * time (fields 16 and 17). r_await and w_await are the mean Q2C (a bio's
 * queueing to its completion), where iostat divides the kernel's time
 * from a request's allocation (fields 4 and 8); D2C, the device's part, is
 * beside them. blkmap's own: the depth, the mean number of I/Os issued
 * and not completed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"

#include "blkmap/report/iostat.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"

static double per_s(double n, double seconds)
{
	return seconds > 0 ? n / seconds : NAN;	/* over no time: unknown */
}

static double mean_ms(uint64_t sum, uint64_t n)
{
	return n ? sum / 1e6 / n : NAN;
}

/*
 * The rates and means of @s's counts and times; @lat_sum and @lat_n are
 * [BM_LAT_Q2C or BM_LAT_D2C][BM_READ or BM_WRITE]. Pointers to their rows,
 * not [2][2]: gcc checks what a caller passes against an array parameter's
 * bound, and under the sanitizers took a bin's lat_n for 16 bytes.
 */
static void rates(struct bm_iostat *s, const uint64_t (*lat_sum)[2], const uint64_t (*lat_n)[2],
		  double depth_ns, double flush_ns)
{
	uint64_t ios = s->reads + s->writes;
	double ns = s->seconds * 1e9;

	s->r_s = per_s(s->reads, s->seconds);
	s->w_s = per_s(s->writes, s->seconds);
	s->rkb_s = per_s(s->read_bytes / 1024.0, s->seconds);
	s->wkb_s = per_s(s->write_bytes / 1024.0, s->seconds);
	s->areq_kb = ios ? (s->read_bytes + s->write_bytes) / 1024.0 / ios : 0;
	s->aqu_sz = per_s(s->queue_ns, ns);
	s->depth = per_s(depth_ns, ns);
	s->util_pct = 100 * per_s(s->busy_ns, ns);
	s->f_s = per_s(s->flushes, s->seconds);
	s->rrqm_s = s->merges_known ? per_s(s->rmerges, s->seconds) : NAN;
	s->wrqm_s = s->merges_known ? per_s(s->wmerges, s->seconds) : NAN;
	s->r_await_ms = mean_ms(lat_sum[BM_LAT_Q2C][BM_READ], lat_n[BM_LAT_Q2C][BM_READ]);
	s->w_await_ms = mean_ms(lat_sum[BM_LAT_Q2C][BM_WRITE], lat_n[BM_LAT_Q2C][BM_WRITE]);
	s->r_d2c_ms = mean_ms(lat_sum[BM_LAT_D2C][BM_READ], lat_n[BM_LAT_D2C][BM_READ]);
	s->w_d2c_ms = mean_ms(lat_sum[BM_LAT_D2C][BM_WRITE], lat_n[BM_LAT_D2C][BM_WRITE]);
	/* The kernel times the flushes it sends itself, of request-based devices. */
	s->f_await_ms = s->flushes && flush_ns > 0 ? flush_ns / 1e6 / s->flushes : NAN;
}

/*
 * Merges are seen on the disk the request is on: a partition's (the
 * kernel counts them for it too) are not told apart, so unknown.
 */
static bool merges_known(const struct bm_disk_stats *d)
{
	return d->merges_known && d->model != BM_IO_REMAP;
}

/* The counts and times @src (a disk, or one of its bins) holds, into @s. */
#define COPY_COUNTS(s, src)							\
	do {									\
		(s)->reads = (src)->reads;					\
		(s)->writes = (src)->writes;					\
		(s)->read_bytes = (src)->read_bytes;				\
		(s)->write_bytes = (src)->write_bytes;				\
		(s)->others = (src)->others;					\
		(s)->flushes = (src)->flushes;					\
		(s)->rmerges = (src)->rmerges;					\
		(s)->wmerges = (src)->wmerges;					\
		(s)->busy_ns = (src)->busy_ns;					\
		(s)->queue_ns = (src)->queue_ns;				\
	} while (0)

void bm_iostat_disk(struct bm_iostat *s, const struct bm_disk_stats *d)
{
	const struct bm_hist *h[2] = { &d->q2c, &d->d2c };
	int k, op;

	memset(s, 0, sizeof(*s));
	s->from = d->life_from;
	s->to = d->life_to;
	s->seconds = (d->life_to - d->life_from) / 1e9;
	COPY_COUNTS(s, d);
	s->merges_known = merges_known(d);
	for (k = 0; k < 2; k++) {
		s->lat_count[k] = h[k]->count;
		s->lat_p50_us[k] = bm_hist_percentile(h[k], 50) / 1e3;
		s->lat_p99_us[k] = bm_hist_percentile(h[k], 99) / 1e3;
		s->lat_p999_us[k] = bm_hist_percentile(h[k], 99.9) / 1e3;
		s->lat_max_us[k] = h[k]->max / 1e3;
		for (op = 0; op < 2; op++) {
			const struct bm_hist *o = &d->lat_op[k][op];

			s->op_count[k][op] = o->count;
			s->op_p99_us[k][op] = bm_hist_percentile(o, 99) / 1e3;
			s->op_p999_us[k][op] = bm_hist_percentile(o, 99.9) / 1e3;
			s->op_max_us[k][op] = o->max / 1e3;
		}
	}
	rates(s, d->lat_sum, d->lat_n, d->depth_ns,
	      d->model == BM_IO_BIO ? 0 : d->flush_ns);
}

void bm_iostat_item_disk(struct bm_iostat_item *it, const struct bm_disk_stats *d)
{
	it->d = d;
	it->span = d->span;
	it->dev = d->dev;
	bm_iostat_disk(&it->s, d);
}

bool bm_iostat_bin(struct bm_iostat *s, const struct bm_disk_stats *d, size_t i)
{
	const struct bm_series *ser = d->series;
	const struct bm_bin *b;
	uint64_t from, to;
	int k, op;

	if (!ser || i >= ser->nbins)
		return false;
	b = &ser->bins[i];
	from = ser->first + i * ser->width;
	to = from + ser->width;
	if (from < d->life_from)
		from = d->life_from;
	if (to > d->life_to)
		to = d->life_to;
	if (from >= to && !(b->reads | b->writes | b->others))
		return false;
	if (to < from)
		to = from;
	memset(s, 0, sizeof(*s));
	s->from = from;
	s->to = to;
	s->seconds = (to - from) / 1e9;
	COPY_COUNTS(s, b);
	s->merges_known = merges_known(d);
	for (k = 0; k < 2; k++) {
		s->lat_count[k] = b->lat_n[k][BM_READ] + b->lat_n[k][BM_WRITE];
		s->lat_p50_us[k] = b->lat_p50[k] / 1e3;
		s->lat_p99_us[k] = b->lat_p99[k] / 1e3;
		s->lat_p999_us[k] = b->lat_p999[k] / 1e3;
		s->lat_max_us[k] = b->lat_max[k] / 1e3;
		for (op = 0; op < 2; op++) {
			s->op_count[k][op] = b->lat_n[k][op];
			s->op_p99_us[k][op] = b->op_p99[k][op] / 1e3;
			s->op_p999_us[k][op] = b->op_p999[k][op] / 1e3;
			s->op_max_us[k][op] = b->op_max[k][op] / 1e3;
		}
	}
	rates(s, b->lat_sum, b->lat_n, b->depth_ns, d->model == BM_IO_BIO ? 0 : b->flush_ns);
	return true;
}

void bm_iostat_op_tails(struct bm_row *r, const struct bm_iostat *s)
{
	static const char *const keys[2][2][3] = {
		{ { "r_q2c_p99_us", "r_q2c_p999_us", "r_q2c_max_us" },
		  { "w_q2c_p99_us", "w_q2c_p999_us", "w_q2c_max_us" } },
		{ { "r_d2c_p99_us", "r_d2c_p999_us", "r_d2c_max_us" },
		  { "w_d2c_p99_us", "w_d2c_p999_us", "w_d2c_max_us" } },
	};
	int k, op;

	for (k = 0; k < 2; k++)
		for (op = 0; op < 2; op++) {
			if (!s->op_count[k][op])
				continue;
			bm_row_num(r, keys[k][op][0], s->op_p99_us[k][op]);
			bm_row_num(r, keys[k][op][1], s->op_p999_us[k][op]);
			bm_row_num(r, keys[k][op][2], s->op_max_us[k][op]);
		}
}

void bm_iostat_row(struct bm_row *r, const struct bm_iostat *s, bool percentiles)
{
	static const char *const keys[2][4] = {
		{ "q2c_p50_us", "q2c_p99_us", "q2c_max_us", "q2c_p999_us" },
		{ "d2c_p50_us", "d2c_p99_us", "d2c_max_us", "d2c_p999_us" } };
	int k;

	bm_row_num(r, "r_s", s->r_s);
	bm_row_num(r, "w_s", s->w_s);
	bm_row_num(r, "rkb_s", s->rkb_s);
	bm_row_num(r, "wkb_s", s->wkb_s);
	bm_row_num(r, "rrqm_s", s->rrqm_s);	/* null: no merge events recorded */
	bm_row_num(r, "wrqm_s", s->wrqm_s);
	if (s->merges_known) {
		bm_row_u64(r, "rmerges", s->rmerges);
		bm_row_u64(r, "wmerges", s->wmerges);
	}
	bm_row_num(r, "r_await_ms", s->r_await_ms);	/* NAN: null */
	bm_row_num(r, "w_await_ms", s->w_await_ms);
	bm_row_num(r, "r_d2c_ms", s->r_d2c_ms);
	bm_row_num(r, "w_d2c_ms", s->w_d2c_ms);
	bm_row_num(r, "areq_kb", s->areq_kb);
	bm_row_num(r, "aqu_sz", s->aqu_sz);
	bm_row_num(r, "queue_depth", s->depth);
	bm_row_num(r, "util_pct", s->util_pct);
	bm_row_u64(r, "flushes", s->flushes);
	bm_row_num(r, "f_s", s->f_s);
	bm_row_num(r, "f_await_ms", s->f_await_ms);
	bm_row_num(r, "busy_ns", s->busy_ns);
	bm_row_num(r, "queue_ns", s->queue_ns);
	for (k = 0; percentiles && k < 2; k++) {
		if (!s->lat_count[k])
			continue;
		bm_row_num(r, keys[k][0], s->lat_p50_us[k]);
		bm_row_num(r, keys[k][1], s->lat_p99_us[k]);
		bm_row_num(r, keys[k][2], s->lat_max_us[k]);
		bm_row_num(r, keys[k][3], s->lat_p999_us[k]);
	}
	if (percentiles)
		bm_iostat_op_tails(r, s);
}

void bm_iostat_text_header(FILE *out)
{
	fprintf(out, " %8s %8s %9s %9s %6s %6s %10s %10s %10s %10s %7s %6s %6s %6s %6s %10s",
		"r/s", "w/s", "rkB/s", "wkB/s", "rrqm/s", "wrqm/s", "r_await_ms", "w_await_ms",
		"r_d2c_ms", "w_d2c_ms", "areq-kB", "aqu-sz", "depth", "%util", "f/s", "f_await_ms");
}

/* A figure, or "-" where it is unknown (NAN: a mean of none, a rate over no time). */
static void num_field(FILE *out, int width, int prec, double v)
{
	if (isnan(v))
		fprintf(out, " %*s", width, "-");
	else
		fprintf(out, " %*.*f", width, prec, v);
}

void bm_iostat_text(FILE *out, const struct bm_iostat *s)
{
	num_field(out, 8, 1, s->r_s);
	num_field(out, 8, 1, s->w_s);
	num_field(out, 9, 1, s->rkb_s);
	num_field(out, 9, 1, s->wkb_s);
	num_field(out, 6, 1, s->rrqm_s);	/* "-": no merge events recorded */
	num_field(out, 6, 1, s->wrqm_s);
	num_field(out, 10, 3, s->r_await_ms);
	num_field(out, 10, 3, s->w_await_ms);
	num_field(out, 10, 3, s->r_d2c_ms);
	num_field(out, 10, 3, s->w_d2c_ms);
	num_field(out, 7, 1, s->areq_kb);
	num_field(out, 6, 2, s->aqu_sz);
	num_field(out, 6, 2, s->depth);
	num_field(out, 6, 1, s->util_pct);
	num_field(out, 6, 1, s->f_s);
	num_field(out, 10, 3, s->f_await_ms);
}

/* What --sort=latency orders by: D2C p99, or Q2C's where there is no D2C. */
static double sort_latency(const struct bm_iostat *s)
{
	return s->lat_count[BM_LAT_D2C] ? s->lat_p99_us[BM_LAT_D2C] : s->lat_p99_us[BM_LAT_Q2C];
}

static double sort_value(const struct bm_iostat *s, int sort)
{
	double v;

	switch (sort) {
	case BM_SORT_IOPS:
		v = s->r_s + s->w_s;
		break;
	case BM_SORT_BYTES:
		v = s->rkb_s + s->wkb_s;
		break;
	case BM_SORT_UTIL:
		v = s->util_pct;
		break;
	default:
		v = sort_latency(s);
	}
	return isnan(v) ? -INFINITY : v;	/* unknown: last */
}

/* When @it's incarnation began: its life in the window, or its add. */
static uint64_t began(const struct bm_iostat_item *it)
{
	if (it->d)
		return it->d->life_from;
	return it->span && it->span->from.known ? it->span->from.lo : 0;
}

static int by_dev(const struct bm_iostat_item *a, const struct bm_iostat_item *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (began(a) > began(b)) - (began(a) < began(b));
}

int bm_iostat_cmp(const struct bm_iostat_item *a, const struct bm_iostat_item *b, int sort)
{
	double va, vb;
	int r;

	if (sort == BM_SORT_DEV)
		return by_dev(a, b);
	if (sort == BM_SORT_NAME) {
		r = strcmp(a->span ? a->span->name : "", b->span ? b->span->name : "");
		return r ? r : by_dev(a, b);
	}
	va = sort_value(&a->s, sort);
	vb = sort_value(&b->s, sort);
	r = (va < vb) - (va > vb);
	return r ? r : by_dev(a, b);
}

static int by_sort(const void *x, const void *y, void *sort_p)
{
	return bm_iostat_cmp(x, y, *(const int *)sort_p);
}

void bm_iostat_sort(struct bm_iostat_item *items, size_t n, int sort)
{
	if (n)
		qsort_r(items, n, sizeof(*items), by_sort, &sort);
}

bool bm_iostat_gap_in(const struct bm_analysis *a, uint64_t from, uint64_t to)
{
	const struct bm_loss *gap;
	size_t i, n = bm_analysis_gap_list(a, &gap);

	for (i = 0; i < n; i++)
		if (gap[i].from < to && gap[i].to >= from)
			return true;
	return false;
}
