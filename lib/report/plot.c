// SPDX-License-Identifier: GPL-2.0-only
/*
 * An SVG picture of a recording: per incarnation, labelled with its name,
 * three panels over time: throughput as bars; latency on a log scale, p50
 * and p99 per bin, the slowest I/Os marked; the offsets of its reads and
 * writes (iowatcher's io graph) and the I/Os in flight; its appearance and
 * removal marked. Then the busiest processes' throughput. Scales at round
 * values (1, 2, 5 x 10^n) with units; time from the start or on the wall
 * clock. Plain SVG, no script: any browser opens it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/map/map.h"
#include "blkmap/report/iostat.h"
#include "blkmap/report/output.h"
#include "blkmap/report/plot.h"
#include "blkmap/util/error.h"

/* The process's umask, which mkostemp(3)'s 0600 leaves out. */
static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

#define WIDTH		1200
#define LEFT		270
#define RIGHT		110
#define PANEL_H		84			/* a panel's plot area */
#define TRACK		110			/* a panel and the space under it */
#define ROW		(3 * TRACK)	/* an incarnation: throughput, latency, offsets */
#define TOP		80
#define BOTTOM		64
#define PLOT_W		(WIDTH - LEFT - RIGHT)
#define READ_FILL	"#3b7dd8"
#define WRITE_FILL	"#2ca02c"
#define P50_FILL	"#e8710a"
#define P99_FILL	"#b5179e"
#define SLOW_FILL	"#d62728"
#define DEPTH_FILL	"#7b3fa0"

/* What the whole picture is drawn over: the window, the time axis, the names. */
struct plot {
	FILE *f;
	const struct bm_plot_opts *o;
	uint64_t first, last;
};

static double x_of(const struct plot *p, uint64_t ts)
{
	double span = p->last > p->first ? (double)(p->last - p->first) : 1;

	if (ts < p->first)
		ts = p->first;
	if (ts > p->last)
		ts = p->last;
	return LEFT + PLOT_W * (ts - p->first) / span;
}

/* ---- round values ---- */

/* The round step (1, 2 or 5 x 10^n) that cuts @range in at most @n steps. */
static double round_step(double range, int n)
{
	double raw = range > 0 ? range / n : 1, p = pow(10, floor(log10(raw)));

	if (raw <= p * 1.000001)
		return p;
	return raw <= 2 * p * 1.000001 ? 2 * p : raw <= 5 * p * 1.000001 ? 5 * p : 10 * p;
}

/* The decimals a multiple of @step needs (0.5: 1, 0.25 cannot be: steps are round). */
static int decimals_of(double step)
{
	int decimals = 0;

	while (decimals < 9 && step * pow(10, decimals) < 0.999999)
		decimals++;
	return decimals;
}

/* @v, a multiple of @step, with as many decimals as @step needs. */
static const char *round_str(double v, double step, char *buf, size_t size)
{
	int decimals = decimals_of(step);

	if (fabs(v) < step / 2)
		return strcpy(buf, "0");
	snprintf(buf, size, "%.*f", decimals, v);
	return buf;
}

/* A unit of bytes: the largest of B, KiB, MiB, GiB that @v reaches. */
static double bytes_unit(double v, const char **name, const char *const names[4])
{
	int i = 0;
	double u = 1;

	while (i < 3 && v >= u * 1024) {
		u *= 1024;
		i++;
	}
	*name = names[i];
	return u;
}

/* A scale of bytes (or bytes a second) from 0: its round top and step, in @unit. */
struct scale {
	double top, step, unit;	/* in the value's own terms: top >= max, a multiple of step */
	const char *name;
};

static void bytes_scale(struct scale *s, double max, bool rate)
{
	static const char *const rates[4] = { "B/s", "KiB/s", "MiB/s", "GiB/s" };
	static const char *const sizes[4] = { "B", "KiB", "MiB", "GiB" };

	s->unit = bytes_unit(max, &s->name, rate ? rates : sizes);
	s->step = round_step(max / s->unit, 4);
	s->top = ceil(max / s->unit / s->step - 1e-9) * s->step;
	if (s->top <= 0)
		s->top = s->step;
	s->step *= s->unit;
	s->top *= s->unit;
}

/* A linear scale's ticks at the left (or right) of a panel, with faint lines across. */
static void ticks(const struct plot *p, const struct scale *s, double y0, bool right,
		  const char *colour)
{
	double v;
	char num[32];

	for (v = 0; v <= s->top * 1.000001; v += s->step) {
		double y = y0 + PANEL_H - PANEL_H * v / s->top;

		if (v > 0 && !right)
			fprintf(p->f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#000' "
				"stroke-opacity='0.08'/>", LEFT, y, LEFT + PLOT_W, y);
		fprintf(p->f, "<text class='tick' x='%d' y='%.1f' font-size='10' text-anchor='%s' "
			"fill='%s'>%s%s%s</text>\n", right ? LEFT + PLOT_W + 4 : LEFT - 3, y + 3.5,
			right ? "start" : "end", colour, round_str(v / s->unit, s->step / s->unit,
								   num, sizeof(num)),
			s->name[0] ? " " : "", s->name);
	}
}

/* A latency in the unit that suits it: "250 us", "1.5 ms". */
static const char *lat_str(double ns, char *buf, size_t size)
{
	if (ns >= 1e9)
		snprintf(buf, size, "%g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, size, "%g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, size, "%g us", ns / 1e3);
	else
		snprintf(buf, size, "%g ns", ns);
	return buf;
}

/* A log scale of latency: whole decades of ns, lo and hi their exponents. */
struct logscale {
	int lo, hi;
};

static void log_scale(struct logscale *l, double min_ns, double max_ns)
{
	l->lo = min_ns > 0 ? (int)floor(log10(min_ns) + 1e-9) : 3;
	l->hi = max_ns > 0 ? (int)ceil(log10(max_ns) - 1e-9) : l->lo + 1;
	if (l->lo > 3)
		l->lo = 3;	/* from 1 us, as the histogram's buckets */
	if (l->hi <= l->lo)
		l->hi = l->lo + 1;
}

static double log_y(const struct logscale *l, double y0, double ns)
{
	double v = ns > 0 ? log10(ns) : l->lo;

	if (v < l->lo)
		v = l->lo;
	if (v > l->hi)
		v = l->hi;
	return y0 + PANEL_H - PANEL_H * (v - l->lo) / (l->hi - l->lo);
}

/* Ticks at 1, 2 and 5 of each decade where there are 2 at most, else at each decade. */
static void log_ticks(const struct plot *p, const struct logscale *l, double y0)
{
	static const int m[] = { 1, 2, 5 };
	char num[32];
	int e, i;

	for (e = l->lo; e <= l->hi; e++)
		for (i = 0; i < 3; i++) {
			double v = m[i] * pow(10, e), y = log_y(l, y0, v);

			if ((i && l->hi - l->lo > 2) || (e == l->hi && i))
				continue;
			if (m[i] == 1)
				fprintf(p->f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#000' "
					"stroke-opacity='0.08'/>", LEFT, y, LEFT + PLOT_W, y);
			fprintf(p->f, "<text class='logtick' x='%d' y='%.1f' font-size='10' "
				"text-anchor='end' fill='#333'>%s</text>\n", LEFT - 3, y + 3.5,
				lat_str(v, num, sizeof(num)));
		}
}

/* ---- the time axis ---- */

/* @ts (of the trace clock) on the wall clock, ns since the epoch. */
static uint64_t wall_of(const struct plot *p, uint64_t ts)
{
	return p->o->wall_ns + (ts - p->o->mono_ns);
}

/* A time on the axis: seconds from the window's start, or the wall clock's local time. */
static const char *axis_str(const struct plot *p, uint64_t ts, double step_s, char *buf,
			    size_t size)
{
	char num[32];

	if (p->o->wall_ns) {
		uint64_t w = wall_of(p, ts);
		time_t sec = w / 1000000000;
		struct tm tm;
		size_t n;

		if (!localtime_r(&sec, &tm))
			return strcpy(buf, "?");
		n = strftime(buf, size, "%H:%M:%S", &tm);
		if (step_s < 1 && n < size) {	/* the fraction, at a round time: exact */
			int d = decimals_of(step_s), i;
			uint64_t unit = 1000000000;

			for (i = 0; i < d; i++)
				unit /= 10;
			snprintf(buf + n, size - n, ".%0*" PRIu64, d,
				 (w % 1000000000 + unit / 2) / unit);
		}
		return buf;
	}
	snprintf(buf, size, "%s s", round_str((ts - p->first) / 1e9, step_s, num, sizeof(num)));
	return buf;
}

/*
 * A step of a minute or more on the wall clock: one its face knows (1, 2,
 * 5, 10, 20 or 30 minutes, 1, 2, 3, 6 or 12 hours, days), at most 10 in @span_s.
 */
static double clock_step(double span_s)
{
	static const int steps[] = { 60, 120, 300, 600, 1200, 1800, 3600, 7200, 10800, 21600,
				     43200, 86400 };
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * 10.0 >= span_s)
			return steps[i];
	return round_step(span_s / 86400, 10) * 86400;
}

/*
 * The time axis under everything, at round times (seconds from the
 * window's start, or round times of the local wall clock), faint lines up
 * through the panels, from @y_top.
 */
static void time_axis(const struct plot *p, int y_top, int y_axis)
{
	double span_s = (p->last - p->first) / 1e9, step_s = round_step(span_s, 10);
	uint64_t step, t, base = 0;
	char label[64], day[64];

	if (p->o->wall_ns) {
		time_t sec = wall_of(p, p->first) / 1000000000;
		struct tm tm;

		if (step_s >= 60)
			step_s = clock_step(span_s);
		/* Round times of the local clock: the offset from UTC counts. */
		base = wall_of(p, p->first) +
		       (localtime_r(&sec, &tm) ? tm.tm_gmtoff * 1000000000LL : 0);
	}
	step = step_s * 1e9 > 1 ? (uint64_t)(step_s * 1e9 + 0.5) : 1;

	/* The first round time at or after the start, on the clock shown. */
	t = p->first + (base % step ? step - base % step : 0);
	for (; t <= p->last; t += step) {
		double x = x_of(p, t);

		fprintf(p->f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#000' "
			"stroke-opacity='0.1'/><line x1='%.1f' y1='%d' x2='%.1f' y2='%d' "
			"stroke='#999'/><text class='ttick' x='%.1f' y='%d' font-size='11' "
			"text-anchor='middle'>%s</text>\n", x, y_top, x, y_axis, x, y_axis + 4, x,
			y_axis + 10, x, y_axis + 24, axis_str(p, t, step_s, label, sizeof(label)));
	}
	if (p->o->wall_ns) {
		time_t sec = wall_of(p, p->first) / 1000000000;
		struct tm tm;

		if (!localtime_r(&sec, &tm) || !strftime(day, sizeof(day), "%Y-%m-%d, UTC%z", &tm))
			strcpy(day, "?");
		snprintf(label, sizeof(label), "wall clock (local time), %s", day);
	} else {
		snprintf(label, sizeof(label), "seconds from the start (%s)",
			 bm_ts_str(p->first, day, sizeof(day)));
	}
	fprintf(p->f, "<text x='%d' y='%d' font-size='12' text-anchor='middle' fill='#333'>",
		LEFT + PLOT_W / 2, y_axis + 44);
	bm_xml_str(p->f, label);
	fputs("</text>\n", p->f);
}

/* ---- throughput ---- */

static const char *human_size(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= 1 << 20)
		snprintf(buf, size, "%.1f MiB", bytes / 1048576.0);
	else
		snprintf(buf, size, "%.1f KiB", bytes / 1024.0);
	return buf;
}

static const char *human_rate(double bytes_per_s, char *buf, size_t size)
{
	if (bytes_per_s >= 1 << 20)
		snprintf(buf, size, "%.1f MiB/s", bytes_per_s / (1 << 20));
	else
		snprintf(buf, size, "%.1f KiB/s", bytes_per_s / 1024);
	return buf;
}

/* A bin's I/O: its time (cut by the life, the window) and what completed in it. */
struct rates {
	uint64_t from, to, reads, writes, read_bytes, write_bytes;
};

/* Bytes per second over the bin's real length. */
static double rate_of(const struct rates *r, uint64_t bytes)
{
	return r->to > r->from ? bytes * 1e9 / (r->to - r->from) : 0;
}

/*
 * A bin's bars (read below, write above) with its values on hover, as
 * --interval's row of that bin says them.
 */
static void bar(const struct plot *p, const struct rates *b, double y0, const struct scale *s,
		const char *class)
{
	double rr = rate_of(b, b->read_bytes), wr = rate_of(b, b->write_bytes);
	double rh = PANEL_H * rr / s->top, wh = PANEL_H * wr / s->top, base = y0 + PANEL_H;
	double x = x_of(p, b->from), w = x_of(p, b->to) - x;
	char r[32], wb[32];

	if (rh <= 0 && wh <= 0)
		return;
	if (w > 1.2)
		w -= 0.4;
	fprintf(p->f, "<g class='%s'><title>%.3f to %.3f s: read %s (%" PRIu64 " I/O), write %s "
		"(%" PRIu64 " I/O)</title>", class, (b->from - p->first) / 1e9, (b->to - p->first) / 1e9,
		human_rate(rr, r, sizeof(r)), b->reads, human_rate(wr, wb, sizeof(wb)), b->writes);
	if (rh > 0)
		fprintf(p->f, "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='" READ_FILL
			"'/>", x, base - rh, w, rh);
	if (wh > 0)
		fprintf(p->f, "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='" WRITE_FILL
			"'/>", x, base - rh - wh, w, wh);
	fputs("</g>\n", p->f);
}

/* A panel's frame: grey outside [@from, @to] (a life: the number meant something else). */
static void frame(const struct plot *p, double y0, uint64_t from, uint64_t to)
{
	fprintf(p->f, "<rect x='%d' y='%.1f' width='%d' height='%d' fill='#f4f4f4'/>\n"
		"<rect x='%.1f' y='%.1f' width='%.1f' height='%d' fill='#ffffff' "
		"stroke='#c8c8c8'/>\n<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#666'/>\n",
		LEFT, y0, PLOT_W, PANEL_H, x_of(p, from), y0, x_of(p, to) - x_of(p, from), PANEL_H,
		LEFT, y0, LEFT, y0 + PANEL_H);
}

/* A panel's name in the left column, under the track's title. */
static void panel_name(const struct plot *p, double y0, const char *name, const char *what)
{
	fprintf(p->f, "<text x='8' y='%.1f' font-size='12' fill='#555'>%s</text>\n"
		"<text x='8' y='%.1f' font-size='11' fill='#777'>%s</text>\n", y0 + 14, name,
		y0 + 28, what);
}

static bool disk_bin(const struct bm_disk_stats *d, size_t i, struct rates *r,
		     struct bm_iostat *st)
{
	if (!bm_iostat_bin(st, d, i))
		return false;
	*r = (struct rates){ st->from, st->to, st->reads, st->writes, st->read_bytes,
			     st->write_bytes };
	return true;
}

static void disk_rates(const struct plot *p, const struct bm_disk_stats *d, double y0)
{
	const struct bm_series *s = d->series;
	struct bm_iostat st;
	struct scale sc;
	struct rates r;
	double max = 0;
	size_t i;

	for (i = 0; i < s->nbins; i++)
		if (disk_bin(d, i, &r, &st) && rate_of(&r, r.read_bytes + r.write_bytes) > max)
			max = rate_of(&r, r.read_bytes + r.write_bytes);
	bytes_scale(&sc, max, true);
	ticks(p, &sc, y0, false, "#333");
	for (i = 0; i < s->nbins && max > 0; i++)
		if (disk_bin(d, i, &r, &st))
			bar(p, &r, y0, &sc, "bin");
}

/* ---- latency ---- */

/* The latency a track draws: D2C where the device has it (requests), else Q2C. */
static int kind_drawn(const struct bm_disk_stats *d)
{
	return d->d2c.count ? BM_LAT_D2C : BM_LAT_Q2C;
}

static const char *kind_name(int k)
{
	return k == BM_LAT_D2C ? "D2C" : "Q2C";
}

/* A slow I/O's latency of kind @k, where it has it; else what it is ranked by. */
static uint64_t slow_lat(const struct bm_slow_row *r, int k)
{
	if (k == BM_LAT_D2C && r->has_d && r->c >= r->d)
		return r->c - r->d;
	return r->took;
}

/* A slow I/O's mark: a red diamond with its rank, what it was on hover. */
static void slow_mark(const struct plot *p, const struct bm_slow_row *r, size_t rank,
		      const struct logscale *l, double y0, int k)
{
	double x = x_of(p, r->c), y = log_y(l, y0, slow_lat(r, k));
	const char *comm = r->pid ? tep_data_comm_from_pid(p->o->tep, r->pid) : "<idle>";
	char d2c[32], size[32];

	fprintf(p->f, "<g class='slow'><title>slowest #%zu: %s %.3f us", rank, r->has_q ?
		"Q2C" : "D2C", r->took / 1e3);
	if (r->has_q && r->has_d && r->c >= r->d)
		fprintf(p->f, " (D2C %s)", lat_str(r->c - r->d, d2c, sizeof(d2c)));
	fprintf(p->f, ", %s %s at sector %" PRIu64 " by ", r->op == BM_WRITE ? "write" : "read",
		human_size((uint64_t)r->sectors * 512, size, sizeof(size)), r->sector);
	bm_xml_str(p->f, comm ? comm : "?");
	fprintf(p->f, " (%d), completed at %.6f s", r->pid, (r->c - p->first) / 1e9);
	if (r->has_d)
		fprintf(p->f, "; %u other requests in flight at its issue", r->inflight);
	fprintf(p->f, "</title><path d='M%.1f %.1fl5 5l-5 5l-5 -5z' fill='" SLOW_FILL "' "
		"stroke='white' stroke-width='0.8'/><text x='%.1f' y='%.1f' font-size='9' "
		"fill='" SLOW_FILL "'>%zu</text></g>\n", x, y - 5, x + 6, y - 3, rank);
}

/*
 * The latency panel: per bin, p50 and p99 of the kind the track draws, on
 * a log scale (a bin's tail is often a hundred times its median), joined
 * by a line; the slowest I/Os of the recording that are this incarnation's
 * marked where they completed.
 */
static void latency(const struct plot *p, const struct bm_disk_stats *d, double y0,
		    const struct bm_slow_row *slow, size_t nslow)
{
	const struct bm_series *s = d->series;
	double min = 0, max = 0;
	int k = kind_drawn(d);
	char what[64], p50[32], p99[32], mx[32];
	struct logscale l;
	struct bm_iostat st;
	size_t i;

	for (i = 0; i < s->nbins; i++) {
		if (!bm_iostat_bin(&st, d, i) || !st.lat_count[k])
			continue;
		if (!min || st.lat_p50_us[k] * 1e3 < min)
			min = st.lat_p50_us[k] * 1e3;
		if (st.lat_p99_us[k] * 1e3 > max)
			max = st.lat_p99_us[k] * 1e3;
	}
	for (i = 0; i < nslow; i++)
		if (slow[i].disk == d && slow_lat(&slow[i], k) > max)
			max = slow_lat(&slow[i], k);
	snprintf(what, sizeof(what), "%s, log scale", k == BM_LAT_D2C ? "issue to completion" :
		 "queue to completion");
	panel_name(p, y0, k == BM_LAT_D2C ? "latency: D2C" : "latency: Q2C", what);
	fprintf(p->f, "<text x='8' y='%.1f' font-size='11'><tspan fill='" P50_FILL "'>&#9679; p50"
		"</tspan> <tspan fill='" P99_FILL "'>&#9679; p99</tspan> <tspan fill='" SLOW_FILL
		"'>&#9670; slowest</tspan></text>\n", y0 + 44);
	frame(p, y0, d->life_from, d->life_to);
	log_scale(&l, min, max);
	log_ticks(p, &l, y0);
	for (i = 0; i < s->nbins; i++) {
		double x, y50, y99;

		if (!bm_iostat_bin(&st, d, i) || !st.lat_count[k])
			continue;
		x = x_of(p, st.from + (st.to - st.from) / 2);
		y50 = log_y(&l, y0, st.lat_p50_us[k] * 1e3);
		y99 = log_y(&l, y0, st.lat_p99_us[k] * 1e3);
		fprintf(p->f, "<g class='lat'><title>%.3f to %.3f s: %s p50 %.3f us, p99 %.3f us, "
			"max %.3f us (%" PRIu64 " I/O; p50 %s, p99 %s, max %s)</title>"
			"<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#999' "
			"stroke-width='0.8'/><circle cx='%.1f' cy='%.1f' r='2' fill='" P50_FILL "'/>"
			"<circle cx='%.1f' cy='%.1f' r='2' fill='" P99_FILL "'/></g>\n",
			(st.from - p->first) / 1e9, (st.to - p->first) / 1e9, kind_name(k),
			st.lat_p50_us[k], st.lat_p99_us[k], st.lat_max_us[k], st.lat_count[k],
			lat_str(st.lat_p50_us[k] * 1e3, p50, sizeof(p50)),
			lat_str(st.lat_p99_us[k] * 1e3, p99, sizeof(p99)),
			lat_str(st.lat_max_us[k] * 1e3, mx, sizeof(mx)), x, y50, x, y99, x, y50, x,
			y99);
	}
	for (i = nslow; i > 0; i--)	/* the slowest drawn last: on top */
		if (slow[i - 1].disk == d)
			slow_mark(p, &slow[i - 1], i, &l, y0, k);
}

/* ---- offsets and depth ---- */

/* The sectors below row @r of @o, no further than @top. */
static uint64_t row_edge(const struct bm_offsets *o, int r, uint64_t top)
{
	uint64_t e = (uint64_t)r << o->shift;

	return e < top ? e : top;
}

/* One cell's reads or writes: a mark at its time and offset, its count on hover. */
static void cell(const struct plot *p, const struct bm_series *s, int op, int r, int c,
		 double y0, uint64_t top)
{
	const struct bm_offsets *o = s->offsets;
	double span = (double)s->nbins * s->width, h = PANEL_H;
	uint64_t t0 = s->first + span * c / BM_OFF_COLS, t1 = s->first + span * (c + 1) / BM_OFF_COLS;
	double x = x_of(p, t0), cw = x_of(p, t1) - x;
	double ylo = y0 + h - h * row_edge(o, r + 1, top) / top;
	double yhi = y0 + h - h * row_edge(o, r, top) / top;

	/* Reads in the left half of the cell, writes in the right. */
	fprintf(p->f, "<rect class='io' x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='%s' "
		"fill-opacity='0.75'><title>%.3f to %.3f s, sectors %" PRIu64 " to %" PRIu64
		": %u %s</title></rect>\n", x + (op == BM_WRITE ? cw / 2 : 0), ylo,
		cw / 2 > 0.5 ? cw / 2 : 0.5, yhi - ylo > 1 ? yhi - ylo : 1,
		op == BM_READ ? READ_FILL : WRITE_FILL, t0 > p->first ? (t0 - p->first) / 1e9 : 0,
		t1 > p->first ? (t1 - p->first) / 1e9 : 0, row_edge(o, r, top),
		row_edge(o, r + 1, top) - 1, o->n[op][r][c], op == BM_READ ? "reads" : "writes");
}

/* The mean number of I/Os in flight per bin, as a line, its round scale at the right. */
static void depth_line(const struct plot *p, const struct bm_disk_stats *d, double y0)
{
	const struct bm_series *s = d->series;
	struct bm_iostat st;
	struct scale sc;
	double max = 0;
	size_t i;

	for (i = 0; i < s->nbins; i++)
		if (bm_iostat_bin(&st, d, i) && st.depth > max)
			max = st.depth;
	if (max <= 0)
		return;
	sc = (struct scale){ .step = round_step(max, 4), .unit = 1, .name = "" };
	sc.top = ceil(max / sc.step - 1e-9) * sc.step;
	fputs("<polyline class='depth' fill='none' stroke='" DEPTH_FILL "' stroke-width='1.2' "
	      "points='", p->f);
	for (i = 0; i < s->nbins; i++)
		if (bm_iostat_bin(&st, d, i))
			fprintf(p->f, "%.1f,%.1f ", x_of(p, st.from + (st.to - st.from) / 2),
				y0 + PANEL_H - PANEL_H * st.depth / sc.top);
	fputs("'/>\n", p->f);
	ticks(p, &sc, y0, true, DEPTH_FILL);
	fprintf(p->f, "<text x='%d' y='%.1f' font-size='10' fill='" DEPTH_FILL "'>in flight</text>\n",
		LEFT + PLOT_W + 4, y0 + PANEL_H + 14);
}

/*
 * The offsets panel: where an incarnation's reads and writes completed
 * over time, as iowatcher's io graph, one mark per cell of the bounded
 * grid, at round offsets; and the queue depth over it.
 */
static void offsets(const struct plot *p, const struct bm_disk_stats *d, double y0)
{
	const struct bm_offsets *o = d->series->offsets;
	uint64_t top = d->span ? d->span->size : 0;
	struct scale sc;
	int op, r, c;

	fprintf(p->f, "<g class='offsets'>\n<rect x='%d' y='%.1f' width='%d' height='%d' "
		"fill='#ffffff' stroke='#c8c8c8'/>\n", LEFT, y0, PLOT_W, PANEL_H);
	panel_name(p, y0, "offset over time", "from the device's start");
	for (r = BM_OFF_ROWS; o && r > 0; r--)	/* the highest row with I/O, if beyond the size */
		for (c = 0; c < BM_OFF_COLS; c++)
			if ((o->n[0][r - 1][c] | o->n[1][r - 1][c]) &&
			    (uint64_t)r << o->shift > top)
				top = row_edge(o, r, UINT64_MAX);
	/* The scale's round top, in bytes, as the marks' sectors go up to it. */
	bytes_scale(&sc, top ? top * 512.0 : 512, false);
	top = (uint64_t)(sc.top / 512);
	ticks(p, &sc, y0, false, "#333");
	for (op = 0; op < 2 && o; op++)
		for (r = 0; r < BM_OFF_ROWS; r++)
			for (c = 0; c < BM_OFF_COLS; c++)
				if (o->n[op][r][c] && row_edge(o, r, top) < top)
					cell(p, d->series, op, r, c, y0, top);
	fprintf(p->f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#666'/>\n", LEFT, y0,
		LEFT, y0 + PANEL_H);
	depth_line(p, d, y0);
	fputs("</g>\n", p->f);
}

/* ---- an incarnation ---- */

/* Its appearance and removal, where the recording saw them, over all its panels. */
static void life_marks(const struct plot *p, const struct bm_disk_stats *d, double y0)
{
	double h = ROW - (TRACK - PANEL_H), x;

	if (d->span && d->span->from.known && d->span->from.hi >= p->first) {
		x = x_of(p, d->span->from.hi);
		fprintf(p->f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1a9e3f' "
			"stroke-width='2'/><text x='%.1f' y='%.1f' font-size='10' fill='#1a9e3f' "
			"text-anchor='end'>added</text>\n", x, y0, x, y0 + h, x - 2, y0 + 10);
	}
	if (d->span && d->span->to.known && d->span->to.hi <= p->last) {
		x = x_of(p, d->span->to.hi);
		fprintf(p->f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#c62828' "
			"stroke-width='2'/><text x='%.1f' y='%.1f' font-size='10' fill='#c62828'>"
			"removed</text>\n", x, y0, x, y0 + h, x + 2, y0 + PANEL_H + 11);
	}
}

static void track(const struct plot *p, const struct bm_disk_stats *d, double y0,
		  const struct bm_slow_row *slow, size_t nslow)
{
	char dev[40], size[32], title[160];

	/* The incarnation's key (MAJ:MIN#N), as the views name it. */
	if (d->span)
		bm_span_key(d->span, dev, sizeof(dev));
	else
		bm_dev_str(d->dev, dev, sizeof(dev));
	snprintf(title, sizeof(title), "%s%s", d->span ? d->span->name : "? (unknown)",
		 d->span && d->span->kind == BM_PARTITION ? " (partition)" : "");
	fputs("<g>\n<text x='8' y='", p->f);
	fprintf(p->f, "%.1f' font-size='15' font-weight='bold'>", y0 + 22);
	bm_xml_str(p->f, title);
	fprintf(p->f, "</text>\n<text class='key' x='8' y='%.1f' font-size='12' fill='#555'>%s</text>\n"
		"<text x='8' y='%.1f' font-size='12' fill='#555'>read %s, ", y0 + 38, dev, y0 + 54,
		human_size(d->read_bytes, size, sizeof(size)));
	fprintf(p->f, "write %s</text>\n", human_size(d->write_bytes, size, sizeof(size)));
	fprintf(p->f, "<text x='8' y='%.1f' font-size='11' fill='#555'>%.3f to %.3f s</text>\n",
		y0 + 70, (d->life_from - p->first) / 1e9, (d->life_to - p->first) / 1e9);
	frame(p, y0, d->life_from, d->life_to);
	disk_rates(p, d, y0);
	latency(p, d, y0 + TRACK, slow, nslow);
	offsets(p, d, y0 + 2 * TRACK);
	life_marks(p, d, y0);
	fputs("</g>\n", p->f);
}

/* ---- the busiest processes ---- */

/* Bin @i of the series, cut by the window. */
static void proc_bin(const struct plot *p, uint64_t width, const struct bm_proc_bin *b,
		     struct rates *r)
{
	uint64_t from = p->first + b->bin * width, to = from + width;

	*r = (struct rates){ from, to > p->last + 1 ? p->last + 1 : to, b->reads, b->writes,
			     b->read_bytes, b->write_bytes };
}

/*
 * A track a process, the busiest first, on one scale (their bars compare):
 * the bytes of the bios it submitted, in the bins where they completed.
 */
static void processes(const struct plot *p, const struct bm_analysis *a,
		      const struct bm_proc_series *ps, size_t n, double y0)
{
	uint64_t width;
	double max = 0;
	struct scale sc;
	struct rates r;
	char rd[32], wr[32];
	size_t i, j;

	bm_analysis_bins(a, &width);
	for (i = 0; i < n; i++)
		for (j = 0; j < ps[i].n; j++) {
			proc_bin(p, width, &ps[i].bins[j], &r);
			if (rate_of(&r, r.read_bytes + r.write_bytes) > max)
				max = rate_of(&r, r.read_bytes + r.write_bytes);
		}
	bytes_scale(&sc, max, true);
	fprintf(p->f, "<text x='8' y='%.1f' font-size='15' font-weight='bold'>The %zu busiest "
		"processes</text><text x='%d' y='%.1f' font-size='12' fill='#555'>bytes of the "
		"bios each submitted (once a bio, at the top of its stack), by completion; one "
		"scale for all</text>\n", y0 + 16, n, LEFT, y0 + 16);
	for (i = 0; i < n; i++) {
		double y = y0 + 30 + i * TRACK;
		const char *comm = ps[i].pid ? tep_data_comm_from_pid(p->o->tep, ps[i].pid) :
			"<idle>";

		fputs("<g class='proc'><title>", p->f);
		bm_xml_str(p->f, comm ? comm : "?");
		fprintf(p->f, " (%d): read %" PRIu64 " bytes, write %" PRIu64 " bytes</title>\n"
			"<text x='8' y='%.1f' font-size='14' font-weight='bold'>", ps[i].pid,
			ps[i].read_bytes, ps[i].write_bytes, y + 20);
		bm_xml_str(p->f, comm ? comm : "?");
		fprintf(p->f, " (%d)</text>\n<text x='8' y='%.1f' font-size='12' fill='#555'>read "
			"%s, write %s</text>\n", ps[i].pid, y + 38,
			human_size(ps[i].read_bytes, rd, sizeof(rd)),
			human_size(ps[i].write_bytes, wr, sizeof(wr)));
		frame(p, y, p->first, p->last);
		ticks(p, &sc, y, false, "#333");
		for (j = 0; j < ps[i].n && max > 0; j++) {
			proc_bin(p, width, &ps[i].bins[j], &r);
			bar(p, &r, y, &sc, "pbin");
		}
		fputs("</g>\n", p->f);
	}
}

/* The bins' width, in the unit that suits it. */
static const char *bin_width(const struct bm_analysis *a, char *buf, size_t size)
{
	uint64_t width;

	bm_analysis_bins(a, &width);
	if (width >= 1000000000)
		snprintf(buf, size, "%.6g s", width / 1e9);
	else if (width >= 1000000)
		snprintf(buf, size, "%.6g ms", width / 1e6);
	else
		snprintf(buf, size, "%.6g us", width / 1e3);
	return buf;
}

/* Where events were lost: a band over every track, its CPU and times on hover. */
static void gaps(const struct plot *p, const struct bm_analysis *a, double height)
{
	const struct bm_loss *gap;
	size_t i, n = bm_analysis_gap_list(a, &gap);

	for (i = 0; i < n; i++) {
		/* A file cut short: to the end of the recording. */
		uint64_t to = gap[i].to > p->last ? p->last : gap[i].to;
		double x0 = x_of(p, gap[i].from), x1 = x_of(p, to);

		if (gap[i].to < p->first || gap[i].from > p->last)
			continue;
		fprintf(p->f, "<rect x='%.1f' y='%d' width='%.1f' height='%.1f' fill='#d62728' "
			"fill-opacity='0.18'><title>events lost on CPU %d, %.6f to %.6f s</title>"
			"</rect>\n", x0, TOP, x1 - x0 > 1 ? x1 - x0 : 1, height, gap[i].cpu,
			gap[i].from > p->first ? (gap[i].from - p->first) / 1e9 : 0,
			(to - p->first) / 1e9);
	}
}

/* What every plot starts with (after the HTML head): a file without it is not one. */
#define SIGNATURE	"<!-- blkmap plot -->"

enum kind { NOT_A_PLOT, SVG, HTML };

static enum kind kind_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!strcmp(path, "-"))
		return SVG;
	if (!dot || strchr(dot, '/'))
		return NOT_A_PLOT;
	if (!strcasecmp(dot, ".svg"))
		return SVG;
	return !strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm") ? HTML : NOT_A_PLOT;
}

int bm_plot_check(const char *path, const char *input)
{
	struct stat st, in;
	char head[512];
	ssize_t n;
	int fd;

	if (kind_of(path) == NOT_A_PLOT) {
		bm_error("--plot writes SVG (a name ending in .svg) or an HTML page (.html), or "
			 "SVG to standard output (-): not '%s'", path);
		return -1;
	}
	if (!strcmp(path, "-") || stat(path, &st) < 0)
		return 0;	/* a new file */
	if (strcmp(input, "-") && stat(input, &in) == 0 && st.st_dev == in.st_dev &&
	    st.st_ino == in.st_ino) {
		bm_error("--plot '%s' is the recording being read", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		bm_error("--plot '%s' exists and is not a file", path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, head, sizeof(head) - 1);
	if (fd >= 0)
		close(fd);
	if (n >= 0)
		head[n] = '\0';
	if (n < 0 || (st.st_size && !strstr(head, SIGNATURE))) {
		bm_error("--plot '%s' exists and is not a plot blkmap wrote: remove it or name "
			 "another file", path);
		return -1;
	}
	return 0;
}

int bm_plot(const char *path, const struct bm_analysis *a, const struct bm_plot_opts *o)
{
	const struct bm_disk_stats *const *disks;
	const struct bm_proc_series *procs;
	const struct bm_slow_row *slow;
	size_t i, n = bm_analysis_disks(a, &disks), rows = 0;
	size_t nprocs = bm_analysis_proc_series_rows(a, &procs);
	size_t nslow = bm_analysis_slowest_rows(a, &slow);
	bool html = kind_of(path) == HTML, out = !strcmp(path, "-");
	struct plot p = { .o = o, .first = o->first, .last = o->last };
	char tmp[PATH_MAX], width[32];
	int height, area, fd;

	for (i = 0; i < n; i++)
		rows += disks[i]->series && disks[i]->reads + disks[i]->writes > 0;
	area = (rows ? rows : 1) * ROW + (nprocs ? 30 + nprocs * TRACK : 0);
	height = TOP + area + BOTTOM;
	if (out) {
		p.f = stdout;
	} else {
		if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
			bm_error("cannot write '%s': the name is too long", path);
			return -1;
		}
		fd = mkostemp(tmp, O_CLOEXEC);
		p.f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!p.f) {
			bm_error_errno("cannot write '%s'", path);
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return -1;
		}
		fchmod(fd, 0644 & ~current_umask());
	}
	if (html)	/* self-contained: the values show on hover, from the SVG's titles */
		fputs("<!DOCTYPE html>\n" SIGNATURE "\n<html lang='en'><head><meta charset='utf-8'>"
		      "<title>blkmap</title><style>g.bin:hover rect,g.pbin:hover rect,g.lat:hover circle{opacity:0.6}"
		      " g.slow:hover path{stroke:black}</style></head><body style='margin:0'>\n",
		      p.f);
	else
		fputs(SIGNATURE "\n", p.f);
	fprintf(p.f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"viewBox='0 0 %d %d' font-family='sans-serif'>\n<rect width='100%%' "
		"height='100%%' fill='white'/>\n", WIDTH, height, WIDTH, height);
	fprintf(p.f, "<text x='8' y='24' font-size='17' font-weight='bold'>Block I/O per disk, "
		"under the names valid at each moment</text>\n<text x='8' y='42' font-size='12' "
		"fill='#555'>per disk: throughput (<tspan fill='" READ_FILL "'>read</tspan> below "
		"<tspan fill='" WRITE_FILL "'>write</tspan>); latency on a log scale, D2C (issue "
		"to completion) or Q2C (queue to completion) as each track names it: <tspan fill='"
		P50_FILL "'>p50</tspan> and <tspan fill='" P99_FILL "'>p99</tspan> per bin, the "
		"<tspan fill='" SLOW_FILL "'>%zu slowest I/Os</tspan> numbered</text>\n"
		"<text x='8' y='58' font-size='12' fill='#555'>offset over time (a mark per cell "
		"of %d by %d) and <tspan fill='" DEPTH_FILL "'>I/Os in flight</tspan>; white: the "
		"incarnation's life; red: events lost; then the busiest processes</text>\n"
		"<text x='8' y='74' font-size='12' fill='#555'>bins of %s; values on hover</text>\n",
		nslow, BM_OFF_COLS, BM_OFF_ROWS, bin_width(a, width, sizeof(width)));
	for (i = 0, rows = 0; i < n; i++)
		if (disks[i]->series && disks[i]->reads + disks[i]->writes > 0)
			track(&p, disks[i], TOP + rows++ * ROW, slow, nslow);
	if (!rows)
		fprintf(p.f, "<text x='%d' y='%d' font-size='14'>no I/O in this recording</text>\n",
			LEFT, TOP + 30);
	if (nprocs)
		processes(&p, a, procs, nprocs, TOP + (rows ? rows : 1) * ROW);
	gaps(&p, a, area);
	time_axis(&p, TOP, height - BOTTOM);
	fputs("</svg>\n", p.f);
	if (html)
		fputs("</body></html>\n", p.f);
	if (out)
		return fflush(p.f) == 0 ? 0 : (bm_error_errno("cannot write the plot"), -1);
	if (fclose(p.f) != 0 || rename(tmp, path) < 0) {
		bm_error_errno("cannot write '%s'", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}
