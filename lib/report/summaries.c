// SPDX-License-Identifier: GPL-2.0-only
/* --disks, --latency, --top and --stack: the analyses as tables. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "blkmap/map/map.h"
#include "blkmap/report/cgroupsview.h"
#include "blkmap/report/iostat.h"
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

/*
 * The keys every per-incarnation row has: name, incarnation, from_ns,
 * to_ns (of @s, if any fits) and dev (@dev).
 */
void bm_row_span(struct bm_row *r, const struct bm_span *s, uint32_t dev)
{
	char key[40];

	bm_row_str(r, "dev", bm_dev_str(dev, key, sizeof(key)));
	if (!s)
		return;
	bm_row_str(r, "name", s->name);
	bm_row_str(r, "incarnation", bm_span_key(s, key, sizeof(key)));
	if (s->from.known)
		bm_row_u64(r, "from_ns", s->from.hi);
	if (s->to.known)
		bm_row_u64(r, "to_ns", s->to.hi);
}

/* The I/O a row counts. */
static void row_counts(struct bm_row *r, uint64_t reads, uint64_t writes, uint64_t read_bytes,
		       uint64_t write_bytes)
{
	bm_row_u64(r, "reads", reads);
	bm_row_u64(r, "writes", writes);
	bm_row_u64(r, "read_bytes", read_bytes);
	bm_row_u64(r, "write_bytes", write_bytes);
}

/*
 * The names beside the kernel name, with @prefix ("" or "via_"): the LVM
 * volume and layer (under the incarnation's first dm name), a loop
 * device's file and the mount points.
 */
static void row_names(struct bm_row *r, const char *prefix, const struct bm_span *s)
{
	char key[32], lv[288];
	struct bm_lvm l;

	if (!s)
		return;
	bm_span_lvm_at(s, 0, &l);
	snprintf(key, sizeof(key), "%slv", prefix);
	row_text(r, key, bm_span_lv_at(s, 0, lv, sizeof(lv)));
	snprintf(key, sizeof(key), "%slv_layer", prefix);
	row_text(r, key, l.layer);
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

/*
 * Text columns are as wide as the widest value the view prints in them, at
 * least @width, as ps and lsblk size theirs: a long name (a loop device's
 * file, its mount points) moves no later column of one row alone.
 */
static int widen(int width, const char *text)
{
	int len = (int)strlen(text);

	return len > width ? len : width;
}

/* --disks' name column: the name shown, and the '*' of a gap. */
static const char *disks_name(const struct bm_disk_stats *d, char *buf, size_t size)
{
	char name[200];

	snprintf(buf, size, "%s%s", shown_name(d, name, sizeof(name)), d->events_lost ? "*" : "");
	return buf;
}

struct disks_widths {
	int name, key, added;
};

/* Is @name an NVMe path disk's, nvmeXcYnZ (the kernel's "nvme%dc%dn%d")? */
static bool nvme_path_name(const char *name)
{
	unsigned x, y, z;
	int end = 0;

	return sscanf(name, "nvme%uc%un%u%n", &x, &y, &z, &end) == 3 && !name[end];
}

/* What an NVMe path disk @d carried of its head's I/O: its --stack row, or NULL. */
static const struct bm_stack_row *head_share(const struct bm_analysis *a,
					     const struct bm_disk_stats *d)
{
	const struct bm_stack_row *rows;
	size_t i, n;

	if (!d->span || !nvme_path_name(d->span->name))
		return NULL;
	n = bm_analysis_stack(a, &rows);
	for (i = 0; i < n; i++)
		if (rows[i].lower == d && rows[i].upper->span)
			return &rows[i];
	return NULL;
}

/* A path disk's share of its head's I/O: the head_* keys. */
static void row_head(struct bm_row *r, const struct bm_stack_row *s)
{
	char key[40];

	if (!s)
		return;
	bm_row_str(r, "head", s->upper->span->name);
	bm_row_str(r, "head_incarnation", bm_span_key(s->upper->span, key, sizeof(key)));
	bm_row_u64(r, "head_reads", s->reads);
	bm_row_u64(r, "head_writes", s->writes);
	bm_row_u64(r, "head_read_bytes", s->read_bytes);
	bm_row_u64(r, "head_write_bytes", s->write_bytes);
}

void bm_disks_row_fill(struct bm_row *r, const struct bm_disk_stats *d)
{
	static const char *const pct_keys[2][4] = {
		{ "q2c_p50_us", "q2c_p90_us", "q2c_p99_us", "q2c_p999_us" },
		{ "d2c_p50_us", "d2c_p90_us", "d2c_p99_us", "d2c_p999_us" },
	};
	static const char *const keys[2][3] = { { "q2c_count", "q2c_avg_us", "q2c_max_us" },
						{ "d2c_count", "d2c_avg_us", "d2c_max_us" } };
	const struct bm_hist *lat[2] = { &d->q2c, &d->d2c };
	struct bm_iostat st;
	int j, k;

	if (d->span) {
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
	bm_row_span(r, d->span, d->dev);
	row_counts(r, d->reads, d->writes, d->read_bytes, d->write_bytes);
	row_names(r, "", d->span);
	bm_row_str(r, "basis", model_of(d));
	bm_row_u64(r, "window_from_ns", d->life_from);
	bm_row_u64(r, "window_to_ns", d->life_to);
	bm_row_num(r, "seconds", seconds(d));
	bm_iostat_disk(&st, d);
	bm_iostat_row(r, &st, false);
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
	bm_iostat_op_tails(r, &st);
	bm_row_u64(r, "others", d->others);
	bm_row_bool(r, "events_lost", d->events_lost);
}

static void disks_row(struct bm_row *r, const struct bm_disk_stats *d,
		      const struct bm_stack_row *head)
{
	bm_disks_row_fill(r, d);
	row_head(r, head);
	bm_row_end(r);
}

static void disks_text(FILE *out, const struct bm_disk_stats *d, const struct disks_widths *w)
{
	char key[40], shown[204], from[32], to[32];
	struct bm_iostat st;

	bm_iostat_disk(&st, d);
	fprintf(out, "%-*s %-*s %-7s %8" PRIu64 " %8" PRIu64 " %10.1f %10.1f", w->name,
		disks_name(d, shown, sizeof(shown)), w->key, span_key(d->span, key, sizeof(key)),
		model_of(d), d->reads, d->writes, d->read_bytes / 1024.0,
		d->write_bytes / 1024.0);
	bm_iostat_text(out, &st);
	fprintf(out, " %-*s %s\n", w->added, bound_time(d->span, true, from, sizeof(from)),
		bound_time(d->span, false, to, sizeof(to)));
}

static void disks_widths(struct disks_widths *w, const struct bm_iostat_item *items, size_t n)
{
	char buf[204];
	size_t i;

	*w = (struct disks_widths){ .name = 14, .key = 10, .added = 15 };
	for (i = 0; i < n; i++) {
		w->name = widen(w->name, disks_name(items[i].d, buf, sizeof(buf)));
		w->key = widen(w->key, span_key(items[i].d->span, buf, sizeof(buf)));
		w->added = widen(w->added, bound_time(items[i].d->span, true, buf, sizeof(buf)));
	}
}

int bm_view_disks(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		  bool header, int sort)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks), lost = 0;
	struct bm_iostat_item *items = calloc(n ? n : 1, sizeof(*items));
	struct bm_row *r = NULL;
	struct disks_widths w;

	if (!items)
		return -1;
	for (i = 0; i < n; i++)
		bm_iostat_item_disk(&items[i], disks[i]);
	bm_iostat_sort(items, n, sort);
	disks_widths(&w, items, n);
	if (format != BM_FORMAT_TEXT) {
		r = malloc(sizeof(*r));
		if (!r) {
			free(items);
			return -1;
		}
		bm_row_start(r, out, format, bm_schema_find("disks"));
	}
	if (format == BM_FORMAT_CSV && header)
		bm_schema_csv_header(out, r->schema);
	else if (format == BM_FORMAT_TEXT)
	{
		fprintf(out, "%-*s %-*s %-7s %8s %8s %10s %10s", w.name, "NAME", w.key, "DEV#N",
			"BASIS", "R_RQS", "W_RQS", "READ_KB", "WRITE_KB");
		bm_iostat_text_header(out);
		fprintf(out, " %-*s %s\n", w.added, "ADDED", "REMOVED");
	}
	for (i = 0; i < n; i++) {
		lost += items[i].d->events_lost;
		if (r)
			disks_row(r, items[i].d, head_share(a, items[i].d));
		else
			disks_text(out, items[i].d, &w);
	}
	free(items);
	free(r);
	if (format == BM_FORMAT_TEXT && lost)
		fputs("* events were lost while it existed: its figures may lack some I/O\n", out);
	if (format == BM_FORMAT_TEXT && bm_analysis_stack(a, &(const struct bm_stack_row *){ 0 })) {
		fputs("\nStacked: I/O that reached a device from the one it was submitted to\n", out);
		return bm_view_stack(out, format, a, true);
	}
	return 0;
}

/* A view's rows, or NULL for text (and on no memory, with nothing written: errno ENOMEM). */
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

	bm_row_span(r, s->lower->span, s->lower->dev);
	if (s->upper->span) {
		bm_row_str(r, "via", s->upper->span->name);
		row_text(r, "via_dm", s->upper->span->dm);
		bm_row_str(r, "via_incarnation", bm_span_key(s->upper->span, key, sizeof(key)));
	}
	row_names(r, "", s->lower->span);
	row_names(r, "via_", s->upper->span);
	if (s->lower->span)
		row_text(r, "path_via", s->lower->span->via);
	bm_row_str(r, "via_dev", bm_dev_str(s->upper->dev, dev, sizeof(dev)));
	row_counts(r, s->reads, s->writes, s->read_bytes, s->write_bytes);
	bm_row_end(r);
}

int bm_view_stack(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		  bool header)
{
	const struct bm_stack_row *rows;
	size_t i, n = bm_analysis_stack(a, &rows);
	struct bm_row *row = rows_start(out, format, "stack", header);
	int name = 14, key = 10, via = 24, via_key = 10;
	char buf[200];

	for (i = 0; format == BM_FORMAT_TEXT && i < n; i++) {
		name = widen(name, shown_name(rows[i].lower, buf, sizeof(buf)));
		key = widen(key, span_key(rows[i].lower->span, buf, sizeof(buf)));
		via = widen(via, shown_name(rows[i].upper, buf, sizeof(buf)));
		via_key = widen(via_key, span_key(rows[i].upper->span, buf, sizeof(buf)));
	}
	if (format == BM_FORMAT_TEXT)
		fprintf(out, "%-*s %-*s %-*s %-*s %8s %8s %10s %10s\n", name, "NAME", key, "DEV#N",
			via, "VIA", via_key, "VIA_DEV#N", "READS", "WRITES", "READ_KB", "WRITE_KB");
	else if (!row)
		return -1;
	for (i = 0; i < n; i++) {
		const struct bm_stack_row *r = &rows[i];
		char dev[40], via_dev[40], lower[200], upper[200];

		if (row) {
			stack_row(row, r);
			continue;
		}
		fprintf(out, "%-*s %-*s %-*s %-*s %8" PRIu64 " %8" PRIu64 " %10.1f %10.1f\n",
			name, shown_name(r->lower, lower, sizeof(lower)),
			key, span_key(r->lower->span, dev, sizeof(dev)),
			via, shown_name(r->upper, upper, sizeof(upper)),
			via_key, span_key(r->upper->span, via_dev, sizeof(via_dev)), r->reads,
			r->writes, r->read_bytes / 1024.0, r->write_bytes / 1024.0);
	}
	free(row);
	return 0;
}

/* The log2 bucket (bm_hist_log2_us) holding @ns: [2^k, 2^(k+1)) us, k = 0 for [0, 2). */
static int log2_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	int k = 0;

	while (us >> (k + 1))
		k++;
	return k;
}

/* Which of p50, p99, p99.9 fall in bucket @k of @h: "p50 p99", "" for none. */
static void marks_of(const struct bm_hist *h, int k, char *buf, size_t size)
{
	static const double p[] = { 50, 99, 99.9 };
	static const char *const name[] = { "p50", "p99", "p99.9" };
	size_t j, len = 0;

	buf[0] = '\0';
	for (j = 0; j < 3; j++)
		if (log2_bucket(bm_hist_percentile(h, p[j])) == k && len < size)
			len += snprintf(buf + len, size - len, "%s%s", len ? " " : "", name[j]);
}

int bm_view_latency(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks);
	struct bm_row *row = rows_start(out, format, "latency", header);
	int k;

	if (format != BM_FORMAT_TEXT && !row)
		return -1;
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
			char range[48], bar[41], marks[16];
			int w = most ? (int)(40 * buckets[k] / most) : 0;

			marks_of(h, k, marks, sizeof(marks));
			if (row) {
				bm_row_span(row, d->span, d->dev);
				bm_row_str(row, "latency", which);
				bm_row_u64(row, "from_us", lo);
				bm_row_u64(row, "to_us", hi);
				bm_row_u64(row, "count", buckets[k]);
				if (marks[0])
					bm_row_str(row, "marks", marks);
				bm_row_end(row);
				continue;
			}
			memset(bar, '*', w);
			bar[w] = '\0';
			snprintf(range, sizeof(range), "%" PRIu64 " -> %" PRIu64, lo, hi);
			fprintf(out, "%20s : %-8" PRIu64 " |%-40s|%s%s\n", range, buckets[k], bar,
				marks[0] ? " " : "", marks);
		}
	}
	free(row);
	return 0;
}

static void top_row(struct bm_row *row, const struct bm_top_row *r, const char *comm)
{

	if (r->disk->span)
		row_text(row, "dm", r->disk->span->dm);
	bm_row_span(row, r->disk->span, r->disk->dev);
	row_names(row, "", r->disk->span);
	bm_row_int(row, "pid", r->pid);
	bm_row_str(row, "comm", comm);
	bm_row_cgroup(row, &r->cgroup, r->cgroup_basis);
	row_counts(row, r->reads, r->writes, r->read_bytes, r->write_bytes);
	bm_row_u64(row, "q2c_count", r->q2c.count);
	if (r->q2c.count) {
		bm_row_num(row, "q2c_avg_us", (double)r->q2c.sum / r->q2c.count / 1e3);
		bm_row_num(row, "q2c_p99_us", bm_hist_percentile(&r->q2c, 99) / 1e3);
	}
	bm_row_end(row);
}

/* A process's Q2C in text: mean and 99th percentile in µs, "-" without any. */
static void top_q2c_text(FILE *out, const struct bm_hist *h)
{
	if (!h->count) {
		fprintf(out, " %8s %11s %11s", "0", "-", "-");
		return;
	}
	fprintf(out, " %8" PRIu64 " %11.1f %11.1f", h->count, (double)h->sum / h->count / 1e3,
		bm_hist_percentile(h, 99) / 1e3);
}

static bool top_cgroup_wanted(const struct bm_top_row *r, const char *cgroup)
{
	return bm_cgroup_wanted(cgroup, r->cgroup_basis == BM_CG_UNKNOWN ? NULL : &r->cgroup);
}

ssize_t bm_view_top(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		   bool header, struct tep_handle *tep, const char *cgroup,
		   bool (*wanted)(int pid, const char *comm, void *ctx), void *ctx)
{
	const struct bm_top_row *rows;
	size_t i, n = bm_analysis_top(a, &rows), shown = 0;
	struct bm_row *row = rows_start(out, format, "top", header);
	int name = 14, key = 10, comm_width = 16;
	char buf[200];

	for (i = 0; format == BM_FORMAT_TEXT && i < n; i++) {
		const struct bm_top_row *r = &rows[i];
		const char *comm = r->pid ? tep_data_comm_from_pid(tep, r->pid) : "<idle>";

		if ((wanted && !wanted(r->pid, comm, ctx)) || !top_cgroup_wanted(r, cgroup))
			continue;
		name = widen(name, shown_name(r->disk, buf, sizeof(buf)));
		key = widen(key, span_key(r->disk->span, buf, sizeof(buf)));
		comm_width = widen(comm_width, comm);
	}
	if (format == BM_FORMAT_TEXT)
		fprintf(out, "%-*s %-*s %7s %-*s %8s %8s %10s %10s %8s %11s %11s %s\n", name, "NAME",
			key, "DEV#N", "PID", comm_width, "COMM", "R_BIOS", "W_BIOS", "READ_KB",
			"WRITE_KB", "Q2C_N", "Q2C_AVG_US", "Q2C_P99_US", "CGROUP#N");
	else if (!row)
		return -1;
	for (i = 0; i < n; i++) {
		const struct bm_top_row *r = &rows[i];
		const char *comm = r->pid ? tep_data_comm_from_pid(tep, r->pid) : "<idle>";
		char dev[40];

		if ((wanted && !wanted(r->pid, comm, ctx)) || !top_cgroup_wanted(r, cgroup))
			continue;
		shown++;
		if (row) {
			top_row(row, r, comm);
			continue;
		}
		fprintf(out, "%-*s %-*s %7d %-*s %8" PRIu64 " %8" PRIu64 " %10.1f %10.1f",
			name, shown_name(r->disk, buf, sizeof(buf)),
			key, span_key(r->disk->span, dev, sizeof(dev)), r->pid, comm_width, comm,
			r->reads, r->writes, r->read_bytes / 1024.0, r->write_bytes / 1024.0);
		top_q2c_text(out, &r->q2c);
		fprintf(out, " %s\n", r->cgroup_basis == BM_CG_UNKNOWN ? "?" :
			bm_cgroup_key(&r->cgroup, buf, sizeof(buf)));
	}
	free(row);
	return shown;
}

/* ---- blkmap top: one interval ---- */

int bm_sort_parse(const char *key, int *sort)
{
	static const struct {
		const char *name;
		enum bm_interval_sort sort;
	} sorts[] = {
		{ "dev", BM_SORT_DEV }, { "name", BM_SORT_NAME }, { "iops", BM_SORT_IOPS },
		{ "bytes", BM_SORT_BYTES }, { "util", BM_SORT_UTIL },
		{ "latency", BM_SORT_LATENCY },
	};
	size_t i;

	for (i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++)
		if (!strcmp(key, sorts[i].name)) {
			*sort = sorts[i].sort;
			return 0;
		}
	return -1;
}

const char *bm_span_state(const struct bm_span *s, uint64_t from, uint64_t to)
{
	bool born = s && s->from.known && s->from.lo >= from && s->from.lo < to;
	bool gone = s && s->to.known && s->to.hi >= from && s->to.hi < to;

	return born && gone ? "new+gone" : born ? "new" : gone ? "gone" : "";
}

/* An incarnation in the interval: with I/O (@d), or only new or gone in it. */
struct interval_row {
	struct bm_iostat_item it;	/* it.d NULL: no I/O in the interval */
	const char *state;	/* bm_span_state()'s */
};

static int by_order(const void *x, const void *y, void *order_p)
{
	const struct interval_row *a = x, *b = y;

	return bm_iostat_cmp(&a->it, &b->it, *(const int *)order_p);
}

/*
 * An incarnation with no I/O in the interval: zeros, and means of none;
 * no merges either if the recording has the merge events (@merges).
 */
static void no_io(struct bm_iostat_item *it, const struct bm_span *s, bool merges)
{
	memset(it, 0, sizeof(*it));
	it->span = s;
	it->dev = s->dev;
	it->s.r_await_ms = it->s.w_await_ms = it->s.r_d2c_ms = it->s.w_d2c_ms = NAN;
	it->s.f_await_ms = NAN;
	it->s.merges_known = merges && s->kind != BM_PARTITION;
	if (!it->s.merges_known)
		it->s.rrqm_s = it->s.wrqm_s = NAN;
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
		bm_iostat_item_disk(&rows[k++].it, disks[i]);
	for (i = 0; i < nspans; i++) {
		const struct bm_span *s = bm_map_span(map, i);
		const char *state = bm_span_state(s, o->since, o->until + 1);

		if (!bm_span_filter_match(o->filter, s, s->dev))
			continue;
		for (j = 0; j < n && rows[j].it.span != s; j++)
			;
		if (j == n && state[0])
			no_io(&rows[k++].it, s, bm_analysis_merges_known(a));
		if (j == n && !state[0])
			continue;
		rows[j == n ? k - 1 : j].state = state;
	}
	qsort_r(rows, k, sizeof(*rows), by_order, &(int){ o->sort });
	*count = k;
	return rows;
}

/* One interval's row of an incarnation: its figures, or none if it had no I/O in the window. */
static void interval_csv(struct bm_row *row, const struct interval_row *r,
			 const struct bm_interval_opts *o, bool lost)
{
	const struct bm_iostat *st = &r->it.s;
	const struct bm_span *s = r->it.span;

	bm_row_u64(row, "time_ns", o->until);
	bm_row_num(row, "interval_s", (o->until - o->since) / 1e9);
	if (s)
		row_text(row, "dm", s->dm);
	bm_row_span(row, s, r->it.dev);
	row_names(row, "", s);
	row_text(row, "state", r->state ? r->state : "");
	row_counts(row, st->reads, st->writes, st->read_bytes, st->write_bytes);
	bm_row_u64(row, "others", st->others);
	if (r->it.d) {
		bm_row_num(row, "seconds", st->seconds);
		bm_row_u64(row, "window_from_ns", st->from);
		bm_row_u64(row, "window_to_ns", st->to);
	}
	bm_iostat_row(row, st, true);
	bm_row_bool(row, "events_lost", lost);
	bm_row_end(row);
}

/* An interval row's name: its dm name beside, the state in the interval after. */
static const char *interval_name(const struct interval_row *r, char *buf, size_t size)
{
	const struct bm_span *s = r->it.span;

	snprintf(buf, size, "%s%s%s%s%s%s%s", s ? s->name : "?",
		 s && s->dm[0] ? " [" : "", s ? s->dm : "", s && s->dm[0] ? "]" : "",
		 r->state && r->state[0] ? " (" : "", r->state ? r->state : "",
		 r->state && r->state[0] ? ")" : "");
	return buf;
}

/* The incarnation's key, as every view shows it. */
static const char *interval_key(const struct interval_row *r, char *buf, size_t size)
{
	if (r->it.span)
		return bm_span_key(r->it.span, buf, size);
	return bm_dev_str(r->it.dev, buf, size);
}

static void interval_text(FILE *out, const struct interval_row *r, int name_width,
			  int key_width)
{
	const struct bm_iostat *st = &r->it.s;
	char dev[40], name[200];
	int j;

	fprintf(out, "%-*s %-*s", name_width, interval_name(r, name, sizeof(name)), key_width,
		interval_key(r, dev, sizeof(dev)));
	bm_iostat_text(out, st);
	for (j = 0; j < 2; j++) {
		if (!st->lat_count[j]) {
			fprintf(out, " %10s %10s %10s", "-", "-", "-");
			continue;
		}
		fprintf(out, " %10.3f %10.3f %10.3f", st->lat_p50_us[j] / 1e3,
			st->lat_p99_us[j] / 1e3, st->lat_max_us[j] / 1e3);
	}
	putc('\n', out);
}

int bm_view_interval(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		     const struct bm_map *map, const struct bm_interval_opts *o)
{
	struct bm_row *row = rows_start(out, format, "interval", o->header);
	struct interval_row *rows;
	int name = 20, key = 10;
	bool lost;
	char buf[200];
	size_t i, n;

	if (format != BM_FORMAT_TEXT && !row)
		return -1;
	rows = interval_rows(a, map, o, &n);
	lost = bm_iostat_gap_in(a, o->since, o->until);
	if (!rows) {
		free(row);
		return -1;
	}
	for (i = 0; format == BM_FORMAT_TEXT && i < n; i++) {
		name = widen(name, interval_name(&rows[i], buf, sizeof(buf)));
		key = widen(key, interval_key(&rows[i], buf, sizeof(buf)));
	}
	if (format == BM_FORMAT_TEXT && o->header) {
		fprintf(out, "%-*s %-*s", name, "NAME", key, "DEV#N");
		bm_iostat_text_header(out);
		fprintf(out, " %10s %10s %10s %10s %10s %10s\n", "Q2C_p50_ms", "p99_ms", "max_ms",
			"D2C_p50_ms", "p99_ms", "max_ms");
	}
	for (i = 0; i < n; i++) {
		if (row)
			interval_csv(row, &rows[i], o, lost);
		else
			interval_text(out, &rows[i], name, key);
	}
	free(rows);
	free(row);
	return 0;
}
