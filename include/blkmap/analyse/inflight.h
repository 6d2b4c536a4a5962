/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_INFLIGHT_H
#define BLKMAP_ANALYSE_INFLIGHT_H

/*
 * I/O in flight, found by (device, sector) as blktrace's btt finds it: a
 * hash table with open addressing and linear probing (inflight.c). An
 * entry that never completes (its completion was lost) is dropped once it
 * is stale_ns old, when the table is rebuilt: the owner's @drop hears of
 * it, so that it stops counting it as in flight.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bm_inflight {
	uint32_t dev;
	uint64_t sector;
	uint32_t nr_sector;	/* of the bio queued here, 0 if only a request was seen */
	uint64_t q, d;		/* queued, issued */
	bool has_q, has_d;
	int disk, part;		/* the owner's: incarnations counting it in flight, -1 for none */
	int rq_disk;		/* the incarnation counting its request in flight (has_d) */
	int top;		/* came down a stack from this incarnation; -1: submitted here */
	int32_t pid;		/* the process that submitted it (at the top, if any) */
	bool used;
};

struct bm_inflight_table {
	struct bm_inflight *slots;
	size_t size, used;	/* size: 0 or a power of two */
	uint64_t stale_ns;
	void (*drop)(void *ctx, const struct bm_inflight *e, uint64_t now);
	void *ctx;
};

static inline size_t bm_inflight_slot(const struct bm_inflight_table *t, uint32_t dev,
				      uint64_t sector)
{
	uint64_t h = (sector * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)dev * 0xC2B2AE3D27D4EB4FULL);

	return (h >> 17) & (t->size - 1);
}

/* The entry of (@dev, @sector), or NULL. */
static inline struct bm_inflight *bm_inflight_find(const struct bm_inflight_table *t,
						   uint32_t dev, uint64_t sector)
{
	size_t i;

	if (!t->size)
		return NULL;
	for (i = bm_inflight_slot(t, dev, sector); t->slots[i].used; i = (i + 1) & (t->size - 1))
		if (t->slots[i].dev == dev && t->slots[i].sector == sector)
			return &t->slots[i];
	return NULL;
}

/* The entry of (@dev, @sector), a new one (disk and part -1) if none; NULL: no memory. */
struct bm_inflight *bm_inflight_get(struct bm_inflight_table *t, uint32_t dev, uint64_t sector,
				    uint64_t now);
/* Remove @e; pointers to other entries may then point elsewhere. */
void bm_inflight_erase(struct bm_inflight_table *t, struct bm_inflight *e);
/* Drop the entries stale at @now. */
void bm_inflight_sweep(struct bm_inflight_table *t, uint64_t now);
void bm_inflight_release(struct bm_inflight_table *t);

#endif
