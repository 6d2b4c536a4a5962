// SPDX-License-Identifier: GPL-2.0-only
/* The report pipeline and its events and map views. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/util/error.h"
#include "blkmap/analyse/iofeed.h"
#include "blkmap/map/map.h"
#include "blkmap/map/feed.h"
#include "blkmap/sources/marker.h"
#include "blkmap/report/report.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/report/summaries.h"
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
	struct trace_seq seq;
	struct bm_line line;
	int comm_pid;		/* the last pid looked up, and its command */
	const char *comm;
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

/* Could events lost in the kernel hide a change of this incarnation? */
static bool span_near_loss(struct report *r, const struct bm_span *s)
{
	const struct bm_loss *losses = r->losses;
	size_t i, n = r->nlosses;
	uint64_t lo = s->from.known ? s->from.lo : 0;
	uint64_t hi = s->to.known ? s->to.hi : UINT64_MAX;

	for (i = 0; i < n; i++)
		if (losses[i].from <= hi && losses[i].to >= lo)
			return true;
	return false;
}

/* ---- map view ---- */

static bool span_wanted(const struct report *r, const struct bm_span *s)
{
	const struct bm_report_opts *o = r->opts;

	if (o->disk && strcmp(s->name, o->disk))
		return false;
	if (o->dev && s->dev != o->dev)
		return false;
	return (!s->from.known || s->from.lo <= r->until) && (!s->to.known || s->to.hi >= r->since);
}

static const char *bound_text(const struct bm_bound *b, bool is_from, char *buf, size_t size)
{
	char lo[32], hi[32], by[64];

	bm_sources_str(b->by, '+', by, sizeof(by));
	if (!b->known)
		snprintf(buf, size, is_from ? "before the recording (%s by %s)" : "still present",
			 by, bm_ts_str(b->hi, hi, sizeof(hi)));
	else if (b->lo == b->hi)
		snprintf(buf, size, "%s exact (%s)", bm_ts_str(b->hi, hi, sizeof(hi)), by);
	else
		snprintf(buf, size, "%s..%s (%s)", bm_ts_str(b->lo, lo, sizeof(lo)),
			 bm_ts_str(b->hi, hi, sizeof(hi)), by);
	return buf;
}

static void map_text(struct report *r)
{
	const struct bm_conflict *conflicts;
	size_t i, n;

	fprintf(r->out, "%-9s %-16s %-9s %-48s %s\n", "DEV", "NAME", "KIND", "FROM", "TO");
	for (i = 0; i < bm_map_count(r->map); i++) {
		const struct bm_span *s = bm_map_span(r->map, i);
		char dev[16], from[160], to[160], name[200];

		if (!span_wanted(r, s))
			continue;
		snprintf(name, sizeof(name), "%s%s%s%s", s->name, s->dm[0] ? " (" : "", s->dm,
			 s->dm[0] ? ")" : "");
		fprintf(r->out, "%-9s %-16s %-9s %-48s %s%s\n",
			bm_dev_str(s->dev, dev, sizeof(dev)), name,
			s->kind == BM_PARTITION ? "partition" : "disk",
			bound_text(&s->from, true, from, sizeof(from)),
			bound_text(&s->to, false, to, sizeof(to)),
			span_near_loss(r, s) ? " [events lost meanwhile]" : "");
	}
	n = bm_map_conflicts(r->map, &conflicts);
	for (i = 0; i < n; i++) {
		char ts[32];

		fprintf(r->out, "conflict at %s: %s\n", bm_ts_str(conflicts[i].ts, ts, sizeof(ts)),
			conflicts[i].text);
	}
}

static void csv_u64(FILE *out, bool present, uint64_t v)
{
	if (present)
		fprintf(out, "%" PRIu64, v);
}

static void map_csv(struct report *r)
{
	size_t i;

	fputs("dev,name,kind,from_ns,to_ns,from_source,to_source,"
	      "from_lo_ns,from_hi_ns,to_lo_ns,to_hi_ns,parent,diskseq,dm,events_lost\n", r->out);
	for (i = 0; i < bm_map_count(r->map); i++) {
		const struct bm_span *s = bm_map_span(r->map, i);
		char dev[16], by[64];

		if (!span_wanted(r, s))
			continue;
		fprintf(r->out, "%s,", bm_dev_str(s->dev, dev, sizeof(dev)));
		bm_csv_str(r->out, s->name);
		fprintf(r->out, ",%s,", s->kind == BM_PARTITION ? "partition" : "disk");
		csv_u64(r->out, s->from.known, s->from.hi);
		putc(',', r->out);
		csv_u64(r->out, s->to.known, s->to.hi);
		fprintf(r->out, ",%s,", bm_sources_str(s->from.by, '+', by, sizeof(by)));
		fprintf(r->out, "%s,", s->to.known ? bm_sources_str(s->to.by, '+', by, sizeof(by))
						   : "");
		csv_u64(r->out, s->from.known, s->from.lo);
		putc(',', r->out);
		csv_u64(r->out, s->from.known, s->from.hi);
		putc(',', r->out);
		csv_u64(r->out, s->to.known, s->to.lo);
		putc(',', r->out);
		csv_u64(r->out, s->to.known, s->to.hi);
		putc(',', r->out);
		bm_csv_str(r->out, s->parent);
		putc(',', r->out);
		csv_u64(r->out, s->diskseq, s->diskseq);
		putc(',', r->out);
		bm_csv_str(r->out, s->dm);
		fprintf(r->out, ",%s\n", span_near_loss(r, s) ? "yes" : "");
	}
}

static void json_bound(FILE *out, const char *key, const struct bm_bound *b)
{
	char by[64];

	fprintf(out, "\"%s\":", key);
	if (!b->known) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"lo_ns\":%" PRIu64 ",\"hi_ns\":%" PRIu64 ",\"source\":", b->lo, b->hi);
	bm_json_str(out, bm_sources_str(b->by, '+', by, sizeof(by)));
	putc('}', out);
}

static void map_json(struct report *r)
{
	const struct bm_conflict *conflicts;
	size_t i, n;

	for (i = 0; i < bm_map_count(r->map); i++) {
		const struct bm_span *s = bm_map_span(r->map, i);
		char dev[16];

		if (!span_wanted(r, s))
			continue;
		fprintf(r->out, "{\"dev\":\"%s\",\"name\":", bm_dev_str(s->dev, dev, sizeof(dev)));
		bm_json_str(r->out, s->name);
		fprintf(r->out, ",\"kind\":\"%s\",", s->kind == BM_PARTITION ? "partition" : "disk");
		json_bound(r->out, "from", &s->from);
		putc(',', r->out);
		json_bound(r->out, "to", &s->to);
		fputs(",\"parent\":", r->out);
		bm_json_str(r->out, s->parent);
		fprintf(r->out, ",\"diskseq\":%" PRIu64 ",\"dm\":", s->diskseq);
		bm_json_str(r->out, s->dm);
		fprintf(r->out, ",\"events_lost\":%s}\n", span_near_loss(r, s) ? "true" : "false");
	}
	n = bm_map_conflicts(r->map, &conflicts);
	for (i = 0; i < n; i++) {
		fprintf(r->out, "{\"conflict_ns\":%" PRIu64 ",\"text\":", conflicts[i].ts);
		bm_json_str(r->out, conflicts[i].text);
		fputs("}\n", r->out);
	}
}

/* ---- events view ---- */

struct labelled {
	const struct bm_span *span, *old_span;
	enum bm_label_basis basis, old_basis;
};

static void label(struct report *r, enum bm_kind kind, uint32_t dev, uint32_t old_dev,
		  uint64_t ts, struct labelled *l)
{
	memset(l, 0, sizeof(*l));
	if (!bm_is_block(kind))
		return;
	l->span = bm_map_label_cached(r->map, &r->labels, dev, ts, 0, &l->basis);
	if (kind == BM_EV_BIO_REMAP)
		l->old_span = bm_map_label_cached(r->map, &r->labels, old_dev, ts, dev,
						  &l->old_basis);
}

static const char *comm_of(struct report *r, int pid)
{
	if (pid == 0)
		return "<idle>";
	if (!r->comm || pid != r->comm_pid) {
		r->comm = tep_data_comm_from_pid(r->tep, pid);
		r->comm_pid = pid;
	}
	return r->comm;
}

/* Details of a non-block event, as the kernel's print format has them. */
static const char *details(struct report *r, const struct bm_rec *rec, const struct bm_event *ev)
{
	struct tep_record trec = { .ts = rec->ts, .cpu = rec->cpu, .data = rec->data,
				   .size = rec->size };

	if (ev->kind == BM_EV_PRINT && ev->text) {
		trace_seq_reset(&r->seq);
		trace_seq_printf(&r->seq, "%.*s", ev->text_len, ev->text);
	} else {
		trace_seq_reset(&r->seq);
		tep_print_event(r->tep, &r->seq, &trec, "%s", TEP_PRINT_INFO);
	}
	trace_seq_terminate(&r->seq);
	return r->seq.buffer;
}

static void explain_text(struct report *r, const struct bm_span *s, enum bm_label_basis basis)
{
	char from[160], to[160];

	if (!s) {
		fputs(" [unknown: no incarnation fits]", r->out);
		return;
	}
	fprintf(r->out, " [%s: %s from %s to %s]", bm_label_basis_name(basis), s->name,
		bound_text(&s->from, true, from, sizeof(from)),
		bound_text(&s->to, false, to, sizeof(to)));
}

static void event_text(struct report *r, const struct bm_rec *rec, const struct bm_event *ev,
		       const struct labelled *l)
{
	struct bm_line *o = &r->line;
	char pid[16];

	bm_line_ts(o, ev->ts);
	bm_line_str(o, " [");
	bm_line_u64w(o, ev->cpu, 3, true);
	bm_line_str(o, "] ");
	bm_line_pad(o, comm_of(r, ev->pid), 16, true);
	bm_line_char(o, '-');
	snprintf(pid, sizeof(pid), "%d", ev->pid);
	bm_line_pad(o, pid, 7, false);
	bm_line_char(o, ' ');
	bm_line_pad(o, ev->name, 18, false);
	bm_line_char(o, ' ');
	if (!bm_is_block(ev->kind)) {
		bm_line_str(o, details(r, rec, ev));
		bm_line_char(o, '\n');
		bm_line_write(o);
		return;
	}
	{
		size_t at = o->n;

		bm_line_dev(o, ev->dev);
		while (o->n - at < 8)
			bm_line_char(o, ' ');
	}
	bm_line_char(o, ' ');
	bm_line_pad(o, l->span ? l->span->name : "?", 10, false);
	bm_line_char(o, ' ');
	bm_line_pad(o, ev->rwbs, 4, false);
	bm_line_char(o, ' ');
	bm_line_u64(o, ev->sector);
	bm_line_str(o, " + ");
	bm_line_u64(o, ev->nr_sector);
	if (ev->kind == BM_EV_BIO_REMAP) {
		bm_line_str(o, " <- ");
		bm_line_dev(o, ev->old_dev);
		bm_line_char(o, ' ');
		bm_line_str(o, l->old_span ? l->old_span->name : "?");
		bm_line_char(o, ' ');
		bm_line_u64(o, ev->old_sector);
	} else if (ev->kind == BM_EV_RQ_ISSUE || ev->kind == BM_EV_RQ_INSERT) {
		bm_line_str(o, " (");
		bm_line_u64(o, ev->bytes);
		bm_line_str(o, " bytes)");
	} else if (ev->kind == BM_EV_RQ_COMPLETE || ev->kind == BM_EV_BIO_COMPLETE) {
		bm_line_str(o, " [");
		bm_line_i64(o, ev->error);
		bm_line_char(o, ']');
	}
	bm_line_write(o);
	if (r->opts->explain) {
		explain_text(r, l->span, l->basis);
		if (ev->kind == BM_EV_BIO_REMAP)
			explain_text(r, l->old_span, l->old_basis);
	} else if (l->basis == BM_LABEL_GUESS || l->old_basis == BM_LABEL_GUESS) {
		fputs(" (name guessed; see --explain)", r->out);
	}
	putc('\n', r->out);
}

static const char *name_of(const struct bm_span *s)
{
	return s ? s->name : "";
}

static void event_csv(struct report *r, const struct bm_event *ev, const struct labelled *l)
{
	bool block = bm_is_block(ev->kind), remap = ev->kind == BM_EV_BIO_REMAP;
	struct bm_line *o = &r->line;

	bm_line_u64(o, ev->ts);
	bm_line_char(o, ',');
	bm_line_i64(o, ev->cpu);
	bm_line_char(o, ',');
	bm_line_i64(o, ev->pid);
	bm_line_char(o, ',');
	bm_line_csv(o, comm_of(r, ev->pid));
	bm_line_char(o, ',');
	bm_line_str(o, ev->name);
	bm_line_char(o, ',');
	if (block) {
		bm_line_dev(o, ev->dev);
		bm_line_char(o, ',');
		bm_line_csv(o, name_of(l->span));
		bm_line_char(o, ',');
		bm_line_str(o, ev->rwbs);
		bm_line_char(o, ',');
		bm_line_u64(o, ev->sector);
		bm_line_char(o, ',');
		bm_line_u64(o, ev->nr_sector);
		bm_line_char(o, ',');
		if (ev->kind == BM_EV_RQ_ISSUE || ev->kind == BM_EV_RQ_INSERT)
			bm_line_u64(o, ev->bytes);
		bm_line_char(o, ',');
		if (ev->kind == BM_EV_RQ_COMPLETE || ev->kind == BM_EV_BIO_COMPLETE)
			bm_line_i64(o, ev->error);
		bm_line_char(o, ',');
	} else {
		bm_line_str(o, ",,,,,,,");
	}
	if (remap) {
		bm_line_dev(o, ev->old_dev);
		bm_line_char(o, ',');
		bm_line_csv(o, name_of(l->old_span));
		bm_line_char(o, ',');
		bm_line_u64(o, ev->old_sector);
		bm_line_char(o, ',');
	} else {
		bm_line_str(o, ",,,");
	}
	bm_line_str(o, block ? bm_label_basis_name(l->basis) : "");
	bm_line_char(o, ',');
	bm_line_str(o, remap ? bm_label_basis_name(l->old_basis) : "");
	bm_line_char(o, '\n');
	bm_line_write(o);
}

static void event_json(struct report *r, const struct bm_rec *rec, const struct bm_event *ev,
		       const struct labelled *l)
{
	struct bm_line *o = &r->line;

	bm_line_str(o, "{\"ts_ns\":");
	bm_line_u64(o, ev->ts);
	bm_line_str(o, ",\"cpu\":");
	bm_line_i64(o, ev->cpu);
	bm_line_str(o, ",\"pid\":");
	bm_line_i64(o, ev->pid);
	bm_line_str(o, ",\"comm\":");
	bm_line_json(o, comm_of(r, ev->pid));
	bm_line_str(o, ",\"event\":");
	bm_line_json(o, ev->name);
	if (!bm_is_block(ev->kind)) {
		bm_line_str(o, ",\"details\":");
		bm_line_json(o, details(r, rec, ev));
		bm_line_str(o, "}\n");
		bm_line_write(o);
		return;
	}
	bm_line_str(o, ",\"dev\":\"");
	bm_line_dev(o, ev->dev);
	bm_line_str(o, "\",\"name\":");
	bm_line_json(o, name_of(l->span));
	bm_line_str(o, ",\"name_basis\":\"");
	bm_line_str(o, bm_label_basis_name(l->basis));
	bm_line_str(o, "\",\"rwbs\":");
	bm_line_json(o, ev->rwbs);
	bm_line_str(o, ",\"sector\":");
	bm_line_u64(o, ev->sector);
	bm_line_str(o, ",\"nr_sector\":");
	bm_line_u64(o, ev->nr_sector);
	if (ev->kind == BM_EV_RQ_ISSUE || ev->kind == BM_EV_RQ_INSERT) {
		bm_line_str(o, ",\"bytes\":");
		bm_line_u64(o, ev->bytes);
	}
	if (ev->kind == BM_EV_RQ_COMPLETE || ev->kind == BM_EV_BIO_COMPLETE) {
		bm_line_str(o, ",\"error\":");
		bm_line_i64(o, ev->error);
	}
	if (ev->kind == BM_EV_BIO_REMAP) {
		bm_line_str(o, ",\"old_dev\":\"");
		bm_line_dev(o, ev->old_dev);
		bm_line_str(o, "\",\"old_name\":");
		bm_line_json(o, name_of(l->old_span));
		bm_line_str(o, ",\"old_name_basis\":\"");
		bm_line_str(o, bm_label_basis_name(l->old_basis));
		bm_line_str(o, "\",\"old_sector\":");
		bm_line_u64(o, ev->old_sector);
	}
	bm_line_str(o, "}\n");
	bm_line_write(o);
}

static bool device_wanted(struct report *r, const struct bm_event *ev, const struct labelled *l)
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

static void print_event(struct report *r, const struct bm_rec *rec, const struct bm_event *ev,
			const struct labelled *l)
{
	switch (r->opts->format) {
	case BM_FORMAT_TEXT:
		event_text(r, rec, ev, l);
		break;
	case BM_FORMAT_CSV:
		event_csv(r, ev, l);
		break;
	case BM_FORMAT_JSON:
		event_json(r, rec, ev, l);
		break;
	}
}

/* Pass 2: every event, labelled, within the filters, to @sink. */
static int pass_events(struct report *r)
{
	uint64_t next = 0, n = 0;
	struct labelled l;
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
		print_event(r, &rec, &ev, &l);
		if (ferror(r->out))
			break;
	}
	return ret < 0 ? -1 : 0;
}

static int list_events(struct report *r)
{
	if (r->opts->format == BM_FORMAT_CSV)
		fputs("ts_ns,cpu,pid,comm,event,dev,name,rwbs,sector,nr_sector,bytes,error,"
		      "old_dev,old_name,old_sector,name_basis,old_name_basis\n", r->out);
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
	struct labelled l;
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

	trace_seq_init(&r.seq);
	bm_line_init(&r.line, out);
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
		if (opts->format == BM_FORMAT_TEXT)
			map_text(&r);
		else if (opts->format == BM_FORMAT_CSV)
			map_csv(&r);
		else
			map_json(&r);
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
	trace_seq_destroy(&r.seq);
	free(r.losses);
	bm_analysis_free(r.analysis);
	bm_stream_close(r.stream);
	bm_map_free(r.map);
	bm_decoder_free(r.dec);
	bm_trace_close(r.trace);
	return ret;
}
