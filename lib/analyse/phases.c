// SPDX-License-Identifier: GPL-2.0-only
/*
 * btt's phases, per incarnation and per operation. As btt does (its
 * trace_queue.c, trace_im.c, trace_issue.c, trace_complete.c), a bio queued
 * with data (Q) is kept by its start sector until a completion covers it;
 * a request made for it (G), its insertion (I) and a merge (M) are found by
 * their sector, an issue (D) and a completion (C) take every bio that lies
 * wholly within their range. So each phase is counted per bio: D2C of a
 * request that merged three bios counts three times, as in btt. A second bio
 * queued at the start of one still in flight is ignored, as btt ignores it.
 * Events without data (flushes) have no sector range and are left out.
 *
 *   Q2Q  Q to the next Q        I2D  I to D (bios inserted as a request)
 *   Q2G  Q to G                 M2D  M to D (bios merged into a request)
 *   G2I  G to I                 D2C  D to C
 *   Q2M  Q to M                 Q2C  Q to C
 *   Q2A  Q on a bio-based device to its remap below (A)
 *
 * Plugs carry no device: a plug is the device of the request its task made
 * last (block_getrq comes just before it), an unplug that of its task's
 * plug.
 *
 * A consumer of the tracker (consumer.h) that follows the events it is
 * handed (struct an_step) by btt's rules, not the tracker's: its state is
 * each incarnation's struct bm_phases (hung on the incarnation for the
 * views), the list of them and the tasks' last devices. Memory: per
 * incarnation a few histograms, the bios in flight and the distinct seek
 * distances, and AN_TASKS tasks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/phases.h"
#include "blkmap/util/sys.h"
#include "consumer.h"

#define MISS_STEPS	4096	/* sectors a range walk steps over without a bio */

#define AN_TASKS	256

enum { HAS_G = 1, HAS_I = 2, HAS_M = 4, HAS_D = 8 };

/* A task's last request's incarnation and its plug's, NULL if none. */
struct task {
	int pid;
	struct bm_disk_stats *disk, *plugged;
};

struct phases {
	struct task tasks[AN_TASKS];	/* by pid, the last one seen in each slot */
	struct bm_phases **all;		/* every incarnation's, for gaps and the end */
	size_t n, cap;
};

struct pending {
	uint64_t start, end;
	uint64_t q, g, i, m, d;
	int8_t op;		/* enum bm_phase_op */
	uint8_t has;		/* HAS_* */
	bool used;
};

struct bm_phases_pending {
	struct pending *slots;
	size_t size, used;
};

static size_t slot_of(uint64_t start, size_t size)
{
	return (start * 0x9E3779B97F4A7C15ULL >> 19) & (size - 1);
}

static struct pending *find(struct bm_phases_pending *p, uint64_t start)
{
	size_t j;

	if (!p || !p->size)
		return NULL;
	for (j = slot_of(start, p->size); p->slots[j].used; j = (j + 1) & (p->size - 1))
		if (p->slots[j].start == start)
			return &p->slots[j];
	return NULL;
}

/* Remove @e, shifting back the entries after it (no tombstones). */
static void erase(struct bm_phases_pending *p, struct pending *e)
{
	size_t hole = e - p->slots, j = hole, home;

	p->slots[hole].used = false;
	p->used--;
	for (;;) {
		j = (j + 1) & (p->size - 1);
		if (!p->slots[j].used)
			return;
		home = slot_of(p->slots[j].start, p->size);
		/* Can the entry at j move into the hole? Not if its home lies in (hole, j]. */
		if ((j > hole && (home <= hole || home > j)) ||
		    (j < hole && home <= hole && home > j)) {
			p->slots[hole] = p->slots[j];
			p->slots[j].used = false;
			hole = j;
		}
	}
}

static int rehash(struct bm_phases_pending *p, size_t size, uint64_t now)
{
	struct pending *slots = calloc(size, sizeof(*slots));
	size_t i, j;

	if (!slots)
		return -1;
	p->used = 0;
	for (i = 0; i < p->size; i++) {
		const struct pending *e = &p->slots[i];

		/* A bio whose completion was never seen goes after AN_STALE_NS. */
		if (!e->used || e->q + AN_STALE_NS < now)
			continue;
		for (j = slot_of(e->start, size); slots[j].used; j = (j + 1) & (size - 1))
			;
		slots[j] = *e;
		p->used++;
	}
	free(p->slots);
	p->slots = slots;
	p->size = size;
	return 0;
}

static struct pending *add(struct bm_phases *ph, uint64_t start, uint64_t now)
{
	struct bm_phases_pending *p = ph->pending;
	size_t j;

	if (!p && !(p = ph->pending = calloc(1, sizeof(*p))))
		return NULL;
	if (2 * (p->used + 1) > p->size && rehash(p, p->size ? 2 * p->size : 64, now) < 0)
		return NULL;
	for (j = slot_of(start, p->size); p->slots[j].used; j = (j + 1) & (p->size - 1))
		;
	p->used++;
	memset(&p->slots[j], 0, sizeof(p->slots[j]));
	p->slots[j].used = true;
	p->slots[j].start = start;
	return &p->slots[j];
}

/* @d's phases, made on first use; NULL: no memory. */
static struct bm_phases *phases_of(struct phases *p, struct bm_disk_stats *d)
{
	struct bm_phases *ph;

	if (d->phases)
		return d->phases;
	if (bm_grow(&p->all, p->n, &p->cap, sizeof(*p->all), 16) < 0 ||
	    !(ph = calloc(1, sizeof(*ph))))
		return NULL;
	p->all[p->n++] = ph;
	return d->phases = ph;
}

static int op_of(const struct bm_io *io)
{
	return io->op == 0 ? BM_PH_READ : io->op == 1 ? BM_PH_WRITE : BM_PH_DISCARD;
}

static void account(struct bm_phases *ph, int op, enum bm_phase phase, uint64_t from, uint64_t to)
{
	uint64_t t = to > from ? to - from : 0;

	bm_hist_add(&ph->h[op][phase], t);
	bm_hist_add(&ph->h[BM_PH_ALL][phase], t);
}

static void queued(struct bm_phases *ph, const struct bm_io *io)
{
	struct pending *e;
	int op = op_of(io);

	if (find(ph->pending, io->sector) || !(e = add(ph, io->sector, io->ts)))
		return;
	e->end = io->sector + io->nr_sector;
	e->q = io->ts;
	e->op = op;
	ph->queued++;
	if (ph->last_q[BM_PH_ALL])
		bm_hist_add(&ph->h[BM_PH_ALL][BM_Q2Q], io->ts - ph->last_q[BM_PH_ALL]);
	if (ph->last_q[op])
		bm_hist_add(&ph->h[op][BM_Q2Q], io->ts - ph->last_q[op]);
	ph->last_q[BM_PH_ALL] = ph->last_q[op] = io->ts;
	bm_seek_add(&ph->q2q, io->sector, io->nr_sector);
	ph->active_sum += ph->active++;
}

/* G, I or M of the bio queued at @io's sector. */
static void stepped(struct bm_phases *ph, const struct bm_io *io)
{
	struct pending *e = find(ph->pending, io->sector);

	if (io->kind == BM_EV_BIO_BACKMERGE || io->kind == BM_EV_BIO_FRONTMERGE ||
	    io->kind == BM_EV_RQ_MERGE) {
		if (io->kind == BM_EV_RQ_MERGE)
			ph->rq_merges++;
		else
			ph->merges++;
		if (ph->active)
			ph->active--;
	}
	if (!e)
		return;
	switch (io->kind) {
	case BM_EV_RQ_GETRQ:
		e->g = io->ts;
		e->has |= HAS_G;
		account(ph, e->op, BM_Q2G, e->q, io->ts);
		break;
	case BM_EV_RQ_INSERT:
		e->i = io->ts;
		e->has |= HAS_I;
		if (e->has & HAS_G)
			account(ph, e->op, BM_G2I, e->g, io->ts);
		break;
	default:	/* a merge */
		e->m = io->ts;
		e->has |= HAS_M;
		account(ph, e->op, BM_Q2M, e->q, io->ts);
		break;
	}
}

/*
 * The bios wholly within [@io's sector, + nr_sector): each of them once,
 * walking from one's end to the next one's start; @fn may erase it.
 */
static void each_within(struct bm_phases *ph, const struct bm_io *io,
			void (*fn)(struct bm_phases *ph, struct pending *e, const struct bm_io *io))
{
	uint64_t s = io->sector, end = io->sector + io->nr_sector, next;
	unsigned misses = 0;
	struct pending *e;

	while (s < end && misses < MISS_STEPS) {
		e = find(ph->pending, s);
		if (!e || e->end > end || e->end <= s) {
			s++;
			misses++;
			continue;
		}
		next = e->end;
		fn(ph, e, io);
		s = next;
	}
}

static void issued_one(struct bm_phases *ph, struct pending *e, const struct bm_io *io)
{
	if (e->has & HAS_I)
		account(ph, e->op, BM_I2D, e->i, io->ts);
	else if (e->has & HAS_M)
		account(ph, e->op, BM_M2D, e->m, io->ts);
	e->d = io->ts;
	e->has |= HAS_D;
}

static unsigned size_bucket(uint32_t sectors)
{
	unsigned k = 0;
	uint32_t kib = sectors / 2;

	while (kib >= 2 && k < BM_SIZE_BUCKETS - 1) {
		kib >>= 1;
		k++;
	}
	return k;
}

static void issued(struct bm_phases *ph, const struct bm_io *io)
{
	ph->issued++;
	if (ph->active)
		ph->active--;
	ph->sizes[size_bucket(io->nr_sector)]++;
	bm_seek_add(&ph->d2d, io->sector, io->nr_sector);
	each_within(ph, io, issued_one);
}

static void completed_one(struct bm_phases *ph, struct pending *e, const struct bm_io *io)
{
	account(ph, e->op, BM_Q2C, e->q, io->ts);
	if (e->has & HAS_D)
		account(ph, e->op, BM_D2C, e->d, io->ts);
	erase(ph->pending, e);
}

static void completed(struct bm_phases *ph, const struct bm_io *io)
{
	if (!ph->c_count || io->nr_sector < ph->c_min)
		ph->c_min = io->nr_sector;
	if (io->nr_sector > ph->c_max)
		ph->c_max = io->nr_sector;
	ph->c_count++;
	ph->c_total += io->nr_sector;
	each_within(ph, io, completed_one);
}

/* A bio remapped from @from: Q2A if it was queued there (dm, md). */
static void remapped(const struct bm_disk_stats *from, const struct bm_io *io)
{
	struct bm_phases *ph;
	struct pending *e;

	if (!from || !from->phases)
		return;
	ph = from->phases;
	e = find(ph->pending, io->old_sector);
	if (e && e->q <= io->ts)
		account(ph, e->op, BM_Q2A, e->q, io->ts);
}

/* The last request's incarnation of task @pid, and the one its plug holds. */
static struct task *task_of(struct phases *p, int pid)
{
	struct task *t = &p->tasks[(unsigned)pid % AN_TASKS];

	if (t->pid != pid)
		*t = (struct task){ .pid = pid };
	return t;
}

/* A plug or unplug, which names no device. */
static void plug(struct phases *p, const struct bm_io *io)
{
	struct task *t = task_of(p, io->pid);
	struct bm_phases *ph;

	if (io->kind == BM_EV_PLUG) {
		if (t->disk && (ph = phases_of(p, t->disk))) {
			ph->plugs++;
			t->plugged = t->disk;
		}
		return;
	}
	if (t->plugged && (ph = phases_of(p, t->plugged))) {
		ph->unplugs++;
		ph->unplugged += io->nr_sector;	/* nr_rq */
	}
	t->plugged = NULL;
}

void an_phases_step(void *state, const struct an_step *s)
{
	const struct bm_io *io = s->io;
	struct phases *p = state;
	struct bm_phases *ph;

	if (!s->disk) {
		plug(p, io);
		return;
	}
	if (io->kind == BM_EV_BIO_REMAP) {
		remapped(s->from, io);
		return;
	}
	if (!(ph = phases_of(p, s->disk)))
		return;
	if (io->kind == BM_EV_RQ_GETRQ)
		task_of(p, io->pid)->disk = s->disk;
	if (io->kind == BM_EV_RQ_REQUEUE) {
		ph->requeues++;
		return;
	}
	if (!io->nr_sector)
		return;
	switch (io->kind) {
	case BM_EV_BIO_QUEUE:
		queued(ph, io);
		break;
	case BM_EV_RQ_GETRQ:
	case BM_EV_RQ_INSERT:
	case BM_EV_BIO_BACKMERGE:
	case BM_EV_BIO_FRONTMERGE:
	case BM_EV_RQ_MERGE:
		stepped(ph, io);
		break;
	case BM_EV_RQ_ISSUE:
		issued(ph, io);
		break;
	case BM_EV_RQ_COMPLETE:
	case BM_EV_BIO_COMPLETE:
		completed(ph, io);
		break;
	default:
		break;
	}
}

void *an_phases_new(void)
{
	return calloc(1, sizeof(struct phases));
}

/* Past a gap the bios followed so far may have ended inside it. */
void an_phases_gap(void *state)
{
	struct phases *p = state;
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct bm_phases *ph = p->all[i];

		if (!ph->pending)	/* nothing queued yet */
			continue;
		memset(ph->pending->slots, 0, ph->pending->size * sizeof(*ph->pending->slots));
		ph->pending->used = 0;
		ph->active = 0;
		memset(ph->last_q, 0, sizeof(ph->last_q));
	}
}

static void phases_free(struct bm_phases *ph)
{
	int i, j;

	for (i = 0; i < BM_PH_NOPS; i++)
		for (j = 0; j < BM_NPHASES; j++)
			bm_hist_release(&ph->h[i][j]);
	bm_seek_release(&ph->q2q);
	bm_seek_release(&ph->d2d);
	if (ph->pending)
		free(ph->pending->slots);
	free(ph->pending);
	free(ph);
}

void an_phases_free(void *state)
{
	struct phases *p = state;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		phases_free(p->all[i]);
	free(p->all);
	free(p);
}

/* Which phases @ph has: "Q2G,G2I,..." into @buf. */
const char *bm_phases_present(const struct bm_phases *ph, char *buf, size_t size)
{
	static const char *const names[BM_NPHASES] = {
		"Q2Q", "Q2G", "G2I", "Q2M", "I2D", "M2D", "D2C", "Q2C", "Q2A" };
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; ph && i < BM_NPHASES; i++)
		if (ph->h[BM_PH_ALL][i].count && len + 5 < size)
			len += snprintf(buf + len, size - len, "%s%s", len ? "," : "", names[i]);
	return buf;
}
