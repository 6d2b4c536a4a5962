// SPDX-License-Identifier: GPL-2.0-only
/*
 * The processes that did each incarnation's I/O (--top): a row a
 * (incarnation, process, cgroup it queued from), the bios it queued there
 * and their Q2C as they completed. A bio that came down a stack counts for the process that
 * submitted it at the top. A consumer of the tracker (consumer.h); memory
 * grows with (incarnation, process) pairs, never with the events.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "consumer.h"

struct procs {
	bool want;	/* an_procs_want: nothing is kept before */
	struct bm_top_row *rows;
	size_t n, cap;
	size_t last;	/* the row found last: rows of a disk are few, and come in runs */
};

static uint64_t cgroup_id(const struct an_cgroup *cg)
{
	return cg->basis == BM_CG_UNKNOWN ? 0 : cg->cg.id;
}

static bool same(const struct bm_top_row *r, const struct bm_disk_stats *disk, int pid,
		 const struct an_cgroup *cg)
{
	return r->disk == disk && r->pid == pid && r->cgroup.id == cgroup_id(cg);
}

/* The row of (@disk, @pid, @cg), or NULL. */
static struct bm_top_row *row_find(struct procs *p, const struct bm_disk_stats *disk, int pid,
				   const struct an_cgroup *cg)
{
	size_t i;

	if (p->last < p->n && same(&p->rows[p->last], disk, pid, cg))
		return &p->rows[p->last];
	for (i = 0; i < p->n; i++)
		if (same(&p->rows[i], disk, pid, cg))
			return &p->rows[i];
	return NULL;
}

/* The row of (@disk, @pid, @cg), made if new; NULL: no memory. */
static struct bm_top_row *row_of(struct procs *p, const struct bm_disk_stats *disk, int pid,
				 const struct an_cgroup *cg)
{
	struct bm_top_row *r = row_find(p, disk, pid, cg);

	if (!r) {
		if (p->n == p->cap) {
			size_t cap = p->cap ? 2 * p->cap : 64;
			struct bm_top_row *rows = realloc(p->rows, cap * sizeof(*rows));

			if (!rows)
				return NULL;
			p->rows = rows;
			p->cap = cap;
		}
		r = &p->rows[p->n++];
		memset(r, 0, sizeof(*r));
		r->disk = disk;
		r->pid = pid;
		r->cgroup_basis = cg->basis;
		if (cg->basis != BM_CG_UNKNOWN)
			r->cgroup = cg->cg;
	}
	r->cgroup_basis = bm_cgroup_basis_merge(r->cgroup_basis, cg->basis);
	p->last = r - p->rows;
	return r;
}

void an_procs_queued(void *state, const struct an_queued *q)
{
	struct procs *p = state;
	struct bm_top_row *r;

	if (!p->want)
		return;
	/* A row for a flush too: its Q2C is the process's (done()). */
	r = row_of(p, q->disk, q->pid, &q->cgroup);
	if (!r || q->op < 0)
		return;
	if (q->op) {
		r->writes++;
		r->write_bytes += (uint64_t)q->sectors * 512;
	} else {
		r->reads++;
		r->read_bytes += (uint64_t)q->sectors * 512;
	}
}

/* Its Q2C, to the process that queued it there, and on the partition it was submitted to. */
void an_procs_done(void *state, const struct an_io *io)
{
	struct procs *p = state;
	struct bm_top_row *r;

	if (!p->want || io->merged || !io->has_q)
		return;
	if (io->queued_on && (r = row_find(p, io->queued_on, io->pid, &io->cgroup)))
		bm_hist_add(&r->q2c, io->c - io->q);
	if (io->part && (r = row_find(p, io->part, io->pid, &io->cgroup)))
		bm_hist_add(&r->q2c, io->c - io->q);
}

static int by_bytes(const void *x, const void *y)
{
	const struct bm_top_row *a = x, *b = y;
	uint64_t ab = a->read_bytes + a->write_bytes, bb = b->read_bytes + b->write_bytes;

	if (a->disk != b->disk)
		return an_disk_order(a->disk, b->disk);
	return (ab < bb) - (ab > bb);
}

void an_procs_finish(void *state)
{
	struct procs *p = state;

	if (p->n)	/* no I/O, no table: qsort may not be given NULL */
		qsort(p->rows, p->n, sizeof(*p->rows), by_bytes);
}

void an_procs_keep(void *state, const struct bm_span_filter *f)
{
	struct procs *p = state;
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		if (bm_span_filter_match(f, p->rows[i].disk->span, p->rows[i].disk->dev))
			p->rows[n++] = p->rows[i];
		else
			bm_hist_release(&p->rows[i].q2c);
	p->n = n;
}

void an_procs_want(void *state)
{
	((struct procs *)state)->want = true;
}

void *an_procs_new(void)
{
	return calloc(1, sizeof(struct procs));
}

void an_procs_free(void *state)
{
	struct procs *p = state;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		bm_hist_release(&p->rows[i].q2c);
	free(p->rows);
	free(p);
}

size_t an_procs_rows(const void *state, const struct bm_top_row **list)
{
	const struct procs *p = state;

	*list = p->rows;
	return p->n;
}
