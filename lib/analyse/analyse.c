// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-incarnation analyses. Requests are followed by (disk, sector), as
 * blktrace's btt does: a bio queued (Q) or remapped from a partition, the
 * request issued (D), completed (C). Counts and bytes come from
 * completions, counted as the kernel counts them in /sys/block/X/stat (the
 * oracle the tests compare with):
 *
 *   - a request-based disk counts requests, after merges, as they complete;
 *     a request that went through the flush sequence (a write with PREFLUSH
 *     or FUA) completes once more with no data: one I/O, not two;
 *   - a partition counts the requests of the bios it remapped;
 *   - a bio-based device (dm, md, zram) counts its bios: a dm bio split in
 *     pieces (block_split) once a piece, an md bio whose pieces complete
 *     apart once a piece completion, the bytes the bio had when queued.
 *
 * A request's completion also ends the bios merged into it (the ones it
 * covers, bio after bio). Entries that still never complete (their
 * completion was lost) are dropped after AN_STALE_NS, or at a gap in the
 * recording, and stop counting as in flight then, so memory and busy time
 * stay bounded. Stacks (remaps, clones, splits) are followed in stack.c.
 *
 * The analysis is a tracker and its consumers, as lttng-analyses splits a
 * state provider from the analyses that subscribe to it:
 *
 *      labelled block events (iofeed.c, lib/report)
 *                 |  bm_analysis_event (struct bm_analysis, here: the
 *                 v  tracker and the views' list of incarnations)
 *   +-------------------------------------+   struct an_tracker (local.h):
 *   | the tracker: analyse.c, stack.c     |   the incarnations; inflight,
 *   |  queue merge getrq insert issue     |   links, ranges (inflight.c):
 *   |  split remap requeue complete loss  |   what is in flight, by
 *   |  and, inside it still: the iostat   |   (device, sector), and where
 *   |  counts, merges, time in queue,     |   it came from
 *   |  busy time, depth (series.c)        |
 *   +-------------------------------------+
 *        | struct an_queued: a bio entered a device
 *        | struct an_io: a finished I/O
 *        | struct an_step: each event, while asked for; gaps  (consumer.h)
 *        v  to each consumer in consumers[], in turn
 *   +---------+-----------+-----------+-----------+------------+- - - - - - - - -+
 *   | procs.c | stacked.c | latency.c | slowest.c | phases.c,  | a new view: a   |
 *   | (--top) | (--stack) | Q2C, D2C  | --slowest | seek.c     | file, a line in |
 *   |         |           |           |           | (--phases) | consumers[]     |
 *   +---------+-----------+-----------+-----------+------------+- - - - - - - - -+
 *        | bm_analysis_top, bm_analysis_stack, bm_analysis_disks (with
 *        | each incarnation's phases), bm_analysis_slowest_rows
 *        v  (the entry points, here)
 *      lib/report's views
 *
 * A consumer keeps its own state and sees the records alone: only this
 * file names struct bm_analysis, and only it and stack.c the tracker's
 * state. phases.c follows btt's rules, not the tracker's (bios matched by
 * sector range, a second bio queued at one's start ignored, merges and
 * plugs counted as they come), so it is handed the events themselves
 * (struct an_step) rather than the finished I/Os; seek.c measures its
 * distances.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/util/sys.h"
#include "local.h"

/* Sweeps for stale entries, so that none stays much past AN_STALE_NS. */
#define SWEEP_NS	(AN_STALE_NS / 8)

/*
 * The entry points' handle: the tracker, which holds the consumers' states
 * too, and the incarnations in the views' order, as the filter keeps them.
 */
struct bm_analysis {
	struct an_tracker t;
	const struct bm_disk_stats **sorted;
	size_t nsorted;
};

/* ---- incarnations ---- */

/* Incarnations are found through a hash of their span (or device, if none). */
static size_t disk_slot(const struct an_tracker *a, uint32_t dev, const struct bm_span *span)
{
	uint64_t key = span ? (uintptr_t)span : ((uint64_t)dev << 1 | 1);

	return (key * 0x9E3779B97F4A7C15ULL >> 20) & (a->index_size - 1);
}

static bool is_disk(const struct bm_disk_stats *d, uint32_t dev, const struct bm_span *span)
{
	return d->span == span && (span || d->dev == dev);
}

static int grow_index(struct an_tracker *a)
{
	size_t size = a->index_size ? 2 * a->index_size : 64, i;
	int *index = malloc(size * sizeof(*index));

	if (!index)
		return -1;
	memset(index, -1, size * sizeof(*index));
	free(a->index);
	a->index = index;
	a->index_size = size;
	for (i = 0; i < a->ndisks; i++) {
		size_t j = disk_slot(a, a->disks[i]->dev, a->disks[i]->span);

		while (index[j] >= 0)
			j = (j + 1) & (size - 1);
		index[j] = i;
	}
	return 0;
}

int an_disk_of(struct an_tracker *a, uint32_t dev, const struct bm_span *span,
	       enum bm_io_model model)
{
	struct bm_disk_stats *d;
	size_t j;
	int i;

	if (a->last_disk >= 0 && a->last_span == span && a->last_dev == dev)
		return a->last_disk;
	if (2 * (a->ndisks + 1) > a->index_size && grow_index(a) < 0)
		return -1;
	for (j = disk_slot(a, dev, span); a->index[j] >= 0; j = (j + 1) & (a->index_size - 1))
		if (is_disk(a->disks[a->index[j]], dev, span))
			goto found;
	if (bm_grow(&a->disks, a->ndisks, &a->capdisks, sizeof(*a->disks), 32) < 0)
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d || an_series_new(d, a->first, a->bin_ns, a->nbins) < 0) {
		free(d);
		return -1;
	}
	d->span = span;
	d->dev = span ? span->dev : dev;
	d->model = model;
	d->merges_known = a->merges;
	/*
	 * md starts counting a bio (md_account_bio) once its personality has
	 * waited for the array (a raid1 barrier, a resync window), just before
	 * it sends the clones: from the first remap. dm counts from the bio's
	 * start, however late its target sends the clones (dm-crypt's writes).
	 */
	d->in_flight_from_map = span && !strncmp(span->name, "md", 2) &&
				(isdigit((unsigned char)span->name[2]) || span->name[2] == '_');
	a->index[j] = a->ndisks;
	a->disks[a->ndisks++] = d;
found:
	i = a->index[j];
	a->last_span = span;
	a->last_dev = dev;
	a->last_disk = i;
	return i;
}

/* Time with I/O in flight, and their number integrated over time. */
void an_account(struct bm_inflight_time *t, uint64_t now, int delta)
{
	if (t->changed && now > t->changed) {
		if (t->inflight) {
			t->busy_ns += now - t->changed;
			an_spread(t->series, t->busy_at, t->changed, now, now - t->changed);
		}
		t->depth_ns += (double)t->inflight * (now - t->changed);
		an_spread(t->series, t->depth_at, t->changed, now,
			  (double)t->inflight * (now - t->changed));
	}
	t->changed = now;
	if (delta < 0 && !t->inflight)
		return;
	t->inflight += delta;
	if (!t->inflight) {	/* what a stale request left in the sectors goes too */
		t->sectors = 0;
		memset(t->by, 0, sizeof(t->by));
	}
}

/* ---- the kernel's time in queue ---- */

void bm_analysis_tick(struct bm_analysis *h, const struct bm_tick *tick)
{
	h->t.tick = *tick;
}

/* @t as a bio-based device's time in queue sees it: in jiffies (bdev_start_io_acct). */
static uint64_t jiffy(const struct an_tracker *a, uint64_t t)
{
	return bm_tick_floor(&a->tick, t);
}

/* When the kernel started counting @e: see bm_inflight_cold's start. */
static uint64_t start_of(const struct an_tracker *a, const struct bm_inflight *e)
{
	if (e->has_start)
		return bm_inflight_cold(&a->inflight, e)->start;
	return e->has_q ? e->q : e->d;
}

/*
 * @t, in jiffies for a bio-based device, from @e's queue: the pieces' sums
 * stay small numbers, exact in a double.
 */
static double since_base(const struct an_tracker *a, const struct bm_inflight *e, uint64_t t)
{
	return (double)jiffy(a, t) - (double)jiffy(a, e->q);
}

/*
 * Device-mapper counts each piece of a split bio as an I/O of its own, from
 * when it takes the piece up to the end of its clones and of the target's
 * work after them (dm-crypt's decryption, dm-thin's commit); only the bio's
 * end is traced. dm takes the first piece up at the bio's queue, and each
 * next one after the split that trims the bio to it, once the clones it sent
 * so far went down (the block layer takes them first: a request made below
 * may wait for a tag). A clone's end ends its sectors' share of the pieces
 * (one piece for a stripe's chunk; a mirror's second leg adds nothing), and
 * the target's work after a piece's clones is taken to be the last piece's:
 * from its last clone's end to the bio's. Sums are kept (bm_inflight_cold).
 */
void an_piece_done(struct an_tracker *a, struct bm_inflight *e, uint32_t sectors, uint64_t now)
{
	struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, e);

	if (e->done >= e->nr_sector)
		return;
	if (sectors > e->nr_sector - e->done)
		sectors = e->nr_sector - e->done;
	e->done += sectors;
	c->piece_ends += (double)sectors * since_base(a, e, now);
	if (now > c->last_end)
		c->last_end = now;
}

void an_piece_split(struct an_tracker *a, struct bm_inflight *e, uint64_t now)
{
	struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, e);

	if (!e->splits)
		c->piece_starts = c->piece_ends = c->last_end = 0;
	c->piece_starts += since_base(a, e, now);
	c->last_start = now;
	e->splits++;
}

/*
 * @clone got a request, or its request was issued by its submitter, at
 * @now: if dm sent it before the last piece of its bio began, that piece
 * began after this.
 */
static void piece_waited(struct an_tracker *a, const struct bm_inflight *clone, uint64_t now)
{
	const struct bm_inflight_cold *from = bm_inflight_cold(&a->inflight, clone);
	struct bm_inflight_cold *c;
	struct bm_inflight *up;

	if (!clone->has_up || !clone->has_q)
		return;
	up = bm_inflight_find(&a->inflight, from->up_dev, from->up_sector, clone->op);
	if (!up || !up->splits || !up->has_q || up->disk < 0)
		return;
	c = bm_inflight_cold(&a->inflight, up);
	if (clone->q <= c->last_start && now > c->last_start) {
		c->piece_starts += (double)jiffy(a, now) - jiffy(a, c->last_start);
		c->last_start = now;
	}
}

/* @e, a bio device-mapper split, ended at @now: its pieces' time in queue. */
static double pieces_in_queue(const struct an_tracker *a, const struct bm_inflight *e,
			      uint64_t now)
{
	const struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, e);
	double pieces = e->splits + 1, after = c->last_end && now > c->last_end ? now - c->last_end : 0;
	uint32_t left = e->done < e->nr_sector ? e->nr_sector - e->done : 0;
	/* the pieces no clone's end was seen of end now */
	double ends = c->piece_ends + after * e->done + (double)left * since_base(a, e, now);
	double t = pieces * ends / e->nr_sector - (since_base(a, e, start_of(a, e)) + c->piece_starts);

	return e->nr_sector && t > 0 ? t : 0;
}

static void starts_push(struct bm_starts *s, uint64_t t)
{
	if (s->n == sizeof(s->t) / sizeof(s->t[0])) {	/* the oldest never completed */
		s->first++;
		s->n--;
	}
	s->t[(s->first + s->n++) % (sizeof(s->t) / sizeof(s->t[0]))] = t;
}

/* The time in queue of the oldest of @s, ended at @now: 0 if none. */
static uint64_t starts_pop(struct bm_starts *s, uint64_t now)
{
	uint64_t t;

	if (!s->n)
		return 0;
	t = s->t[s->first++ % (sizeof(s->t) / sizeof(s->t[0]))];
	s->n--;
	return now > t ? now - t : 0;
}

/* ---- in flight ---- */

/*
 * @pid's requests in flight on @t, by @delta: a slot of its own, or once
 * the slots are taken, the last one's, which becomes the others' (a pid
 * not found on the way down is one of them, or issued before the recording).
 */
static void by_pid(struct bm_inflight_time *t, int32_t pid, int delta)
{
	struct bm_by_pid *free_slot = NULL, *others = &t->by[BM_BY_PIDS - 1];
	size_t i;

	for (i = 0; i < BM_BY_PIDS; i++) {
		struct bm_by_pid *b = &t->by[i];

		if (b->n && b->pid == pid) {
			b->n += delta;
			return;
		}
		if (!b->n && !free_slot)
			free_slot = b;
	}
	if (delta < 0) {
		if (others->n && others->pid == BM_BY_OTHERS)
			others->n--;
		return;
	}
	if (free_slot) {
		*free_slot = (struct bm_by_pid){ pid, 1 };
		return;
	}
	others->pid = BM_BY_OTHERS;
	others->n++;
}

/* The @BM_BY_SHOWN processes with the most requests in flight on @t, into @out. */
static void by_most(const struct bm_inflight_time *t, struct bm_by_pid *out)
{
	size_t i, j;

	memset(out, 0, BM_BY_SHOWN * sizeof(*out));
	for (i = 0; i < BM_BY_PIDS; i++) {
		struct bm_by_pid b = t->by[i];

		for (j = 0; b.n && j < BM_BY_SHOWN; j++)
			if (b.n > out[j].n) {
				struct bm_by_pid t2 = out[j];

				out[j] = b;
				b = t2;
			}
	}
}

/* A request counted in @t's sectors in flight left it (completed, requeued, stale). */
static void rq_left(struct bm_inflight_time *t, const struct bm_inflight_cold *c, int32_t pid)
{
	t->sectors -= c->rq_sectors < t->sectors ? c->rq_sectors : t->sectors;
	by_pid(t, pid, -1);
}

/* @e leaves the table at @now without a completion: it is no longer in flight. */
static void settle(void *ctx, const struct bm_inflight *e, uint64_t now)
{
	struct an_tracker *a = ctx;
	struct bm_range_dev *r;

	if (e->has_q && e->disk >= 0) {
		if (e->active)
			an_account(&a->disks[e->disk]->bio_time, now, -1);
		if ((r = bm_ranges_of(&a->ranges, e->dev)))
			bm_ranges_del(r, e->sector, e->op);
	}
	if (e->has_q && e->part >= 0)
		an_account(&a->disks[e->part]->bio_time, now, -1);
	if (e->has_d) {
		by_pid(&a->disks[e->rq_disk]->rq_time, e->pid, -1);
		an_account(&a->disks[e->rq_disk]->rq_time, now, -1);
		if (e->part >= 0)
			an_account(&a->disks[e->part]->rq_time, now, -1);
	}
}

/* A link is nothing in flight: it goes when stale, and nobody counts it. */
static void drop_link(void *ctx, const struct bm_inflight *e, uint64_t now)
{
}

void an_forget(struct an_tracker *a, struct bm_inflight *e)
{
	struct bm_range_dev *r;

	if (e->has_q && e->disk >= 0 && (r = bm_ranges_of(&a->ranges, e->dev)))
		bm_ranges_del(r, e->sector, e->op);
	bm_inflight_erase(&a->inflight, e);
}

struct bm_range_dev *an_watch(struct an_tracker *a, uint32_t dev)
{
	struct bm_range_dev *r = bm_ranges_of(&a->ranges, dev);
	size_t i;

	if (r || !(r = bm_ranges_watch(&a->ranges, dev)))
		return r;
	for (i = 0; i < a->inflight.size; i++) {
		const struct bm_inflight *e = &a->inflight.slots[i];

		if (e->used && e->dev == dev && e->has_q && e->disk >= 0)
			bm_ranges_add(r, e->sector, e->nr_sector, e->op);
	}
	return r;
}

static bool queued_here(const struct bm_inflight *e)
{
	return e && e->has_q && e->disk >= 0;
}

struct bm_inflight *an_bio_at(struct an_tracker *a, uint32_t dev, uint64_t sector, int op,
			      bool watch)
{
	struct bm_inflight *e = bm_inflight_find(&a->inflight, dev, sector, op);
	struct bm_range_dev *r;
	uint64_t start;

	if (queued_here(e))
		return e;
	r = watch ? an_watch(a, dev) : bm_ranges_of(&a->ranges, dev);
	if (!r || !bm_ranges_find(r, sector, op, &start))
		return NULL;
	e = bm_inflight_find(&a->inflight, dev, start, op);
	return queued_here(e) ? e : NULL;
}

/* ---- the consumers ---- */

/*
 * Who hears of each I/O, in this order: a new view is a file and a line
 * here. The loops over it that run an I/O are unrolled, so that the
 * compiler sees each callback: direct calls, no test for a NULL one.
 */
static const struct an_consumer consumers[AN_NCONSUMERS] = {
	[AN_PROCS] = { .new = an_procs_new, .queued = an_procs_queued, .done = an_procs_done,
		       .finish = an_procs_finish, .keep = an_procs_keep, .free = an_procs_free },
	[AN_STACKED] = { .new = an_stacked_new, .done = an_stacked_done,
			 .finish = an_stacked_finish, .keep = an_stacked_keep,
			 .free = an_stacked_free },
	[AN_LATENCY] = { .done = an_latency_done },
	[AN_SLOWEST] = { .new = an_slowest_new, .done = an_slowest_done,
			 .finish = an_slowest_finish, .keep = an_slowest_keep,
			 .free = an_slowest_free },
	[AN_PHASES] = { .new = an_phases_new, .free = an_phases_free, .step = an_phases_step,
			.gap = an_phases_gap },
	[AN_CGROUPS] = { .new = an_cgroups_new, .queued = an_cgroups_queued,
			 .done = an_cgroups_done, .finish = an_cgroups_finish,
			 .keep = an_cgroups_keep, .free = an_cgroups_free,
			 .split = an_cgroups_split },
	[AN_PROCSERIES] = { .new = an_procseries_new, .done = an_procseries_done,
			    .finish = an_procseries_finish, .keep = an_procseries_keep,
			    .free = an_procseries_free },
};

/* @io, of incarnation @disk (NULL: a plug's) and a remap's @from, to who follows events. */
static void step(struct an_tracker *a, const struct bm_io *io, int disk, int from)
{
	struct an_step st = { io, disk >= 0 ? a->disks[disk] : NULL,
			      from >= 0 ? a->disks[from] : NULL };
	size_t i;

#pragma GCC unroll 16
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].step)
			consumers[i].step(a->consumer[i], &st);
}


/* The cgroup the kernel charges what @pid queued at @ts (of @op) to, if asked (bm_analysis_cgroups). */
static void cgroup_of(const struct an_tracker *a, int pid, uint64_t ts, int op,
		      struct an_cgroup *out)
{
	out->basis = a->cgroups ? bm_cgroups_charged(a->cgroups, pid, ts, op == BM_WRITE,
						     &out->cg) : BM_CG_UNKNOWN;
}

void an_queued(struct an_tracker *a, int disk, int pid, const struct bm_io *io)
{
	struct an_queued q = { .disk = a->disks[disk], .pid = pid, .op = io->op,
			       .sectors = io->nr_sector, .ts = io->ts };
	size_t i;

	cgroup_of(a, pid, io->ts, io->op, &q.cgroup);
#pragma GCC unroll 16
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].queued)
			consumers[i].queued(a->consumer[i], &q);
}

void an_split_off(struct an_tracker *a, int disk, const struct bm_io *io)
{
	struct an_queued piece = { .disk = a->disks[disk], .pid = io->pid, .op = io->op,
				   .ts = io->ts };
	size_t i;

	cgroup_of(a, io->pid, io->ts, io->op, &piece.cgroup);
#pragma GCC unroll 16
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].split)
			consumers[i].split(a->consumer[i], &piece);
}

/*
 * @e's I/O, @sectors long if its bio's size is unknown, ended on incarnation
 * @disk at @io (as a request, if @request; with the request it merged into,
 * if @merged): the finished-I/O record, to each consumer.
 */
static void io_done(struct an_tracker *a, const struct bm_io *io, int disk,
		    const struct bm_inflight *e, uint32_t sectors, bool request, bool merged)
{
	/*
	 * Field by field: an initializer zeroes the whole record first (rep
	 * stos), which was over half of this function's time under --disks.
	 */
	const struct bm_inflight_cold *c = e->has_g || e->has_i || e->has_d ?
					   bm_inflight_cold(&a->inflight, e) : NULL;
	struct an_io r;
	size_t i;

	r.disk = a->disks[disk];
	r.queued_on = e->has_q && e->disk >= 0 ? a->disks[e->disk] : NULL;
	r.part = e->part >= 0 ? a->disks[e->part] : NULL;
	r.top = e->top >= 0 ? a->disks[e->top] : NULL;
	r.pid = e->pid;
	cgroup_of(a, e->pid, e->has_q ? e->q : io->ts, io->op, &r.cgroup);
	r.op = io->op;
	r.sector = e->sector;
	r.sectors = e->nr_sector ? e->nr_sector : sectors;
	r.q = e->q;
	r.d = e->d;
	r.c = io->ts;
	r.g = c ? c->g : 0;
	r.i = c ? c->i : 0;
	if (e->has_d) {
		r.inflight = c->others;
		r.inflight_sectors = c->others_sectors;
		r.behind = c->behind;
		memcpy(r.by, c->by, sizeof(r.by));
	} else {
		r.inflight = 0;
		r.inflight_sectors = 0;
		r.behind = 0;
		memset(r.by, 0, sizeof(r.by));
	}
	r.has_q = e->has_q;
	r.has_d = e->has_d;
	r.has_g = e->has_g;
	r.has_i = e->has_i;
	r.request = request;
	r.merged = merged;
#pragma GCC unroll 16
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].done)
			consumers[i].done(a->consumer[i], &r);
}

static uint64_t gap_edge(const struct an_tracker *a, size_t i)
{
	return a->gap_edges[i];
}

/* Nothing in flight is known to be so past a gap: its completion may be lost there. */
static void cross_gap(struct an_tracker *a, uint64_t at)
{
	size_t i;

	for (i = 0; i < a->inflight.size; i++) {
		struct bm_inflight *e = &a->inflight.slots[i];

		if (e->used && !e->tail) {
			settle(a, e, at);
			e->has_q = e->has_d = e->active = e->mapping = e->has_start = false;
			e->disk = e->part = -1;
		}
	}
	for (i = 0; i < a->ranges.ndevs; i++)
		a->ranges.devs[i].n = 0;
	/* Flushes issued before it may have completed inside. */
	for (i = 0; i < a->ndisks; i++) {
		a->disks[i]->flush_starts.n = a->disks[i]->preflush_starts.n = 0;
		a->disks[i]->flush_starts.requeued = 0;
	}
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].gap)
			consumers[i].gap(a->consumer[i]);
}

/* ---- events ---- */

/* @t of the kernel's time in queue, of an I/O from @from to @to, to @d. */
static void in_queue(struct bm_disk_stats *d, uint64_t from, uint64_t to, double t)
{
	d->queue_ns += t;
	an_spread(d->series, offsetof(struct bm_bin, queue_ns), from, to, t);
}

static void seen(struct bm_disk_stats *d, uint64_t ts)
{
	if (!d->first_io || ts < d->first_io)
		d->first_io = ts;
	if (ts > d->last_io)
		d->last_io = ts;
}

/*
 * @n completions at @ts on @d, seen as requests or as bios (@bio), of @op
 * moving @sectors in all, or one that moves no data (a @flush or not).
 */
static void count(struct bm_disk_stats *d, bool bio, uint64_t ts, int op, uint64_t n,
		  uint64_t sectors, bool flush, uint64_t sector)
{
	struct bm_bin *b = an_bin(d->series, ts);
	uint64_t *counts[2] = { bio ? d->bio_counts : d->rq_counts,
				b ? (bio ? b->bio_counts : b->rq_counts) : NULL };
	int i;

	for (i = 0; i < 2 && counts[i]; i++) {
		if (op < 0) {
			counts[i][4] += !sectors;
			counts[i][5] += !sectors && flush;
			continue;
		}
		counts[i][op] += n;
		counts[i][2 + op] += sectors * 512;
	}
	if (op >= 0 && d->series)
		an_series_offset(d->series, bio, op, ts, sector, n, d->span ? d->span->size : 0);
}

/* @e as if new. */
static void renew(struct bm_inflight *e)
{
	*e = (struct bm_inflight){ .sector = e->sector, .dev = e->dev, .op = e->op, .used = true,
				   .disk = -1, .part = -1, .top = -1 };
}

static void queue(struct an_tracker *a, const struct bm_io *io, int disk)
{
	struct bm_inflight *e = bm_inflight_get(&a->inflight, io->dev, io->sector, io->op, io->ts);
	struct bm_range_dev *r;

	if (!e)
		return;
	if (e->tail)	/* a new bio where a flush sequence's end was due: it was missed */
		renew(e);
	if (!e->has_q && e->top < 0)
		an_adopt_link(a, e, io->pid);
	if (!e->has_q) {
		e->q = io->ts;
		e->has_q = true;
		bm_inflight_cold(&a->inflight, e)->issued_at_q = a->disks[disk]->rq_time.issued;
	}
	e->nr_sector = io->nr_sector;
	e->flush_seq = io->flags & BM_IO_FLUSH_SEQ;
	if (e->disk < 0) {
		e->disk = disk;
		e->active = !a->disks[disk]->in_flight_from_map;
		if (e->active)
			an_account(&a->disks[disk]->bio_time, io->ts, +1);
		if ((r = bm_ranges_of(&a->ranges, io->dev)))
			bm_ranges_add(r, io->sector, io->nr_sector, io->op);
	}
	if (e->top < 0)
		e->pid = io->pid;
	a->disks[disk]->queued++;
	an_queued(a, disk, e->pid, io);
}

/* The bios merged into a completed request: from @pos, bio after bio, to @end. */
static void end_merged(struct an_tracker *a, int disk, const struct bm_io *io, uint64_t pos)
{
	uint64_t end = io->sector + io->nr_sector;
	struct bm_inflight *m;

	while (pos < end && (m = bm_inflight_find(&a->inflight, io->dev, pos, io->op)) && m->nr_sector &&
	       !m->tail) {
		pos += m->nr_sector;
		io_done(a, io, disk, m, m->nr_sector, true, true);
		an_clone_done(a, m, io->ts);
		settle(a, m, io->ts);
		an_forget(a, m);
	}
}

/*
 * @e's I/O ended on incarnation @disk (a request's, if @request): no longer
 * in flight, its time in queue, its counts on the partition; then to the
 * consumers (its latencies, its process, its stack).
 */
static void ended(struct an_tracker *a, const struct bm_io *io, int disk, bool request,
		  struct bm_inflight *e, uint64_t bytes, uint32_t sectors)
{
	struct bm_disk_stats *d = a->disks[disk];

	if (e->has_q && e->disk >= 0 && e->active)
		an_account(&d->bio_time, io->ts, -1);
	if (request && (e->has_start || e->has_q || e->has_d)) {	/* else its start is unknown */
		uint64_t start = start_of(a, e);
		double t = io->ts > start ? io->ts - start : 0;

		in_queue(d, start, io->ts, t);
		if (e->part >= 0)	/* the kernel adds a partition's to its disk's too */
			in_queue(a->disks[e->part], start, io->ts, t);
	}
	if (request && e->has_d) {
		an_account(&d->rq_time, io->ts, -1);
		rq_left(&d->rq_time, bm_inflight_cold(&a->inflight, e), e->pid);
		if (e->part >= 0)
			an_account(&a->disks[e->part]->rq_time, io->ts, -1);
	}
	an_clone_done(a, e, io->ts);
	if (e->part >= 0) {
		struct bm_disk_stats *p = a->disks[e->part];

		seen(p, io->ts);
		if (request)
			count(p, false, io->ts, io->op, 1, io->nr_sector, false, io->sector);
		if (e->has_q)
			an_account(&p->bio_time, io->ts, -1);
	}
	io_done(a, io, disk, e, sectors, request, false);
}

static void complete_bio(struct an_tracker *a, const struct bm_io *io, int disk);

/*
 * @t of a bio-based device's time in queue, @e's, to @d and to the
 * partition it was submitted to (the kernel's part_stat_add).
 */
static void add_queue(struct an_tracker *a, struct bm_disk_stats *d, const struct bm_inflight *e,
		      uint64_t now, double t)
{
	uint64_t from = start_of(a, e);

	if (d->rq_time.changed)
		return;	/* a request-based disk: its requests have it */
	in_queue(d, from, now, t);
	if (e->part >= 0)
		in_queue(a->disks[e->part], from, now, t);
}

/* nvme counts a head's bio from its path's request's issue (nvme_mpath_start_request). */
static void path_started(struct an_tracker *a, struct bm_inflight *head,
			 const struct bm_inflight *path)
{
	if (!path->has_d)
		return;
	bm_inflight_cold(&a->inflight, head)->start = path->d;
	head->has_start = true;
}

/*
 * The request of a bio an NVMe head moved here completed: the head's bio
 * with it, if nvme did not trace that (6.1 leaves the head's completion
 * out; 6.12 traces it just before, with the path's number).
 */
static void head_done(struct an_tracker *a, const struct bm_io *io, const struct bm_inflight *e)
{
	const struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, e);
	struct bm_inflight *up = bm_inflight_find(&a->inflight, c->up_dev, c->up_sector, io->op);
	struct bm_io at = *io;

	if (!queued_here(up))
		return;
	path_started(a, up, e);
	at.kind = BM_EV_BIO_COMPLETE;
	at.dev = up->dev;
	at.sector = up->sector;
	complete_bio(a, &at, up->disk);
}

static void complete_request(struct an_tracker *a, const struct bm_io *io, int disk)
{
	struct bm_inflight *e = bm_inflight_find(&a->inflight, io->dev, io->sector, io->op);
	struct bm_disk_stats *d = a->disks[disk];
	uint64_t next;

	seen(d, io->ts);
	if (e && e->tail) {
		/* The kernel counts the request's time in queue to the sequence's end. */
		double tail = io->nr_sector || io->ts < e->q ? 0 : io->ts - e->q;
		int part = e->part;

		bm_inflight_erase(&a->inflight, e);
		if (!io->nr_sector) {	/* the flush sequence's end: its data was counted */
			in_queue(d, io->ts - tail, io->ts, tail);
			if (part >= 0)
				in_queue(a->disks[part], io->ts - tail, io->ts, tail);
			return;
		}
		e = NULL;
	}
	/* A write without data that is no sequence's end: an empty preflush, a write to the kernel */
	count(d, false, io->ts, io->op, 1, io->nr_sector, false, io->sector);
	if (!e && !io->nr_sector && io->op == 1) {
		uint64_t t = starts_pop(&d->preflush_starts, io->ts);

		in_queue(d, io->ts - t, io->ts, t);
	}
	if (!e)
		return;
	ended(a, io, disk, true, e, (uint64_t)io->nr_sector * 512, io->nr_sector);
	if (e->moved)
		head_done(a, io, e);
	next = e->nr_sector ? e->sector + e->nr_sector : UINT64_MAX;
	if (e->flush_seq && io->nr_sector) {
		/* Its end, with no data, is due at this sector. */
		struct bm_range_dev *r;

		if (e->has_q && e->disk >= 0 && (r = bm_ranges_of(&a->ranges, e->dev)))
			bm_ranges_del(r, e->sector, e->op);
		e->has_q = e->has_d = false;
		e->disk = e->top = -1;	/* its partition stays, for the sequence's end */
		e->q = io->ts;		/* its data's end */
		e->tail = true;
	} else {
		an_forget(a, e);
	}
	end_merged(a, disk, io, next);
}

/*
 * A bio-based device's completion. dm's of a split bio names its last
 * piece, and counts each piece; md's pieces complete one by one, each an
 * I/O of its own.
 */
static void complete_bio(struct an_tracker *a, const struct bm_io *io, int disk)
{
	/* A device whose bios are split or cloned piece by piece is watched already. */
	struct bm_inflight *e = bm_inflight_find(&a->inflight, io->dev, io->sector, io->op);
	struct bm_disk_stats *d = a->disks[disk];
	uint64_t bytes;

	if (e && !e->has_q && e->has_up) {
		/*
		 * A request's bio moved here from an NVMe head: nvme traces the
		 * head's completion with the path's number (the bio's device now),
		 * before the request's. It is the head's.
		 */
		const struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, e);
		struct bm_inflight *up = bm_inflight_find(&a->inflight, c->up_dev, c->up_sector,
							  io->op);

		if (queued_here(up)) {
			struct bm_io at = *io;

			path_started(a, up, e);
			at.dev = up->dev;
			at.sector = up->sector;
			complete_bio(a, &at, up->disk);
			return;
		}
	}
	seen(d, io->ts);
	if (!queued_here(e))
		e = an_bio_at(a, io->dev, io->sector, io->op, false);
	if (!e) {
		count(d, true, io->ts, io->op, 1, io->nr_sector, false, io->sector);
		return;
	}
	if (e->splits) {
		add_queue(a, d, e, io->ts, pieces_in_queue(a, e, io->ts));
		count(d, true, io->ts, io->op, 1 + e->splits, e->nr_sector, false, io->sector);
		bytes = (uint64_t)e->nr_sector * 512;
	} else {
		uint64_t start = jiffy(a, start_of(a, e)), end = jiffy(a, io->ts);

		count(d, true, io->ts, io->op, 1, io->nr_sector, false, io->sector);
		if (end > start)	/* each of md's pieces, from the bio's first remap */
			add_queue(a, d, e, io->ts, end - start);
		bytes = (uint64_t)io->nr_sector * 512;
		e->done += io->nr_sector;
		if (e->done < e->nr_sector && io->sector + io->nr_sector < e->sector + e->nr_sector)
			return;	/* a piece: the rest is still in flight */
	}
	ended(a, io, disk, false, e, bytes, e->nr_sector);
	an_forget(a, e);
}

/* The entry of a request made or issued at @io, not queued here: NULL if issued already. */
static struct bm_inflight *request_at(struct an_tracker *a, const struct bm_io *io)
{
	struct bm_inflight *e = bm_inflight_get(&a->inflight, io->dev, io->sector, io->op, io->ts);

	if (!e || e->has_d)
		return NULL;
	if (e->tail)	/* a new request where a flush sequence's end was due */
		renew(e);
	if (!e->has_q && e->top < 0) {
		an_adopt_link(a, e, io->pid);	/* an NVMe path: its head's bio, not queued here */
		e->moved = e->has_up;
	}
	return e;
}

/*
 * A request made for the bio at its sector: the kernel counts its time in
 * queue from here (a bio merged into a request adds none of its own).
 */
static void getrq(struct an_tracker *a, const struct bm_io *io)
{
	struct bm_inflight *e = request_at(a, io);

	if (!e)
		return;
	piece_waited(a, e, io->ts);
	bm_inflight_cold(&a->inflight, e)->start = io->ts;
	bm_inflight_cold(&a->inflight, e)->g = io->ts;
	e->has_start = e->has_g = true;
}

/* A request put on the scheduler's or the dispatch list: btt's I. */
static void insert(struct an_tracker *a, const struct bm_io *io)
{
	struct bm_inflight *e = bm_inflight_find(&a->inflight, io->dev, io->sector, io->op);

	if (!e || e->has_d || e->has_i)
		return;
	bm_inflight_cold(&a->inflight, e)->i = io->ts;
	e->has_i = true;
}

/*
 * What @e's request found at its issue on @disk: the others in flight
 * (issued, not completed) and those issued since its queue there.
 */
static void in_flight_at_issue(struct an_tracker *a, struct bm_inflight *e,
			       const struct bm_io *io, int disk)
{
	struct bm_inflight_time *t = &a->disks[disk]->rq_time;
	struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, e);

	c->others = t->inflight;
	c->others_sectors = t->sectors;
	c->rq_sectors = io->nr_sector;
	c->behind = e->has_q && e->disk == disk && t->issued >= c->issued_at_q ?
		    (uint32_t)(t->issued - c->issued_at_q) : UINT32_MAX;
	by_most(t, c->by);
	t->sectors += io->nr_sector;
	t->issued++;
	by_pid(t, e->pid, +1);
}

static void issue(struct an_tracker *a, const struct bm_io *io, int disk)
{
	struct bm_inflight *e = request_at(a, io);

	if (!e)
		return;
	if (io->pid == e->pid)	/* issued as it was submitted, not by a scheduler's run later */
		piece_waited(a, e, io->ts);
	e->d = io->ts;
	e->has_d = true;
	e->rq_disk = disk;
	in_flight_at_issue(a, e, io, disk);
	an_account(&a->disks[disk]->rq_time, io->ts, +1);
	if (e->part >= 0)	/* as the kernel counts a partition, by its requests */
		an_account(&a->disks[e->part]->rq_time, io->ts, +1);
}

/*
 * A bio merged into a request (back or front) or a request merged into
 * another: one merge of its operation, as the kernel counts them
 * (blk_account_io_merge_bio, blk_account_io_merge_request) in the
 * diskstats fields 2 and 6, where and when it happened.
 */
static void merged(struct bm_disk_stats *d, const struct bm_io *io)
{
	struct bm_bin *b = an_bin(d->series, io->ts);
	bool read = io->op == BM_READ;

	if (io->op != BM_READ && io->op != BM_WRITE)
		return;		/* discards: the kernel's field 13, not iostat's */
	*(read ? &d->rmerges : &d->wmerges) += 1;
	if (b)
		*(read ? &b->rmerges : &b->wmerges) += 1;
}

/* A request-based flush ended at @now, @t after its issue: the kernel's fields 11 and 17. */
static void flush_done(struct bm_disk_stats *d, uint64_t t, uint64_t now)
{
	struct bm_bin *b = an_bin(d->series, now);

	in_queue(d, now - t, now, t);
	d->rq_flush_ns += t;
	if (b)
		b->flush_ns += t;
}

void bm_analysis_event(struct bm_analysis *h, const struct bm_io *io,
		       const struct bm_span *span, const struct bm_span *old_span)
{
	struct an_tracker *a = &h->t;
	struct bm_inflight *e;
	int disk;

	/* A plug is a task's, of no device. */
	if (io->kind == BM_EV_PLUG || io->kind == BM_EV_UNPLUG) {
		if (a->steps)
			step(a, io, -1, -1);
		return;
	}
	disk = an_disk_of(a, io->dev, span, BM_IO_REQUEST);
	if (disk < 0)
		return;
	/* At a gap's start and at its end: what it held may have ended inside. */
	while (a->next_gap < 2 * a->ngaps && io->ts << 1 >= gap_edge(a, a->next_gap))
		cross_gap(a, gap_edge(a, a->next_gap++) >> 1);
	if (io->ts >= a->next_sweep) {
		/* Drop what could not complete any more, even with room to spare. */
		bm_inflight_sweep(&a->inflight, io->ts);
		bm_inflight_sweep(&a->links, io->ts);
		a->next_sweep = io->ts + SWEEP_NS;
	}
	if (a->steps)
		step(a, io, disk, io->kind == BM_EV_BIO_REMAP ?
		     an_disk_of(a, io->old_dev, old_span, BM_IO_REQUEST) : -1);
	/*
	 * No data: a flush, or a driver's own command (N: a serial number, a
	 * SCSI VPD page). Issued at sector 0, completed at 2^64 - 1, so never
	 * matched: counted apart at completion and never in flight, as the
	 * kernel leaves them out of io_ticks.
	 */
	if (!io->nr_sector && io->op < 0) {
		struct bm_disk_stats *d = a->disks[disk];
		bool flush = io->flags & BM_IO_FLUSH;

		/*
		 * The kernel's time in queue has flushes from their issue (the
		 * flush request is made just before), and empty preflush writes
		 * from their request, which completes as "WS 0 + 0". They come
		 * and go in order, one flush at a time.
		 */
		if (flush && io->kind == BM_EV_RQ_GETRQ)
			starts_push(&d->preflush_starts, io->ts);
		else if (flush && io->kind == BM_EV_RQ_ISSUE && d->flush_starts.requeued)
			d->flush_starts.requeued--;	/* issued again: it started at the first */
		else if (flush && io->kind == BM_EV_RQ_ISSUE)
			starts_push(&d->flush_starts, io->ts);
		else if (flush && io->kind == BM_EV_RQ_REQUEUE && d->flush_starts.n)
			d->flush_starts.requeued++;
		if (io->kind == BM_EV_RQ_COMPLETE || io->kind == BM_EV_BIO_COMPLETE) {
			seen(d, io->ts);
			count(d, io->kind != BM_EV_RQ_COMPLETE, io->ts, io->op, 1, 0, flush, io->sector);
			if (flush && io->kind == BM_EV_RQ_COMPLETE)
				flush_done(d, starts_pop(&d->flush_starts, io->ts), io->ts);
		}
		return;
	}
	switch (io->kind) {
	case BM_EV_BIO_REMAP:
		an_remap(a, io, old_span);
		break;
	case BM_EV_BIO_SPLIT:
		an_split_off(a, disk, io);
		an_split(a, io);
		break;
	case BM_EV_BIO_QUEUE:
		queue(a, io, disk);
		break;
	case BM_EV_RQ_GETRQ:
		getrq(a, io);
		break;
	case BM_EV_BIO_BACKMERGE:
	case BM_EV_BIO_FRONTMERGE:
	case BM_EV_RQ_MERGE:
		merged(a->disks[disk], io);
		break;
	case BM_EV_RQ_INSERT:
		insert(a, io);
		break;
	case BM_EV_RQ_ISSUE:
		issue(a, io, disk);
		break;
	case BM_EV_RQ_REQUEUE:
		e = bm_inflight_find(&a->inflight, io->dev, io->sector, io->op);
		if (e && e->has_d) {
			e->has_d = false;
			an_account(&a->disks[disk]->rq_time, io->ts, -1);
			rq_left(&a->disks[disk]->rq_time, bm_inflight_cold(&a->inflight, e), e->pid);
			if (e->part >= 0)
				an_account(&a->disks[e->part]->rq_time, io->ts, -1);
		}
		break;
	case BM_EV_RQ_COMPLETE:
		complete_request(a, io, disk);
		break;
	case BM_EV_BIO_COMPLETE:
		complete_bio(a, io, disk);
		break;
	default:
		break;
	}
}

/* The recording's gaps' starts and ends, in time order. */
static int by_time(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

int bm_analysis_gaps(struct bm_analysis *h, const struct bm_loss *losses, size_t n)
{
	struct an_tracker *a = &h->t;
	size_t i;

	free(a->gaps);
	free(a->gap_edges);
	a->gaps = NULL;
	a->gap_edges = NULL;
	a->ngaps = a->next_gap = 0;
	if (!n)
		return 0;
	if (!(a->gaps = malloc(n * sizeof(*a->gaps))) ||
	    !(a->gap_edges = malloc(2 * n * sizeof(*a->gap_edges))))
		return -1;
	memcpy(a->gaps, losses, n * sizeof(*a->gaps));
	/*
	 * Crossed after the last event before a gap (from), and before the
	 * first after it (to): bit 0 says which, times being whole ns.
	 */
	for (i = 0; i < n; i++) {
		a->gap_edges[2 * i] = losses[i].from << 1 | 1;
		a->gap_edges[2 * i + 1] = losses[i].to << 1;
	}
	qsort(a->gap_edges, 2 * n, sizeof(*a->gap_edges), by_time);
	a->ngaps = n;
	return 0;
}

/* ---- the end ---- */

static int by_device_then_time(const void *x, const void *y)
{
	return an_disk_order(*(const struct bm_disk_stats *const *)x,
			     *(const struct bm_disk_stats *const *)y);
}

void bm_analysis_finish(struct bm_analysis *h)
{
	struct an_tracker *a = &h->t;
	size_t i, j;

	for (i = 0; i < a->ndisks; i++) {
		struct bm_disk_stats *d = a->disks[i];
		const struct bm_span *s = d->span;
		struct bm_inflight_time *t;
		uint64_t *c;

		/* A disk with requests is request-based; its bio events are remaps. */
		if (d->model != BM_IO_REMAP)
			d->model = d->rq_counts[0] + d->rq_counts[1] + d->rq_counts[4] ?
				   BM_IO_REQUEST : BM_IO_BIO;
		c = d->model == BM_IO_BIO ? d->bio_counts : d->rq_counts;
		AN_SET_COUNTS(d, c);
		d->flush_ns = d->model == BM_IO_BIO ? 0 : d->rq_flush_ns;
		/*
		 * From the earliest possible add to the latest possible removal,
		 * [life_from, life_to): the window's end, @last, is in it.
		 */
		d->life_from = a->first;
		d->life_to = a->last < UINT64_MAX ? a->last + 1 : a->last;
		if (s && s->from.known && s->from.lo > a->first)
			d->life_from = s->from.lo;
		if (s && s->to.known && s->to.hi < a->last)
			d->life_to = s->to.hi;
		if (d->life_to < d->life_from)
			d->life_to = d->life_from;
		/* A partition is in flight as its requests are, if its disk has requests. */
		t = d->model == BM_IO_REQUEST || (d->model == BM_IO_REMAP && d->rq_time.changed) ?
		    &d->rq_time : &d->bio_time;
		an_account(t, d->life_to, 0);
		for (j = 0; j < a->ngaps && !d->events_lost; j++)
			d->events_lost = a->gaps[j].from <= d->life_to && a->gaps[j].to >= d->life_from;
		d->busy_ns = t->busy_ns;
		d->depth_ns = t->depth_ns;
		an_series_finish(d, t == &d->rq_time);
	}
	free(h->sorted);
	h->sorted = malloc((a->ndisks ? a->ndisks : 1) * sizeof(*h->sorted));
	for (i = 0; h->sorted && i < a->ndisks; i++)
		h->sorted[i] = a->disks[i];
	if (h->sorted)
		qsort(h->sorted, a->ndisks, sizeof(*h->sorted), by_device_then_time);
	h->nsorted = h->sorted ? a->ndisks : 0;
	for (i = 0; i < AN_NCONSUMERS; i++)	/* the disks' life is known now */
		if (consumers[i].finish)
			consumers[i].finish(a->consumer[i]);
}

static bool kept(const struct bm_disk_stats *d, const struct bm_span_filter *f)
{
	return bm_span_filter_match(f, d->span, d->dev);
}

void bm_analysis_keep(struct bm_analysis *h, const struct bm_span_filter *f)
{
	struct an_tracker *a = &h->t;
	size_t i, n = 0;

	for (i = 0; h->sorted && i < a->ndisks; i++)
		if (kept(h->sorted[i], f))
			h->sorted[n++] = h->sorted[i];
	h->nsorted = h->sorted ? n : 0;
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].keep)
			consumers[i].keep(a->consumer[i], f);
}

size_t bm_analysis_disks(const struct bm_analysis *h, const struct bm_disk_stats *const **list)
{
	*list = h->sorted;
	return h->nsorted;
}

void bm_analysis_processes(struct bm_analysis *h)
{
	an_procs_want(h->t.consumer[AN_PROCS]);
}

size_t bm_analysis_top(const struct bm_analysis *h, const struct bm_top_row **list)
{
	return an_procs_rows(h->t.consumer[AN_PROCS], list);
}

size_t bm_analysis_stack(const struct bm_analysis *h, const struct bm_stack_row **list)
{
	return an_stacked_rows(h->t.consumer[AN_STACKED], list);
}

void bm_analysis_slowest(struct bm_analysis *h, size_t n)
{
	an_slowest_want(h->t.consumer[AN_SLOWEST], n);
}

size_t bm_analysis_slowest_rows(const struct bm_analysis *h, const struct bm_slow_row **list)
{
	return an_slowest_rows(h->t.consumer[AN_SLOWEST], list);
}

void bm_analysis_proc_series(struct bm_analysis *h, size_t n)
{
	an_procseries_want(h->t.consumer[AN_PROCSERIES], n, h->t.first, h->t.bin_ns, h->t.nbins);
}

size_t bm_analysis_proc_series_rows(const struct bm_analysis *h,
				    const struct bm_proc_series **list)
{
	return an_procseries_rows(h->t.consumer[AN_PROCSERIES], list);
}

void bm_analysis_cgroups(struct bm_analysis *h, const struct bm_cgroups *cgroups)
{
	h->t.cgroups = cgroups;
	an_cgroups_want(h->t.consumer[AN_CGROUPS]);
}

size_t bm_analysis_cgroup_rows(const struct bm_analysis *h, const struct bm_cgroup_row **list)
{
	return an_cgroups_rows(h->t.consumer[AN_CGROUPS], list);
}

size_t bm_analysis_gap_list(const struct bm_analysis *h, const struct bm_loss **list)
{
	*list = h->t.gaps;
	return h->t.ngaps;
}

size_t bm_analysis_bins(const struct bm_analysis *h, uint64_t *width)
{
	*width = h->t.bin_ns;
	return h->t.nbins;
}

struct bm_analysis *bm_analysis_new(uint64_t first, uint64_t last, uint64_t bin_ns)
{
	/* The window holds @last itself: last - first + 1 ns, the last bin may be 1 ns. */
	uint64_t nbins = bin_ns ? (last > first ? (last - first + bin_ns) / bin_ns : 1) : 0;
	struct bm_analysis *h;
	struct an_tracker *a;
	size_t i;

	if (nbins > BM_SERIES_MAX_BINS) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	a = &h->t;
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].new && !(a->consumer[i] = consumers[i].new())) {
			bm_analysis_free(h);
			return NULL;
		}
	a->first = first;
	a->last = last;
	a->bin_ns = bin_ns;
	a->nbins = nbins;
	a->last_disk = -1;
	a->inflight.stale_ns = AN_STALE_NS;
	a->inflight.drop = settle;
	a->inflight.ctx = a;
	a->links.stale_ns = AN_STALE_NS;
	a->links.drop = drop_link;
	return h;
}

void bm_analysis_phases(struct bm_analysis *h)
{
	h->t.steps = true;	/* phases.c follows the events */
}

void bm_analysis_merges(struct bm_analysis *h)
{
	struct an_tracker *a = &h->t;
	size_t i;

	a->merges = true;
	for (i = 0; i < a->ndisks; i++)
		a->disks[i]->merges_known = true;
}

bool bm_analysis_merges_known(const struct bm_analysis *h)
{
	return h->t.merges;
}

void bm_analysis_free(struct bm_analysis *h)
{
	struct an_tracker *a;
	size_t i, j;

	if (!h)
		return;
	a = &h->t;
	for (i = 0; i < a->ndisks; i++) {
		bm_hist_release(&a->disks[i]->q2c);
		bm_hist_release(&a->disks[i]->d2c);
		for (j = 0; j < 4; j++)
			bm_hist_release(&a->disks[i]->lat_op[j / 2][j % 2]);
		an_series_free(a->disks[i]->series);
		free(a->disks[i]);
	}
	free(a->disks);
	free(a->index);
	free(h->sorted);
	bm_inflight_release(&a->inflight);
	an_stack_free(a);
	free(a->gaps);
	free(a->gap_edges);
	for (i = 0; i < AN_NCONSUMERS; i++)
		if (consumers[i].free)
			consumers[i].free(a->consumer[i]);
	free(h);
}
