// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seek distances between consecutive I/Os of an incarnation, as btt
 * measures them (its seek.c): from the end of the previous I/O to the start
 * of this one, or from the previous start when this one starts before it;
 * 0 when the two overlap or touch (sequential). The first is measured from
 * sector 0. Distinct distances are counted apart, up to BM_SEEK_DISTINCT of
 * them, for the median and the mode; past that, new distances count in the
 * mean and in the number of seeks only.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/phases.h"

static size_t slot(uint64_t dist, size_t size)
{
	return (dist * 0x9E3779B97F4A7C15ULL >> 17) & (size - 1);
}

static int grow(struct bm_seek *s)
{
	size_t size = s->size ? 2 * s->size : 256, i, j;
	uint64_t *dist = malloc(size * sizeof(*dist)), *count = calloc(size, sizeof(*count));

	if (!dist || !count) {
		free(dist);
		free(count);
		return -1;
	}
	for (i = 0; i < s->size; i++) {
		if (!s->count[i])
			continue;
		for (j = slot(s->dist[i], size); count[j]; j = (j + 1) & (size - 1))
			;
		dist[j] = s->dist[i];
		count[j] = s->count[i];
	}
	free(s->dist);
	free(s->count);
	s->dist = dist;
	s->count = count;
	s->size = size;
	return 0;
}

static void count_distance(struct bm_seek *s, uint64_t dist)
{
	size_t j;

	if (s->size) {
		for (j = slot(dist, s->size); s->count[j]; j = (j + 1) & (s->size - 1))
			if (s->dist[j] == dist) {
				s->count[j]++;
				return;
			}
	}
	if (s->used >= BM_SEEK_DISTINCT) {
		s->overflow = true;
		return;
	}
	if (2 * (s->used + 1) > s->size && grow(s) < 0) {
		s->overflow = true;
		return;
	}
	for (j = slot(dist, s->size); s->count[j]; j = (j + 1) & (s->size - 1))
		;
	s->dist[j] = dist;
	s->count[j] = 1;
	s->used++;
}

void bm_seek_add(struct bm_seek *s, uint64_t start, uint32_t sectors)
{
	uint64_t end = start + sectors, dist;

	if ((s->last_start <= start && start <= s->last_end) ||
	    (s->last_start <= end && end <= s->last_end))
		dist = 0;
	else if (start > s->last_end)
		dist = start - s->last_end;
	else
		dist = s->last_start - start;
	s->last_start = start;
	s->last_end = end;
	s->n++;
	s->sequential += !dist;
	s->sum += dist;
	count_distance(s, dist);
}

double bm_seek_mean(const struct bm_seek *s)
{
	return s->n ? s->sum / s->n : 0;
}

static int by_distance(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return (a[0] > b[0]) - (a[0] < b[0]);
}

uint64_t bm_seek_median(const struct bm_seek *s)
{
	uint64_t *pairs, counted = 0, median = 0, target;
	size_t i, n = 0;

	if (!s->used || !(pairs = malloc(2 * s->used * sizeof(*pairs))))
		return 0;
	for (i = 0; i < s->size; i++)
		if (s->count[i]) {
			pairs[2 * n] = s->dist[i];
			pairs[2 * n++ + 1] = s->count[i];
			counted += s->count[i];
		}
	qsort(pairs, n, 2 * sizeof(*pairs), by_distance);
	target = counted / 2;
	for (i = 0, counted = 0; i < n; i++) {
		counted += pairs[2 * i + 1];
		median = pairs[2 * i];
		if (counted > target)
			break;
	}
	free(pairs);
	return median;
}

uint64_t bm_seek_mode(const struct bm_seek *s, uint64_t *count)
{
	uint64_t mode = 0, most = 0;
	size_t i;

	for (i = 0; i < s->size; i++)
		if (s->count[i] > most || (s->count[i] && s->count[i] == most && s->dist[i] < mode)) {
			most = s->count[i];
			mode = s->dist[i];
		}
	if (count)
		*count = most;
	return mode;
}

void bm_seek_release(struct bm_seek *s)
{
	free(s->dist);
	free(s->count);
	memset(s, 0, sizeof(*s));
}
