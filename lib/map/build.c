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
 * A map record kept from pass 1: its payload as written, copied into its
 * scan's arena and decoded again when fed, or an idle marker of the uevent
 * listener (one a second for the whole recording: all the map takes of it
 * is its time). Records are kept for the whole recording (every fork, exit
 * and marker), so each costs what it holds, not a decoded event's size.
 */
struct kept {
	uint64_t ts;
	const void *data;	/* NULL: an idle marker */
	int type, size;
};

/* One CPU's kept records, in the file's order, as the merge hands them out. */
struct run {
	struct kept *kept;
	size_t n, cap, next;
};

/*
 * Payloads in blocks that never move, so that a kept record points at
 * its copy from the start and no copy is made twice.
 */
#define BLOCK_SIZE	(64 * 1024)

struct block {
	struct block *prev;
	size_t len, cap;
	char data[];
};

#define TICK_TEXT	BM_MARKER_PREFIX BM_MARKER_IDLE

static bool is_tick(const struct bm_event *ev)
{
	return ev->kind == BM_EV_PRINT && ev->text && bm_marker_is_idle(ev->text, ev->text_len);
}

/* A copy of @len bytes of @src in @*blocks, aligned for any field; NULL out of memory. */
static const void *keep_bytes(struct block **blocks, const void *src, size_t len)
{
	struct block *b = *blocks;
	size_t at = b ? (b->len + 7) & ~(size_t)7 : 0;

	if (!b || b->cap < at + len) {
		size_t cap = len > BLOCK_SIZE ? len : BLOCK_SIZE;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		*b = (struct block){ .prev = *blocks, .cap = cap };
		*blocks = b;
		at = 0;
	}
	memcpy(b->data + at, src, len);
	b->len = at + len;
	return b->data + at;
}

static void free_blocks(struct block *b)
{
	while (b) {
		struct block *prev = b->prev;

		free(b);
		b = prev;
	}
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
 * Each reads its own CPUs' pages, decodes and copies on its own: the runs
 * of all CPUs are merged afterwards.
 */
struct scan {
	struct bm_stream *stream;
	const struct bm_decoder *dec;
	struct bm_map_pass *pass;	/* for progress, from the caller's thread alone */
	int first, step;
	pthread_t thread;
	struct run *runs;		/* every CPU's, shared: this scan fills its own */
	struct block *payloads;
	uint64_t first_ts, last_ts, events;
	int ret;			/* 0; -1: failed reading; -2: out of memory */
	char message[1024];		/* of a failed read, from the thread that saw it */
};

/* Keep @rec in @run if it is a map record: 0, or -1 out of memory. */
static int keep(struct scan *sc, struct run *run, const struct bm_rec *rec)
{
	struct kept k = { .ts = rec->ts, .type = rec->type };
	struct bm_event ev;

	if (!bm_feeds_map(bm_decoder_kind(sc->dec, rec->type)))
		return 0;
	bm_decode(sc->dec, rec, &ev);
	if (!worth_keeping(&ev))
		return 0;
	if (!is_tick(&ev)) {
		k.size = rec->size > 0 ? rec->size : 0;
		k.data = keep_bytes(&sc->payloads, rec->data, k.size);
		if (!k.data)
			return -1;
	}
	if (run->n == run->cap) {
		size_t cap = run->cap ? 2 * run->cap : 64;
		struct kept *grown = realloc(run->kept, cap * sizeof(*grown));

		if (!grown)
			return -1;
		run->kept = grown;
		run->cap = cap;
	}
	run->kept[run->n++] = k;
	return 0;
}

static void *scan_cpus(void *arg)
{
	struct scan *sc = arg;
	struct bm_rec rec;
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
			if (keep(sc, &sc->runs[cpu], &rec) < 0) {
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
	return NULL;
}

/*
 * The CPU whose next kept record comes first, as the stream's merge
 * orders events (time, then CPU; each CPU's in the file's order): -1 when
 * all are fed.
 */
static int next_run(const struct run *runs, int ncpus)
{
	int cpu, first = -1;

	for (cpu = 0; cpu < ncpus; cpu++) {
		const struct run *r = &runs[cpu];

		if (r->next < r->n &&
		    (first < 0 || r->kept[r->next].ts < runs[first].kept[runs[first].next].ts))
			first = cpu;
	}
	return first;
}

/* Feed every kept record, in the merge's order. */
static void feed_runs(struct bm_feeder *f, const struct bm_decoder *dec, struct run *runs,
		      int ncpus)
{
	int cpu;

	while ((cpu = next_run(runs, ncpus)) >= 0) {
		const struct kept *k = &runs[cpu].kept[runs[cpu].next++];
		struct bm_rec rec = { .ts = k->ts, .cpu = cpu, .type = k->type,
				      .data = (void *)k->data, .size = k->size };
		struct bm_event ev = { .ts = k->ts, .cpu = cpu, .kind = BM_EV_PRINT,
				       .text = TICK_TEXT, .text_len = strlen(TICK_TEXT) };

		if (k->data)
			bm_decode(dec, &rec, &ev);
		bm_feed(f, &ev);
	}
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

	for (i = 0; scans && i < n; i++)
		free_blocks(scans[i].payloads);
	free(scans);
}

static void free_runs(struct run *runs, int ncpus)
{
	int cpu;

	for (cpu = 0; runs && cpu < ncpus; cpu++)
		free(runs[cpu].kept);
	free(runs);
}

/*
 * Pass 1: the map. Map records are few: read each CPU's events on their
 * own, @pass->jobs CPUs at a time (other events are skipped by id), keep
 * the map records, and feed them to the map in the order the merge would
 * hand them out.
 */
struct bm_map *bm_map_build(struct bm_stream *stream, const struct bm_decoder *dec,
			    struct bm_map_pass *pass)
{
	int ncpus = bm_stream_ncpus(stream), nscans = pass->jobs, started, i;
	struct scan *scans = NULL;
	struct run *runs = NULL;
	const struct bm_loss *losses;
	struct bm_feeder feeder;
	struct bm_map *map = NULL;
	ssize_t nlosses, j;

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
	runs = calloc(ncpus > 0 ? ncpus : 1, sizeof(*runs));
	if (!scans || !runs)
		goto out_of_memory;
	for (i = 0; i < nscans; i++)
		scans[i] = (struct scan){ .stream = stream, .dec = dec, .first = i, .step = nscans,
					  .runs = runs, .pass = i || !pass->progress ? NULL : pass };
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
	}
	map = bm_map_new();
	pass->cgroups = bm_cgroups_new();
	if (!map || !pass->cgroups)
		goto out_of_memory;
	bm_feeder_init(&feeder, map, pass->cgroups);
	feed_runs(&feeder, dec, runs, ncpus);
	free_runs(runs, ncpus);
	free_scans(scans, nscans);	/* the payloads too: the map copied what it keeps */
	runs = NULL;
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
	for (j = 0; j < nlosses; j++) {
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
	free_runs(runs, ncpus);
	free_scans(scans, nscans);
	bm_map_free(map);
	bm_cgroups_free(pass->cgroups);
	pass->cgroups = NULL;
	pass->nlosses = 0;
	return NULL;
}
