// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-incarnation analyses. Requests are followed by (disk, sector), as
 * blktrace's btt does: a bio queued (Q) or remapped from a partition, the
 * request issued (D), completed (C). Counts and bytes come from
 * completions, so they agree with the kernel's own counters; Q2C and D2C
 * from the matched times. A request's completion also ends the bios merged
 * into it (the ones it covers, bio after bio). Entries that still never
 * complete (their completion was lost) are dropped after STALE_NS, and stop
 * counting as in flight then, so memory and busy time stay bounded.
 *
 * Stacks are followed the same way: a remap's source entry (old_dev,
 * old_sector) hands the bio's top device and submitter to the entry at its
 * destination, so a disk's I/O is known to come from a dm or md device (or a
 * partition), and from the process that wrote there.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/analyse/inflight.h"
#include "blkmap/map/map.h"

#define STALE_NS	(30ULL * 1000000000)

struct bm_analysis {
	uint64_t first, last;
	bool series;
	struct bm_disk_stats **disks;
	size_t ndisks, capdisks;
	int *index;		/* open addressing over disks, -1 empty */
	size_t index_size;
	const struct bm_disk_stats **sorted;
	size_t nsorted;
	struct bm_inflight_table inflight;
	uint64_t next_sweep;	/* when stale entries are dropped next */
	struct bm_top_row *top;
	int *top_disk;		/* the disk index of each row, until finish */
	size_t ntop, captop, last_top;
	struct bm_stack_row *stack;
	size_t nstack, capstack, last_stack;
	/* the last lookup, as events of one disk come in runs */
	const struct bm_span *last_span;
	uint32_t last_dev;
	int last_disk;
};

/* ---- incarnations ---- */

/* Incarnations are found through a hash of their span (or device, if none). */
static size_t disk_slot(const struct bm_analysis *a, uint32_t dev, const struct bm_span *span)
{
	uint64_t key = span ? (uintptr_t)span : ((uint64_t)dev << 1 | 1);

	return (key * 0x9E3779B97F4A7C15ULL >> 20) & (a->index_size - 1);
}

static bool is_disk(const struct bm_disk_stats *d, uint32_t dev, const struct bm_span *span)
{
	return d->span == span && (span || d->dev == dev);
}

static int grow_index(struct bm_analysis *a)
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

static int disk_of(struct bm_analysis *a, uint32_t dev, const struct bm_span *span,
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
	if (a->ndisks == a->capdisks) {
		size_t cap = a->capdisks ? 2 * a->capdisks : 32;
		struct bm_disk_stats **disks = realloc(a->disks, cap * sizeof(*disks));

		if (!disks)
			return -1;
		a->disks = disks;
		a->capdisks = cap;
	}
	d = calloc(1, sizeof(*d));
	if (!d || (a->series && !(d->series = calloc(1, sizeof(*d->series))))) {
		free(d);
		return -1;
	}
	d->span = span;
	d->dev = span ? span->dev : dev;
	d->model = model;
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
static void account(struct bm_inflight_time *t, uint64_t now, int delta)
{
	if (t->changed && now > t->changed) {
		if (t->inflight)
			t->busy_ns += now - t->changed;
		t->depth_ns += (double)t->inflight * (now - t->changed);
	}
	t->changed = now;
	if (delta < 0 && !t->inflight)
		return;
	t->inflight += delta;
}

/* A completion: a read or write with its bytes, or one that moves no data. */
static void count(uint64_t counts[5], int op, uint32_t sectors)
{
	if (op < 0) {
		counts[4] += !sectors;
		return;
	}
	counts[op]++;
	counts[2 + op] += (uint64_t)sectors * 512;
}

/* ---- requests in flight ---- */

/* @e leaves the table at @now without a completion: it is no longer in flight. */
static void settle(void *ctx, const struct bm_inflight *e, uint64_t now)
{
	struct bm_analysis *a = ctx;

	if (e->has_q && e->disk >= 0)
		account(&a->disks[e->disk]->bio_time, now, -1);
	if (e->has_q && e->part >= 0)
		account(&a->disks[e->part]->bio_time, now, -1);
	if (e->has_d)
		account(&a->disks[e->rq_disk]->rq_time, now, -1);
}

/* ---- processes ---- */

/* The row of (@disk, @pid); rows of a disk are few, and come in runs. */
static struct bm_top_row *top_of(struct bm_analysis *a, int disk, int pid)
{
	struct bm_top_row *r;
	size_t i;

	if (a->last_top < a->ntop && a->top_disk[a->last_top] == disk &&
	    a->top[a->last_top].pid == pid)
		return &a->top[a->last_top];
	for (i = 0; i < a->ntop; i++)
		if (a->top_disk[i] == disk && a->top[i].pid == pid)
			goto found;
	if (a->ntop == a->captop) {
		size_t cap = a->captop ? 2 * a->captop : 64;
		struct bm_top_row *top = realloc(a->top, cap * sizeof(*top));
		int *top_disk;

		if (!top)
			return NULL;
		a->top = top;
		top_disk = realloc(a->top_disk, cap * sizeof(*top_disk));
		if (!top_disk)
			return NULL;
		a->top_disk = top_disk;
		a->captop = cap;
	}
	i = a->ntop++;
	r = &a->top[i];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	a->top_disk[i] = disk;
found:
	a->last_top = i;
	return &a->top[i];
}

static void queued_by(struct bm_analysis *a, int disk, int pid, const struct bm_io *io)
{
	struct bm_top_row *r;
	int op = io->op;

	if (disk < 0 || op < 0 || !(r = top_of(a, disk, pid)))
		return;
	if (op) {
		r->writes++;
		r->write_bytes += (uint64_t)io->nr_sector * 512;
	} else {
		r->reads++;
		r->read_bytes += (uint64_t)io->nr_sector * 512;
	}
}

/* ---- stacks ---- */

/* A bio of @e's, from the top of its stack, completed on incarnation @lower. */
static void came_down(struct bm_analysis *a, int lower, const struct bm_inflight *e, int op,
		      uint32_t sectors)
{
	struct bm_disk_stats *lo = a->disks[lower], *up = a->disks[e->top];
	struct bm_stack_row *r = NULL;
	size_t i;

	if (op < 0 || lower == e->top)
		return;
	if (e->nr_sector)
		sectors = e->nr_sector;
	if (a->last_stack < a->nstack && a->stack[a->last_stack].lower == lo &&
	    a->stack[a->last_stack].upper == up)
		r = &a->stack[a->last_stack];
	for (i = 0; !r && i < a->nstack; i++)
		if (a->stack[i].lower == lo && a->stack[i].upper == up)
			r = &a->stack[i];
	if (!r) {
		if (a->nstack == a->capstack) {
			size_t cap = a->capstack ? 2 * a->capstack : 16;
			struct bm_stack_row *stack = realloc(a->stack, cap * sizeof(*stack));

			if (!stack)
				return;
			a->stack = stack;
			a->capstack = cap;
		}
		r = &a->stack[a->nstack++];
		memset(r, 0, sizeof(*r));
		r->lower = lo;
		r->upper = up;
	}
	a->last_stack = r - a->stack;
	if (op) {
		r->writes++;
		r->write_bytes += (uint64_t)sectors * 512;
	} else {
		r->reads++;
		r->read_bytes += (uint64_t)sectors * 512;
	}
}

/* Both incarnations that count @e (its disk, and the partition it came through). */
static void completed_stacked(struct bm_analysis *a, int lower, const struct bm_inflight *e,
			      int op, uint32_t sectors)
{
	if (e->top < 0)
		return;
	came_down(a, lower, e, op, sectors);
	if (e->part >= 0 && e->part != lower)
		came_down(a, e->part, e, op, sectors);
}

/* An entry a remap left for a bio on its way down, which nobody has queued yet. */
static bool is_link(const struct bm_inflight *e)
{
	return e->disk < 0 && e->top >= 0 && !e->has_d;
}

/*
 * The entry of a remapped bio where it was before: the bio queued at
 * (old_dev, old_sector), or a link a previous remap left. dm's remap of a
 * clone bound for a partition names the partition's disk (bio_dev() is the
 * whole disk's number) at the partition's sector, and the partition's remap
 * follows: so a link is also looked for at the disk's number.
 */
static struct bm_inflight *remapped_from(struct bm_analysis *a, const struct bm_io *io)
{
	struct bm_inflight *up = bm_inflight_find(&a->inflight, io->old_dev, io->old_sector);

	if (up && (up->disk >= 0 || is_link(up)))
		return up;
	up = bm_inflight_find(&a->inflight, io->dev, io->old_sector);
	return up && is_link(up) ? up : NULL;
}

/*
 * A remap from @old_span's incarnation to (dev, sector). A source that
 * queued the bio itself (dm, md: bio-based) counts it on its own; a
 * partition does not, and counts what is remapped from it.
 */
static void remap(struct bm_analysis *a, const struct bm_io *io, const struct bm_span *old_span)
{
	int part = disk_of(a, io->old_dev, old_span, BM_IO_REMAP), top = part;
	struct bm_inflight *up = remapped_from(a, io), *e;
	bool counted_above = false;
	int32_t pid = io->pid;

	if (part < 0)
		return;
	if (up) {
		counted_above = up->disk >= 0;
		top = up->top >= 0 ? up->top : up->disk;
		pid = up->pid;
		if (!counted_above)	/* a link, used up: the bio is here now */
			bm_inflight_erase(&a->inflight, up);
	}
	e = bm_inflight_get(&a->inflight, io->dev, io->sector, io->ts);
	if (!e)
		return;
	e->top = top;
	e->pid = pid;
	if (counted_above) {
		e->q = io->ts;	/* not queued here yet: only its age, for staleness */
		return;
	}
	e->part = part;
	e->nr_sector = io->nr_sector;
	e->q = io->ts;
	e->has_q = true;
	a->disks[part]->model = BM_IO_REMAP;
	account(&a->disks[part]->bio_time, io->ts, +1);
	queued_by(a, part, pid, io);
}

/* ---- events ---- */

static void series_add(struct bm_analysis *a, struct bm_disk_stats *d, uint64_t ts,
		       uint64_t bytes, uint64_t latency)
{
	uint64_t span = a->last > a->first ? a->last - a->first + 1 : 1;
	int bin;

	if (!d->series || ts < a->first)
		return;
	bin = (ts - a->first) * (uint64_t)BM_SERIES_BINS / span;
	if (bin >= BM_SERIES_BINS)
		bin = BM_SERIES_BINS - 1;
	d->series->bytes[bin] += bytes;
	if (latency) {
		d->series->lat_sum[bin] += latency;
		d->series->lat_count[bin]++;
		if (latency > d->series->lat_max[bin])
			d->series->lat_max[bin] = latency;
	}
}

static void seen(struct bm_disk_stats *d, uint64_t ts)
{
	if (!d->first_io || ts < d->first_io)
		d->first_io = ts;
	if (ts > d->last_io)
		d->last_io = ts;
}

/* The bios merged into a completed request: from @pos, bio after bio, to @end. */
static void end_merged(struct bm_analysis *a, int disk, const struct bm_io *io, uint64_t pos)
{
	uint64_t end = io->sector + io->nr_sector;
	struct bm_inflight *m;

	while (pos < end && (m = bm_inflight_find(&a->inflight, io->dev, pos)) && m->nr_sector) {
		pos += m->nr_sector;
		completed_stacked(a, disk, m, io->op, m->nr_sector);
		settle(a, m, io->ts);
		bm_inflight_erase(&a->inflight, m);
	}
}

static void complete(struct bm_analysis *a, const struct bm_io *io, int disk, bool request)
{
	struct bm_inflight *e = bm_inflight_find(&a->inflight, io->dev, io->sector);
	struct bm_disk_stats *d = a->disks[disk];
	uint64_t bytes = io->op < 0 ? 0 : (uint64_t)io->nr_sector * 512;
	uint64_t q2c = e && e->has_q ? io->ts - e->q : 0;
	uint64_t next;

	seen(d, io->ts);
	count(request ? d->rq_counts : d->bio_counts, io->op, io->nr_sector);
	if (!e) {
		series_add(a, d, io->ts, bytes, 0);
		return;
	}
	if (e->has_q && e->disk >= 0) {
		bm_hist_add(&d->q2c, q2c);
		account(&d->bio_time, io->ts, -1);
	}
	if (request && e->has_d) {
		bm_hist_add(&d->d2c, io->ts - e->d);
		account(&d->rq_time, io->ts, -1);
	}
	series_add(a, d, io->ts, bytes, request && e->has_d ? io->ts - e->d : q2c);
	if (e->part >= 0) {
		struct bm_disk_stats *p = a->disks[e->part];

		seen(p, io->ts);
		count(p->rq_counts, io->op, io->nr_sector);
		if (e->has_q) {
			bm_hist_add(&p->q2c, q2c);
			account(&p->bio_time, io->ts, -1);
		}
		series_add(a, p, io->ts, bytes, q2c);
	}
	completed_stacked(a, disk, e, io->op, io->nr_sector);
	next = e->nr_sector ? e->sector + e->nr_sector : UINT64_MAX;
	bm_inflight_erase(&a->inflight, e);
	if (request)
		end_merged(a, disk, io, next);
}

void bm_analysis_event(struct bm_analysis *a, const struct bm_io *io,
		       const struct bm_span *span, const struct bm_span *old_span)
{
	int disk = disk_of(a, io->dev, span, BM_IO_REQUEST);
	struct bm_inflight *e;

	if (disk < 0)
		return;
	if (io->ts >= a->next_sweep) {
		/* Drop what could not complete any more, even with room to spare. */
		bm_inflight_sweep(&a->inflight, io->ts);
		a->next_sweep = io->ts + STALE_NS;
	}
	/*
	 * No data: a flush, or a driver's own command (N: a serial number, a
	 * SCSI VPD page). Issued at sector 0, completed at 2^64 - 1, so never
	 * matched: counted apart at completion and never in flight, as the
	 * kernel leaves them out of io_ticks.
	 */
	if (!io->nr_sector && io->op < 0) {
		struct bm_disk_stats *d = a->disks[disk];

		if (io->kind == BM_EV_RQ_COMPLETE || io->kind == BM_EV_BIO_COMPLETE) {
			seen(d, io->ts);
			count(io->kind == BM_EV_RQ_COMPLETE ? d->rq_counts : d->bio_counts, io->op, 0);
		}
		return;
	}
	switch (io->kind) {
	case BM_EV_BIO_REMAP:
		remap(a, io, old_span);
		break;
	case BM_EV_BIO_QUEUE:
		e = bm_inflight_get(&a->inflight, io->dev, io->sector, io->ts);
		if (!e)
			return;
		if (!e->has_q) {
			e->q = io->ts;
			e->has_q = true;
		}
		e->nr_sector = io->nr_sector;
		if (e->disk < 0) {
			e->disk = disk;
			account(&a->disks[disk]->bio_time, io->ts, +1);
		}
		if (e->top < 0)
			e->pid = io->pid;
		queued_by(a, disk, e->pid, io);
		break;
	case BM_EV_RQ_ISSUE:
		e = bm_inflight_get(&a->inflight, io->dev, io->sector, io->ts);
		if (e && !e->has_d) {
			e->d = io->ts;
			e->has_d = true;
			e->rq_disk = disk;
			account(&a->disks[disk]->rq_time, io->ts, +1);
		}
		break;
	case BM_EV_RQ_REQUEUE:
		e = bm_inflight_find(&a->inflight, io->dev, io->sector);
		if (e && e->has_d) {
			e->has_d = false;
			account(&a->disks[disk]->rq_time, io->ts, -1);
		}
		break;
	case BM_EV_RQ_COMPLETE:
		complete(a, io, disk, true);
		break;
	case BM_EV_BIO_COMPLETE:
		complete(a, io, disk, false);
		break;
	default:
		break;
	}
}

/* ---- the end ---- */

static int by_device_then_time(const void *x, const void *y)
{
	const struct bm_disk_stats *a = *(const struct bm_disk_stats *const *)x;
	const struct bm_disk_stats *b = *(const struct bm_disk_stats *const *)y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (a->life_from > b->life_from) - (a->life_from < b->life_from);
}

static int by_lower_then_upper(const void *x, const void *y)
{
	const struct bm_stack_row *a = x, *b = y;
	int r = by_device_then_time(&a->lower, &b->lower);

	return r ? r : by_device_then_time(&a->upper, &b->upper);
}

static int by_bytes(const void *x, const void *y)
{
	const struct bm_top_row *a = x, *b = y;
	uint64_t ab = a->read_bytes + a->write_bytes, bb = b->read_bytes + b->write_bytes;

	if (a->disk != b->disk)
		return by_device_then_time(&a->disk, &b->disk);
	return (ab < bb) - (ab > bb);
}

void bm_analysis_finish(struct bm_analysis *a)
{
	size_t i;

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
		d->reads = c[0];
		d->writes = c[1];
		d->read_bytes = c[2];
		d->write_bytes = c[3];
		d->others = c[4];
		/* From the earliest possible add to the latest possible removal. */
		d->life_from = a->first;
		d->life_to = a->last;
		if (s && s->from.known && s->from.lo > a->first)
			d->life_from = s->from.lo;
		if (s && s->to.known && s->to.hi < a->last)
			d->life_to = s->to.hi;
		if (d->life_to < d->life_from)
			d->life_to = d->life_from;
		t = d->model == BM_IO_REQUEST ? &d->rq_time : &d->bio_time;
		account(t, d->life_to, 0);
		d->busy_ns = t->busy_ns;
		d->depth_ns = t->depth_ns;
	}
	free(a->sorted);
	a->sorted = malloc((a->ndisks ? a->ndisks : 1) * sizeof(*a->sorted));
	for (i = 0; a->sorted && i < a->ndisks; i++)
		a->sorted[i] = a->disks[i];
	if (a->sorted)
		qsort(a->sorted, a->ndisks, sizeof(*a->sorted), by_device_then_time);
	a->nsorted = a->sorted ? a->ndisks : 0;
	for (i = 0; i < a->ntop; i++)
		a->top[i].disk = a->disks[a->top_disk[i]];
	if (a->ntop)	/* no I/O, no table: qsort may not be given NULL */
		qsort(a->top, a->ntop, sizeof(*a->top), by_bytes);
	if (a->nstack)
		qsort(a->stack, a->nstack, sizeof(*a->stack), by_lower_then_upper);
}

static bool kept(const struct bm_disk_stats *d, const char *name, uint32_t dev)
{
	return (!name || (d->span && bm_span_named(d->span, name))) && (!dev || d->dev == dev);
}

void bm_analysis_keep(struct bm_analysis *a, const char *name, uint32_t dev)
{
	size_t i, n = 0;

	for (i = 0; a->sorted && i < a->ndisks; i++)
		if (kept(a->sorted[i], name, dev))
			a->sorted[n++] = a->sorted[i];
	a->nsorted = a->sorted ? n : 0;
	for (i = 0, n = 0; i < a->ntop; i++)
		if (kept(a->top[i].disk, name, dev))
			a->top[n++] = a->top[i];
	a->ntop = n;
	/* What a device's I/O went through, or what came to it. */
	for (i = 0, n = 0; i < a->nstack; i++)
		if (kept(a->stack[i].lower, name, dev) || kept(a->stack[i].upper, name, dev))
			a->stack[n++] = a->stack[i];
	a->nstack = n;
}

size_t bm_analysis_disks(const struct bm_analysis *a, const struct bm_disk_stats *const **list)
{
	*list = a->sorted;
	return a->nsorted;
}

size_t bm_analysis_top(const struct bm_analysis *a, const struct bm_top_row **list)
{
	*list = a->top;
	return a->ntop;
}

size_t bm_analysis_stack(const struct bm_analysis *a, const struct bm_stack_row **list)
{
	*list = a->stack;
	return a->nstack;
}

uint64_t bm_analysis_bin_start(const struct bm_analysis *a, int i)
{
	uint64_t span = a->last > a->first ? a->last - a->first + 1 : 1;

	return a->first + span * i / BM_SERIES_BINS;
}

struct bm_analysis *bm_analysis_new(uint64_t first, uint64_t last, bool series)
{
	struct bm_analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->first = first;
	a->last = last;
	a->series = series;
	a->last_disk = -1;
	a->inflight.stale_ns = STALE_NS;
	a->inflight.drop = settle;
	a->inflight.ctx = a;
	return a;
}

void bm_analysis_free(struct bm_analysis *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->ndisks; i++) {
		bm_hist_release(&a->disks[i]->q2c);
		bm_hist_release(&a->disks[i]->d2c);
		free(a->disks[i]->series);
		free(a->disks[i]);
	}
	free(a->disks);
	free(a->index);
	free(a->sorted);
	bm_inflight_release(&a->inflight);
	free(a->top);
	free(a->top_disk);
	free(a->stack);
	free(a);
}
