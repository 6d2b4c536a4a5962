// SPDX-License-Identifier: GPL-2.0-only
/* --disks, --latency, --top and --stack: the analyses as tables. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "blkmap/map/map.h"
#include "blkmap/map/names.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"

static const char *name_of(const struct bm_disk_stats *d)
{
	return d->span ? d->span->name : "";
}

/* A name as a person looks for it: dm-0 (vg0/data), loop5 (a.img), dm-1 (crypt). */
static const char *shown_name(const struct bm_disk_stats *d, char *buf, size_t size)
{
	char known[288];

	if (!d->span)
		return "?";
	if (!bm_names_all() || !bm_span_known_as(d->span, 0, known, sizeof(known))[0])
		return d->span->name;
	snprintf(buf, size, "%s (%s)", d->span->name, known);
	return buf;
}

static const char *kind_of(const struct bm_disk_stats *d)
{
	return d->span && d->span->kind == BM_PARTITION ? "partition" : "disk";
}

static const char *model_of(const struct bm_disk_stats *d)
{
	switch (d->model) {
	case BM_IO_REQUEST:
		return "request";
	case BM_IO_BIO:
		return "bio";
	default:
		return "remap";
	}
}

static double seconds(const struct bm_disk_stats *d)
{
	return (d->life_to - d->life_from) / 1e9;
}

static double per_second(uint64_t n, const struct bm_disk_stats *d)
{
	return seconds(d) > 0 ? n / seconds(d) : 0;
}

static double us(uint64_t ns)
{
	return ns / 1000.0;
}

struct latency {
	const char *name;	/* q2c, d2c */
	const struct bm_hist *h;
};

static const double percentiles[] = { 50, 90, 99, 99.9 };

/* Text that is there: an empty one is absent (null). */
static void row_text(struct bm_row *r, const char *key, const char *s)
{
	if (s && s[0])
		bm_row_str(r, key, s);
}

/* The keys every per-incarnation row has: incarnation, from_ns, to_ns. */
static void row_span(struct bm_row *r, const struct bm_span *s)
{
	char key[40];

	if (!s)
		return;
	bm_row_str(r, "incarnation", bm_span_key(s, key, sizeof(key)));
	if (s->from.known)
		bm_row_u64(r, "from_ns", s->from.hi);
	if (s->to.known)
		bm_row_u64(r, "to_ns", s->to.hi);
}

/*
 * The names beside the kernel name, with @prefix ("" or "via_"): the LVM
 * volume (under the incarnation's first dm name) and a loop device's file.
 */
static void row_names(struct bm_row *r, const char *prefix, const struct bm_span *s)
{
	char key[32], lv[288];

	if (!s)
		return;
	snprintf(key, sizeof(key), "%slv", prefix);
	row_text(r, key, bm_span_lv_at(s, 0, lv, sizeof(lv)));
	snprintf(key, sizeof(key), "%sbacking_file", prefix);
	row_text(r, key, s->backing);
	snprintf(key, sizeof(key), "%smounts", prefix);
	row_text(r, key, bm_span_mounts_at(s, 0, lv, sizeof(lv)));
}

/* The incarnation in text: its key, and when it came and went ("-": outside the recording). */
static const char *span_key(const struct bm_span *s, char *buf, size_t size)
{
	return s ? bm_span_key(s, buf, size) : "?";
}

static const char *bound_time(const struct bm_span *s, bool from, char *buf, size_t size)
{
	const struct bm_bound *b = s ? (from ? &s->from : &s->to) : NULL;

	if (!b || !b->known)
		return "-";
	return bm_ts_str(b->hi, buf, size);
}

static void disks_row(struct bm_row *r, const struct bm_disk_stats *d)
{
	static const char *const pct_keys[2][4] = {
		{ "q2c_p50_us", "q2c_p90_us", "q2c_p99_us", "q2c_p999_us" },
		{ "d2c_p50_us", "d2c_p90_us", "d2c_p99_us", "d2c_p999_us" },
	};
	static const char *const keys[2][3] = { { "q2c_count", "q2c_avg_us", "q2c_max_us" },
						{ "d2c_count", "d2c_avg_us", "d2c_max_us" } };
	const struct bm_hist *lat[2] = { &d->q2c, &d->d2c };
	uint64_t ios = d->reads + d->writes, bytes = d->read_bytes + d->write_bytes;
	char dev[16];
	int j, k;

	if (d->span) {
		bm_row_str(r, "name", d->span->name);
		row_text(r, "parent", d->span->parent);
		row_text(r, "dm", d->span->dm);
		if (d->span->diskseq)
			bm_row_u64(r, "diskseq", d->span->diskseq);
		row_text(r, "serial", d->span->serial);
		row_text(r, "wwid", d->span->wwid);
		row_text(r, "model", d->span->model);
		row_text(r, "path_via", d->span->via);
		bm_row_str(r, "kind", kind_of(d));
	}
	row_names(r, "", d->span);
	row_span(r, d->span);
	bm_row_str(r, "dev", bm_dev_str(d->dev, dev, sizeof(dev)));
	bm_row_u64(r, "reads", d->reads);
	bm_row_u64(r, "writes", d->writes);
	bm_row_u64(r, "read_bytes", d->read_bytes);
	bm_row_u64(r, "write_bytes", d->write_bytes);
	bm_row_str(r, "basis", model_of(d));
	bm_row_u64(r, "window_from_ns", d->life_from);
	bm_row_u64(r, "window_to_ns", d->life_to);
	bm_row_num(r, "seconds", seconds(d));
	bm_row_num(r, "read_iops", per_second(d->reads, d));
	bm_row_num(r, "write_iops", per_second(d->writes, d));
	bm_row_num(r, "read_bytes_per_s", per_second(d->read_bytes, d));
	bm_row_num(r, "write_bytes_per_s", per_second(d->write_bytes, d));
	bm_row_num(r, "avg_request_bytes", ios ? (double)bytes / ios : 0);
	bm_row_num(r, "queue_depth", seconds(d) > 0 ? d->depth_ns / (seconds(d) * 1e9) : 0);
	bm_row_num(r, "aqu_sz", seconds(d) > 0 ? d->queue_ns / (seconds(d) * 1e9) : 0);
	bm_row_num(r, "util_pct", seconds(d) > 0 ? 100.0 * d->busy_ns / (seconds(d) * 1e9) : 0);
	for (j = 0; j < 2; j++) {
		const struct bm_hist *h = lat[j];

		bm_row_u64(r, keys[j][0], h->count);
		if (!h->count)
			continue;
		bm_row_num(r, keys[j][1], us(h->sum / h->count));
		for (k = 0; k < 4; k++)
			bm_row_num(r, pct_keys[j][k], us(bm_hist_percentile(h, percentiles[k])));
		bm_row_num(r, keys[j][2], us(h->max));
	}
	bm_row_u64(r, "others", d->others);
	bm_row_bool(r, "events_lost", d->events_lost);
	bm_row_end(r);
}

static void disks_text(FILE *out, const struct bm_disk_stats *d)
{
	struct latency lat[2] = { { "q2c", &d->q2c }, { "d2c", &d->d2c } };
	const struct latency *l = d->d2c.count ? &lat[1] : &lat[0];
	uint64_t ios = d->reads + d->writes, bytes = d->read_bytes + d->write_bytes;
	double depth = seconds(d) > 0 ? d->depth_ns / (seconds(d) * 1e9) : 0;
	double aqu = seconds(d) > 0 ? d->queue_ns / (seconds(d) * 1e9) : 0;
	double util = seconds(d) > 0 ? 100.0 * d->busy_ns / (seconds(d) * 1e9) : 0;
	char key[40], name[200], shown[204], from[32], to[32];

	snprintf(shown, sizeof(shown), "%s%s", shown_name(d, name, sizeof(name)),
		 d->events_lost ? "*" : "");
	fprintf(out, "%-14s %-10s %-7s %8" PRIu64 " %8" PRIu64 " %10.1f %10.1f %8.1f "
		"%8.1f %6.2f %6.2f %6.1f %9.1f %9.1f %9.1f %4s %-15s %s\n",
		shown, span_key(d->span, key, sizeof(key)), model_of(d), d->reads, d->writes,
		d->read_bytes / 1024.0, d->write_bytes / 1024.0, per_second(ios, d),
		per_second(bytes, d) / 1024, depth, aqu, util,
		l->h->count ? us(l->h->sum / l->h->count) : 0,
		us(bm_hist_percentile(l->h, 99)), us(l->h->max),
		l->h->count ? l->name : "-", bound_time(d->span, true, from, sizeof(from)),
		bound_time(d->span, false, to, sizeof(to)));
}

void bm_view_disks(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		   bool header)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks), lost = 0;
	struct bm_row *r = NULL;

	if (format != BM_FORMAT_TEXT) {
		r = malloc(sizeof(*r));
		if (!r)
			return;
		bm_row_start(r, out, format, bm_schema_find("disks"));
	}
	if (format == BM_FORMAT_CSV && header)
		bm_schema_csv_header(out, r->schema);
	else if (format == BM_FORMAT_TEXT)
		fprintf(out, "%-14s %-10s %-7s %8s %8s %10s %10s %8s %8s %6s %6s %6s %9s %9s %9s %4s "
			"%-15s %s\n", "NAME", "DEV#N", "BASIS", "READS", "WRITES", "READ_KB",
			"WRITE_KB", "IOPS", "KB/S", "DEPTH", "AQU-SZ", "UTIL%", "LAT_AVG", "LAT_P99",
			"LAT_MAX", "LAT", "ADDED", "REMOVED");
	for (i = 0; i < n; i++) {
		lost += disks[i]->events_lost;
		if (r)
			disks_row(r, disks[i]);
		else
			disks_text(out, disks[i]);
	}
	free(r);
	if (format == BM_FORMAT_TEXT && lost)
		fputs("* events were lost while it existed: its figures may lack some I/O\n", out);
	if (format == BM_FORMAT_TEXT && bm_analysis_stack(a, &(const struct bm_stack_row *){ 0 })) {
		fputs("\nStacked: I/O that reached a device from the one it was submitted to\n", out);
		bm_view_stack(out, format, a, true);
	}
}

/* A view's rows, or NULL for text (and on no memory, with nothing written). */
static struct bm_row *rows_start(FILE *out, enum bm_output_format format, const char *view,
				 bool header)
{
	struct bm_row *r;

	if (format == BM_FORMAT_TEXT)
		return NULL;
	r = malloc(sizeof(*r));
	if (!r)
		return NULL;
	bm_row_start(r, out, format, bm_schema_find(view));
	if (format == BM_FORMAT_CSV && header)
		bm_schema_csv_header(out, r->schema);
	return r;
}

static void stack_row(struct bm_row *r, const struct bm_stack_row *s)
{
	char dev[16], key[40];

	if (s->lower->span)
		bm_row_str(r, "name", s->lower->span->name);
	row_span(r, s->lower->span);
	bm_row_str(r, "dev", bm_dev_str(s->lower->dev, dev, sizeof(dev)));
	if (s->upper->span) {
		bm_row_str(r, "via", s->upper->span->name);
		row_text(r, "via_dm", s->upper->span->dm);
		bm_row_str(r, "via_incarnation", bm_span_key(s->upper->span, key, sizeof(key)));
	}
	row_names(r, "", s->lower->span);
	row_names(r, "via_", s->upper->span);
	bm_row_str(r, "via_dev", bm_dev_str(s->upper->dev, dev, sizeof(dev)));
	bm_row_u64(r, "reads", s->reads);
	bm_row_u64(r, "writes", s->writes);
	bm_row_u64(r, "read_bytes", s->read_bytes);
	bm_row_u64(r, "write_bytes", s->write_bytes);
	bm_row_end(r);
}

void bm_view_stack(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		   bool header)
{
	const struct bm_stack_row *rows;
	size_t i, n = bm_analysis_stack(a, &rows);
	struct bm_row *row = rows_start(out, format, "stack", header);

	if (format == BM_FORMAT_TEXT)
		fprintf(out, "%-14s %-10s %-24s %-10s %8s %8s %10s %10s\n", "NAME", "DEV#N", "VIA",
			"VIA_DEV#N", "READS", "WRITES", "READ_KB", "WRITE_KB");
	else if (!row)
		return;
	for (i = 0; i < n; i++) {
		const struct bm_stack_row *r = &rows[i];
		char dev[40], via_dev[40], lower[200], upper[200];

		if (row) {
			stack_row(row, r);
			continue;
		}
		fprintf(out, "%-14s %-10s %-24s %-10s %8" PRIu64 " %8" PRIu64 " %10.1f %10.1f\n",
			shown_name(r->lower, lower, sizeof(lower)),
			span_key(r->lower->span, dev, sizeof(dev)),
			shown_name(r->upper, upper, sizeof(upper)),
			span_key(r->upper->span, via_dev, sizeof(via_dev)), r->reads, r->writes,
			r->read_bytes / 1024.0, r->write_bytes / 1024.0);
	}
	free(row);
}

void bm_view_latency(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		     bool header)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks);
	struct bm_row *row = rows_start(out, format, "latency", header);
	int k;

	if (format != BM_FORMAT_TEXT && !row)
		return;
	for (i = 0; i < n; i++) {
		const struct bm_disk_stats *d = disks[i];
		const struct bm_hist *h = d->d2c.count ? &d->d2c : &d->q2c;
		const char *which = d->d2c.count ? "d2c" : "q2c";
		uint64_t buckets[64], most = 0;
		int last = -1;
		char dev[16], key[40], from[32], to[32];

		if (!h->count)
			continue;
		bm_dev_str(d->dev, dev, sizeof(dev));
		bm_hist_log2_us(h, buckets);
		for (k = 0; k < 64; k++) {
			if (buckets[k])
				last = k;
			if (buckets[k] > most)
				most = buckets[k];
		}
		if (!row)
			fprintf(out, "\n%s (%s%s%s%s%s), %s latency (%s):\n%20s : %-8s %s\n",
				d->span ? name_of(d) : "?", span_key(d->span, key, sizeof(key)),
				d->span && d->span->from.known ? ", added " : "",
				d->span && d->span->from.known ?
				bound_time(d->span, true, from, sizeof(from)) : "",
				d->span && d->span->to.known ? ", removed " : "",
				d->span && d->span->to.known ?
				bound_time(d->span, false, to, sizeof(to)) : "", which,
				d->d2c.count ? "issue to complete" : "queue to complete",
				"usecs", "count", "distribution");
		for (k = 0; k <= last; k++) {
			uint64_t lo = k ? 1ULL << k : 0, hi = (2ULL << k) - 1;
			char range[48], bar[41];
			int w = most ? (int)(40 * buckets[k] / most) : 0;

			if (row) {
				if (d->span)
					bm_row_str(row, "name", d->span->name);
				row_span(row, d->span);
				bm_row_str(row, "dev", dev);
				bm_row_str(row, "latency", which);
				bm_row_u64(row, "from_us", lo);
				bm_row_u64(row, "to_us", hi);
				bm_row_u64(row, "count", buckets[k]);
				bm_row_end(row);
				continue;
			}
			memset(bar, '*', w);
			bar[w] = '\0';
			snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, lo, hi);
			fprintf(out, "%20s : %-8" PRIu64 " |%-40s|\n", range, buckets[k], bar);
		}
	}
	free(row);
}

static void top_row(struct bm_row *row, const struct bm_top_row *r, const char *comm)
{
	char dev[16];

	if (r->disk->span) {
		bm_row_str(row, "name", r->disk->span->name);
		row_text(row, "dm", r->disk->span->dm);
	}
	row_names(row, "", r->disk->span);
	row_span(row, r->disk->span);
	bm_row_str(row, "dev", bm_dev_str(r->disk->dev, dev, sizeof(dev)));
	bm_row_int(row, "pid", r->pid);
	bm_row_str(row, "comm", comm);
	bm_row_u64(row, "reads", r->reads);
	bm_row_u64(row, "writes", r->writes);
	bm_row_u64(row, "read_bytes", r->read_bytes);
	bm_row_u64(row, "write_bytes", r->write_bytes);
	bm_row_end(row);
}

size_t bm_view_top(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		   bool header, struct tep_handle *tep,
		   bool (*wanted)(int pid, const char *comm, void *ctx), void *ctx)
{
	const struct bm_top_row *rows;
	size_t i, n = bm_analysis_top(a, &rows), shown = 0;
	struct bm_row *row = rows_start(out, format, "top", header);

	if (format == BM_FORMAT_TEXT)
		fprintf(out, "%-14s %-10s %7s %-16s %8s %8s %10s %10s\n", "NAME", "DEV#N", "PID",
			"COMM", "READS", "WRITES", "READ_KB", "WRITE_KB");
	else if (!row)
		return 0;
	for (i = 0; i < n; i++) {
		const struct bm_top_row *r = &rows[i];
		const char *comm = r->pid ? tep_data_comm_from_pid(tep, r->pid) : "<idle>";
		char key[40], name[200];

		if (wanted && !wanted(r->pid, comm, ctx))
			continue;
		shown++;
		if (row) {
			top_row(row, r, comm);
			continue;
		}
		fprintf(out, "%-14s %-10s %7d %-16s %8" PRIu64 " %8" PRIu64 " %10.1f %10.1f\n",
			shown_name(r->disk, name, sizeof(name)),
			span_key(r->disk->span, key, sizeof(key)), r->pid, comm, r->reads,
			r->writes, r->read_bytes / 1024.0, r->write_bytes / 1024.0);
	}
	free(row);
	return shown;
}

/* ---- blkmap top: one interval ---- */

/* An incarnation in the interval: with I/O (@d), or only born or gone in it. */
struct interval_row {
	const struct bm_span *span;
	uint32_t dev;
	const struct bm_disk_stats *d;
	bool born, gone;
};

static double row_value(const struct interval_row *r, enum bm_interval_sort order)
{
	const struct bm_disk_stats *d = r->d;

	if (!d)
		return 0;
	switch (order) {
	case BM_SORT_IOPS:
		return per_second(d->reads + d->writes, d);
	case BM_SORT_BYTES:
		return per_second(d->read_bytes + d->write_bytes, d);
	case BM_SORT_UTIL:
		return seconds(d) > 0 ? d->busy_ns / seconds(d) : 0;
	default:
		return bm_hist_percentile(d->d2c.count ? &d->d2c : &d->q2c, 99);
	}
}

static int by_order(const void *x, const void *y, void *order_p)
{
	const struct interval_row *a = x, *b = y;
	enum bm_interval_sort order = *(const enum bm_interval_sort *)order_p;
	double va, vb;

	if (order == BM_SORT_DEV) {
		if (a->dev != b->dev)
			return a->dev < b->dev ? -1 : 1;
		return a->span && b->span ? (a->span->from.lo > b->span->from.lo) -
					    (a->span->from.lo < b->span->from.lo) : 0;
	}
	if (order == BM_SORT_NAME)
		return strcmp(a->span ? a->span->name : "", b->span ? b->span->name : "");
	va = row_value(a, order);
	vb = row_value(b, order);
	return (va < vb) - (va > vb);
}

/* The rows: incarnations with I/O, and those that came or went in the window. */
static struct interval_row *interval_rows(const struct bm_analysis *a, const struct bm_map *map,
					  const struct bm_interval_opts *o, size_t *count)
{
	const struct bm_disk_stats *const *disks;
	size_t n = bm_analysis_disks(a, &disks), nspans = bm_map_count(map), i, j, k = 0;
	struct interval_row *rows = calloc(n + nspans + 1, sizeof(*rows));

	if (!rows)
		return NULL;
	for (i = 0; i < n; i++)
		rows[k++] = (struct interval_row){ .span = disks[i]->span, .dev = disks[i]->dev,
						   .d = disks[i] };
	for (i = 0; i < nspans; i++) {
		const struct bm_span *s = bm_map_span(map, i);
		bool born = s->from.known && s->from.hi >= o->since && s->from.lo <= o->until;
		bool gone = s->to.known && s->to.lo >= o->since && s->to.lo <= o->until;

		if (!bm_span_filter_match(o->filter, s, s->dev))
			continue;
		for (j = 0; j < n && rows[j].span != s; j++)
			;
		if (j == n && (born || gone))
			rows[k++] = (struct interval_row){ .span = s, .dev = s->dev };
		if (j == n && !(born || gone))
			continue;
		rows[j == n ? k - 1 : j].born = born;
		rows[j == n ? k - 1 : j].gone = gone;
	}
	qsort_r(rows, k, sizeof(*rows), by_order, (void *)&o->sort);
	*count = k;
	return rows;
}

static const char *state_of(const struct interval_row *r)
{
	return r->born && r->gone ? "born+gone" : r->born ? "born" : r->gone ? "gone" : "";
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static void interval_row(struct bm_row *row, const struct interval_row *r,
			 const struct bm_interval_opts *o)
{
	static const char *const keys[2][3] = { { "q2c_p50_us", "q2c_p99_us", "q2c_max_us" },
						{ "d2c_p50_us", "d2c_p99_us", "d2c_max_us" } };
	const struct bm_disk_stats *d = r->d;
	double secs = d ? seconds(d) : 0;
	uint64_t ios = d ? d->reads + d->writes : 0;
	uint64_t bytes = d ? d->read_bytes + d->write_bytes : 0;
	char dev[16];
	int j;

	bm_row_u64(row, "time_ns", o->until);
	bm_row_num(row, "interval_s", (o->until - o->since) / 1e9);
	if (r->span) {
		bm_row_str(row, "name", r->span->name);
		row_text(row, "dm", r->span->dm);
	}
	row_names(row, "", r->span);
	row_span(row, r->span);
	bm_row_str(row, "dev", bm_dev_str(r->dev, dev, sizeof(dev)));
	row_text(row, "state", state_of(r));
	bm_row_u64(row, "reads", d ? d->reads : 0);
	bm_row_u64(row, "writes", d ? d->writes : 0);
	bm_row_num(row, "r_s", d ? per_second(d->reads, d) : 0);
	bm_row_num(row, "w_s", d ? per_second(d->writes, d) : 0);
	bm_row_num(row, "rkb_s", d ? per_second(d->read_bytes, d) / 1024 : 0);
	bm_row_num(row, "wkb_s", d ? per_second(d->write_bytes, d) / 1024 : 0);
	bm_row_num(row, "areq_kb", ios ? bytes / 1024.0 / ios : 0);
	bm_row_num(row, "aqu_sz", secs > 0 ? d->queue_ns / (secs * 1e9) : 0);
	bm_row_num(row, "util_pct", secs > 0 ? 100.0 * d->busy_ns / (secs * 1e9) : 0);
	for (j = 0; d && j < 2; j++) {
		const struct bm_hist *h = j ? &d->d2c : &d->q2c;

		if (!h->count)
			continue;
		bm_row_num(row, keys[j][0], us(bm_hist_percentile(h, 50)));
		bm_row_num(row, keys[j][1], us(bm_hist_percentile(h, 99)));
		bm_row_num(row, keys[j][2], us(h->max));
	}
	bm_row_end(row);
}

void bm_view_interval(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		      const struct bm_map *map, const struct bm_interval_opts *o)
{
	static const struct bm_hist none;
	struct interval_row *rows;
	struct bm_row *row = rows_start(out, format, "interval", o->header);
	size_t i, n;
	int j;

	if (format != BM_FORMAT_TEXT && !row)
		return;
	rows = interval_rows(a, map, o, &n);
	if (!rows) {
		free(row);
		return;
	}
	if (format == BM_FORMAT_TEXT && o->header)
		fprintf(out, "%-20s %-8s %8s %8s %9s %9s %7s %6s %5s %8s %8s %8s %8s %8s %8s\n",
			"NAME", "DEV", "r/s", "w/s", "rkB/s", "wkB/s", "areq-kB", "aqu-sz", "%util",
			"Q2C-p50", "p99", "max", "D2C-p50", "p99", "max");
	for (i = 0; i < n; i++) {
		const struct interval_row *r = &rows[i];
		const struct bm_disk_stats *d = r->d;
		const struct bm_hist *lat[2] = { d ? &d->q2c : &none, d ? &d->d2c : &none };
		uint64_t ios = d ? d->reads + d->writes : 0;
		uint64_t bytes = d ? d->read_bytes + d->write_bytes : 0;
		double secs = d ? seconds(d) : 0;
		double v[6] = { d ? per_second(d->reads, d) : 0, d ? per_second(d->writes, d) : 0,
				d ? per_second(d->read_bytes, d) / 1024 : 0,
				d ? per_second(d->write_bytes, d) / 1024 : 0,
				ios ? bytes / 1024.0 / ios : 0,
				secs > 0 ? d->queue_ns / (secs * 1e9) : 0 };
		double util = secs > 0 ? 100.0 * d->busy_ns / (secs * 1e9) : 0;
		char dev[16], name[200];

		if (row) {
			interval_row(row, r, o);
			continue;
		}
		bm_dev_str(r->dev, dev, sizeof(dev));
		snprintf(name, sizeof(name), "%s%s%s%s%s", r->span ? r->span->name : "?",
			 r->span && r->span->dm[0] ? " [" : "", r->span ? r->span->dm : "",
			 r->span && r->span->dm[0] ? "]" : "",
			 r->gone ? " (gone)" : r->born ? " (new)" : "");
		fprintf(out, "%-20s %-8s %8.1f %8.1f %9.1f %9.1f %7.1f %6.2f %5.1f", name,
			dev, v[0], v[1], v[2], v[3], v[4], v[5], util);
		for (j = 0; j < 2; j++) {
			if (!lat[j]->count) {
				fprintf(out, " %8s %8s %8s", "-", "-", "-");
				continue;
			}
			fprintf(out, " %8.3f %8.3f %8.3f", ms(bm_hist_percentile(lat[j], 50)),
				ms(bm_hist_percentile(lat[j], 99)), ms(lat[j]->max));
		}
		putc('\n', out);
	}
	free(rows);
	free(row);
}
