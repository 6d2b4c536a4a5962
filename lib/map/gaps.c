// SPDX-License-Identifier: GPL-2.0-only
/*
 * The times where events were lost (mapping.h): noted as the reader meets
 * them, merged at the finish; the label query asks whether a moment is in
 * one, as another incarnation may have come and gone unseen there.
 */
#include <stdlib.h>

#include "mapping.h"

void bm_map_lost(struct bm_map *m, uint64_t from, uint64_t to)
{
	if (m->ngaps == m->capgaps) {
		size_t cap = m->capgaps ? 2 * m->capgaps : 16;
		struct gap *g = realloc(m->gaps, cap * sizeof(*g));

		if (!g)
			return;
		m->gaps = g;
		m->capgaps = cap;
	}
	m->gaps[m->ngaps++] = (struct gap){ .from = min64(from, to), .to = max64(from, to) };
}

static int compare_gaps(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	return (x->from > y->from) - (x->from < y->from);
}

void map_merge_gaps(struct bm_map *m)
{
	size_t i, n = 0;

	if (!m->ngaps)
		return;
	qsort(m->gaps, m->ngaps, sizeof(*m->gaps), compare_gaps);
	for (i = 1; i < m->ngaps; i++) {
		if (m->gaps[i].from <= m->gaps[n].to)
			m->gaps[n].to = max64(m->gaps[n].to, m->gaps[i].to);
		else
			m->gaps[++n] = m->gaps[i];
	}
	m->ngaps = n + 1;
}

bool map_in_gap(const struct bm_map *m, uint64_t ts, uint64_t *from, uint64_t *to)
{
	size_t lo = 0, hi = m->ngaps;

	while (lo < hi) {	/* the first gap that starts after ts */
		size_t mid = (lo + hi) / 2;

		if (m->gaps[mid].from <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && m->gaps[lo - 1].to >= ts)
		return true;
	if (lo > 0)
		*from = max64(*from, m->gaps[lo - 1].to + 1);
	if (lo < m->ngaps)
		*to = min64(*to, m->gaps[lo].from - 1);
	return false;
}
