// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report pipeline: pass 1 reads every map record into the map; pass 2
 * labels the events of the window and hands them to a view (events.c,
 * mapview.c, summaries.c through the analysis).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/analyse/iofeed.h"
#include "blkmap/map/feed.h"
#include "blkmap/map/map.h"
#include "blkmap/report/events.h"
#include "blkmap/report/mapview.h"
#include "blkmap/report/plot.h"
#include "blkmap/report/report.h"
#include "blkmap/report/summaries.h"
#include "blkmap/sources/marker.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"
#include "blkmap/util/tell.h"

struct report {
	const struct bm_report_opts *opts;
	FILE *out;
	struct bm_trace *trace;
	struct tep_handle *tep;
	struct bm_decoder *dec;
	struct bm_stream *stream;
	struct bm_map *map;
	struct bm_label_cache labels;
	struct bm_feeder feeder;
	struct bm_loss *losses;		/* found by the first pass, which reads everything */
	size_t nlosses;
	uint64_t first, last, events;
	uint64_t since, until;		/* the window of interest */
	uint64_t total_bytes;		/* of pages, for progress */
	struct bm_analysis *analysis;
	struct bm_events_view *listing;
};

static void progress(struct report *r, const char *what, uint64_t done, uint64_t *next)
{
	if (!r->opts->progress || done < *next)
		return;
	r->opts->progress(what, (int)(100 * done / r->total_bytes));
	*next = done + r->total_bytes / 100;
}

/*
 * A map record kept from pass 1. The strings it points to are copied, at
 * their own length, into one arena: records are kept for the whole
 * recording (an idle marker a second), so each costs only what it holds.
 */
struct kept {
	struct bm_event ev;
	uint64_t seq;		/* order within its CPU */
	size_t text, name, disk;	/* 1 + offset in the arena, 0 for none */
};

struct arena {
	char *buf;
	size_t len, cap;
};

/*
 * The uevent listener's idle markers: one a second for the whole recording,
 * and all the map takes of each is when it was written. Kept apart, small.
 */
struct tick {
	uint64_t ts;
	int cpu;
	uint64_t seq;
};

#define TICK_TEXT	BM_MARKER_PREFIX "uevent-idle"

static bool is_tick(const struct bm_event *ev)
{
	size_t len = strlen(TICK_TEXT);

	return ev->kind == BM_EV_PRINT && ev->text && ev->text_len >= (int)len &&
	       !memcmp(ev->text, TICK_TEXT, len) &&
	       (ev->text_len == (int)len || ev->text[len] == ' ');
}

static int tick_by_time(const void *x, const void *y)
{
	const struct tick *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Does @t come before @k in the merged order? */
static bool tick_first(const struct tick *t, const struct kept *k)
{
	struct tick as_tick = { .ts = k->ev.ts, .cpu = k->ev.cpu, .seq = k->seq };

	return tick_by_time(t, &as_tick) < 0;
}

static void feed_tick(struct report *r, const struct tick *t)
{
	struct bm_event ev = { .ts = t->ts, .cpu = t->cpu, .kind = BM_EV_PRINT,
			       .text = TICK_TEXT, .text_len = strlen(TICK_TEXT) };

	bm_feed(&r->feeder, &ev);
}

static int by_time(const void *x, const void *y)
{
	const struct kept *a = x, *b = y;

	if (a->ev.ts != b->ev.ts)
		return a->ev.ts < b->ev.ts ? -1 : 1;
	if (a->ev.cpu != b->ev.cpu)
		return a->ev.cpu < b->ev.cpu ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Copy @len bytes of @src into @a; 1 + their offset, 0 for NULL, or -1. */
static ssize_t keep_string(struct arena *a, const char *src, int len)
{
	size_t at = a->len;

	if (!src)
		return 0;
	if (len < 0)
		len = 0;
	if (a->cap - a->len < (size_t)len + 1) {
		size_t cap = a->cap ? 2 * a->cap : 4096;
		char *buf;

		while (cap - a->len < (size_t)len + 1)
			cap *= 2;
		buf = realloc(a->buf, cap);
		if (!buf)
			return -1;
		a->buf = buf;
		a->cap = cap;
	}
	memcpy(a->buf + at, src, len);
	a->buf[at + len] = '\0';
	a->len += len + 1;
	return at + 1;
}

static const char *kept_string(const struct arena *a, size_t at)
{
	return at ? a->buf + at - 1 : NULL;
}

/* Only blkmap's own markers feed the map: a user's trace_marker lines are not kept. */
static bool worth_keeping(const struct bm_event *ev)
{
	size_t plen = strlen(BM_MARKER_PREFIX);

	return ev->kind != BM_EV_PRINT ||
	       (ev->text && ev->text_len >= (int)plen && !memcmp(ev->text, BM_MARKER_PREFIX, plen));
}

/*
 * Pass 1: the map. Map records are few: read each CPU's events in turn
 * (other events are skipped by id), keep the map records, sort them by
 * time as the merge would, and feed them to the map.
 */
static int build_map(struct report *r)
{
	const struct bm_loss *losses;
	struct kept *kept = NULL, *k;
	struct tick *ticks = NULL, *t;
	struct arena strings = { 0 };
	size_t n = 0, cap = 0, nticks = 0, capticks = 0, i, j;
	uint64_t seq = 0;
	ssize_t text, name, disk;
	uint64_t next = 0;
	struct bm_rec rec;
	bool any = false;
	int ret;

	while ((ret = bm_stream_next_unordered(r->stream, &rec)) > 0) {
		if (!(r->events & 0xfff))
			progress(r, "building the map", bm_stream_bytes_read(r->stream), &next);
		if (!any || rec.ts < r->first)
			r->first = rec.ts;
		if (rec.ts > r->last)
			r->last = rec.ts;
		any = true;
		r->events++;
		if (!bm_feeds_map(bm_decoder_kind(r->dec, rec.type)))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			k = realloc(kept, cap * sizeof(*kept));
			if (!k)
				goto out_of_memory;
			kept = k;
		}
		k = &kept[n];
		bm_decode(r->dec, &rec, &k->ev);
		if (!worth_keeping(&k->ev))
			continue;
		if (is_tick(&k->ev)) {
			if (nticks == capticks) {
				capticks = capticks ? 2 * capticks : 256;
				t = realloc(ticks, capticks * sizeof(*ticks));
				if (!t)
					goto out_of_memory;
				ticks = t;
			}
			ticks[nticks++] = (struct tick){ .ts = rec.ts, .cpu = k->ev.cpu, .seq = seq++ };
			continue;
		}
		text = keep_string(&strings, k->ev.text, k->ev.text_len);
		name = keep_string(&strings, k->ev.k.name, k->ev.k.name_len);
		disk = keep_string(&strings, k->ev.k.disk, k->ev.k.disk_len);
		if (text < 0 || name < 0 || disk < 0)
			goto out_of_memory;
		k->text = text;
		k->name = name;
		k->disk = disk;
		k->seq = seq++;
		n++;
	}
	if (ret < 0)
		goto fail;
	if (n)
		qsort(kept, n, sizeof(*kept), by_time);
	if (nticks)
		qsort(ticks, nticks, sizeof(*ticks), tick_by_time);
	for (i = 0, j = 0; i < n; i++) {
		/* The arena has moved since: point at the copies where they are now. */
		k = &kept[i];
		k->ev.text = kept_string(&strings, k->text);
		k->ev.k.name = kept_string(&strings, k->name);
		k->ev.k.disk = kept_string(&strings, k->disk);
		for (; j < nticks && tick_first(&ticks[j], k); j++)
			feed_tick(r, &ticks[j]);
		bm_feed(&r->feeder, &k->ev);
	}
	for (; j < nticks; j++)
		feed_tick(r, &ticks[j]);
	free(kept);
	free(ticks);
	free(strings.buf);
	bm_feeder_finish(&r->feeder, r->last);
	/* Kept: a later pass rewinds the stream, and may stop at --until. */
	r->nlosses = bm_stream_losses(r->stream, &losses);
	for (i = 0; i < r->nlosses; i++)
		bm_map_lost(r->map, losses[i].from, losses[i].to);
	bm_map_finish(r->map, r->first, r->last);
	r->losses = malloc((r->nlosses ? r->nlosses : 1) * sizeof(*r->losses));
	if (!r->losses) {
		bm_error_errno("cannot read '%s'", bm_trace_path(r->trace));
		return -1;
	}
	if (r->nlosses)
		memcpy(r->losses, losses, r->nlosses * sizeof(*r->losses));
	return 0;
out_of_memory:
	bm_error_errno("cannot read '%s'", bm_trace_path(r->trace));
fail:
	free(kept);
	free(ticks);
	free(strings.buf);
	return -1;
}

static void report_loss(struct report *r)
{
	const struct bm_trace_meta *m = bm_trace_get_meta(r->trace);
	const struct bm_loss *losses = r->losses;
	size_t i, n = r->nlosses;
	int cpu, uncounted;

	for (cpu = 0; cpu < m->ncpus; cpu++) {
		uint64_t missed = bm_stream_missed(r->stream, cpu, &uncounted);
		uint64_t stats = bm_cpustat_value(m->cpustats[cpu], "overrun") +
				 bm_cpustat_value(m->cpustats[cpu], "dropped events");

		if (stats > missed)
			missed = stats;
		if (missed || uncounted)
			bm_tell(r->opts->warn, "the kernel lost %s%llu events on CPU %d while "
				"recording: counts and the device map may be incomplete",
				uncounted ? "at least " : "", (unsigned long long)missed, cpu);
	}
	for (i = 0; i < n && i < 20; i++) {
		char from[32], to[32];

		if (losses[i].from)
			bm_tell(r->opts->warn, "events lost on CPU %d between %s and %s",
				losses[i].cpu, bm_ts_str(losses[i].from, from, sizeof(from)),
				bm_ts_str(losses[i].to, to, sizeof(to)));
		else
			bm_tell(r->opts->warn, "events lost on CPU %d before %s", losses[i].cpu,
				bm_ts_str(losses[i].to, to, sizeof(to)));
	}
	if (n > 20)
		bm_tell(r->opts->warn, "and %zu more gaps", n - 20);
}

static void label(struct report *r, enum bm_kind kind, uint32_t dev, uint32_t old_dev,
		  uint64_t ts, struct bm_labelled *l)
{
	memset(l, 0, sizeof(*l));
	if (!bm_is_block(kind))
		return;
	l->span = bm_map_label_cached(r->map, &r->labels, dev, ts, 0, &l->basis);
	if (kind == BM_EV_BIO_REMAP)
		l->old_span = bm_map_label_cached(r->map, &r->labels, old_dev, ts, dev,
						  &l->old_basis);
}

static bool device_wanted(struct report *r, const struct bm_event *ev, const struct bm_labelled *l)
{
	const struct bm_report_opts *o = r->opts;

	if (!o->disk && !o->dev)
		return true;
	if (!bm_is_block(ev->kind))
		return false;
	if (o->dev && ev->dev != o->dev && !(ev->kind == BM_EV_BIO_REMAP && ev->old_dev == o->dev))
		return false;
	if (o->disk && !(l->span && !strcmp(l->span->name, o->disk)) &&
	    !(l->old_span && !strcmp(l->old_span->name, o->disk)))
		return false;
	return true;
}

/* Pass 2: every event, labelled, within the filters, to @sink. */
static int pass_events(struct report *r)
{
	uint64_t next = 0, n = 0;
	struct bm_labelled l;
	struct bm_event ev;
	struct bm_rec rec;
	int ret;

	if (bm_stream_rewind(r->stream) < 0)
		return -1;
	while ((ret = bm_stream_next(r->stream, &rec)) > 0) {
		if (!(++n & 0xfff))
			progress(r, "reading events", bm_stream_bytes_read(r->stream), &next);
		if (rec.ts < r->since || rec.ts > r->until)
			continue;
		bm_decode(r->dec, &rec, &ev);
		label(r, ev.kind, ev.dev, ev.old_dev, ev.ts, &l);
		if (!device_wanted(r, &ev, &l))
			continue;
		bm_events_view_print(r->listing, &rec, &ev, &l);
		if (ferror(r->out))
			break;
	}
	return ret < 0 ? -1 : 0;
}

static int list_events(struct report *r)
{
	r->listing = bm_events_view_start(r->out, r->opts->format, r->opts->explain, r->tep);
	if (!r->listing) {
		bm_error_errno("cannot list the events of '%s'", bm_trace_path(r->trace));
		return -1;
	}
	return pass_events(r);
}

/*
 * Pass 2 for analyses: the block events of the window, labelled. Every
 * device: a partition's I/O completes on its disk.
 */
static int analyse_events(struct report *r)
{
	struct bm_iofeed *feed = bm_iofeed_start(r->stream, r->dec, r->since, r->until);
	uint64_t next = 0, bytes;
	const struct bm_io *io;
	struct bm_labelled l;
	ssize_t n, i;

	if (!feed)
		return -1;
	while ((n = bm_iofeed_next(feed, &io, &bytes)) > 0) {
		progress(r, "reading events", bytes, &next);
		for (i = 0; i < n; i++, io++) {
			label(r, io->kind, io->dev, io->old_dev, io->ts, &l);
			bm_analysis_event(r->analysis, io, l.span, l.old_span);
		}
	}
	bm_iofeed_stop(feed);
	return n < 0 ? -1 : 0;
}

static int analyse(struct report *r)
{
	r->analysis = bm_analysis_new(r->since, r->until, r->opts->plot != NULL);
	if (!r->analysis) {
		bm_error_errno("cannot analyse '%s'", bm_trace_path(r->trace));
		return -1;
	}
	if (analyse_events(r) < 0)
		return -1;
	bm_analysis_finish(r->analysis);
	bm_analysis_keep(r->analysis, r->opts->disk, r->opts->dev);
	return 0;
}

/*
 * A --disk or --dev that no incarnation had is a mistake, not a disk
 * without I/O: refuse it, naming what the recording holds.
 */
static int check_device_filter(struct report *r)
{
	const struct bm_report_opts *o = r->opts;
	char known[512] = "", dev[16];
	size_t i, j, len = 0, n = bm_map_count(r->map);

	if (!o->disk && !o->dev)
		return 0;
	for (i = 0; i < n; i++) {
		const struct bm_span *s = bm_map_span(r->map, i);

		if ((o->disk && (!strcmp(s->name, o->disk) || !strcmp(s->dm, o->disk))) ||
		    (o->dev && s->dev == o->dev))
			return 0;
	}
	for (i = 0; i < n && len < sizeof(known) - 64; i++) {
		const struct bm_span *s = bm_map_span(r->map, i);
		const char *item = o->disk ? s->name : bm_dev_str(s->dev, dev, sizeof(dev));

		for (j = 0; j < i; j++) {
			const struct bm_span *t = bm_map_span(r->map, j);

			if (o->disk ? !strcmp(t->name, s->name) : t->dev == s->dev)
				break;
		}
		if (j == i)
			len += snprintf(known + len, sizeof(known) - len, "%s%s", len ? ", " : "", item);
	}
	if (i < n)
		snprintf(known + len, sizeof(known) - len, ", ...");
	if (o->disk)
		bm_error("no disk or partition was named '%s' during the recording '%s' "
			 "(its names: %s)", o->disk, bm_trace_path(r->trace), known[0] ? known : "none");
	else
		bm_error("no disk or partition had device number %s during the recording '%s' "
			 "(its numbers: %s)", bm_dev_str(o->dev, dev, sizeof(dev)),
			 bm_trace_path(r->trace), known[0] ? known : "none");
	errno = ENOENT;
	return -1;
}

/* The window of interest, from the filters, within the recording. */
static void window(struct report *r)
{
	const struct bm_report_opts *o = r->opts;

	r->since = o->since_relative ? r->first + o->since : o->since;
	r->until = !o->until ? r->last : o->until_relative ? r->first + o->until : o->until;
	if (r->since < r->first)
		r->since = r->first;
	if (r->until > r->last)
		r->until = r->last;
}

int bm_report(const char *path, const struct bm_report_opts *opts, FILE *out)
{
	struct report r = { .opts = opts, .out = out };
	int ret = -1, cpu;

	r.trace = bm_trace_open(path);
	if (!r.trace)
		goto out;
	r.tep = bm_trace_tep(r.trace);
	r.dec = bm_decoder_new(r.tep);
	r.map = bm_map_new();
	if (!r.dec || !r.map) {
		bm_error_errno("cannot read '%s'", path);
		goto out;
	}
	bm_feeder_init(&r.feeder, r.map);
	r.stream = bm_stream_open(r.trace);
	if (!r.stream)
		goto out;
	for (cpu = 0; cpu < bm_trace_get_meta(r.trace)->ncpus; cpu++)
		r.total_bytes += bm_trace_cpu(r.trace, cpu)->size;
	if (!r.total_bytes)
		r.total_bytes = 1;
	if (build_map(&r) < 0 || check_device_filter(&r) < 0)
		goto out;
	report_loss(&r);
	window(&r);
	if ((opts->plot || opts->view >= BM_VIEW_DISKS) && analyse(&r) < 0)
		goto out;
	switch (opts->view) {
	case BM_VIEW_MAP:
		bm_view_map(out, opts->format, r.map, &(struct bm_map_view_opts){
			.disk = opts->disk, .dev = opts->dev, .since = r.since, .until = r.until,
			.losses = r.losses, .nlosses = r.nlosses });
		break;
	case BM_VIEW_EVENTS:
		if (list_events(&r) < 0)
			goto out;
		break;
	case BM_VIEW_DISKS:
		bm_view_disks(out, opts->format, r.analysis);
		break;
	case BM_VIEW_LATENCY:
		bm_view_latency(out, opts->format, r.analysis);
		break;
	case BM_VIEW_TOP:
		bm_view_top(out, opts->format, r.analysis, r.tep);
		break;
	case BM_VIEW_NONE:
		break;
	}
	if (opts->plot && bm_plot(opts->plot, r.analysis, r.since, r.until) < 0)
		goto out;
	if (fflush(out) != 0 || ferror(out)) {
		bm_error_errno("cannot write the report");
		goto out;
	}
	ret = 0;
out:
	bm_events_view_free(r.listing);
	free(r.losses);
	bm_analysis_free(r.analysis);
	bm_stream_close(r.stream);
	bm_map_free(r.map);
	bm_decoder_free(r.dec);
	bm_trace_close(r.trace);
	return ret;
}
