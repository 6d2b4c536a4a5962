// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stacked I/O: a bio submitted to a top device (dm, md, an NVMe head, a
 * partition) reaches the disks below as remaps, clones and splits. What the
 * kernel traces, and so what is followed here:
 *
 *   - A partition remaps the bio itself (blk_partition_remap): block_bio_remap
 *     from (partition, relative sector) to (disk, absolute sector), then the
 *     bio is queued on the disk. The partition counts what it remapped.
 *   - dm and md queue their own bio, then clone it piece by piece: a remap a
 *     clone, from (dm, the piece's start) to (lower device, sector), then
 *     the clone is queued there (bio_alloc_clone does not carry the flag
 *     that suppresses a second block_bio_queue). dm's remap of a clone bound
 *     for a partition names the partition's disk at the partition's sector;
 *     the partition's own remap follows.
 *   - dm splits a bio it cannot map whole (a stripe's chunk, a target's
 *     largest I/O): it trims the bio to the rest and traces block_split
 *     with the rest's start as both sectors, and counts each piece as an
 *     I/O. The block layer splits at a queue's limits: block_split from the
 *     piece that goes on to the start of the rest, a bio of its own.
 *   - An NVMe head moves the same bio to a hidden path disk: a remap, and no
 *     queue event on the path.
 *
 * A remap from dm or md leaves a link at its destination: the top device
 * and the process that submitted the bio there, which the clone's queue (or
 * a path's issue) takes up. Links live apart from the I/O in flight: a
 * partition's relative sector on its disk may be a real request's. Two
 * partitions of one disk have the same relative sectors: dm volumes on
 * both, written at once, leave links at one (disk, sector). The queue or
 * partition remap that takes a link up comes in the task whose remap made
 * it (submit_bio_noacct), so a link is that task's first, anyone's after.
 */
#include "blkmap/map/map.h"
#include "local.h"

/*
 * Links at one key are kept in ways, told apart in the key's op (an op is
 * -1, 0 or 1): the k-th at op + LINK_WAY * k. More at once than ways is
 * more remaps at one relative sector than a disk has partitions written.
 */
#define LINK_WAY 3
#define LINK_WAYS 4

/*
 * The link at (@dev, @sector, @op) that @task's remap made, or else the
 * newest there (one whose taker was lost stays until stale: it must not
 * stand before the live ones); NULL if none.
 */
static struct bm_inflight *find_link(const struct an_tracker *a, uint32_t dev, uint64_t sector,
				     int op, int32_t task)
{
	struct bm_inflight *l, *newest = NULL;
	int k;

	if (!a->links.used)
		return NULL;
	for (k = 0; k < LINK_WAYS; k++) {
		l = bm_inflight_find(&a->links, dev, sector, op + LINK_WAY * k);
		if (l && l->maker == task)
			return l;
		if (l && (!newest || l->q > newest->q))
			newest = l;
	}
	return newest;
}

/*
 * A link at (@dev, @sector, @op) for @task's remap made @now: in @task's
 * way there, else a free one, else the oldest's; NULL: no memory.
 */
static struct bm_inflight *new_link(struct an_tracker *a, uint32_t dev, uint64_t sector, int op,
				    int32_t task, uint64_t now)
{
	struct bm_inflight *l, *oldest = NULL;
	int k, way = -1;

	for (k = 0; k < LINK_WAYS; k++) {
		l = bm_inflight_find(&a->links, dev, sector, op + LINK_WAY * k);
		if (l && l->maker == task) {
			way = k;
			break;
		}
		if (!l && way < 0)
			way = k;
		if (l && (!oldest || l->q < oldest->q))
			oldest = l;
	}
	if (way < 0)
		way = (oldest->op - op) / LINK_WAY;
	l = bm_inflight_get(&a->links, dev, sector, op + LINK_WAY * way, now);
	if (l) {
		l->maker = task;
		l->q = now;	/* only its age: for staleness, and which is newest */
	}
	return l;
}

void an_adopt_link(struct an_tracker *a, struct bm_inflight *e, int32_t task)
{
	struct bm_inflight *l = find_link(a, e->dev, e->sector, e->op, task);

	if (!l)
		return;
	e->top = l->top;
	e->pid = l->pid;
	e->has_up = l->has_up;
	if (e->has_up) {
		const struct bm_inflight_cold *from = bm_inflight_cold(&a->links, l);
		struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, e);

		c->up_dev = from->up_dev;
		c->up_sector = from->up_sector;
	}
	bm_inflight_erase(&a->links, l);
}

/* A clone of @up's is on its way down: @up has a piece in flight. */
static void clone_sent(struct an_tracker *a, struct bm_inflight *up, const struct bm_io *io)
{
	struct bm_inflight_cold *c = bm_inflight_cold(&a->inflight, up);
	uint64_t mapped = io->old_sector + io->nr_sector - up->sector;

	if (!up->active) {
		up->active = true;
		an_account(&a->disks[up->disk]->bio_time, io->ts, +1);
	}
	if (!up->mapping) {
		up->mapping = true;
		c->clones = c->mapped = 0;
		if (a->disks[up->disk]->in_flight_from_map) {
			c->start = io->ts;	/* md_account_bio, once the array let it through */
			up->has_start = true;
		}
	}
	c->clones++;
	if (mapped > c->mapped)
		c->mapped = mapped;
}

void an_clone_done(struct an_tracker *a, const struct bm_inflight *e, uint64_t now)
{
	const struct bm_inflight_cold *from;
	struct bm_inflight_cold *c;
	struct bm_inflight *up;

	if (!e->has_up)
		return;
	from = bm_inflight_cold(&a->inflight, e);
	up = bm_inflight_find(&a->inflight, from->up_dev, from->up_sector, e->op);
	if (!up || !up->has_q || up->disk < 0 || !up->mapping)
		return;
	c = bm_inflight_cold(&a->inflight, up);
	if (!c->clones)
		return;
	if (up->splits)
		an_piece_done(a, up, e->nr_sector, now);
	/* Between pieces (a dm split's, md's) nothing of it is in flight. */
	if (!--c->clones && up->active && c->mapped < up->nr_sector) {
		up->active = false;
		an_account(&a->disks[up->disk]->bio_time, now, -1);
	}
}

/* Is the remap's source a partition? Its span says; without one, whether it queued bios. */
static bool from_partition(const struct an_tracker *a, int src, const struct bm_span *old_span)
{
	const struct bm_disk_stats *d = a->disks[src];

	if (old_span)
		return old_span->kind == BM_PARTITION;
	return !d->queued;
}

/* Where a remapped bio came from: its top, its writer, the bio it is a clone of. */
struct origin {
	int top;
	int32_t pid;
	bool has_up;
	uint32_t up_dev;
	uint64_t up_sector;
};

/*
 * The link a remap of (dev, old_sector) from @old_dev continues, taken up
 * into @o: a partition's remap continues dm's of a clone bound for it, left
 * at the partition's disk and sector.
 */
static bool take_link(struct an_tracker *a, const struct bm_io *io, bool partition,
		      struct origin *o)
{
	struct bm_inflight *l = find_link(a, io->old_dev, io->old_sector, io->op, io->pid);

	if (!l && partition)
		l = find_link(a, io->dev, io->old_sector, io->op, io->pid);
	if (!l)
		return false;
	*o = (struct origin){ .top = l->top, .pid = l->pid, .has_up = l->has_up };
	if (l->has_up) {
		o->up_dev = bm_inflight_cold(&a->links, l)->up_dev;
		o->up_sector = bm_inflight_cold(&a->links, l)->up_sector;
	}
	bm_inflight_erase(&a->links, l);
	return true;
}

/* @e, in @t, from @o. */
static void set_origin(struct bm_inflight_table *t, struct bm_inflight *e, const struct origin *o)
{
	struct bm_inflight_cold *c;

	e->top = o->top;
	e->pid = o->pid;
	e->has_up = o->has_up;
	if (!e->has_up)
		return;
	c = bm_inflight_cold(t, e);
	c->up_dev = o->up_dev;
	c->up_sector = o->up_sector;
}

void an_remap(struct an_tracker *a, const struct bm_io *io, const struct bm_span *old_span)
{
	int src = an_disk_of(a, io->old_dev, old_span, BM_IO_REQUEST);
	struct bm_inflight *e, *up;
	struct origin o;

	if (src < 0)
		return;
	o = (struct origin){ .top = src, .pid = io->pid };
	if (!from_partition(a, src, old_span)) {
		/* A clone of a dm or md bio, or an NVMe head's bio moving to its path. */
		if (!take_link(a, io, false, &o) &&
		    (up = an_bio_at(a, io->old_dev, io->old_sector, io->op, true))) {
			o = (struct origin){ up->top >= 0 ? up->top : up->disk, up->pid, true,
					     up->dev, up->sector };
			clone_sent(a, up, io);
		}
		e = new_link(a, io->dev, io->sector, io->op, io->pid, io->ts);
		if (!e)
			return;
		set_origin(&a->links, e, &o);
		return;
	}
	take_link(a, io, true, &o);
	e = bm_inflight_get(&a->inflight, io->dev, io->sector, io->op, io->ts);
	if (!e)
		return;
	set_origin(&a->inflight, e, &o);
	e->part = src;
	e->nr_sector = io->nr_sector;
	e->q = io->ts;
	e->has_q = true;
	a->disks[src]->model = BM_IO_REMAP;
	an_account(&a->disks[src]->bio_time, io->ts, +1);
	an_queued(a, src, o.pid, io);
}

/*
 * block_split's new_sector is an unsigned int in the tracepoint's prototype:
 * past 2 TiB the kernel keeps its low 32 bits. The rest starts after the
 * sector split, and less than 2^32 sectors after.
 */
static uint64_t split_rest(const struct bm_io *io)
{
	uint64_t rest = io->old_sector;

	if (rest <= UINT32_MAX && io->sector > UINT32_MAX) {
		rest |= io->sector & ~(uint64_t)UINT32_MAX;
		if (rest < io->sector)
			rest += (uint64_t)UINT32_MAX + 1;
	}
	return rest;
}

void an_split(struct an_tracker *a, const struct bm_io *io)
{
	uint64_t rest = split_rest(io), start;
	struct bm_inflight *e, piece;
	struct bm_inflight_cold up;
	struct bm_range_dev *r;

	if (rest == io->sector) {
		/* dm: the bio holding @rest was trimmed to it; one more piece counted */
		r = an_watch(a, io->dev);
		if (r && bm_ranges_find(r, rest, io->op, &start) && start != rest &&
		    (e = bm_inflight_find(&a->inflight, io->dev, start, io->op)))
			an_piece_split(a, e, io->ts);
		return;
	}
	/* The block layer: [sector, rest) goes on, the rest is a bio of its own. */
	e = bm_inflight_find(&a->inflight, io->dev, io->sector, io->op);
	if (!e || !e->has_q || rest < io->sector || rest - io->sector >= e->nr_sector)
		return;
	piece = *e;
	up = *bm_inflight_cold(&a->inflight, e);
	e = bm_inflight_get(&a->inflight, io->dev, rest, io->op, io->ts);	/* may move the others */
	if (!e || e->has_q)
		return;
	e->q = piece.q;
	e->has_q = true;
	e->nr_sector = piece.nr_sector - (rest - io->sector);
	e->disk = piece.disk;
	e->part = piece.part;
	e->top = piece.top;
	e->pid = piece.pid;
	e->flush_seq = piece.flush_seq;
	e->has_up = piece.has_up;
	e->has_start = piece.has_start;
	e->active = piece.active;
	*bm_inflight_cold(&a->inflight, e) = up;	/* its bio above, if any */
	e->mapping = false;
	if (e->has_up) {	/* one more clone of that bio in flight */
		struct bm_inflight *above = bm_inflight_find(&a->inflight, up.up_dev, up.up_sector,
							     io->op);

		if (above && above->mapping)
			bm_inflight_cold(&a->inflight, above)->clones++;
	}
	if (e->active)
		an_account(&a->disks[e->disk]->bio_time, io->ts, +1);
	if (e->part >= 0)
		an_account(&a->disks[e->part]->bio_time, io->ts, +1);
	r = bm_ranges_of(&a->ranges, io->dev);
	if (r && e->disk >= 0)
		bm_ranges_add(r, rest, e->nr_sector, e->op);
	e = bm_inflight_find(&a->inflight, io->dev, io->sector, io->op);
	e->nr_sector = rest - io->sector;
	if (r && e->disk >= 0) {
		bm_ranges_del(r, io->sector, io->op);
		bm_ranges_add(r, io->sector, e->nr_sector, e->op);
	}
}

void an_stack_free(struct an_tracker *a)
{
	bm_inflight_release(&a->links);
	bm_ranges_release(&a->ranges);
}
