// SPDX-License-Identifier: GPL-2.0-only
/*
 * --interval: the recording interval by interval, as sar -d prints a day's
 * file: per interval, a row per incarnation alive in it (with I/O in the
 * window), with the interval view's keys (blkmap top's). The intervals
 * start at the window's start; the last one ends with the window. What
 * the rows count adds up to --disks' figures (see analyse/series.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/report/iostat.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"

/* The name column: the name, its dm name, the '*' of a gap, the state in the interval. */
static const char *series_name(const struct bm_iostat_item *it, uint64_t from, uint64_t to,
			       bool lost, char *buf, size_t size)
{
	const struct bm_span *s = it->d->span;
	const char *state = bm_span_state(s, from, to);

	snprintf(buf, size, "%s%s%s%s%s%s%s%s", s ? s->name : "?",
		 s && s->dm[0] ? " [" : "", s ? s->dm : "", s && s->dm[0] ? "]" : "",
		 lost ? "*" : "",
		 state[0] ? " (" : "", state, state[0] ? ")" : "");
	return buf;
}

/* Text columns as wide as what they print (as ps and lsblk): TIME_END, NAME, DEV#N. */
struct series_widths {
	int time, name, key;
};

static int widen(int width, const char *text)
{
	int len = (int)strlen(text);

	return len > width ? len : width;
}

/*
 * A row is labelled with its interval's end, as sar labels its rows and as
 * the CSV's time_ns is: the time by which what it counts had happened.
 */
static void series_text(FILE *out, const struct bm_iostat_item *it, uint64_t from, uint64_t to,
			bool lost, const struct series_widths *w)
{
	const struct bm_span *s = it->d->span;
	char ts[64], key[40], name[200];

	fprintf(out, "%-*s %-*s %-*s %8" PRIu64 " %8" PRIu64, w->time, bm_ts_str(to, ts, sizeof(ts)),
		w->name, series_name(it, from, to, lost, name, sizeof(name)), w->key,
		s ? bm_span_key(s, key, sizeof(key)) : "?", it->s.reads, it->s.writes);
	bm_iostat_text(out, &it->s);
	putc('\n', out);
}

static void series_row(struct bm_row *r, const struct bm_iostat_item *it, uint64_t from,
		       uint64_t to, bool lost)
{
	const struct bm_span *s = it->d->span;

	bm_row_u64(r, "time_ns", to);
	bm_row_num(r, "interval_s", (to - from) / 1e9);
	if (s && s->dm[0])
		bm_row_str(r, "dm", s->dm);
	bm_row_span(r, s, it->d->dev);
	if (bm_span_state(s, from, to)[0])
		bm_row_str(r, "state", bm_span_state(s, from, to));
	bm_row_u64(r, "reads", it->s.reads);
	bm_row_u64(r, "writes", it->s.writes);
	bm_row_u64(r, "read_bytes", it->s.read_bytes);
	bm_row_u64(r, "write_bytes", it->s.write_bytes);
	bm_row_u64(r, "others", it->s.others);
	bm_row_num(r, "seconds", it->s.seconds);
	bm_row_u64(r, "window_from_ns", it->s.from);
	bm_row_u64(r, "window_to_ns", it->s.to);
	bm_iostat_row(r, &it->s, true);
	bm_row_bool(r, "events_lost", lost);
	bm_row_end(r);
}

/* The bounds of interval @i of @nbins, @width long from @since, the last one ending with @until. */
static void series_bin(const struct bm_series_opts *o, size_t i, size_t nbins, uint64_t width,
		       uint64_t *from, uint64_t *to)
{
	uint64_t end = o->until + 1;

	*from = o->since + i * width;
	*to = i + 1 == nbins || *from + width > end ? end : *from + width;
}

static void series_widths(struct series_widths *w, const struct bm_analysis *a,
			  const struct bm_series_opts *o, const struct bm_disk_stats *const *disks,
			  size_t n, size_t nbins, uint64_t width)
{
	struct bm_iostat_item it = { 0 };
	uint64_t from, to;
	char buf[200];
	size_t i, j;

	*w = (struct series_widths){ .time = 17, .name = 20, .key = 10 };
	for (i = 0; i < nbins; i++) {
		series_bin(o, i, nbins, width, &from, &to);
		for (j = 0; j < n; j++) {
			if (!bm_iostat_bin(&it.s, disks[j], i))
				continue;
			it.d = disks[j];
			w->time = widen(w->time, bm_ts_str(to, buf, sizeof(buf)));
			w->name = widen(w->name, series_name(&it, from, to, bm_iostat_gap_in(a, from, to),
							     buf, sizeof(buf)));
			if (disks[j]->span)
				w->key = widen(w->key, bm_span_key(disks[j]->span, buf, sizeof(buf)));
		}
	}
}

int bm_view_series(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		   const struct bm_series_opts *o)
{
	const struct bm_disk_stats *const *disks;
	size_t n = bm_analysis_disks(a, &disks), nbins, i, j, k;
	struct bm_iostat_item *items = calloc(n ? n : 1, sizeof(*items));
	struct bm_row *r = format == BM_FORMAT_TEXT ? NULL : malloc(sizeof(*r));
	struct series_widths w;
	uint64_t width;
	int ret = -1;

	nbins = bm_analysis_bins(a, &width);
	if (!items || (format != BM_FORMAT_TEXT && !r))
		goto out;
	if (r)
		bm_row_start(r, out, format, bm_schema_find("interval"));
	if (format == BM_FORMAT_CSV && o->header)
		bm_schema_csv_header(out, r->schema);
	if (format == BM_FORMAT_TEXT)
		series_widths(&w, a, o, disks, n, nbins, width);
	if (format == BM_FORMAT_TEXT && o->header) {
		fprintf(out, "%-*s %-*s %-*s %8s %8s", w.time, "TIME_END", w.name, "NAME", w.key,
			"DEV#N", "READS", "WRITES");
		bm_iostat_text_header(out);
		putc('\n', out);
	}
	for (i = 0; i < nbins; i++) {
		uint64_t from, to;
		bool lost;

		series_bin(o, i, nbins, width, &from, &to);
		lost = bm_iostat_gap_in(a, from, to);
		for (j = 0, k = 0; j < n; j++) {
			if (!bm_iostat_bin(&items[k].s, disks[j], i))
				continue;
			items[k].d = disks[j];
			items[k].span = disks[j]->span;
			items[k++].dev = disks[j]->dev;
		}
		bm_iostat_sort(items, k, o->sort);
		for (j = 0; j < k; j++) {
			if (r)
				series_row(r, &items[j], from, to, lost);
			else
				series_text(out, &items[j], from, to, lost, &w);
		}
	}
	ret = 0;
out:
	free(items);
	free(r);
	return ret;
}
