// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pass 1 of a report: every map record of a recording, in time order, into
 * a new map. Read before any event is labelled, so that a record written
 * after the I/O it explains (a uevent marker arriving late) labels it too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/build.h"
#include "blkmap/map/cgroups.h"
#include "blkmap/map/feed.h"
#include "blkmap/sources/marker.h"
#include "blkmap/util/error.h"

/*
 * A map record kept from pass 1. The strings it points to are copied, at
 * their own length, into one arena: records are kept for the whole
 * recording (an idle marker a second), so each costs only what it holds.
 */
struct kept {
	struct bm_event ev;
	uint64_t seq;		/* order within its CPU */
	size_t text, name, disk, dm, file, uuid;	/* 1 + offset in the arena, 0 for none */
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

#define TICK_TEXT	BM_MARKER_PREFIX BM_MARKER_IDLE

static bool is_tick(const struct bm_event *ev)
{
	return ev->kind == BM_EV_PRINT && ev->text && bm_marker_is_idle(ev->text, ev->text_len);
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

static void feed_tick(struct bm_feeder *f, const struct tick *t)
{
	struct bm_event ev = { .ts = t->ts, .cpu = t->cpu, .kind = BM_EV_PRINT,
			       .text = TICK_TEXT, .text_len = strlen(TICK_TEXT) };

	bm_feed(f, &ev);
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
 * What one thread keeps of its CPUs' events (CPU first, first + step, ...).
 * Each reads its own CPUs' pages, decodes and copies on its own: the map
 * records are sorted together afterwards.
 */
struct scan {
	struct bm_stream *stream;
	const struct bm_decoder *dec;
	struct bm_map_pass *pass;	/* for progress, from the caller's thread alone */
	int first, step;
	pthread_t thread;
	struct kept *kept;
	size_t n, cap;
	struct tick *ticks;
	size_t nticks, capticks;
	struct arena strings;
	uint64_t seq;			/* order within a CPU */
	uint64_t first_ts, last_ts, events;
	int ret;			/* 0; -1: failed reading; -2: out of memory */
	char message[1024];		/* of a failed read, from the thread that saw it */
};

/* Keep @rec if it is a map record: 0, or -1 out of memory. */
static int keep(struct scan *sc, const struct bm_rec *rec)
{
	ssize_t text, name, disk, dm, file, uuid;
	struct kept *k;
	struct tick *t;

	if (!bm_feeds_map(bm_decoder_kind(sc->dec, rec->type)))
		return 0;
	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 256;
		k = realloc(sc->kept, sc->cap * sizeof(*sc->kept));
		if (!k)
			return -1;
		sc->kept = k;
	}
	k = &sc->kept[sc->n];
	bm_decode(sc->dec, rec, &k->ev);
	if (!worth_keeping(&k->ev))
		return 0;
	if (is_tick(&k->ev)) {
		if (sc->nticks == sc->capticks) {
			sc->capticks = sc->capticks ? 2 * sc->capticks : 256;
			t = realloc(sc->ticks, sc->capticks * sizeof(*sc->ticks));
			if (!t)
				return -1;
			sc->ticks = t;
		}
		sc->ticks[sc->nticks++] = (struct tick){ .ts = rec->ts, .cpu = k->ev.cpu,
							 .seq = sc->seq++ };
		return 0;
	}
	text = keep_string(&sc->strings, k->ev.text, k->ev.text_len);
	name = keep_string(&sc->strings, k->ev.k.name, k->ev.k.name_len);
	disk = keep_string(&sc->strings, k->ev.k.disk, k->ev.k.disk_len);
	dm = keep_string(&sc->strings, k->ev.k.dm, k->ev.k.dm_len);
	file = keep_string(&sc->strings, k->ev.k.file, k->ev.k.file_len);
	uuid = keep_string(&sc->strings, k->ev.k.uuid, k->ev.k.uuid_len);
	if (text < 0 || name < 0 || disk < 0 || dm < 0 || file < 0 || uuid < 0)
		return -1;
	k->text = text;
	k->name = name;
	k->disk = disk;
	k->dm = dm;
	k->file = file;
	k->uuid = uuid;
	k->seq = sc->seq++;
	sc->n++;
	return 0;
}

static void *scan_cpus(void *arg)
{
	struct scan *sc = arg;
	struct bm_rec rec;
	size_t i;
	int cpu, r;

	for (cpu = sc->first; cpu < bm_stream_ncpus(sc->stream); cpu += sc->step) {
		while ((r = bm_stream_next_cpu(sc->stream, cpu, &rec)) > 0) {
			if (!(sc->events & 0xfff) && sc->pass)
				sc->pass->progress(sc->pass->ctx, bm_stream_bytes_read(sc->stream));
			if (!sc->events || rec.ts < sc->first_ts)
				sc->first_ts = rec.ts;
			if (rec.ts > sc->last_ts)
				sc->last_ts = rec.ts;
			sc->events++;
			if (keep(sc, &rec) < 0) {
				sc->ret = -2;
				return NULL;
			}
		}
		if (r < 0) {
			snprintf(sc->message, sizeof(sc->message), "%s", bm_error_message());
			sc->ret = -1;
			return NULL;
		}
	}
	/* The arena moves no more: point at the copies where they are. */
	for (i = 0; i < sc->n; i++) {
		struct kept *k = &sc->kept[i];

		k->ev.text = kept_string(&sc->strings, k->text);
		k->ev.k.name = kept_string(&sc->strings, k->name);
		k->ev.k.disk = kept_string(&sc->strings, k->disk);
		k->ev.k.dm = kept_string(&sc->strings, k->dm);
		k->ev.k.file = kept_string(&sc->strings, k->file);
		k->ev.k.uuid = kept_string(&sc->strings, k->uuid);
	}
	return NULL;
}

/* Run @n scans, in threads but the first; how many threads ran (to join). */
static int run_scans(struct scan *scans, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (pthread_create(&scans[i].thread, NULL, scan_cpus, &scans[i]))
			break;
	/* Those not started are scanned here, after the first. */
	scan_cpus(&scans[0]);
	return i;
}

static void free_scans(struct scan *scans, int n)
{
	int i;

	for (i = 0; scans && i < n; i++) {
		free(scans[i].kept);
		free(scans[i].ticks);
		free(scans[i].strings.buf);
	}
	free(scans);
}

/*
 * Pass 1: the map. Map records are few: read each CPU's events on their
 * own, @pass->jobs CPUs at a time (other events are skipped by id), keep
 * the map records, sort them by time as the merge would, and feed them to
 * the map.
 */
struct bm_map *bm_map_build(struct bm_stream *stream, const struct bm_decoder *dec,
			    struct bm_map_pass *pass)
{
	int ncpus = bm_stream_ncpus(stream), nscans = pass->jobs, started, i;
	struct kept *kept = NULL;
	struct tick *ticks = NULL;
	struct scan *scans = NULL;
	size_t n = 0, nticks = 0, j, at, ticks_at;
	const struct bm_loss *losses;
	struct bm_feeder feeder;
	struct bm_map *map = NULL;
	ssize_t nlosses;

	pass->first = pass->last = pass->events = 0;
	pass->markers = pass->registers = pass->window_from = 0;
	pass->losses = NULL;
	pass->nlosses = 0;
	pass->cgroups = NULL;
	if (bm_stream_rewind(stream) < 0)
		return NULL;
	if (nscans > ncpus)
		nscans = ncpus;
	if (nscans < 1)
		nscans = 1;
	scans = calloc(nscans, sizeof(*scans));
	if (!scans)
		goto out_of_memory;
	for (i = 0; i < nscans; i++)
		scans[i] = (struct scan){ .stream = stream, .dec = dec, .first = i, .step = nscans,
					  .pass = i || !pass->progress ? NULL : pass };
	started = run_scans(scans, nscans);
	for (i = 1; i < started; i++)
		pthread_join(scans[i].thread, NULL);
	for (i = started; i < nscans; i++)
		scan_cpus(&scans[i]);
	for (i = 0; i < nscans; i++) {
		struct scan *sc = &scans[i];

		if (sc->ret == -2)
			goto out_of_memory;
		if (sc->ret < 0) {
			bm_error("%s", sc->message);
			goto fail;
		}
		if (sc->events && (!pass->events || sc->first_ts < pass->first))
			pass->first = sc->first_ts;
		if (sc->last_ts > pass->last)
			pass->last = sc->last_ts;
		pass->events += sc->events;
		n += sc->n;
		nticks += sc->nticks;
	}
	kept = malloc((n ? n : 1) * sizeof(*kept));
	ticks = malloc((nticks ? nticks : 1) * sizeof(*ticks));
	map = bm_map_new();
	pass->cgroups = bm_cgroups_new();
	if (!kept || !ticks || !map || !pass->cgroups)
		goto out_of_memory;
	for (i = 0, at = 0, ticks_at = 0; i < nscans; i++) {
		if (scans[i].n)
			memcpy(kept + at, scans[i].kept, scans[i].n * sizeof(*kept));
		if (scans[i].nticks)
			memcpy(ticks + ticks_at, scans[i].ticks, scans[i].nticks * sizeof(*ticks));
		at += scans[i].n;
		ticks_at += scans[i].nticks;
	}
	qsort(kept, n, sizeof(*kept), by_time);
	qsort(ticks, nticks, sizeof(*ticks), tick_by_time);
	bm_feeder_init(&feeder, map, pass->cgroups);
	for (at = 0, j = 0; at < n; at++) {
		for (; j < nticks && tick_first(&ticks[j], &kept[at]); j++)
			feed_tick(&feeder, &ticks[j]);
		bm_feed(&feeder, &kept[at].ev);
	}
	for (; j < nticks; j++)
		feed_tick(&feeder, &ticks[j]);
	free(kept);
	free(ticks);
	free_scans(scans, nscans);	/* the strings too: the map copied what it keeps */
	kept = NULL;
	ticks = NULL;
	scans = NULL;
	bm_feeder_finish(&feeder, pass->last);
	pass->markers = feeder.markers;
	pass->window_from = feeder.window_from;
	pass->registers = feeder.registers;
	pass->tick = feeder.tick;
	pass->wall_ns = feeder.wall_ns;
	pass->mono_ns = feeder.mono_ns;
	/* Copied: a later pass rewinds the stream, and may stop at --until. */
	nlosses = bm_stream_losses(stream, &losses);
	if (nlosses < 0)
		goto out_of_memory;
	for (j = 0; j < (size_t)nlosses; j++) {
		bm_map_lost(map, losses[j].from, losses[j].to);
		bm_cgroups_lost(pass->cgroups, losses[j].from, losses[j].to);
	}
	bm_map_finish(map, pass->first, pass->last);
	pass->losses = malloc((nlosses ? nlosses : 1) * sizeof(*pass->losses));
	if (!pass->losses)
		goto out_of_memory;
	if (nlosses)
		memcpy(pass->losses, losses, nlosses * sizeof(*pass->losses));
	pass->nlosses = nlosses;
	return map;
out_of_memory:
	bm_error_errno("cannot build the device map of '%s'", pass->path);
fail:
	free(kept);
	free(ticks);
	free_scans(scans, nscans);
	bm_map_free(map);
	bm_cgroups_free(pass->cgroups);
	pass->cgroups = NULL;
	pass->nlosses = 0;
	return NULL;
}
