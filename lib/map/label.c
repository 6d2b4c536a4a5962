// SPDX-License-Identifier: GPL-2.0-only
/*
 * The map's reading side (mapping.h): which incarnation a device number
 * was at a time and on what basis, through a cache of the times over which
 * the answer holds; the finished map's incarnations, conflicts, keys and
 * device-mapper names at a time.
 */
#include <stdio.h>
#include <string.h>

#include "blkmap/tracefile/decode.h"

#include "mapping.h"

static bool possible(const struct bm_span *s, uint64_t ts)
{
	uint64_t lo = s->from.known ? s->from.lo : 0;
	uint64_t hi = s->to.known ? s->to.hi : UINT64_MAX;

	return lo <= ts && ts <= hi;
}

static bool certain(const struct bm_span *s, uint64_t ts)
{
	return ts >= s->from.hi && (!s->to.known || ts < s->to.lo);
}

/*
 * bm_map_label(), and when the answer is the only possible incarnation, the
 * times [*hold_from, *hold_to] around @ts over which it stays so.
 */
static const struct bm_span *label(const struct bm_map *m, uint32_t dev, uint64_t ts,
				   uint32_t disk_dev, enum bm_label_basis *basis,
				   uint64_t *hold_from, uint64_t *hold_to)
{
	const struct bm_span *cand[16], *pick = NULL, *older = NULL;
	const struct devstate *d;
	ssize_t i = map_find_index(m, dev, NULL);
	size_t lo, hi, k, n = 0;

	*basis = BM_LABEL_UNKNOWN;
	if (i < 0)
		return NULL;
	d = &m->devs[i];
	/* Spans are in time order: find the last that can have started by ts. */
	lo = 0;
	hi = d->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct bm_span *s = &d->spans[mid];

		if ((s->from.known ? s->from.lo : 0) <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k-- > 0 && n < 16;) {
		if (possible(&d->spans[k], ts)) {
			cand[n++] = &d->spans[k];
		} else if (d->spans[k].to.known && d->spans[k].to.hi < ts) {
			older = &d->spans[k];
			break;	/* removals are in time order: older ones too */
		}
	}
	if (!n)
		return NULL;
	if (n == 1) {
		const struct bm_span *s = cand[0];

		/* Until the next span may start, or this one may be gone. */
		*hold_from = s->from.known ? s->from.lo : 0;
		if (older && older->to.hi + 1 > *hold_from)
			*hold_from = older->to.hi + 1;
		*hold_to = s->to.known ? s->to.hi : UINT64_MAX;
		if (lo < d->n && d->spans[lo].from.lo - 1 < *hold_to)
			*hold_to = d->spans[lo].from.lo - 1;
		/* Where events were lost, another incarnation may have come unseen. */
		*basis = map_in_gap(m, ts, hold_from, hold_to) ? BM_LABEL_GUESS : BM_LABEL_ONLY;
		return s;
	}
	if (disk_dev) {
		enum bm_label_basis b;
		const struct bm_span *disk = bm_map_label(m, disk_dev, ts, 0, &b);
		size_t matches = 0;

		for (k = 0; disk && k < n; k++) {
			if (!strcmp(cand[k]->parent, disk->name)) {
				pick = cand[k];
				matches++;
			}
		}
		if (matches == 1) {
			*basis = BM_LABEL_PARENT;
			return pick;
		}
	}
	/* Candidates are newest first: prefer one certainly present, else the oldest. */
	*basis = BM_LABEL_GUESS;
	for (k = 0; k < n; k++)
		if (certain(cand[k], ts))
			return cand[k];
	/*
	 * Within the window of a diskseq change, the newer: the kernel counts
	 * the new diskseq before the I/O of the new medium (a loop device's
	 * partition scan), and the old one (detached) does none. But when the
	 * newer has no medium (a loop detach), the older: it may still write.
	 */
	if (n == 2 && cand[0]->reseq && cand[1] == cand[0] - 1)
		return cand[0]->empty ? cand[1] : cand[0];	/* a detach: the older */
	return cand[n - 1];
}

const struct bm_span *bm_map_label(const struct bm_map *m, uint32_t dev, uint64_t ts,
				   uint32_t disk_dev, enum bm_label_basis *basis)
{
	uint64_t from, to;

	return label(m, dev, ts, disk_dev, basis, &from, &to);
}

const struct bm_span *bm_map_label_cached(const struct bm_map *m, struct bm_label_cache *c,
					  uint32_t dev, uint64_t ts, uint32_t disk_dev,
					  enum bm_label_basis *basis)
{
	struct bm_label_hold *h = &c->slot[(dev ^ dev >> 20) % BM_LABEL_CACHE_SLOTS];
	const struct bm_span *s;
	uint64_t from, to;

	if (h->span && h->dev == dev && ts >= h->from && ts <= h->to) {
		*basis = BM_LABEL_ONLY;
		return h->span;
	}
	s = label(m, dev, ts, disk_dev, basis, &from, &to);
	if (*basis == BM_LABEL_ONLY) {
		h->dev = dev;
		h->from = from;
		h->to = to;
		h->span = s;
	}
	return s;
}

size_t bm_map_count(const struct bm_map *m)
{
	return m->nsorted;
}

const struct bm_span *bm_map_span(const struct bm_map *m, size_t i)
{
	return i < m->nsorted ? m->sorted[i] : NULL;
}

size_t bm_map_conflicts(const struct bm_map *m, const struct bm_conflict **list)
{
	*list = m->conflicts;
	return m->nconflicts;
}

const char *bm_label_basis_name(enum bm_label_basis basis)
{
	switch (basis) {
	case BM_LABEL_ONLY:
		return "only";
	case BM_LABEL_PARENT:
		return "parent";
	case BM_LABEL_GUESS:
		return "guess";
	default:
		return "unknown";
	}
}

const char *bm_span_dm_at(const struct bm_span *s, uint64_t ts)
{
	unsigned i = s->ndm;

	while (i > 1 && s->dm_names[i - 1].hi > ts)
		i--;
	return i ? s->dm_names[i - 1].name : "";
}

const char *bm_span_key(const struct bm_span *s, char *buf, size_t size)
{
	snprintf(buf, size, "%u:%u#%u", BM_MAJOR(s->dev), BM_MINOR(s->dev), s->nth);
	return buf;
}
