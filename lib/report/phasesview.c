// SPDX-License-Identifier: GPL-2.0-only
/*
 * --phases: where each incarnation's time goes, as btt splits it. CSV and
 * JSON share one list of keys: a row per incarnation and operation (read,
 * write, discard, all); what is the incarnation's as a whole (merges,
 * request sizes, plugs, seeks) is on its "all" row and null on the others.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blkmap/analyse/phases.h"
#include "blkmap/map/map.h"
#include "blkmap/report/phasesview.h"

static const char *const phase_keys[BM_NPHASES] = {
	"q2q", "q2g", "g2i", "q2m", "i2d", "m2d", "d2c", "q2c", "q2a" };
static const char *const phase_names[BM_NPHASES] = {
	"Q2Q", "Q2G", "G2I", "Q2M", "I2D", "M2D", "D2C", "Q2C", "Q2A" };
static const char *const op_names[BM_PH_NOPS] = { "read", "write", "discard", "all" };
/* The phases a share of Q2C is given for (btt's device overhead, with M2D). */
static const enum bm_phase shared[] = { BM_Q2G, BM_G2I, BM_Q2M, BM_I2D, BM_M2D, BM_D2C };

#define NSHARED		(sizeof(shared) / sizeof(shared[0]))
#define MAX_FIELDS	128

enum kind { K_NULL, K_NUM, K_TEXT };

struct field {
	const char *key;
	enum kind kind;
	char value[256];
};

struct row {
	struct field f[MAX_FIELDS];
	int n;
};

static struct field *put(struct row *r, const char *key, enum kind kind)
{
	struct field *f = &r->f[r->n < MAX_FIELDS - 1 ? r->n++ : r->n];

	f->key = key;
	f->kind = kind;
	f->value[0] = '\0';
	return f;
}

static void put_u64(struct row *r, const char *key, uint64_t v)
{
	snprintf(put(r, key, K_NUM)->value, sizeof(r->f[0].value), "%" PRIu64, v);
}

static void put_f(struct row *r, const char *key, double v, int decimals)
{
	snprintf(put(r, key, K_NUM)->value, sizeof(r->f[0].value), "%.*f", decimals, v);
}

static void put_text(struct row *r, const char *key, const char *v)
{
	snprintf(put(r, key, K_TEXT)->value, sizeof(r->f[0].value), "%s", v);
}

static void put_null(struct row *r, const char *key)
{
	put(r, key, K_NULL);
}

static double us(double ns)
{
	return ns / 1000.0;
}

/* Phase keys, e.g. q2c_count, q2c_min_us, q2c_avg_us, q2c_p50_us, q2c_p99_us, q2c_max_us. */
static char keys[BM_NPHASES][6][20];
static char share_keys[NSHARED][20];

static void make_keys(void)
{
	static const char *const what[6] = { "count", "min_us", "avg_us", "p50_us", "p99_us",
					     "max_us" };
	size_t i, j;

	for (i = 0; i < BM_NPHASES; i++)
		for (j = 0; j < 6; j++)
			snprintf(keys[i][j], sizeof(keys[i][j]), "%s_%s", phase_keys[i], what[j]);
	for (i = 0; i < NSHARED; i++)
		snprintf(share_keys[i], sizeof(share_keys[i]), "%s_pct", phase_keys[shared[i]]);
}

static void put_phase(struct row *r, int phase, const struct bm_hist *h)
{
	int j;

	put_u64(r, keys[phase][0], h ? h->count : 0);
	if (!h || !h->count) {
		for (j = 1; j < 6; j++)
			put_null(r, keys[phase][j]);
		return;
	}
	put_f(r, keys[phase][1], us(h->min), 3);
	put_f(r, keys[phase][2], us((double)h->sum / h->count), 3);
	put_f(r, keys[phase][3], us(bm_hist_percentile(h, 50)), 3);
	put_f(r, keys[phase][4], us(bm_hist_percentile(h, 99)), 3);
	put_f(r, keys[phase][5], us(h->max), 3);
}

static const char *basis_of(const struct bm_disk_stats *d)
{
	return d->model == BM_IO_REQUEST ? "request" : d->model == BM_IO_BIO ? "bio" : "remap";
}

static void put_seek(struct row *r, const char *names[5], const struct bm_seek *s, bool whole)
{
	if (!whole || !s->n) {
		int i;

		if (whole)
			put_u64(r, names[0], 0);
		else
			put_null(r, names[0]);
		for (i = 1; i < 5; i++)
			put_null(r, names[i]);
		return;
	}
	put_u64(r, names[0], s->n);
	put_f(r, names[1], bm_seek_mean(s), 1);
	put_u64(r, names[2], bm_seek_median(s));
	put_u64(r, names[3], bm_seek_mode(s, NULL));
	put_f(r, names[4], 100.0 * s->sequential / s->n, 2);
}

/* Request sizes issued, "4:120 8:3" (KiB, from the power of two up to the next). */
static void sizes_text(const struct bm_phases *ph, char *buf, size_t size)
{
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < BM_SIZE_BUCKETS; k++)
		if (ph->sizes[k] && len + 32 < size)
			len += snprintf(buf + len, size - len, "%s%llu:%" PRIu64, len ? " " : "",
					k ? 1ULL << k : 0ULL, ph->sizes[k]);
}

static void put_whole(struct row *r, const struct bm_phases *ph, bool whole)
{
	static const char *q2q[5] = { "q2q_seeks", "q2q_seek_mean", "q2q_seek_median",
				      "q2q_seek_mode", "q2q_sequential_pct" };
	static const char *d2d[5] = { "d2d_seeks", "d2d_seek_mean", "d2d_seek_median",
				      "d2d_seek_mode", "d2d_sequential_pct" };
	static const char *names[] = { "queued", "issued", "bios_per_request", "merges",
		"rq_merges", "requeues", "request_sectors_min", "request_sectors_avg",
		"request_sectors_max", "request_sectors_total", "request_kib", "plugs", "unplugs",
		"ios_per_unplug", "active_at_q_avg" };
	char sizes[256];
	size_t i;

	if (!whole) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			put_null(r, names[i]);
	} else {
		put_u64(r, "queued", ph->queued);
		put_u64(r, "issued", ph->issued);
		put_f(r, "bios_per_request", ph->issued ? (double)ph->queued / ph->issued : 0, 3);
		put_u64(r, "merges", ph->merges);
		put_u64(r, "rq_merges", ph->rq_merges);
		put_u64(r, "requeues", ph->requeues);
		put_u64(r, "request_sectors_min", ph->c_min);
		put_f(r, "request_sectors_avg", ph->c_count ? (double)ph->c_total / ph->c_count : 0, 1);
		put_u64(r, "request_sectors_max", ph->c_max);
		put_u64(r, "request_sectors_total", ph->c_total);
		sizes_text(ph, sizes, sizeof(sizes));
		put_text(r, "request_kib", sizes);
		put_u64(r, "plugs", ph->plugs);
		put_u64(r, "unplugs", ph->unplugs);
		put_f(r, "ios_per_unplug", ph->unplugs ? (double)ph->unplugged / ph->unplugs : 0, 2);
		put_f(r, "active_at_q_avg", ph->queued ? (double)ph->active_sum / ph->queued : 0, 3);
	}
	put_seek(r, q2q, &ph->q2q, whole);
	put_seek(r, d2d, &ph->d2d, whole);
}

static void fill(struct row *r, const struct bm_disk_stats *d, int op)
{
	const struct bm_phases *ph = d->phases;
	const struct bm_hist *q2c = &ph->h[op][BM_Q2C];
	char dev[16], present[64];
	size_t i;
	int p;

	r->n = 0;
	put_text(r, "name", d->span ? d->span->name : "");
	put_text(r, "dev", bm_dev_str(d->dev, dev, sizeof(dev)));
	put_text(r, "op", op_names[op]);
	put_text(r, "basis", basis_of(d));
	put_text(r, "phases", bm_phases_present(ph, present, sizeof(present)));
	put_text(r, "dm", d->span ? d->span->dm : "");
	put_u64(r, "from_ns", d->life_from);
	put_u64(r, "to_ns", d->life_to);
	for (p = 0; p < BM_NPHASES; p++)
		put_phase(r, p, &ph->h[op][p]);
	for (i = 0; i < NSHARED; i++) {
		const struct bm_hist *h = &ph->h[op][shared[i]];

		if (q2c->sum)
			put_f(r, share_keys[i], 100.0 * h->sum / q2c->sum, 4);
		else
			put_null(r, share_keys[i]);
	}
	put_whole(r, ph, op == BM_PH_ALL);
	put_text(r, "events_lost", d->events_lost ? "yes" : "");
}

static void write_csv(FILE *out, const struct row *r, bool header)
{
	int i;

	if (header) {
		for (i = 0; i < r->n; i++)
			fprintf(out, "%s%s", i ? "," : "", r->f[i].key);
		fputc('\n', out);
	}
	for (i = 0; i < r->n; i++) {
		if (i)
			fputc(',', out);
		if (r->f[i].kind == K_TEXT)
			bm_csv_str(out, r->f[i].value);
		else
			fputs(r->f[i].value, out);
	}
	fputc('\n', out);
}

static void write_json(FILE *out, const struct row *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "{", r->f[i].key);
		if (r->f[i].kind == K_TEXT)
			bm_json_str(out, r->f[i].value);
		else if (r->f[i].kind == K_NULL)
			fputs("null", out);
		else
			fputs(r->f[i].value, out);
	}
	fputs("}\n", out);
}

/* ---- text ---- */

static void text_seek(FILE *out, const char *what, const struct bm_seek *s)
{
	uint64_t count, mode;

	if (!s->n)
		return;
	mode = bm_seek_mode(s, &count);
	fprintf(out, "  seeks %s: %" PRIu64 ", mean %.1f sectors, median %" PRIu64 ", mode %"
		PRIu64 " (%" PRIu64 " times), %.1f%% sequential%s\n", what, s->n, bm_seek_mean(s),
		bm_seek_median(s), mode, count, 100.0 * s->sequential / s->n,
		s->overflow ? " (median and mode of the first distances)" : "");
}

static void text_disk(FILE *out, const struct bm_disk_stats *d)
{
	const struct bm_phases *ph = d->phases;
	char dev[16], present[64], sizes[256];
	int op, p;

	fprintf(out, "\n%s%s%s%s %s, %s-based: %s%s\n", d->span ? d->span->name : "?",
		d->span && d->span->dm[0] ? " (" : "", d->span && d->span->dm[0] ? d->span->dm : "",
		d->span && d->span->dm[0] ? ")" : "", bm_dev_str(d->dev, dev, sizeof(dev)),
		basis_of(d), bm_phases_present(ph, present, sizeof(present))[0] ? present : "no phases",
		d->events_lost ? " (events were lost while it existed)" : "");
	fprintf(out, "  %-5s %-8s %9s %11s %11s %11s %11s %11s %8s\n", "PHASE", "OP", "COUNT",
		"MIN_US", "AVG_US", "P50_US", "P99_US", "MAX_US", "%Q2C");
	for (p = 0; p < BM_NPHASES; p++) {
		for (op = BM_PH_ALL; op >= 0; op--) {
			const struct bm_hist *h = &ph->h[op][p], *q2c = &ph->h[op][BM_Q2C];
			char share[16] = "";

			if (!h->count || (op != BM_PH_ALL && h->count == ph->h[BM_PH_ALL][p].count))
				continue;
			if (p != BM_Q2Q && p != BM_Q2A && q2c->sum)
				snprintf(share, sizeof(share), "%.2f", 100.0 * h->sum / q2c->sum);
			fprintf(out, "  %-5s %-8s %9" PRIu64 " %11.3f %11.3f %11.3f %11.3f %11.3f %8s\n",
				op == BM_PH_ALL ? phase_names[p] : "", op_names[op], h->count, us(h->min),
				us((double)h->sum / h->count), us(bm_hist_percentile(h, 50)),
				us(bm_hist_percentile(h, 99)), us(h->max), share);
		}
	}
	if (ph->queued || ph->issued)
		fprintf(out, "  merges: %" PRIu64 " bios queued, %" PRIu64 " requests issued, "
			"%.2f bios a request (%" PRIu64 " bios merged, %" PRIu64 " requests merged); "
			"%" PRIu64 " requeued\n", ph->queued, ph->issued,
			ph->issued ? (double)ph->queued / ph->issued : 0, ph->merges, ph->rq_merges,
			ph->requeues);
	if (ph->c_count) {
		sizes_text(ph, sizes, sizeof(sizes));
		fprintf(out, "  request sizes: completed %" PRIu64 " to %" PRIu64 " sectors, %.1f on "
			"average, %" PRIu64 " in all; issued, KiB:count: %s\n", ph->c_min, ph->c_max,
			(double)ph->c_total / ph->c_count, ph->c_total, sizes[0] ? sizes : "none");
	}
	if (ph->plugs || ph->unplugs)
		fprintf(out, "  plugs: %" PRIu64 ", unplugs %" PRIu64 ", %.2f requests an unplug\n",
			ph->plugs, ph->unplugs, ph->unplugs ? (double)ph->unplugged / ph->unplugs : 0);
	if (ph->queued)
		fprintf(out, "  requests active at Q: %.3f on average\n",
			(double)ph->active_sum / ph->queued);
	text_seek(out, "Q2Q", &ph->q2q);
	text_seek(out, "D2D", &ph->d2d);
}

void bm_view_phases(FILE *out, enum bm_output_format format, const struct bm_analysis *a)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks);
	static struct row row;
	bool header = true;
	int op;

	make_keys();
	for (i = 0; i < n; i++) {
		const struct bm_disk_stats *d = disks[i];

		if (!d->phases)
			continue;
		if (format == BM_FORMAT_TEXT) {
			text_disk(out, d);
			continue;
		}
		for (op = BM_PH_READ; op < BM_PH_NOPS; op++) {
			if (op != BM_PH_ALL && !d->phases->h[op][BM_Q2C].count &&
			    !d->phases->h[op][BM_Q2A].count)
				continue;
			fill(&row, d, op);
			if (format == BM_FORMAT_CSV)
				write_csv(out, &row, header);
			else
				write_json(out, &row);
			header = false;
		}
	}
	if (header && format == BM_FORMAT_CSV) {
		/* No incarnation: the header alone, from an empty row's keys. */
		struct bm_disk_stats none = { 0 };
		struct bm_phases empty = { 0 };

		none.phases = &empty;
		fill(&row, &none, BM_PH_ALL);
		for (i = 0; i < (size_t)row.n; i++)
			fprintf(out, "%s%s", i ? "," : "", row.f[i].key);
		fputc('\n', out);
	}
}
