// SPDX-License-Identifier: GPL-2.0-only
/*
 * A property of the analysis: random I/O through random stacks, traced as
 * Linux traces it (the sequences of the guest recordings in tests/vm),
 * interleaved in time, counts on every device what the kernel's rules say:
 *
 *   disk       requests: one a piece of a bio split at its 1024-sector limit
 *   partition  the requests of its bios
 *   dm stripe  one a 128-sector chunk piece (block_split on dm), the bio's bytes
 *   md raid1   one a 1024-sector piece, each completing apart (no split traced)
 *
 * Each seed makes a few hundred I/Os of 4 KiB to 4 MiB, reads and writes,
 * at sectors no two I/Os in flight share.
 */
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/map/map.h"

#include "helpers.h"

#define DISK	BM_MKDEV(254, 0)
#define LEG	BM_MKDEV(254, 16)
#define PART	BM_MKDEV(254, 1)
#define DM	BM_MKDEV(253, 0)
#define MD	BM_MKDEV(9, 0)
#define PART_START	2048
#define LIMIT	1024	/* the disks' largest request */
#define CHUNK	128	/* the stripe's */
#define MD_PIECE	1024
#define NDEVS	5

static const uint32_t devs[NDEVS] = { DISK, LEG, PART, DM, MD };
static struct bm_span spans[NDEVS] = {
	{ .dev = DISK, .name = "vda", .kind = BM_DISK },
	{ .dev = LEG, .name = "vdb", .kind = BM_DISK },
	{ .dev = PART, .name = "vda1", .kind = BM_PARTITION, .parent = "vda" },
	{ .dev = DM, .name = "dm-0", .kind = BM_DISK },
	{ .dev = MD, .name = "md0", .kind = BM_DISK },
};

static const struct bm_span *span(uint32_t dev)
{
	int i;

	for (i = 0; i < NDEVS; i++)
		if (devs[i] == dev)
			return &spans[i];
	return NULL;
}

static int index_of(uint32_t dev)
{
	int i;

	for (i = 0; i < NDEVS; i++)
		if (devs[i] == dev)
			return i;
	return -1;
}

/* An event and its place in the trace: events of one time keep the order they were made in. */
struct item {
	struct bm_io io;
	size_t seq;
};

struct trace {
	struct item *ev;
	size_t n, cap;
	uint64_t ios[NDEVS][2], bytes[NDEVS][2];	/* what the kernel counts */
	unsigned seed;
};

static unsigned rnd(struct trace *t, unsigned n)
{
	return (unsigned)(rand_r(&t->seed) % n);
}

static void add(struct trace *t, uint64_t ts, enum bm_kind kind, uint32_t dev, uint64_t sector,
		uint32_t sectors, int op, uint32_t old_dev, uint64_t old_sector)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
		ck_assert_ptr_nonnull(t->ev);
	}
	t->ev[t->n] = (struct item){ { .ts = ts, .kind = kind, .dev = dev, .sector = sector,
				       .nr_sector = sectors, .op = op, .pid = 100,
				       .old_dev = old_dev, .old_sector = old_sector }, t->n };
	t->n++;
}

static void counted(struct trace *t, uint32_t dev, int op, uint64_t sectors)
{
	int d = index_of(dev);

	ck_assert_int_ge(d, 0);
	t->ios[d][op]++;
	t->bytes[d][op] += sectors * 512;
}

/*
 * A bio of @n at @s on disk @disk queued at @ts (from a partition @part if
 * not 0): its splits, requests and completions. The time its last piece
 * completes.
 */
static uint64_t on_disk(struct trace *t, uint64_t ts, uint32_t disk, uint64_t s, uint32_t n,
			int op, uint32_t part)
{
	uint64_t at, end = ts;

	add(t, ts, BM_EV_BIO_QUEUE, disk, s, n, op, 0, 0);
	for (at = s; at < s + n; at += LIMIT) {
		uint32_t len = s + n - at < LIMIT ? s + n - at : LIMIT;
		uint64_t issue = ts + 1 + rnd(t, 50), done = issue + 1 + rnd(t, 3000);

		if (at + len < s + n)
			add(t, ts + 1, BM_EV_BIO_SPLIT, disk, at, 0, op, 0, at + len);
		add(t, issue, BM_EV_RQ_ISSUE, disk, at, len, op, 0, 0);
		add(t, done, BM_EV_RQ_COMPLETE, disk, at, len, op, 0, 0);
		counted(t, disk, op, len);
		if (part)
			counted(t, part, op, len);
		if (done > end)
			end = done;
	}
	return end;
}

/* One I/O of @n sectors at @s of @top, queued at @ts. */
static void io(struct trace *t, uint64_t ts, uint32_t top, uint64_t s, uint32_t n, int op)
{
	uint64_t at, end = ts, last = s;

	switch (top) {
	case DISK:	/* past the partition */
		on_disk(t, ts, DISK, s + (1ULL << 28), n, op, 0);
		return;
	case PART:
		add(t, ts, BM_EV_BIO_REMAP, DISK, s + PART_START, n, op, PART, s);
		on_disk(t, ts, DISK, s + PART_START, n, op, PART);
		return;
	case DM:	/* striped over the partition and the second disk */
		add(t, ts, BM_EV_BIO_QUEUE, DM, s, n, op, 0, 0);
		for (at = s; at < s + n; at += CHUNK) {
			uint64_t chunk = at / CHUNK, lower = chunk / 2 * CHUNK + at % CHUNK, done;
			uint32_t len = s + n - at < CHUNK ? s + n - at : CHUNK;
			uint64_t t0 = ts + 1 + (at - s) / CHUNK;

			if (chunk % 2) {
				add(t, t0, BM_EV_BIO_REMAP, LEG, lower, len, op, DM, at);
				done = on_disk(t, t0, LEG, lower, len, op, 0);
			} else {	/* dm names the partition's disk at the partition's sector */
				add(t, t0, BM_EV_BIO_REMAP, DISK, lower, len, op, DM, at);
				add(t, t0, BM_EV_BIO_REMAP, DISK, lower + PART_START, len, op, PART, lower);
				done = on_disk(t, t0, DISK, lower + PART_START, len, op, PART);
			}
			if (at + len < s + n)
				add(t, t0, BM_EV_BIO_SPLIT, DM, at + len, 0, op, 0, at + len);
			counted(t, DM, op, 0);
			if (done > end)
				end = done;
			last = at;
		}
		t->bytes[3][op] += (uint64_t)n * 512;	/* DM's */
		add(t, end + 1, BM_EV_BIO_COMPLETE, DM, last, s + n - last, op, 0, 0);
		return;
	case MD:	/* a mirror of the second disk, past what the stripe uses */
		add(t, ts, BM_EV_BIO_QUEUE, MD, s, n, op, 0, 0);
		for (at = s; at < s + n; at += MD_PIECE) {
			uint32_t len = s + n - at < MD_PIECE ? s + n - at : MD_PIECE;
			uint64_t lower = (1ULL << 30) + at, done;

			add(t, ts + 1, BM_EV_BIO_REMAP, LEG, lower, len, op, MD, at);
			done = on_disk(t, ts + 1, LEG, lower, len, op, 0);
			add(t, done + 1, BM_EV_BIO_COMPLETE, MD, at, len, op, 0, 0);
			counted(t, MD, op, len);
		}
		return;
	}
}

static int by_time(const void *x, const void *y)
{
	const struct item *a = x, *b = y;

	if (a->io.ts != b->io.ts)
		return (a->io.ts > b->io.ts) - (a->io.ts < b->io.ts);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

START_TEST(random_stacks_count_as_the_kernel_does)
{
	static const uint32_t sizes[] = { 8, 64, 128, 200, 1024, 2048, 8192 };
	static const uint32_t tops[] = { DISK, PART, DM, MD };
	unsigned seed;

	for (seed = 1; seed <= 40; seed++) {
		struct trace t = { .seed = seed };
		struct bm_analysis *a = bm_analysis_new(0, UINT64_MAX, false);
		uint64_t cursor[4] = { 0 };	/* per top: the next free sector */
		const struct bm_disk_stats *const *disks;
		size_t i, k, n;

		for (i = 0; i < 300; i++) {
			int which = rnd(&t, 4), op = rnd(&t, 2);
			uint32_t sectors = sizes[rnd(&t, sizeof(sizes) / sizeof(sizes[0]))];
			uint64_t s = cursor[which] + 8 * rnd(&t, 4);

			cursor[which] = s + sectors;
			/* the stripe's chunks must not meet the partition's own I/O */
			io(&t, 1000 + 20 * i + rnd(&t, 400), tops[which],
			   tops[which] == DM ? s + (1ULL << 24) : s, sectors, op);
		}
		qsort(t.ev, t.n, sizeof(*t.ev), by_time);
		for (i = 0; i < t.n; i++)
			bm_analysis_event(a, &t.ev[i].io, span(t.ev[i].io.dev),
					  t.ev[i].io.kind == BM_EV_BIO_REMAP ?
					  span(t.ev[i].io.old_dev) : NULL);
		bm_analysis_finish(a);
		n = bm_analysis_disks(a, &disks);
		for (k = 0; k < n; k++) {
			int d = index_of(disks[k]->dev);

			ck_assert_int_ge(d, 0);
			ck_assert_msg(disks[k]->reads == t.ios[d][0] && disks[k]->writes == t.ios[d][1],
				      "seed %u, %s: %llu reads and %llu writes, the kernel's %llu and %llu",
				      seed, spans[d].name, (unsigned long long)disks[k]->reads,
				      (unsigned long long)disks[k]->writes,
				      (unsigned long long)t.ios[d][0], (unsigned long long)t.ios[d][1]);
			ck_assert_msg(disks[k]->read_bytes == t.bytes[d][0] &&
				      disks[k]->write_bytes == t.bytes[d][1],
				      "seed %u, %s: %llu and %llu bytes, the kernel's %llu and %llu",
				      seed, spans[d].name, (unsigned long long)disks[k]->read_bytes,
				      (unsigned long long)disks[k]->write_bytes,
				      (unsigned long long)t.bytes[d][0], (unsigned long long)t.bytes[d][1]);
		}
		ck_assert_uint_eq(n, NDEVS);
		bm_analysis_free(a);
		free(t.ev);
	}
}
END_TEST

Suite *suite_stacks(void)
{
	Suite *s = suite_create("stacks");
	TCase *tc = tcase_create("stacks");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, random_stacks_count_as_the_kernel_does);
	suite_add_tcase(s, tc);
	return s;
}
