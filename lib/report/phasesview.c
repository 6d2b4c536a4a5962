// SPDX-License-Identifier: GPL-2.0-only
/*
 * --phases: where each incarnation's time goes, as btt splits it. CSV and
 * JSON rows come from the schema's "phases" table: a row per incarnation and
 * operation (read, write, discard, all); what is the incarnation's as a
 * whole (merges, request sizes, plugs, seeks) is on its "all" row and null
 * on the others.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/phases.h"
#include "blkmap/map/map.h"
#include "blkmap/report/phasesview.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"

static const char *const phase_keys[BM_NPHASES] = {
	"q2q", "q2g", "g2i", "q2m", "i2d", "m2d", "d2c", "q2c", "q2a" };
static const char *const phase_names[BM_NPHASES] = {
	"Q2Q", "Q2G", "G2I", "Q2M", "I2D", "M2D", "D2C", "Q2C", "Q2A" };
static const char *const op_names[BM_PH_NOPS] = { "read", "write", "discard", "all" };
/* The phases a share of Q2C is given for (btt's device overhead, with M2D). */
static const enum bm_phase shared[] = { BM_Q2G, BM_G2I, BM_Q2M, BM_I2D, BM_M2D, BM_D2C };

#define NSHARED		(sizeof(shared) / sizeof(shared[0]))

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

static void row_phase(struct bm_row *r, int phase, const struct bm_hist *h)
{
	bm_row_u64(r, keys[phase][0], h->count);
	if (!h->count)
		return;
	bm_row_num(r, keys[phase][1], us(h->min));
	bm_row_num(r, keys[phase][2], us((double)h->sum / h->count));
	bm_row_num(r, keys[phase][3], us(bm_hist_percentile(h, 50)));
	bm_row_num(r, keys[phase][4], us(bm_hist_percentile(h, 99)));
	bm_row_num(r, keys[phase][5], us(h->max));
}

static const char *basis_of(const struct bm_disk_stats *d)
{
	return d->model == BM_IO_REQUEST ? "request" : d->model == BM_IO_BIO ? "bio" : "remap";
}

static void row_seek(struct bm_row *r, const char *p, const struct bm_seek *s)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_seeks", p);
	bm_row_u64(r, key, s->n);
	if (!s->n)
		return;
	snprintf(key, sizeof(key), "%s_seek_mean", p);
	bm_row_num(r, key, bm_seek_mean(s));
	snprintf(key, sizeof(key), "%s_seek_median", p);
	bm_row_u64(r, key, bm_seek_median(s));
	snprintf(key, sizeof(key), "%s_seek_mode", p);
	bm_row_u64(r, key, bm_seek_mode(s, NULL));
	snprintf(key, sizeof(key), "%s_sequential_pct", p);
	bm_row_num(r, key, 100.0 * s->sequential / s->n);
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

/* What is the incarnation's as a whole: on its "all" row. */
static void row_whole(struct bm_row *r, const struct bm_phases *ph)
{
	char sizes[256];

	bm_row_u64(r, "queued", ph->queued);
	bm_row_u64(r, "issued", ph->issued);
	if (ph->issued)
		bm_row_num(r, "bios_per_request", (double)ph->queued / ph->issued);
	bm_row_u64(r, "merges", ph->merges);
	bm_row_u64(r, "rq_merges", ph->rq_merges);
	bm_row_u64(r, "requeues", ph->requeues);
	if (ph->c_count) {
		bm_row_u64(r, "request_sectors_min", ph->c_min);
		bm_row_num(r, "request_sectors_avg", (double)ph->c_total / ph->c_count);
		bm_row_u64(r, "request_sectors_max", ph->c_max);
	}
	bm_row_u64(r, "request_sectors_total", ph->c_total);
	sizes_text(ph, sizes, sizeof(sizes));
	if (sizes[0])
		bm_row_str(r, "request_kib", sizes);
	bm_row_u64(r, "plugs", ph->plugs);
	bm_row_u64(r, "unplugs", ph->unplugs);
	if (ph->unplugs)
		bm_row_num(r, "ios_per_unplug", (double)ph->unplugged / ph->unplugs);
	if (ph->queued)
		bm_row_num(r, "active_at_q_avg", (double)ph->active_sum / ph->queued);
	row_seek(r, "q2q", &ph->q2q);
	row_seek(r, "d2d", &ph->d2d);
}

static void phases_row(struct bm_row *r, const struct bm_disk_stats *d, int op)
{
	const struct bm_phases *ph = d->phases;
	const struct bm_hist *q2c = &ph->h[op][BM_Q2C];
	const struct bm_span *s = d->span;
	char present[64];
	size_t i;
	int p;

	bm_row_span(r, s, d->dev);
	if (s && s->dm[0])
		bm_row_str(r, "dm", s->dm);
	bm_row_str(r, "op", op_names[op]);
	bm_row_str(r, "basis", basis_of(d));
	if (bm_phases_present(ph, present, sizeof(present))[0])
		bm_row_str(r, "phases", present);
	for (p = 0; p < BM_NPHASES; p++)
		row_phase(r, p, &ph->h[op][p]);
	for (i = 0; i < NSHARED && q2c->sum; i++)
		bm_row_num(r, share_keys[i], 100.0 * ph->h[op][shared[i]].sum / q2c->sum);
	if (op == BM_PH_ALL)
		row_whole(r, ph);
	bm_row_bool(r, "events_lost", d->events_lost);
	bm_row_end(r);
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
	char dev[16], present[64], sizes[256], key[40];
	int op, p;

	fprintf(out, "\n%s%s%s%s %s, %s-based: %s%s\n", d->span ? d->span->name : "?",
		d->span && d->span->dm[0] ? " (" : "", d->span && d->span->dm[0] ? d->span->dm : "",
		d->span && d->span->dm[0] ? ")" : "",
		d->span ? bm_span_key(d->span, key, sizeof(key)) : bm_dev_str(d->dev, dev, sizeof(dev)),
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

void bm_view_phases(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks);
	struct bm_row *r = NULL;
	int op;

	make_keys();
	if (format != BM_FORMAT_TEXT) {
		r = malloc(sizeof(*r));
		if (!r)
			return;
		bm_row_start(r, out, format, bm_schema_find("phases"));
		if (format == BM_FORMAT_CSV && header)
			bm_schema_csv_header(out, r->schema);
	}
	for (i = 0; i < n; i++) {
		const struct bm_disk_stats *d = disks[i];

		if (!d->phases)
			continue;
		if (format == BM_FORMAT_TEXT) {
			text_disk(out, d);
			continue;
		}
		for (op = BM_PH_READ; op < BM_PH_NOPS; op++)
			if (op == BM_PH_ALL || d->phases->h[op][BM_Q2C].count ||
			    d->phases->h[op][BM_Q2A].count)
				phases_row(r, d, op);
	}
	free(r);
}
