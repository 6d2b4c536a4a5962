// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pass 1 of a report: every map record of a recording, in time order, into
 * a new map. Read before any event is labelled, so that a record written
 * after the I/O it explains (a uevent marker arriving late) labels it too.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/build.h"
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
 * Pass 1: the map. Map records are few: read each CPU's events in turn
 * (other events are skipped by id), keep the map records, sort them by
 * time as the merge would, and feed them to the map.
 */
struct bm_map *bm_map_build(struct bm_stream *stream, const struct bm_decoder *dec,
			    struct bm_map_pass *pass)
{
	const struct bm_loss *losses;
	struct kept *kept = NULL, *k;
	struct tick *ticks = NULL, *t;
	struct arena strings = { 0 };
	size_t n = 0, cap = 0, nticks = 0, capticks = 0, i, j;
	struct bm_feeder feeder;
	struct bm_map *map = bm_map_new();
	uint64_t seq = 0;
	ssize_t text, name, disk;
	struct bm_rec rec;
	bool any = false;
	int ret;

	pass->first = pass->last = pass->events = 0;
	pass->markers = pass->registers = pass->window_from = 0;
	pass->losses = NULL;
	pass->nlosses = 0;
	if (!map)
		goto out_of_memory;
	bm_feeder_init(&feeder, map);
	while ((ret = bm_stream_next_unordered(stream, &rec)) > 0) {
		if (!(pass->events & 0xfff) && pass->progress)
			pass->progress(pass->ctx, bm_stream_bytes_read(stream));
		if (!any || rec.ts < pass->first)
			pass->first = rec.ts;
		if (rec.ts > pass->last)
			pass->last = rec.ts;
		any = true;
		pass->events++;
		if (!bm_feeds_map(bm_decoder_kind(dec, rec.type)))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			k = realloc(kept, cap * sizeof(*kept));
			if (!k)
				goto out_of_memory;
			kept = k;
		}
		k = &kept[n];
		bm_decode(dec, &rec, &k->ev);
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
			feed_tick(&feeder, &ticks[j]);
		bm_feed(&feeder, &k->ev);
	}
	for (; j < nticks; j++)
		feed_tick(&feeder, &ticks[j]);
	free(kept);
	free(ticks);
	free(strings.buf);
	kept = NULL;
	ticks = NULL;
	strings.buf = NULL;
	bm_feeder_finish(&feeder, pass->last);
	pass->markers = feeder.markers;
	pass->window_from = feeder.window_from;
	pass->registers = feeder.registers;
	/* Copied: a later pass rewinds the stream, and may stop at --until. */
	pass->nlosses = bm_stream_losses(stream, &losses);
	for (i = 0; i < pass->nlosses; i++)
		bm_map_lost(map, losses[i].from, losses[i].to);
	bm_map_finish(map, pass->first, pass->last);
	pass->losses = malloc((pass->nlosses ? pass->nlosses : 1) * sizeof(*pass->losses));
	if (!pass->losses)
		goto out_of_memory;
	if (pass->nlosses)
		memcpy(pass->losses, losses, pass->nlosses * sizeof(*pass->losses));
	return map;
out_of_memory:
	bm_error_errno("cannot build the device map of '%s'", pass->path);
fail:
	free(kept);
	free(ticks);
	free(strings.buf);
	bm_map_free(map);
	pass->nlosses = 0;
	return NULL;
}
