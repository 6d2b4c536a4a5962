// SPDX-License-Identifier: GPL-2.0-only
/*
 * An SVG picture of a recording: one track per incarnation, labelled with
 * its name, throughput as bars and mean latency as a line over time, its
 * appearance and removal marked; under it, the offsets of its reads and
 * writes over time (iowatcher's io graph) and the I/Os in flight. Plain SVG, no script: any browser opens it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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
#define TRACK		110
#define ROW		(2 * TRACK)	/* an incarnation: throughput and latency, then offsets */
#define TOP		64
#define BOTTOM		46
#define PLOT_W		(WIDTH - LEFT - RIGHT)
#define READ_FILL	"#3b7dd8"
#define WRITE_FILL	"#2ca02c"
#define LAT_FILL	"#e8710a"
#define DEPTH_FILL	"#7b3fa0"

static double x_of(uint64_t ts, uint64_t first, uint64_t last)
{
	double span = last > first ? (double)(last - first) : 1;

	if (ts < first)
		ts = first;
	if (ts > last)
		ts = last;
	return LEFT + PLOT_W * (ts - first) / span;
}

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

/* The latency a track draws: D2C where the device has it (requests), else Q2C. */
static int kind_drawn(const struct bm_disk_stats *d)
{
	return d->d2c.count ? BM_LAT_D2C : BM_LAT_Q2C;
}

static uint64_t bin_lat_n(const struct bm_bin *b, int k)
{
	return b->lat_n[k][BM_READ] + b->lat_n[k][BM_WRITE];
}

static double bin_lat_ms(const struct bm_bin *b, int k)
{
	uint64_t n = bin_lat_n(b, k);

	return n ? (b->lat_sum[k][BM_READ] + b->lat_sum[k][BM_WRITE]) / 1e6 / n : 0;
}

/* A bin's bytes per second over its real length (cut by the life, the window). */
static double bin_rate(const struct bm_iostat *st, uint64_t bytes)
{
	return st->to > st->from ? bytes * 1e9 / (st->to - st->from) : 0;
}

/*
 * A bin's bars (read below, write above) with its values on hover: the part
 * of the bin in the incarnation's life and the window, as --interval's row.
 */
static void bar(FILE *f, const struct bm_iostat *st, const struct bm_bin *b, int k, double base,
		double h, double max_rate, uint64_t first, uint64_t last)
{
	double rr = bin_rate(st, st->read_bytes), wr = bin_rate(st, st->write_bytes);
	double rh = h * rr / max_rate, wh = h * wr / max_rate;
	double x = x_of(st->from, first, last), w = x_of(st->to, first, last) - x;
	char r[32], wb[32];

	if (rh <= 0 && wh <= 0)
		return;
	if (w > 1.2)
		w -= 0.4;
	fprintf(f, "<g class='bin'><title>%.3f to %.3f s: read %s (%" PRIu64 " I/O), write %s "
		"(%" PRIu64 " I/O)", (st->from - first) / 1e9, (st->to - first) / 1e9,
		human_rate(rr, r, sizeof(r)), st->reads, human_rate(wr, wb, sizeof(wb)),
		st->writes);
	if (bin_lat_n(b, k))
		fprintf(f, ", mean %s %.3f ms, max %.3f ms", k == BM_LAT_D2C ? "D2C" : "Q2C",
			bin_lat_ms(b, k), b->lat_max[k] / 1e6);
	fputs("</title>", f);
	if (rh > 0)
		fprintf(f, "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='" READ_FILL
			"'/>", x, base - rh, w, rh);
	if (wh > 0)
		fprintf(f, "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='" WRITE_FILL
			"'/>", x, base - rh - wh, w, wh);
	fputs("</g>\n", f);
}

/* A track's scales: throughput at the left, latency at the right, with units. */
static void axes(FILE *f, double y0, double h, double max_rate, double max_lat_ms, int k)
{
	char rate[32];

	fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#666'/>\n", LEFT, y0, LEFT,
		y0 + h);
	fprintf(f, "<text x='%d' y='%.1f' font-size='10' text-anchor='end' fill='#333'>%s</text>\n"
		"<text x='%d' y='%.1f' font-size='10' text-anchor='end' fill='#333'>0</text>\n",
		LEFT - 3, y0 + 9, human_rate(max_rate, rate, sizeof(rate)), LEFT - 3, y0 + h);
	if (max_lat_ms <= 0)
		return;
	fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='" LAT_FILL "'/>\n",
		LEFT + PLOT_W, y0, LEFT + PLOT_W, y0 + h);
	fprintf(f, "<text x='%d' y='%.1f' font-size='10' fill='" LAT_FILL "'>%.3f ms</text>\n"
		"<text x='%d' y='%.1f' font-size='10' fill='" LAT_FILL "'>%s mean</text>\n"
		"<text x='%d' y='%.1f' font-size='10' fill='" LAT_FILL "'>0 ms</text>\n",
		LEFT + PLOT_W + 4, y0 + 9, max_lat_ms, LEFT + PLOT_W + 4, y0 + 21,
		k == BM_LAT_D2C ? "D2C" : "Q2C", LEFT + PLOT_W + 4, y0 + h);
}

/* The sectors below row @r of @o, no further than @top. */
static uint64_t row_edge(const struct bm_offsets *o, int r, uint64_t top)
{
	uint64_t e = (uint64_t)r << o->shift;

	return e < top ? e : top;
}

/* One cell's reads or writes: a mark at its time and offset, its count on hover. */
static void cell(FILE *f, const struct bm_series *s, int op, int r, int c, double y0, double h,
		 uint64_t top, uint64_t first, uint64_t last)
{
	const struct bm_offsets *o = s->offsets;
	double span = (double)s->nbins * s->width;
	uint64_t t0 = s->first + span * c / BM_OFF_COLS, t1 = s->first + span * (c + 1) / BM_OFF_COLS;
	double x = x_of(t0, first, last), cw = x_of(t1, first, last) - x;
	double ylo = y0 + h - h * row_edge(o, r + 1, top) / top;
	double yhi = y0 + h - h * row_edge(o, r, top) / top;

	/* Reads in the left half of the cell, writes in the right. */
	fprintf(f, "<rect class='io' x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='%s' "
		"fill-opacity='0.75'><title>%.3f to %.3f s, sectors %" PRIu64 " to %" PRIu64
		": %u %s</title></rect>\n", x + (op == BM_WRITE ? cw / 2 : 0), ylo,
		cw / 2 > 0.5 ? cw / 2 : 0.5, yhi - ylo > 1 ? yhi - ylo : 1,
		op == BM_READ ? READ_FILL : WRITE_FILL, t0 > first ? (t0 - first) / 1e9 : 0,
		t1 > first ? (t1 - first) / 1e9 : 0, row_edge(o, r, top),
		row_edge(o, r + 1, top) - 1, o->n[op][r][c], op == BM_READ ? "reads" : "writes");
}

/* The mean number of I/Os in flight per bin, as a line, its scale at the right. */
static void depth_line(FILE *f, const struct bm_disk_stats *d, double y0, double h,
		       uint64_t first, uint64_t last)
{
	const struct bm_series *s = d->series;
	double max = 0;
	struct bm_iostat st;
	size_t i;

	for (i = 0; i < s->nbins; i++)
		if (bm_iostat_bin(&st, d, i) && st.depth > max)
			max = st.depth;
	if (max <= 0)
		return;
	fputs("<polyline class='depth' fill='none' stroke='" DEPTH_FILL "' stroke-width='1.2' "
	      "points='", f);
	for (i = 0; i < s->nbins; i++)
		if (bm_iostat_bin(&st, d, i))
			fprintf(f, "%.1f,%.1f ", x_of(st.from + (st.to - st.from) / 2, first, last),
				y0 + h - h * st.depth / max);
	fprintf(f, "'/>\n<text x='%d' y='%.1f' font-size='10' fill='" DEPTH_FILL "'>%.2f</text>\n"
		"<text x='%d' y='%.1f' font-size='10' fill='" DEPTH_FILL "'>in flight</text>\n"
		"<text x='%d' y='%.1f' font-size='10' fill='" DEPTH_FILL "'>0</text>\n",
		LEFT + PLOT_W + 4, y0 + 9, max, LEFT + PLOT_W + 4, y0 + 21, LEFT + PLOT_W + 4,
		y0 + h);
}

/* A size in sectors, in the unit that suits it. */
static const char *human_sectors(uint64_t sectors, char *buf, size_t size)
{
	if (sectors >= 1 << 21)
		snprintf(buf, size, "%.2f GiB", sectors / 2097152.0);
	else
		return human_size(sectors * 512, buf, size);
	return buf;
}

/*
 * The offsets track, under an incarnation's throughput: where its reads and
 * writes completed over time, as iowatcher's io graph, one mark per cell of
 * the bounded grid, and the queue depth over it.
 */
static void offsets(FILE *f, const struct bm_disk_stats *d, double y0, uint64_t first,
		    uint64_t last)
{
	const struct bm_offsets *o = d->series->offsets;
	uint64_t top = d->span ? d->span->size : 0;
	double h = TRACK - 26;
	char size[32];
	int op, r, c;

	fprintf(f, "<g class='offsets'>\n<rect x='%d' y='%.1f' width='%d' height='%.1f' "
		"fill='#ffffff' stroke='#c8c8c8'/>\n", LEFT, y0, PLOT_W, h);
	fprintf(f, "<text x='8' y='%.1f' font-size='12' fill='#555'>offset over time</text>\n"
		"<text x='8' y='%.1f' font-size='11' fill='#777'>from the device's start</text>\n",
		y0 + 14, y0 + 28);
	for (r = BM_OFF_ROWS; o && r > 0; r--)	/* the highest row with I/O, if beyond the size */
		for (c = 0; c < BM_OFF_COLS; c++)
			if ((o->n[0][r - 1][c] | o->n[1][r - 1][c]) &&
			    (uint64_t)r << o->shift > top)
				top = row_edge(o, r, UINT64_MAX);
	if (!top)
		top = 1;
	for (op = 0; op < 2 && o; op++)
		for (r = 0; r < BM_OFF_ROWS; r++)
			for (c = 0; c < BM_OFF_COLS; c++)
				if (o->n[op][r][c] && row_edge(o, r, top) < top)
					cell(f, d->series, op, r, c, y0, h, top, first, last);
	fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#666'/>\n", LEFT, y0, LEFT,
		y0 + h);
	fprintf(f, "<text x='%d' y='%.1f' font-size='10' text-anchor='end' fill='#333'>%s</text>\n"
		"<text x='%d' y='%.1f' font-size='10' text-anchor='end' fill='#333'>sector 0</text>\n",
		LEFT - 3, y0 + 9, human_sectors(top, size, sizeof(size)), LEFT - 3, y0 + h);
	depth_line(f, d, y0, h, first, last);
	fputs("</g>\n", f);
}

static void track(FILE *f, const struct bm_disk_stats *d, int row, uint64_t first, uint64_t last)
{
	const struct bm_series *s = d->series;
	double y0 = TOP + row * ROW, h = TRACK - 26, max_rate = 0, max_lat = 0;
	double bin_s = s->width / 1e9;
	char dev[40], size[32], title[160];
	int k = kind_drawn(d);
	struct bm_iostat st;
	size_t i;

	for (i = 0; i < s->nbins; i++) {
		if (bm_iostat_bin(&st, d, i) &&
		    bin_rate(&st, st.read_bytes + st.write_bytes) > max_rate)
			max_rate = bin_rate(&st, st.read_bytes + st.write_bytes);
		if (bin_lat_ms(&s->bins[i], k) > max_lat)
			max_lat = bin_lat_ms(&s->bins[i], k);
	}
	/* The incarnation's key (MAJ:MIN#N), as the views name it. */
	if (d->span)
		bm_span_key(d->span, dev, sizeof(dev));
	else
		bm_dev_str(d->dev, dev, sizeof(dev));
	snprintf(title, sizeof(title), "%s%s", d->span ? d->span->name : "? (unknown)",
		 d->span && d->span->kind == BM_PARTITION ? " (partition)" : "");
	fprintf(f, "<g>\n<rect x='%d' y='%.1f' width='%d' height='%.1f' fill='#f4f4f4'/>\n", LEFT,
		y0, PLOT_W, h);
	/* The incarnation's life: outside it, the device number meant something else. */
	fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='#ffffff' "
		"stroke='#c8c8c8'/>\n", x_of(d->life_from, first, last), y0,
		x_of(d->life_to, first, last) - x_of(d->life_from, first, last), h);
	fputs("<text x='8' y='", f);
	fprintf(f, "%.1f' font-size='15' font-weight='bold'>", y0 + 22);
	bm_xml_str(f, title);
	fprintf(f, "</text>\n<text x='8' y='%.1f' font-size='12' fill='#555'>%s, read %s, ", y0 + 40,
		dev, human_size(d->read_bytes, size, sizeof(size)));
	fprintf(f, "write %s</text>\n", human_size(d->write_bytes, size, sizeof(size)));
	fprintf(f, "<text x='8' y='%.1f' font-size='11' fill='#555'>%.3f to %.3f s</text>\n",
		y0 + 56, (d->life_from - first) / 1e9, (d->life_to - first) / 1e9);
	for (i = 0; i < s->nbins && max_rate > 0; i++)
		if (bm_iostat_bin(&st, d, i))
			bar(f, &st, &s->bins[i], k, y0 + h, h, max_rate, first, last);
	/* Mean latency per bin with I/O: a dot, no line across bins without any. */
	for (i = 0; i < s->nbins && max_lat > 0; i++) {
		if (!bin_lat_n(&s->bins[i], k) || !bm_iostat_bin(&st, d, i))
			continue;
		fprintf(f, "<circle cx='%.1f' cy='%.1f' r='2.2' fill='" LAT_FILL "'><title>%.3f s: "
			"mean %s %.3f ms</title></circle>\n",
			x_of(st.from + (st.to - st.from) / 2, first, last),
			y0 + h - h * bin_lat_ms(&s->bins[i], k) / max_lat, i * bin_s,
			k == BM_LAT_D2C ? "D2C" : "Q2C", bin_lat_ms(&s->bins[i], k));
	}
	axes(f, y0, h, max_rate, max_lat, k);
	offsets(f, d, y0 + TRACK, first, last);
	/* Appearance and removal, where the recording saw them. */
	if (d->span && d->span->from.known && d->span->from.hi >= first)
		fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#1a9e3f' "
			"stroke-width='2'/><text x='%.1f' y='%.1f' font-size='10' fill='#1a9e3f' "
			"text-anchor='end'>added</text>\n", x_of(d->span->from.hi, first, last), y0,
			x_of(d->span->from.hi, first, last), y0 + h,
			x_of(d->span->from.hi, first, last) - 2, y0 + 10);
	if (d->span && d->span->to.known && d->span->to.hi <= last)
		fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#c62828' "
			"stroke-width='2'/><text x='%.1f' y='%.1f' font-size='10' fill='#c62828'>"
			"removed</text>\n", x_of(d->span->to.hi, first, last), y0,
			x_of(d->span->to.hi, first, last), y0 + h,
			x_of(d->span->to.hi, first, last) + 2, y0 + h + 11);
	fputs("</g>\n", f);
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
static void gaps(FILE *f, const struct bm_analysis *a, size_t rows, uint64_t first, uint64_t last)
{
	const struct bm_loss *gap;
	size_t i, n = bm_analysis_gap_list(a, &gap);

	for (i = 0; i < n; i++) {
		/* A file cut short: to the end of the recording. */
		uint64_t to = gap[i].to > last ? last : gap[i].to;
		double x0 = x_of(gap[i].from, first, last), x1 = x_of(to, first, last);

		if (gap[i].to < first || gap[i].from > last)
			continue;
		fprintf(f, "<rect x='%.1f' y='%d' width='%.1f' height='%zu' fill='#d62728' "
			"fill-opacity='0.18'><title>events lost on CPU %d, %.6f to %.6f s</title>"
			"</rect>\n", x0, TOP, x1 - x0 > 1 ? x1 - x0 : 1, (rows ? rows : 1) * ROW,
			gap[i].cpu, gap[i].from > first ? (gap[i].from - first) / 1e9 : 0,
			(to - first) / 1e9);
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

int bm_plot(const char *path, const struct bm_analysis *a, uint64_t first, uint64_t last)
{
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks), rows = 0;
	bool html = kind_of(path) == HTML, out = !strcmp(path, "-");
	char tmp[PATH_MAX], width[32];
	int height, t, fd;
	FILE *f;

	for (i = 0; i < n; i++)
		rows += disks[i]->series && disks[i]->reads + disks[i]->writes > 0;
	height = TOP + (rows ? rows : 1) * ROW + BOTTOM;
	if (out) {
		f = stdout;
	} else {
		if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
			bm_error("cannot write '%s': the name is too long", path);
			return -1;
		}
		fd = mkostemp(tmp, O_CLOEXEC);
		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!f) {
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
		fputs("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>blkmap</title>"
		      "<style>g.bin:hover rect{opacity:0.6} circle:hover{r:4}</style>"
		      "</head><body style='margin:0'>\n", f);
	fprintf(f, SIGNATURE "\n<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"viewBox='0 0 %d %d' font-family='sans-serif'>\n<rect width='100%%' "
		"height='100%%' fill='white'/>\n", WIDTH, height, WIDTH, height);
	fprintf(f, "<text x='8' y='24' font-size='17' font-weight='bold'>Block I/O per disk, "
		"under the names valid at each moment</text>\n<text x='8' y='42' font-size='12' "
		"fill='#555'>bars: throughput, <tspan fill='" READ_FILL "'>read</tspan> below "
		"<tspan fill='" WRITE_FILL "'>write</tspan> (scale at the left); dots: <tspan fill='"
		LAT_FILL "'>mean latency</tspan> per bin, D2C (issue to completion) or Q2C (queue "
		"to completion) as each track names it (scale at the right)</text>\n<text x='8' "
		"y='58' font-size='12' fill='#555'>under each: offset over time (a mark per cell of "
		"%d by %d) and <tspan fill='" DEPTH_FILL "'>I/Os in flight</tspan>; white: the "
		"incarnation's life; red: events lost; bins of %s; values on hover</text>\n",
		BM_OFF_COLS, BM_OFF_ROWS, bin_width(a, width, sizeof(width)));
	for (i = 0, rows = 0; i < n; i++)
		if (disks[i]->series && disks[i]->reads + disks[i]->writes > 0)
			track(f, disks[i], rows++, first, last);
	gaps(f, a, rows, first, last);
	if (!rows)
		fprintf(f, "<text x='%d' y='%d' font-size='14'>no I/O in this recording</text>\n",
			LEFT, TOP + 30);
	/* The time axis: seconds since the recording began. */
	for (t = 0; t <= 10; t++) {
		double x = LEFT + PLOT_W * t / 10.0;
		double secs = (last - first) / 1e9 * t / 10.0;

		fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#999'/>"
			"<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%.*f s</text>\n",
			x, height - BOTTOM + 4, x, height - BOTTOM + 10, x, height - BOTTOM + 24,
			secs < 10 ? 2 : 1, secs);
	}
	fputs("</svg>\n", f);
	if (html)
		fputs("</body></html>\n", f);
	if (out)
		return fflush(f) == 0 ? 0 : (bm_error_errno("cannot write the plot"), -1);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		bm_error_errno("cannot write '%s'", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}
