// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/inflight.h"
#include "blkmap/util/sys.h"

/* Rebuild at @size, dropping the stale entries. */
static void rehash(struct bm_inflight_table *t, size_t size, uint64_t now)
{
	struct bm_inflight *old = t->slots, *slots;
	struct bm_inflight_cold *oldcold = t->cold, *cold;
	size_t i, oldsize = t->size;

	slots = calloc(size, sizeof(*slots));
	cold = malloc(size * sizeof(*cold));
	if (!slots || !cold) {
		free(slots);
		free(cold);
		return;
	}
	t->slots = slots;
	t->cold = cold;
	t->size = size;
	t->used = 0;
	for (i = 0; i < oldsize; i++) {
		struct bm_inflight *e = &old[i];
		size_t j;

		if (!e->used)
			continue;
		if ((e->has_d && !e->has_q ? e->d : e->q) + t->stale_ns < now) {
			t->drop(t->ctx, e, now);
			continue;
		}
		for (j = bm_inflight_slot(t, e->dev, e->sector, e->op); slots[j].used;
		     j = (j + 1) & (size - 1))
			;
		slots[j] = *e;
		cold[j] = oldcold[i];
		t->used++;
	}
	free(old);
	free(oldcold);
}

struct bm_inflight *bm_inflight_get(struct bm_inflight_table *t, uint32_t dev, uint64_t sector,
				    int op, uint64_t now)
{
	struct bm_inflight *e = bm_inflight_find(t, dev, sector, op);
	size_t i;

	if (e)
		return e;
	if (2 * (t->used + 1) > t->size) {
		/* At the same size first: that drops the stale entries. */
		rehash(t, t->size ? t->size : 1024, now);
		if (2 * (t->used + 1) > t->size)
			rehash(t, 2 * t->size, now);
	}
	if (!t->size)
		return NULL;
	for (i = bm_inflight_slot(t, dev, sector, op); t->slots[i].used; i = (i + 1) & (t->size - 1))
		;
	e = &t->slots[i];
	*e = (struct bm_inflight){ .sector = sector, .dev = dev, .op = op, .used = true,
				   .disk = -1, .part = -1, .top = -1 };
	t->used++;
	return e;
}

/* Later entries of @e's cluster move back into the hole (linear probing). */
void bm_inflight_erase(struct bm_inflight_table *t, struct bm_inflight *e)
{
	size_t i = e - t->slots, j = i;

	e->used = false;
	t->used--;
	for (;;) {
		size_t home;

		j = (j + 1) & (t->size - 1);
		if (!t->slots[j].used)
			return;
		home = bm_inflight_slot(t, t->slots[j].dev, t->slots[j].sector, t->slots[j].op);
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->slots[i] = t->slots[j];
			t->cold[i] = t->cold[j];
			t->slots[j].used = false;
			i = j;
		}
	}
}

void bm_inflight_sweep(struct bm_inflight_table *t, uint64_t now)
{
	if (t->used)
		rehash(t, t->size, now);
}

void bm_inflight_release(struct bm_inflight_table *t)
{
	free(t->slots);
	free(t->cold);
	t->slots = NULL;
	t->cold = NULL;
	t->size = t->used = 0;
}

struct bm_range_dev *bm_ranges_lookup(struct bm_ranges *r, uint32_t dev)
{
	size_t i;

	if (r->devs[r->last].dev == dev)
		return &r->devs[r->last];
	for (i = 0; i < r->ndevs; i++)
		if (r->devs[i].dev == dev) {
			r->last = i;
			return &r->devs[i];
		}
	return NULL;
}

struct bm_range_dev *bm_ranges_watch(struct bm_ranges *r, uint32_t dev)
{
	struct bm_range_dev *d = bm_ranges_of(r, dev);

	if (d)
		return d;
	if (bm_grow(&r->devs, r->ndevs, &r->capdevs, sizeof(*r->devs), 8) < 0)
		return NULL;
	d = &r->devs[r->ndevs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	r->last = r->ndevs++;
	return d;
}

void bm_ranges_add(struct bm_range_dev *d, uint64_t start, uint32_t len, int op)
{
	if (bm_grow(&d->v, d->n, &d->cap, sizeof(*d->v), 16) < 0)
		return;	/* then only exact lookups find it */
	d->v[d->n++] = (struct bm_range){ start, len, op };
}

void bm_ranges_del(struct bm_range_dev *d, uint64_t start, int op)
{
	size_t i;

	for (i = d->n; i-- > 0;)
		if (d->v[i].start == start && d->v[i].op == op) {
			memmove(&d->v[i], &d->v[i + 1], (d->n - i - 1) * sizeof(*d->v));
			d->n--;
			return;
		}
}

bool bm_ranges_find(const struct bm_range_dev *d, uint64_t sector, int op, uint64_t *start)
{
	size_t i;

	for (i = d->n; i-- > 0;)
		if (d->v[i].start <= sector && sector - d->v[i].start < d->v[i].len &&
		    d->v[i].op == op) {
			*start = d->v[i].start;
			return true;
		}
	return false;
}

void bm_ranges_release(struct bm_ranges *r)
{
	size_t i;

	for (i = 0; i < r->ndevs; i++)
		free(r->devs[i].v);
	free(r->devs);
	memset(r, 0, sizeof(*r));
}
