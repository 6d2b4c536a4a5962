// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which cgroup did each incarnation's I/O (--cgroups): a row a
 * (incarnation, cgroup), counted as the kernel's io.stat counts: each bio
 * queued there (a partition's remapped bios on the partition) and each
 * piece the block layer split one into, its bytes once, to the cgroup the
 * kernel charged (bm_cgroups_charged: the queuing task's at its queue, or
 * the one a flusher wrote back for); a bio that came down a stack is its
 * top's task's. Its Q2C and D2C as it completed, as
 * --disks takes them. A consumer of the tracker (consumer.h); memory grows
 * with (incarnation, cgroup) pairs, never with the events.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "consumer.h"

struct cgroups {
	bool wanted;		/* an_cgroups_want: nothing is kept before */
	struct bm_cgroup_row *rows;
	size_t n, cap;
	size_t last;		/* the row found last: I/O comes in runs */
};

static bool same(const struct bm_cgroup_row *r, const struct bm_disk_stats *disk,
		 const struct an_cgroup *cg)
{
	return r->disk == disk && r->cgroup.id == (cg->basis == BM_CG_UNKNOWN ? 0 : cg->cg.id);
}

/* The row of (@disk, @cg), or NULL. */
static struct bm_cgroup_row *row_find(struct cgroups *s, const struct bm_disk_stats *disk,
				      const struct an_cgroup *cg)
{
	size_t i;

	if (s->last < s->n && same(&s->rows[s->last], disk, cg))
		return &s->rows[s->last];
	for (i = 0; i < s->n; i++)
		if (same(&s->rows[i], disk, cg)) {
			s->last = i;
			return &s->rows[i];
		}
	return NULL;
}

/* The row of (@disk, @cg), made if new; NULL: no memory. */
static struct bm_cgroup_row *row_of(struct cgroups *s, const struct bm_disk_stats *disk,
				    const struct an_cgroup *cg)
{
	struct bm_cgroup_row *r = row_find(s, disk, cg);

	if (r)
		return r;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct bm_cgroup_row *rows = realloc(s->rows, cap * sizeof(*rows));

		if (!rows)
			return NULL;
		s->rows = rows;
		s->cap = cap;
	}
	r = &s->rows[s->n];
	memset(r, 0, sizeof(*r));
	r->disk = disk;
	r->basis = cg->basis;
	if (cg->basis != BM_CG_UNKNOWN)
		r->cgroup = cg->cg;
	s->last = s->n++;
	return r;
}

void an_cgroups_queued(void *state, const struct an_queued *q)
{
	struct cgroups *s = state;
	struct bm_cgroup_row *r;

	if (!s->wanted || q->op < 0 || !(r = row_of(s, q->disk, &q->cgroup)))
		return;
	r->basis = bm_cgroup_basis_merge(r->basis, q->cgroup.basis);
	if (q->op) {
		r->writes++;
		r->write_bytes += (uint64_t)q->sectors * 512;
	} else {
		r->reads++;
		r->read_bytes += (uint64_t)q->sectors * 512;
	}
}

/*
 * The block layer split a bio: io.stat counts the piece as one more I/O of
 * its cgroup (the kernel counts every bio that starts, split ones too) but
 * its bytes once, with the bio's.
 */
void an_cgroups_split(void *state, const struct an_queued *q)
{
	struct cgroups *s = state;
	struct bm_cgroup_row *r;

	if (!s->wanted || q->op < 0 || !(r = row_find(s, q->disk, &q->cgroup)))
		return;
	if (q->op)
		r->writes++;
	else
		r->reads++;
}

/* Its Q2C where it was queued (and on its partition), its request's D2C where it completed. */
void an_cgroups_done(void *state, const struct an_io *io)
{
	struct cgroups *s = state;
	struct bm_cgroup_row *r;

	if (!s->wanted || io->merged || io->op < 0)
		return;
	if (io->has_q && io->queued_on && (r = row_find(s, io->queued_on, &io->cgroup)))
		bm_hist_add(&r->q2c, io->c - io->q);
	if (io->has_q && io->part && (r = row_find(s, io->part, &io->cgroup)))
		bm_hist_add(&r->q2c, io->c - io->q);
	if (io->request && io->has_d && (r = row_find(s, io->disk, &io->cgroup)))
		bm_hist_add(&r->d2c, io->c - io->d);
}

/* Unknown cgroups last, each path's incarnations in order. */
static int by_disk_cgroup(const void *x, const void *y)
{
	const struct bm_cgroup_row *a = x, *b = y;
	int c;

	if (a->disk != b->disk)
		return an_disk_order(a->disk, b->disk);
	if (!a->cgroup.id || !b->cgroup.id)
		return !a->cgroup.id - !b->cgroup.id;
	c = strcmp(a->cgroup.path, b->cgroup.path);
	if (c)
		return c;
	return (a->cgroup.incarnation > b->cgroup.incarnation) -
	       (a->cgroup.incarnation < b->cgroup.incarnation);
}

void an_cgroups_finish(void *state)
{
	struct cgroups *s = state;

	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), by_disk_cgroup);
}

void an_cgroups_keep(void *state, const struct bm_span_filter *f)
{
	struct cgroups *s = state;
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		struct bm_cgroup_row *r = &s->rows[i];

		if (bm_span_filter_match(f, r->disk->span, r->disk->dev)) {
			s->rows[n++] = *r;
			continue;
		}
		bm_hist_release(&r->q2c);
		bm_hist_release(&r->d2c);
	}
	s->n = n;
}

void an_cgroups_want(void *state)
{
	((struct cgroups *)state)->wanted = true;
}

void *an_cgroups_new(void)
{
	return calloc(1, sizeof(struct cgroups));
}

void an_cgroups_free(void *state)
{
	struct cgroups *s = state;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		bm_hist_release(&s->rows[i].q2c);
		bm_hist_release(&s->rows[i].d2c);
	}
	free(s->rows);
	free(s);
}

size_t an_cgroups_rows(const void *state, const struct bm_cgroup_row **list)
{
	const struct cgroups *s = state;

	*list = s->rows;
	return s->n;
}
