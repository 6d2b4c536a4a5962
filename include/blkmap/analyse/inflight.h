/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_ANALYSE_INFLIGHT_H
#define BLKMAP_ANALYSE_INFLIGHT_H

/*
 * I/O in flight, found by (device, sector) as blktrace's btt finds it: a
 * hash table with open addressing and linear probing (inflight.c). An
 * entry that never completes (its completion was lost) is dropped once it
 * is stale_ns old, when the table is rebuilt: the owner's @drop hears of
 * it, so that it stops counting it as in flight.
 *
 * The same table, a second one, holds the links of stacked I/O: where a
 * remapped bio is bound next (stack.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/analyse/analyse.h"

struct bm_inflight {
	uint64_t sector;
	uint64_t q, d;		/* queued, issued */
	uint32_t dev;
	uint32_t nr_sector;	/* of the bio queued here, 0 if only a request was seen */
	int disk, part;		/* the owner's: incarnations counting it in flight, -1 for none */
	union {
		int rq_disk;	/* the incarnation counting its request in flight (has_d) */
		int32_t maker;	/* a link (lib/analyse/stack.c): the task whose remap made it */
	};
	int top;		/* came down a stack from this incarnation; -1: submitted here */
	int32_t pid;		/* the process that submitted it (at the top, if any) */
	uint32_t done;		/* sectors of it completed so far (an md bio's pieces, a dm split bio's clones) */
	uint32_t splits;	/* device-mapper's splits of it: pieces it counts, less one */
	int8_t op;		/* part of the key, with dev and sector */
	bool used : 1;
	bool has_q : 1, has_d : 1;
	bool flush_seq : 1;	/* BM_IO_FLUSH_SEQ: its data's completion is not the last */
	bool tail : 1;		/* its data completed: only the flush sequence's end is due */
	bool active : 1;	/* counted in flight (bio_time) now: see bm_inflight_cold */
	bool has_up : 1;	/* a clone: its cold part names its bio */
	bool mapping : 1;	/* clones sent: its cold part counts them */
	bool moved : 1;		/* has_up, and the bio itself, not a clone (an NVMe path's) */
	bool has_start : 1;	/* its cold part says when the kernel started counting it */
	bool has_g : 1, has_i : 1;	/* its cold part has its request's getrq, insert */
};

/*
 * What only stacked I/O needs, apart (an array beside the slots) so that an
 * entry stays one cache line. A bio-based device counts as in flight what
 * it has mapped, as the kernel counts a dm or md bio's pieces: from the
 * bio's queue to its completion, less the time between a piece's clones
 * completing and the next piece's first remap.
 */
struct bm_inflight_cold {
	uint32_t clones;	/* mapping: its clones in flight below */
	uint32_t mapped;	/* mapping: the sectors from its start it had remapped so far */
	uint32_t up_dev;	/* has_up: the bio at (up_dev, up_sector) it is a clone of */
	uint64_t up_sector;
	/*
	 * has_start: the start of its time in the kernel's time in queue
	 * (/proc/diskstats field 11), if not its queue: its request's
	 * allocation (block_getrq), md's accounting from its first remap.
	 */
	uint64_t start;
	/*
	 * splits: the sums of its later pieces' starts and of its clones' ends
	 * x sectors; the last piece's start, the last clone's end
	 */
	double piece_starts, piece_ends;
	uint64_t last_start, last_end;
	/*
	 * For --slowest: its request's getrq and insert (has_g, has_i); at its
	 * queue, its device's requests issued so far; at its issue (has_d),
	 * its sectors and the others in flight then, their number and sectors.
	 */
	uint64_t g, i, issued_at_q, others_sectors;
	uint32_t rq_sectors, others, behind;	/* behind: UINT32_MAX unknown */
	struct bm_by_pid by[BM_BY_SHOWN];	/* who queued the others, most first */
};

struct bm_inflight_table {
	struct bm_inflight *slots;
	struct bm_inflight_cold *cold;	/* beside each slot */
	size_t size, used;	/* size: 0 or a power of two */
	uint64_t stale_ns;
	void (*drop)(void *ctx, const struct bm_inflight *e, uint64_t now);
	void *ctx;
};

/* op + 1 < 16: the links keep more than one at a key in its op (lib/analyse/stack.c). */
static inline size_t bm_inflight_slot(const struct bm_inflight_table *t, uint32_t dev,
				      uint64_t sector, int op)
{
	uint64_t h = (sector * 0x9E3779B97F4A7C15ULL) ^
		     (((uint64_t)dev << 4 | (uint64_t)(op + 1)) * 0xC2B2AE3D27D4EB4FULL);

	return (h >> 17) & (t->size - 1);
}

/*
 * The entry of (@dev, @sector) for @op (0 read, 1 write, -1 neither: a
 * reader and a writer may have bios in flight at one sector), or NULL.
 */
static inline struct bm_inflight *bm_inflight_find(const struct bm_inflight_table *t,
						   uint32_t dev, uint64_t sector, int op)
{
	size_t i;

	if (!t->size)
		return NULL;
	for (i = bm_inflight_slot(t, dev, sector, op); t->slots[i].used; i = (i + 1) & (t->size - 1))
		if (t->slots[i].dev == dev && t->slots[i].sector == sector && t->slots[i].op == op)
			return &t->slots[i];
	return NULL;
}

/* The entry of (@dev, @sector, @op), a new one (disk and part -1) if none; NULL: no memory. */
struct bm_inflight *bm_inflight_get(struct bm_inflight_table *t, uint32_t dev, uint64_t sector,
				    int op, uint64_t now);
static inline struct bm_inflight_cold *bm_inflight_cold(const struct bm_inflight_table *t,
							const struct bm_inflight *e)
{
	return &t->cold[e - t->slots];
}

/* Remove @e; pointers to other entries may then point elsewhere. */
void bm_inflight_erase(struct bm_inflight_table *t, struct bm_inflight *e);
/* Drop the entries stale at @now. */
void bm_inflight_sweep(struct bm_inflight_table *t, uint64_t now);
void bm_inflight_release(struct bm_inflight_table *t);

/*
 * The bios in flight on a few devices by sector range, for the lookups an
 * exact (device, sector) cannot answer: device-mapper and md clone a bio
 * piece by piece, and name each piece's start, not the bio's; a dm bio
 * split completes at its last piece's start. Kept only for the devices
 * where such a lookup was needed (watched), whose bios in flight are few:
 * a list a device, searched from the end.
 */
struct bm_ranges {
	struct bm_range_dev {
		uint32_t dev;
		struct bm_range {
			uint64_t start;
			uint32_t len;
			int op;		/* 0 read, 1 write, -1 neither */
		} *v;
		size_t n, cap;
	} *devs;
	size_t ndevs, capdevs;
	size_t last;	/* the device looked up last */
};

struct bm_range_dev *bm_ranges_lookup(struct bm_ranges *r, uint32_t dev);

/* The ranges of @dev, or NULL if it is not watched. */
static inline struct bm_range_dev *bm_ranges_of(struct bm_ranges *r, uint32_t dev)
{
	return r->ndevs ? bm_ranges_lookup(r, dev) : NULL;
}
/* Watch @dev from now on (its ranges of the moment: the caller's to add); NULL: no memory. */
struct bm_range_dev *bm_ranges_watch(struct bm_ranges *r, uint32_t dev);
void bm_ranges_add(struct bm_range_dev *d, uint64_t start, uint32_t len, int op);
void bm_ranges_del(struct bm_range_dev *d, uint64_t start, int op);
/* The start of the latest range of @op that holds @sector; false if none. */
bool bm_ranges_find(const struct bm_range_dev *d, uint64_t sector, int op, uint64_t *start);
void bm_ranges_release(struct bm_ranges *r);

#endif
