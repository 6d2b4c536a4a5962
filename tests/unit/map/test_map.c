// SPDX-License-Identifier: GPL-2.0-only
/* The device map model on scripted sequences of observations. */
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/report/mapview.h"
#include "blkmap/map/names.h"
#include "blkmap/tracefile/decode.h"

#include "helpers.h"

#define MS 1000000ULL

static struct bm_map *map;
static struct bm_label_cache cache;

static void setup(void)
{
	map = bm_map_new();
	memset(&cache, 0, sizeof(cache));
}

static void teardown(void)
{
	bm_map_free(map);
}

static void observe(enum bm_obs_type type, uint64_t ts, uint32_t dev, const char *name,
		    unsigned by, uint64_t after)
{
	struct bm_obs o = { .type = type, .ts = ts, .dev = dev, .name = name, .by = by,
			    .after = after, .exact = by == BM_SRC_TRACEPOINT, .kind = BM_DISK };

	bm_map_observe(map, &o);
}

static void uevent(const char *action, uint64_t ts, uint32_t dev, const char *name,
		   uint64_t after)
{
	observe(!strcmp(action, "add") ? BM_OBS_ADD : BM_OBS_REMOVE, ts, dev, name,
		BM_SRC_UEVENT, after);
}

static void part_uevent(const char *action, uint64_t ts, uint32_t dev, const char *name,
			const char *parent, uint64_t after)
{
	struct bm_obs o = { .type = !strcmp(action, "add") ? BM_OBS_ADD : BM_OBS_REMOVE,
			    .ts = ts, .dev = dev, .name = name, .parent = parent,
			    .by = BM_SRC_UEVENT, .after = after, .kind = BM_PARTITION };

	bm_map_observe(map, &o);
}

static void dump(uint64_t begin, const uint32_t *devs, const char *const *names, int n,
		 uint64_t end)
{
	int i;

	observe(BM_OBS_DUMP_BEGIN, begin, 0, NULL, 0, 0);
	for (i = 0; i < n; i++)
		observe(BM_OBS_PRESENT, begin + (i + 1) * 1000, devs[i], names[i], BM_SRC_SYSFS, 0);
	observe(BM_OBS_DUMP_END, end, 0, NULL, 0, 0);
}

/* Every answer is asked of the cache too, which must agree. */
static const char *name_at(uint32_t dev, uint64_t ts, enum bm_label_basis *basis)
{
	enum bm_label_basis b, cached_basis;
	const struct bm_span *s = bm_map_label(map, dev, ts, 0, basis ? basis : &b);

	ck_assert_ptr_eq(bm_map_label_cached(map, &cache, dev, ts, 0, &cached_basis), s);
	ck_assert_int_eq(cached_basis, basis ? *basis : b);
	return s ? s->name : NULL;
}

#define ZRAM1 BM_MKDEV(253, 1)
#define P0 BM_MKDEV(259, 0)

START_TEST(reuse_of_one_dev_t_gives_two_incarnations)
{
	enum bm_label_basis b;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	uevent("add", 10 * MS, ZRAM1, "zram1", 9 * MS);
	uevent("remove", 20 * MS, ZRAM1, "zram1", 19 * MS);
	uevent("add", 30 * MS, ZRAM1, "nullb-beta", 29 * MS);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_str_eq(bm_map_span(map, 0)->name, "zram1");
	ck_assert_str_eq(bm_map_span(map, 1)->name, "nullb-beta");
	ck_assert_str_eq(name_at(ZRAM1, 15 * MS, &b), "zram1");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_str_eq(name_at(ZRAM1, 40 * MS, &b), "nullb-beta");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	/* Windows come from the fresh uevents' lower bounds. */
	ck_assert_uint_eq(bm_map_span(map, 0)->to.lo, 19 * MS);
	ck_assert_uint_eq(bm_map_span(map, 0)->to.hi, 20 * MS);
	ck_assert(!bm_map_span(map, 1)->to.known);
}
END_TEST

/* The cache, swept forwards and backwards over incarnations and their windows. */
START_TEST(remembered_labels_agree_at_every_time)
{
	uint64_t ts;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	uevent("add", 10 * MS, ZRAM1, "zram1", 9 * MS);
	uevent("remove", 20 * MS, ZRAM1, "zram1", 19 * MS);
	uevent("add", 30 * MS, ZRAM1, "nullb-beta", 29 * MS);
	uevent("remove", 40 * MS, ZRAM1, "nullb-beta", 35 * MS);
	uevent("add", 41 * MS, ZRAM1, "zram1", 0);
	bm_map_finish(map, 0, 100 * MS);
	for (ts = 0; ts <= 100 * MS; ts += MS / 4)
		name_at(ZRAM1, ts, NULL);
	for (ts = 100 * MS; ts >= MS / 3; ts -= MS / 3)
		name_at(ZRAM1, ts, NULL);
	for (ts = 1; ts <= 100 * MS; ts = ts * 3 + 1)
		name_at(ZRAM1, 100 * MS - ts, NULL);
	ck_assert_str_eq(name_at(ZRAM1, 12 * MS, NULL), "zram1");
	ck_assert_str_eq(name_at(ZRAM1, 32 * MS, NULL), "nullb-beta");
}
END_TEST

START_TEST(io_after_a_removal_belongs_to_the_next_incarnation_known_later)
{
	enum bm_label_basis b;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	uevent("add", 10 * MS, ZRAM1, "alpha", 9 * MS);
	uevent("remove", 20 * MS, ZRAM1, "alpha", 19 * MS);
	/* The new device's add marker arrives at 30 ms, after its first I/O at 25 ms. */
	uevent("add", 30 * MS, ZRAM1, "beta", 0);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_str_eq(name_at(ZRAM1, 25 * MS, &b), "beta");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_str_eq(name_at(ZRAM1, 18 * MS, &b), "alpha");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
}
END_TEST

START_TEST(a_registration_tracepoint_makes_the_add_exact)
{
	const struct bm_span *s;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	observe(BM_OBS_REGISTER, 9500000, ZRAM1, NULL, BM_SRC_TRACEPOINT, 0);
	uevent("add", 10 * MS, ZRAM1, "zram1", 0);
	bm_map_finish(map, 0, 100 * MS);
	s = bm_map_span(map, 0);
	ck_assert(s->from.known);
	ck_assert_uint_eq(s->from.lo, 9500000);
	ck_assert_uint_eq(s->from.hi, 9500000);
	ck_assert(s->from.by & BM_SRC_TRACEPOINT);
}
END_TEST

START_TEST(a_registration_caps_the_previous_removal)
{
	dump(1 * MS, (uint32_t[]){ ZRAM1 }, (const char *[]){ "zram1" }, 1, 2 * MS);
	/* Re-created before the remove uevent of the old one was read. */
	observe(BM_OBS_REGISTER, 15 * MS, ZRAM1, NULL, BM_SRC_TRACEPOINT, 0);
	uevent("remove", 16 * MS, ZRAM1, "zram1", 0);
	uevent("add", 17 * MS, ZRAM1, "zram1", 0);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_uint_le(bm_map_span(map, 0)->to.hi, 15 * MS);
	ck_assert_uint_eq(bm_map_span(map, 1)->from.lo, 15 * MS);
	ck_assert_str_eq(name_at(ZRAM1, 15 * MS + 1, NULL), "zram1");
	ck_assert_ptr_eq(bm_map_label(map, ZRAM1, 15 * MS + 1, 0, &(enum bm_label_basis){ 0 }),
			 bm_map_span(map, 1));
}
END_TEST

/*
 * Without diskseq (5.10), zram1 made three times with the tracepoint and
 * uevents: each add uevent of a new incarnation comes after the previous
 * one's remove uevent, so it cannot be the late word on an earlier add.
 */
START_TEST(a_reused_name_without_diskseq_after_its_removal_uevent_is_a_new_incarnation)
{
	uint64_t t;
	size_t i;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	for (t = 10 * MS; t <= 30 * MS; t += 10 * MS) {
		observe(BM_OBS_REGISTER, t, ZRAM1, NULL, BM_SRC_TRACEPOINT, 0);
		uevent("add", t + 2 * MS, ZRAM1, "zram1", 0);
		uevent("remove", t + 6 * MS, ZRAM1, "zram1", t + 3 * MS);
	}
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 3);
	for (i = 0; i < 3; i++) {
		const struct bm_span *s = bm_map_span(map, i);

		ck_assert_str_eq(s->name, "zram1");
		ck_assert_uint_eq(s->from.lo, (i + 1) * 10 * MS);
		ck_assert_uint_eq(s->from.hi, (i + 1) * 10 * MS);
		ck_assert_ptr_eq(bm_map_label(map, ZRAM1, (i + 1) * 10 * MS + 4 * MS, 0,
					      &(enum bm_label_basis){ 0 }), s);
	}
}
END_TEST

/*
 * Before diskseq (5.10): a loop device bound (bd_set_nr_sectors() to a
 * size) and unbound (to 0) twice, each attachment named by the listener's
 * change uevent: each attachment an incarnation of its own, with its file,
 * between exact boundaries; the second does not keep the first's file.
 */
START_TEST(loop_attachments_without_diskseq_are_incarnations_with_their_files)
{
	static const char *const files[] = { "/srv/a.img", "/srv/b.img" };
	struct bm_obs o = { .type = BM_OBS_PRESENT, .ts = 1 * MS, .by = BM_SRC_KPROBE,
			    .exact = true, .dev = BM_MKDEV(7, 0), .name = "loop0",
			    .kind = BM_DISK };
	const struct bm_span *s;
	int i;

	bm_map_observe(map, &o);
	for (i = 0; i < 2; i++) {
		uint64_t t = (10 + 20 * i) * MS;

		o = (struct bm_obs){ .type = BM_OBS_CHANGE, .ts = t, .exact = true, .attach = true,
				     .by = BM_SRC_KPROBE, .dev = BM_MKDEV(7, 0), .name = "loop0",
				     .kind = BM_DISK };
		bm_map_observe(map, &o);
		o = (struct bm_obs){ .type = BM_OBS_CHANGE, .ts = t + 2 * MS, .after = t - MS,
				     .by = BM_SRC_UEVENT, .dev = BM_MKDEV(7, 0), .name = "loop0",
				     .kind = BM_DISK, .backing = files[i] };
		bm_map_observe(map, &o);
		o = (struct bm_obs){ .type = BM_OBS_DETACH, .ts = t + 5 * MS, .exact = true,
				     .by = BM_SRC_KPROBE, .dev = BM_MKDEV(7, 0), .name = "loop0",
				     .kind = BM_DISK, .empty = true };
		bm_map_observe(map, &o);
		o = (struct bm_obs){ .type = BM_OBS_CHANGE, .ts = t + 7 * MS, .after = t + 4 * MS,
				     .by = BM_SRC_UEVENT, .dev = BM_MKDEV(7, 0), .name = "loop0",
				     .kind = BM_DISK };
		bm_map_observe(map, &o);
	}
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 5);
	for (i = 0; i < 2; i++) {
		uint64_t t = (10 + 20 * i) * MS;

		s = bm_map_span(map, 1 + 2 * i);
		ck_assert_str_eq(s->backing, files[i]);
		ck_assert_uint_eq(s->from.lo, t);
		ck_assert_uint_eq(s->from.hi, t);
		ck_assert_uint_eq(s->to.lo, t + 5 * MS);
		ck_assert_uint_eq(s->to.hi, t + 5 * MS);
		ck_assert_str_eq(bm_map_span(map, 2 + 2 * i)->backing, "");
		ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), t + 3 * MS, 0,
					      &(enum bm_label_basis){ 0 }), s);
	}
}
END_TEST

START_TEST(a_partition_rescan_removes_and_re_adds_every_partition)
{
	static const uint32_t devs[] = { BM_MKDEV(8, 0), BM_MKDEV(8, 1), BM_MKDEV(8, 2) };
	static const char *const names[] = { "sda", "sda1", "sda2" };

	dump(1 * MS, devs, names, 3, 2 * MS);
	part_uevent("remove", 10 * MS, devs[1], "sda1", "sda", 9 * MS);
	part_uevent("remove", 11 * MS, devs[2], "sda2", "sda", 10 * MS);
	part_uevent("add", 12 * MS, devs[1], "sda1", "sda", 11 * MS);
	part_uevent("add", 13 * MS, devs[2], "sda2", "sda", 12 * MS);
	dump(50 * MS, devs, names, 3, 51 * MS);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 5);	/* sda, sda1 x2, sda2 x2 */
	ck_assert(!bm_map_span(map, 0)->to.known);
	ck_assert(bm_map_span(map, 1)->to.known);
	ck_assert_str_eq(bm_map_span(map, 2)->name, "sda1");
	ck_assert_uint_eq(bm_map_span(map, 2)->from.lo, 11 * MS);
	ck_assert_ptr_eq(bm_map_label(map, devs[1], 5 * MS, 0, &(enum bm_label_basis){ 0 }),
			 bm_map_span(map, 1));
	ck_assert_ptr_eq(bm_map_label(map, devs[1], 60 * MS, 0, &(enum bm_label_basis){ 0 }),
			 bm_map_span(map, 2));
}
END_TEST

START_TEST(a_statedump_racing_an_add_is_one_incarnation)
{
	const struct bm_span *s;

	/* Added at ~1.5 ms: the dump lists it, its uevent marker comes after. */
	dump(1 * MS, (uint32_t[]){ ZRAM1 }, (const char *[]){ "zram1" }, 1, 2 * MS);
	uevent("add", 3 * MS, ZRAM1, "zram1", 0);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 1);
	s = bm_map_span(map, 0);
	ck_assert(s->from.known);
	ck_assert_uint_le(s->from.hi, 1 * MS + 1000);	/* the dump saw it by then */
	ck_assert(s->from.by & BM_SRC_UEVENT);
}
END_TEST

/* The late uevent's window holds the dump's: the dump decided the removal, alone. */
START_TEST(a_statedump_racing_a_remove_decides_it_not_the_late_uevent)
{
	const struct bm_span *s;

	dump(1 * MS, (uint32_t[]){ ZRAM1 }, (const char *[]){ "zram1" }, 1, 2 * MS);
	/* Removed during the end dump, which no longer lists it. */
	dump(50 * MS, NULL, NULL, 0, 52 * MS);
	uevent("remove", 53 * MS, ZRAM1, "zram1", 0);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 1);
	s = bm_map_span(map, 0);
	ck_assert(s->to.known);
	ck_assert_uint_eq(s->to.hi, 52 * MS);
	ck_assert(s->to.by & BM_SRC_SYSFS);
	ck_assert(!(s->to.by & BM_SRC_UEVENT));
}
END_TEST

START_TEST(a_lost_removal_is_inferred_and_reported)
{
	const struct bm_conflict *c;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	uevent("add", 10 * MS, ZRAM1, "alpha", 9 * MS);
	/* The remove uevent of alpha was lost. */
	uevent("add", 30 * MS, ZRAM1, "beta", 29 * MS);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert(bm_map_span(map, 0)->to.by & BM_SRC_INFERENCE);
	ck_assert_uint_eq(bm_map_conflicts(map, &c), 1);
	ck_assert_ptr_nonnull(strstr(c[0].text, "alpha"));
	ck_assert_ptr_nonnull(strstr(c[0].text, "beta"));
}
END_TEST

/* --conflicts names the incarnation a conflict is about, with its life. */
START_TEST(a_conflict_row_carries_its_incarnation)
{
	const struct bm_conflict *c;
	const struct bm_span *alpha;
	enum bm_label_basis b;
	char *out = NULL, want[128];
	size_t size;
	FILE *f;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	uevent("add", 10 * MS, ZRAM1, "alpha", 9 * MS);
	uevent("add", 30 * MS, ZRAM1, "beta", 29 * MS);	/* alpha's remove lost */
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_conflicts(map, &c), 1);
	ck_assert(c[0].has_dev);
	ck_assert_uint_eq(c[0].dev, ZRAM1);
	alpha = bm_map_span(map, 0);
	ck_assert_str_eq(alpha->name, "alpha");
	ck_assert_ptr_eq(bm_map_label(map, c[0].dev, c[0].at, 0, &b), alpha);
	f = open_memstream(&out, &size);
	bm_view_conflicts(f, BM_FORMAT_JSON, map, &(struct bm_map_view_opts){ 0 });
	fclose(f);
	snprintf(want, sizeof(want), "\"dev\":\"253:1\",\"incarnation\":\"253:1#1\","
		 "\"from_ns\":%llu,\"to_ns\":%llu,", (unsigned long long)alpha->from.hi,
		 (unsigned long long)alpha->to.hi);
	ck_assert_msg(strstr(out, want), "%s lacks %s", out, want);
	free(out);
}
END_TEST

START_TEST(a_statedump_contradicting_the_map_is_a_conflict)
{
	const struct bm_conflict *c;

	dump(1 * MS, (uint32_t[]){ ZRAM1 }, (const char *[]){ "alpha" }, 1, 2 * MS);
	dump(50 * MS, (uint32_t[]){ ZRAM1 }, (const char *[]){ "beta" }, 1, 52 * MS);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_uint_eq(bm_map_conflicts(map, &c), 1);
	ck_assert_ptr_nonnull(strstr(c[0].text, "statedump"));
	ck_assert_str_eq(name_at(ZRAM1, 10 * MS, NULL), "alpha");
	ck_assert_str_eq(name_at(ZRAM1, 60 * MS, NULL), "beta");
}
END_TEST

START_TEST(the_parent_disk_picks_among_overlapping_partitions)
{
	enum bm_label_basis b;
	const struct bm_span *s;

	dump(1 * MS, (uint32_t[]){ BM_MKDEV(7, 0), BM_MKDEV(7, 1) },
	     (const char *[]){ "loop0", "loop1" }, 2, 2 * MS);
	part_uevent("add", 10 * MS, P0, "loop0p1", "loop0", 9 * MS);
	/* Not fresh: the removal may have happened any time after the add. */
	part_uevent("remove", 30 * MS, P0, "loop0p1", "loop0", 0);
	part_uevent("add", 31 * MS, P0, "loop1p1", "loop1", 0);
	bm_map_finish(map, 0, 100 * MS);

	s = bm_map_label(map, P0, 20 * MS, BM_MKDEV(7, 1), &b);
	ck_assert_str_eq(s->name, "loop1p1");
	ck_assert_int_eq(b, BM_LABEL_PARENT);
	s = bm_map_label(map, P0, 20 * MS, BM_MKDEV(7, 0), &b);
	ck_assert_str_eq(s->name, "loop0p1");
	ck_assert_int_eq(b, BM_LABEL_PARENT);
	s = bm_map_label(map, P0, 20 * MS, 0, &b);
	ck_assert_int_eq(b, BM_LABEL_GUESS);
}
END_TEST

START_TEST(a_device_never_seen_is_unknown)
{
	enum bm_label_basis b;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_ptr_null(name_at(ZRAM1, 10 * MS, &b));
	ck_assert_int_eq(b, BM_LABEL_UNKNOWN);
}
END_TEST

START_TEST(io_after_the_last_removal_is_unknown)
{
	enum bm_label_basis b;

	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	uevent("add", 10 * MS, ZRAM1, "alpha", 9 * MS);
	uevent("remove", 20 * MS, ZRAM1, "alpha", 19 * MS);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_ptr_null(name_at(ZRAM1, 21 * MS, &b));
	ck_assert_int_eq(b, BM_LABEL_UNKNOWN);
}
END_TEST

/* ---- every source at once ---- */

/* A kernel-side record, exact: a kprobe's or the module's. */
static void exact(enum bm_obs_type type, uint64_t ts, uint32_t dev, const char *name,
		  const char *parent, uint64_t diskseq)
{
	struct bm_obs o = { .type = type, .ts = ts, .dev = dev, .name = name, .parent = parent,
			    .by = BM_SRC_KPROBE, .exact = true, .diskseq = diskseq,
			    .kind = parent ? BM_PARTITION : BM_DISK };

	bm_map_observe(map, &o);
}

/*
 * One BLKRRPART: loop0p1 removed and re-added within 10 µs, both exact;
 * the listener's uevents for them come 100 and 200 µs later. They are the
 * late word on what the kernel records already said: two incarnations, not
 * three, and I/O between them is the new one's for certain.
 */
START_TEST(late_uevents_of_an_exact_remove_and_re_add_change_nothing)
{
	enum bm_label_basis b;

	exact(BM_OBS_ADD, 1 * MS, P0, "loop0p1", "loop0", 0);
	exact(BM_OBS_REMOVE, 10 * MS, P0, "loop0p1", "loop0", 0);
	exact(BM_OBS_ADD, 10 * MS + 10000, P0, "loop0p1", "loop0", 0);
	part_uevent("remove", 10 * MS + 100000, P0, "loop0p1", "loop0", 9 * MS);
	part_uevent("add", 10 * MS + 200000, P0, "loop0p1", "loop0", 9 * MS);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_uint_eq(bm_map_span(map, 0)->to.lo, 10 * MS);
	ck_assert_uint_eq(bm_map_span(map, 0)->to.hi, 10 * MS);
	ck_assert_uint_eq(bm_map_span(map, 1)->from.lo, 10 * MS + 10000);
	ck_assert_uint_eq(bm_map_span(map, 1)->from.hi, 10 * MS + 10000);
	/* Decided by the kernel records alone. */
	ck_assert_uint_eq(bm_map_span(map, 0)->to.by, BM_SRC_KPROBE);
	ck_assert_uint_eq(bm_map_span(map, 1)->from.by, BM_SRC_KPROBE);
	ck_assert(!bm_map_span(map, 1)->to.known);
	ck_assert_str_eq(name_at(P0, 10 * MS + 50000, &b), "loop0p1");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_ptr_eq(bm_map_label(map, P0, 10 * MS + 50000, 0, &b), bm_map_span(map, 1));
}
END_TEST

/* An add and removal seen exactly, then the add's uevent: no third incarnation. */
START_TEST(a_late_add_uevent_of_a_gone_device_opens_nothing)
{
	exact(BM_OBS_ADD, 10 * MS, ZRAM1, "zram1", NULL, 7);
	exact(BM_OBS_REMOVE, 12 * MS, ZRAM1, "zram1", NULL, 7);
	uevent("add", 13 * MS, ZRAM1, "zram1", 9 * MS);
	uevent("remove", 14 * MS, ZRAM1, "zram1", 9 * MS);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 1);
	ck_assert_uint_eq(bm_map_span(map, 0)->to.hi, 12 * MS);
	ck_assert_ptr_null(name_at(ZRAM1, 20 * MS, NULL));
}
END_TEST

/*
 * The start dump lists zram1 with diskseq 5; an exact add of zram1 with
 * diskseq 9 comes without a removal (lost): another disk, not the same one
 * added late. I/O before the add is the first one's.
 */
START_TEST(another_diskseq_is_another_incarnation)
{
	struct bm_obs present = { .type = BM_OBS_PRESENT, .ts = 1 * MS + 1000, .dev = ZRAM1,
				  .name = "zram1", .by = BM_SRC_SYSFS, .diskseq = 5 };
	const struct bm_conflict *c;
	enum bm_label_basis b;

	observe(BM_OBS_DUMP_BEGIN, 1 * MS, 0, NULL, BM_SRC_SYSFS, 0);
	bm_map_observe(map, &present);
	observe(BM_OBS_DUMP_END, 2 * MS, 0, NULL, 0, 0);
	exact(BM_OBS_ADD, 20 * MS, ZRAM1, "zram1", NULL, 9);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_uint_eq(bm_map_span(map, 0)->diskseq, 5);
	ck_assert_uint_eq(bm_map_span(map, 1)->diskseq, 9);
	ck_assert_uint_eq(bm_map_span(map, 1)->from.lo, 20 * MS);
	ck_assert_ptr_eq(bm_map_label(map, ZRAM1, 5 * MS, 0, &b), bm_map_span(map, 0));
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_ptr_eq(bm_map_label(map, ZRAM1, 30 * MS, 0, &b), bm_map_span(map, 1));
	ck_assert_uint_eq(bm_map_conflicts(map, &c), 1);
}
END_TEST

/*
 * A loop device attached to one file, then another, without a removal: each
 * attachment's change uevent carries a greater diskseq, and each is an
 * incarnation of its own from its change (within the uevent's window). A
 * change with the same diskseq (a detach's, sent before the kernel counts
 * it) or an older one (late news) opens none. Its I/O is labelled by
 * attachment.
 */
static void change(uint64_t ts, uint64_t diskseq, uint64_t after)
{
	struct bm_obs o = { .type = BM_OBS_CHANGE, .ts = ts, .dev = BM_MKDEV(7, 0),
			    .name = "loop0", .by = BM_SRC_UEVENT, .after = after,
			    .kind = BM_DISK, .diskseq = diskseq };

	bm_map_observe(map, &o);
}

START_TEST(a_diskseq_grown_without_a_removal_is_another_incarnation)
{
	struct bm_obs present = { .type = BM_OBS_PRESENT, .ts = 1 * MS + 1000,
				  .dev = BM_MKDEV(7, 0), .name = "loop0", .by = BM_SRC_SYSFS,
				  .diskseq = 19, .kind = BM_DISK };
	enum bm_label_basis b;

	observe(BM_OBS_DUMP_BEGIN, 1 * MS, 0, NULL, BM_SRC_SYSFS, 0);
	bm_map_observe(map, &present);
	observe(BM_OBS_DUMP_END, 2 * MS, 0, NULL, 0, 0);
	change(10 * MS, 22, 9 * MS);	/* attach */
	change(20 * MS, 22, 19 * MS);	/* detach: the old diskseq */
	change(30 * MS, 24, 29 * MS);	/* attach to another file */
	change(31 * MS, 23, 30 * MS);	/* late news of the detach */
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 3);
	ck_assert_uint_eq(bm_map_span(map, 0)->diskseq, 19);
	ck_assert_uint_eq(bm_map_span(map, 1)->diskseq, 22);
	ck_assert_uint_eq(bm_map_span(map, 2)->diskseq, 24);
	ck_assert_uint_eq(bm_map_span(map, 0)->to.lo, 9 * MS);
	ck_assert_uint_eq(bm_map_span(map, 0)->to.hi, 10 * MS);
	ck_assert_uint_eq(bm_map_span(map, 1)->from.lo, 9 * MS);
	ck_assert_uint_eq(bm_map_span(map, 1)->from.hi, 10 * MS);
	ck_assert_uint_eq(bm_map_span(map, 2)->from.hi, 30 * MS);
	ck_assert(!bm_map_span(map, 2)->to.known);
	ck_assert_uint_eq(bm_map_span(map, 2)->nth, 3);
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 5 * MS, 0, &b), bm_map_span(map, 0));
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 15 * MS, 0, &b), bm_map_span(map, 1));
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 40 * MS, 0, &b), bm_map_span(map, 2));
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	/* Within the change's window: the new attachment, as a guess. */
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 29 * MS + 500000, 0, &b),
			 bm_map_span(map, 2));
	ck_assert_int_eq(b, BM_LABEL_GUESS);
}
END_TEST

/*
 * Two physical disks pulled and inserted as sda on 8:0, one after the
 * other: exact kprobe boundaries, then the listener's adds with the serial
 * each reported. Each incarnation carries its own.
 */
START_TEST(each_incarnation_carries_the_serial_its_disk_reported)
{
	static const char *const serials[] = { "WD-WMC4N0123456", "S3Z9NB0K654321X" };
	int i;

	for (i = 0; i < 2; i++) {
		uint64_t at = (10 + 20 * i) * MS;
		struct bm_obs seen = { .type = BM_OBS_ADD, .ts = at + MS / 2, .after = at,
				       .dev = BM_MKDEV(8, 0), .name = "sda", .by = BM_SRC_UEVENT,
				       .kind = BM_DISK, .serial = serials[i] };

		exact(BM_OBS_ADD, at, BM_MKDEV(8, 0), "sda", NULL, 0);
		bm_map_observe(map, &seen);
		exact(BM_OBS_REMOVE, at + 10 * MS, BM_MKDEV(8, 0), "sda", NULL, 0);
	}
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_str_eq(bm_map_span(map, 0)->serial, serials[0]);
	ck_assert_str_eq(bm_map_span(map, 1)->serial, serials[1]);
}
END_TEST

/*
 * dm-0 created as vg0-data (the name comes with the change uevent of its
 * first resume), renamed vg0-old, removed; dm-0 again as vg0-logs. Each
 * event gets the name valid at its time; a rename seen between two uevent
 * markers counts from the later; --disk finds an incarnation by any name.
 */
START_TEST(device_mapper_names_are_labels_over_time)
{
	static const struct {
		enum bm_obs_type type;
		uint64_t ts, after;
		const char *dm;
	} seen[] = {
		{ BM_OBS_ADD, 10, 9, "" },
		{ BM_OBS_CHANGE, 11, 10, "vg0-data" },
		{ BM_OBS_CHANGE, 30, 25, "vg0-old" },
		{ BM_OBS_CHANGE, 35, 31, "vg0-old" },	/* a resume: the same name */
		{ BM_OBS_REMOVE, 50, 45, "" },
		{ BM_OBS_ADD, 60, 55, "" },
		{ BM_OBS_CHANGE, 61, 60, "vg0-logs" },
	};
	const struct bm_span *first, *second;
	size_t i;

	for (i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
		struct bm_obs o = { .type = seen[i].type, .ts = seen[i].ts * MS,
				    .after = seen[i].after * MS, .dev = BM_MKDEV(254, 0),
				    .name = "dm-0", .by = BM_SRC_UEVENT, .kind = BM_DISK,
				    .dm = seen[i].dm };

		bm_map_observe(map, &o);
	}
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	first = bm_map_span(map, 0);
	second = bm_map_span(map, 1);
	ck_assert_uint_eq(first->ndm, 2);
	ck_assert_str_eq(first->dm, "vg0-data");
	ck_assert_str_eq(bm_span_dm_at(first, 12 * MS), "vg0-data");
	ck_assert_str_eq(bm_span_dm_at(first, 27 * MS), "vg0-data");	/* within the window */
	ck_assert_str_eq(bm_span_dm_at(first, 30 * MS), "vg0-old");
	ck_assert_uint_eq(first->dm_names[1].lo, 25 * MS);
	ck_assert_uint_eq(first->dm_names[1].hi, 30 * MS);
	ck_assert_str_eq(bm_span_dm_at(second, 70 * MS), "vg0-logs");
	ck_assert(bm_span_named(first, "vg0-old") && bm_span_named(first, "dm-0"));
	ck_assert(!bm_span_named(first, "vg0-logs") && bm_span_named(second, "vg0-logs"));
}
END_TEST

/* The same diskseq under the same name is the same disk, whichever source says it. */
START_TEST(the_same_diskseq_from_every_source_is_one_incarnation)
{
	struct bm_obs ue = { .type = BM_OBS_ADD, .ts = 11 * MS, .dev = ZRAM1, .name = "zram1",
			     .by = BM_SRC_UEVENT, .diskseq = 9 };

	exact(BM_OBS_ADD, 10 * MS, ZRAM1, "zram1", NULL, 9);
	bm_map_observe(map, &ue);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 1);
	ck_assert_uint_eq(bm_map_span(map, 0)->from.lo, 10 * MS);
	ck_assert_uint_eq(bm_map_span(map, 0)->from.hi, 10 * MS);
}
END_TEST

/*
 * A kernel-side statedump that lists nothing (the probe missed, the call
 * was inlined) while the sysfs dump before it listed zram1: a failed dump,
 * which closes nothing, and says so.
 */
START_TEST(an_empty_kernel_dump_closes_nothing)
{
	const struct bm_conflict *c;
	enum bm_label_basis b;

	dump(1 * MS, (uint32_t[]){ ZRAM1 }, (const char *[]){ "zram1" }, 1, 2 * MS);
	observe(BM_OBS_DUMP_BEGIN, 5 * MS, 0, NULL, BM_SRC_KPROBE, 0);
	observe(BM_OBS_DUMP_END, 6 * MS, 0, NULL, 0, 0);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 1);
	ck_assert(!bm_map_span(map, 0)->to.known);
	ck_assert_str_eq(name_at(ZRAM1, 50 * MS, &b), "zram1");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_uint_eq(bm_map_conflicts(map, &c), 1);
	ck_assert_ptr_nonnull(strstr(c[0].text, "statedump"));
}
END_TEST

/* A dump that lists fewer devices than it says it saw failed; one that lists them all did not. */
START_TEST(a_dump_short_of_its_own_count_closes_nothing)
{
	struct bm_obs end = { .type = BM_OBS_DUMP_END, .ts = 6 * MS, .listed = 2 };
	uint32_t two[] = { ZRAM1, BM_MKDEV(7, 0) };
	const char *names[] = { "zram1", "loop0" };

	dump(1 * MS, two, names, 2, 2 * MS);
	/* Says it saw 2 devices, listed 1. */
	observe(BM_OBS_DUMP_BEGIN, 5 * MS, 0, NULL, BM_SRC_KPROBE, 0);
	observe(BM_OBS_PRESENT, 5 * MS + 10, BM_MKDEV(7, 0), "loop0", BM_SRC_KPROBE, 0);
	bm_map_observe(map, &end);
	/* Says it saw 1, listed 1: zram1 is gone. */
	observe(BM_OBS_DUMP_BEGIN, 8 * MS, 0, NULL, BM_SRC_KPROBE, 0);
	observe(BM_OBS_PRESENT, 8 * MS + 10, BM_MKDEV(7, 0), "loop0", BM_SRC_KPROBE, 0);
	end.ts = 9 * MS;
	end.listed = 1;
	bm_map_observe(map, &end);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_str_eq(name_at(ZRAM1, 7 * MS, NULL), "zram1");
	ck_assert_ptr_null(name_at(ZRAM1, 20 * MS, NULL));
	/* The kprobe dump closed it, and is named so. */
	ck_assert_str_eq(bm_map_span(map, 1)->name, "zram1");
	ck_assert_uint_eq(bm_map_span(map, 1)->to.by, BM_SRC_KPROBE);
}
END_TEST

/*
 * Events lost between 20 and 30 ms: a change may have happened unseen, so a
 * label in the gap is a guess, however alone its incarnation looks; on
 * either side it is certain again. The cache must agree at every step.
 */
START_TEST(labels_in_a_loss_gap_are_guesses)
{
	enum bm_label_basis b;

	dump(1 * MS, (uint32_t[]){ ZRAM1 }, (const char *[]){ "zram1" }, 1, 2 * MS);
	bm_map_lost(map, 20 * MS, 30 * MS);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_str_eq(name_at(ZRAM1, 10 * MS, &b), "zram1");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_str_eq(name_at(ZRAM1, 25 * MS, &b), "zram1");
	ck_assert_int_eq(b, BM_LABEL_GUESS);
	ck_assert_str_eq(name_at(ZRAM1, 35 * MS, &b), "zram1");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_str_eq(name_at(ZRAM1, 20 * MS, &b), "zram1");
	ck_assert_int_eq(b, BM_LABEL_GUESS);
	ck_assert_str_eq(name_at(ZRAM1, 19 * MS, &b), "zram1");
	ck_assert_int_eq(b, BM_LABEL_ONLY);
}
END_TEST

/*
 * The recorder stopped while null_blk devices churned: the kernel records of
 * nb1's removal were lost, and the listener's uevents, queued meanwhile, all
 * come after the last exact record. Their diskseq names the incarnations
 * they are about, all past: they open nothing.
 */
START_TEST(late_uevents_of_past_incarnations_open_nothing)
{
	struct bm_obs ue = { .dev = BM_MKDEV(254, 0), .by = BM_SRC_UEVENT, .kind = BM_DISK };
	static const struct { enum bm_obs_type type; const char *name; uint64_t seq; } late[] = {
		{ BM_OBS_ADD, "nb1", 10 }, { BM_OBS_REMOVE, "nb1", 10 },
		{ BM_OBS_ADD, "nb2", 11 }, { BM_OBS_REMOVE, "nb2", 11 },
	};
	size_t i;

	exact(BM_OBS_ADD, 1 * MS, BM_MKDEV(254, 0), "nb1", NULL, 10);
	exact(BM_OBS_ADD, 2 * MS, BM_MKDEV(254, 0), "nb2", NULL, 11);
	exact(BM_OBS_REMOVE, 3 * MS, BM_MKDEV(254, 0), "nb2", NULL, 11);
	for (i = 0; i < sizeof(late) / sizeof(late[0]); i++) {
		ue.type = late[i].type;
		ue.ts = 5 * MS + i * 100000;
		ue.name = late[i].name;
		ue.diskseq = late[i].seq;
		bm_map_observe(map, &ue);
	}
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_ptr_null(name_at(BM_MKDEV(254, 0), 5 * MS + 50000, NULL));
}
END_TEST

/*
 * nb3 came and went unseen (its kernel records lost); its uevents come after
 * nb8's add and removal, exact. Its diskseq, lower than nb8's, says it came
 * first: it goes between nb1 and nb8, not after them.
 */
START_TEST(an_older_diskseq_goes_before_the_newer_incarnation)
{
	struct bm_obs ue = { .dev = BM_MKDEV(254, 0), .by = BM_SRC_UEVENT, .kind = BM_DISK,
			     .name = "nb3", .diskseq = 12 };

	exact(BM_OBS_ADD, 1 * MS, BM_MKDEV(254, 0), "nb1", NULL, 10);
	exact(BM_OBS_REMOVE, 1 * MS + 500000, BM_MKDEV(254, 0), "nb1", NULL, 10);
	exact(BM_OBS_ADD, 3 * MS, BM_MKDEV(254, 0), "nb8", NULL, 17);
	exact(BM_OBS_REMOVE, 4 * MS, BM_MKDEV(254, 0), "nb8", NULL, 17);
	ue.type = BM_OBS_ADD;
	ue.ts = 5 * MS;
	bm_map_observe(map, &ue);
	ue.type = BM_OBS_REMOVE;
	ue.ts = 5 * MS + 100000;
	bm_map_observe(map, &ue);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 3);
	ck_assert_str_eq(bm_map_span(map, 0)->name, "nb1");
	ck_assert_str_eq(bm_map_span(map, 1)->name, "nb3");
	ck_assert_str_eq(bm_map_span(map, 2)->name, "nb8");
	ck_assert_uint_ge(bm_map_span(map, 1)->from.lo, 1 * MS + 500000);
	ck_assert_uint_le(bm_map_span(map, 1)->to.hi, 3 * MS);
	ck_assert_ptr_null(name_at(BM_MKDEV(254, 0), 4 * MS + 500000, NULL));
	ck_assert_str_eq(name_at(BM_MKDEV(254, 0), 3 * MS + 500000, NULL), "nb8");
}
END_TEST

/* A partition has its disk's diskseq: an older one on a reused number is no older incarnation. */
START_TEST(a_partition_of_an_older_disk_comes_after_all_the_same)
{
	exact(BM_OBS_ADD, 1 * MS, P0, "loop1p1", "loop1", 18);
	exact(BM_OBS_REMOVE, 2 * MS, P0, "loop1p1", "loop1", 18);
	exact(BM_OBS_ADD, 3 * MS, P0, "loop0p2", "loop0", 17);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_str_eq(bm_map_span(map, 1)->name, "loop0p2");
	ck_assert_str_eq(name_at(P0, 50 * MS, NULL), "loop0p2");
}
END_TEST

/*
 * A property: one true history of a device number (incarnations with exact
 * add and removal times, names repeating, diskseq counting up), told by
 * kprobes (exact, when on) and by uevents (late by up to 300 µs, in order,
 * with a lower bound at or before the change), fed in timestamp order. Whatever
 * the delays and whether kprobes are on, the map has the history's
 * incarnations in order, and labels well inside each are certain.
 */
#define PROP_MAX_INC	8
#define PROP_DELAY	(300 * 1000ULL)

struct prop_obs {
	struct bm_obs o;
	unsigned tie;
};

static uint64_t prop_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static int prop_by_time(const void *x, const void *y)
{
	const struct prop_obs *a = x, *b = y;

	if (a->o.ts != b->o.ts)
		return a->o.ts < b->o.ts ? -1 : 1;
	return (a->tie > b->tie) - (a->tie < b->tie);
}

START_TEST(any_interleaving_of_one_history_gives_its_incarnations)
{
	static const char *const names[] = { "loop0p1", "loop0p2", "loop1p1" };
	uint64_t state = 0x9E3779B97F4A7C15ULL * (_i + 1), add[PROP_MAX_INC], rem[PROP_MAX_INC], t;
	struct prop_obs obs[4 * PROP_MAX_INC];
	const char *name[PROP_MAX_INC];
	bool kprobes = _i % 2;
	uint64_t last_uevent = 0;
	int n = 2 + prop_rand(&state) % (PROP_MAX_INC - 1), i, k = 0;

	/* The truth: exact times, gaps between incarnations from 10 µs to 2 ms. */
	t = 10 * MS;
	for (i = 0; i < n; i++) {
		add[i] = t;
		rem[i] = add[i] + 1 * MS + prop_rand(&state) % (5 * MS);
		t = rem[i] + 10000 + prop_rand(&state) % (2 * MS);
		name[i] = names[prop_rand(&state) % 3];
	}
	for (i = 0; i < n; i++) {
		uint64_t changes[2] = { add[i], rem[i] };

		for (int c = 0; c < 2; c++) {
			struct bm_obs o = { .type = c ? BM_OBS_REMOVE : BM_OBS_ADD, .dev = P0,
					    .name = name[i], .parent = "loop0", .kind = BM_PARTITION,
					    .diskseq = 100 + i };

			if (kprobes) {
				o.ts = changes[c];
				o.exact = true;
				o.by = BM_SRC_KPROBE;
				obs[k++] = (struct prop_obs){ o, prop_rand(&state) };
			}
			/* One listener, in the kernel's order: uevents never overtake. */
			o.ts = changes[c] + 1000 + prop_rand(&state) % PROP_DELAY;
			if (o.ts <= last_uevent)
				o.ts = last_uevent + 1;
			last_uevent = o.ts;
			o.after = changes[c] - prop_rand(&state) % PROP_DELAY;
			o.exact = false;
			o.by = BM_SRC_UEVENT;
			o.diskseq = 0;	/* a partition's uevent has none */
			obs[k++] = (struct prop_obs){ o, prop_rand(&state) };
		}
	}
	qsort(obs, k, sizeof(*obs), prop_by_time);
	dump(1 * MS, NULL, NULL, 0, 2 * MS);
	for (i = 0; i < k; i++)
		bm_map_observe(map, &obs[i].o);
	bm_map_finish(map, 0, t + 10 * MS);

	ck_assert_uint_eq(bm_map_count(map), n);
	for (i = 0; i < n; i++) {
		enum bm_label_basis b;
		uint64_t mid = add[i] + PROP_DELAY + 2000 + (rem[i] - add[i] - PROP_DELAY) / 2;

		ck_assert_str_eq(bm_map_span(map, i)->name, name[i]);
		if (kprobes) {
			ck_assert_uint_eq(bm_map_span(map, i)->from.lo, add[i]);
			ck_assert_uint_eq(bm_map_span(map, i)->to.hi, rem[i]);
		}
		ck_assert_msg(mid < rem[i], "history %d: no room inside incarnation %d", _i, i);
		ck_assert_ptr_eq(bm_map_label(map, P0, mid, 0, &b), bm_map_span(map, i));
		ck_assert_msg(b == BM_LABEL_ONLY, "history %d, incarnation %d: basis %s", _i, i,
			      bm_label_basis_name(b));
	}
}
END_TEST

/*
 * loop0 stays while it is attached to a.img, detached, attached to b.img:
 * each attach and detach changes its diskseq (a change uevent with
 * DISK_MEDIA_CHANGE), so each attachment is an incarnation of its own,
 * with its backing file, bounded by the change's window. A dump that read
 * the old diskseq before the change, marked after it, changes nothing.
 * I/O in a detach's window is the attachment's: the detached device has no
 * medium and does none.
 */
START_TEST(each_loop_attachment_is_an_incarnation_with_its_file)
{
	static const char *const files[] = { "/srv/a.img", "", "/srv/b.img" };
	struct bm_obs o = { .dev = BM_MKDEV(7, 0), .name = "loop0", .kind = BM_DISK };
	enum bm_label_basis b;
	const struct bm_span *s;
	int i;

	o.type = BM_OBS_DUMP_BEGIN;
	o.ts = 1 * MS;
	bm_map_observe(map, &o);
	o.type = BM_OBS_PRESENT;
	o.ts = 1 * MS + 1000;
	o.by = BM_SRC_SYSFS;
	o.diskseq = 40;
	bm_map_observe(map, &o);
	o.type = BM_OBS_DUMP_END;
	bm_map_observe(map, &o);
	for (i = 0; i < 3; i++) {
		o.type = BM_OBS_CHANGE;
		o.by = BM_SRC_UEVENT;
		o.after = (10 + 10 * i) * MS;
		o.ts = o.after + MS;
		o.diskseq = 41 + i;
		o.backing = files[i];
		o.empty = !files[i][0];	/* detached: no medium */
		bm_map_observe(map, &o);
	}
	/* The dump of diskseq 42, marked after the attach of 43: late news. */
	o.type = BM_OBS_PRESENT;
	o.by = BM_SRC_SYSFS;
	o.ts = 32 * MS;
	o.after = 0;
	o.diskseq = 42;
	o.backing = NULL;
	bm_map_observe(map, &o);
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 4);
	for (i = 0; i < 3; i++) {
		s = bm_map_span(map, i + 1);
		ck_assert_uint_eq(s->diskseq, 41 + i);
		ck_assert_str_eq(s->backing, files[i]);
		ck_assert_uint_eq(s->from.lo, (10 + 10 * i) * MS);
		ck_assert_uint_eq(s->from.hi, (11 + 10 * i) * MS);
		ck_assert_uint_eq(bm_map_span(map, i)->to.hi, (11 + 10 * i) * MS);
		ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), (15 + 10 * i) * MS, 0, &b), s);
		ck_assert_int_eq(b, BM_LABEL_ONLY);
	}
	ck_assert_ptr_null(bm_map_span(map, 4));
	/* In a detach's window the attachment, which may still write; in an attach's, the new one. */
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 20 * MS + 500, 0, &b), bm_map_span(map, 1));
	ck_assert_int_eq(b, BM_LABEL_GUESS);
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 30 * MS + 500, 0, &b), bm_map_span(map, 3));
	ck_assert(bm_span_named(bm_map_span(map, 3), "/srv/b.img"));
	ck_assert(!bm_span_named(bm_map_span(map, 1), "/srv/b.img"));
	ck_assert(bm_span_named(bm_map_span(map, 1), "/dev/loop0"));
}
END_TEST

/*
 * The loop driver's probes: an attach is exact with its diskseq and
 * lo_file_name; a detach is exact at __loop_clr_fd()'s return, whose new
 * diskseq the probe cannot read. The change uevents that follow (the
 * attachment's diskseq, then the detached disk's, read on receipt) are
 * late news: they move no boundary and split nothing; the next probed
 * attach is the next attachment. sysfs's whole path replaces the probe's
 * lo_file_name, never the reverse.
 */
START_TEST(probed_loop_attachments_are_exact)
{
	struct bm_obs o = { .dev = BM_MKDEV(7, 0), .name = "loop0", .kind = BM_DISK };
	const struct bm_span *s;
	enum bm_label_basis b;
	int i;

	o.type = BM_OBS_PRESENT;
	o.ts = 1 * MS;
	o.by = BM_SRC_KPROBE;
	o.exact = true;
	o.diskseq = 40;
	bm_map_observe(map, &o);
	for (i = 0; i < 2; i++) {
		uint64_t t = (10 + 20 * i) * MS;

		o = (struct bm_obs){ .type = BM_OBS_CHANGE, .ts = t, .exact = true,
				     .by = BM_SRC_KPROBE, .dev = BM_MKDEV(7, 0), .name = "loop0",
				     .kind = BM_DISK, .diskseq = 41 + 2 * i,
				     .backing = i ? "/srv/b.img" : "/srv/a.i" };
		bm_map_observe(map, &o);
		o.type = BM_OBS_DETACH;	/* the attachment's diskseq, from the entry */
		o.ts = t + 5 * MS;
		o.backing = NULL;
		bm_map_observe(map, &o);
		/* The listener's: the attach, with sysfs's path; the detach, then its new diskseq. */
		o = (struct bm_obs){ .type = BM_OBS_CHANGE, .ts = t + 2 * MS, .after = t - MS,
				     .by = BM_SRC_UEVENT, .dev = BM_MKDEV(7, 0), .name = "loop0",
				     .kind = BM_DISK, .diskseq = 41 + 2 * i, .backing =
				     i ? "/srv/b.img" : "/srv/a.img" };
		if (!i)	/* before the detach: the attachment learns the whole path */
			bm_map_observe(map, &o);
		o.ts = t + 7 * MS;
		o.after = t + 4 * MS;
		o.backing = NULL;
		bm_map_observe(map, &o);
		o.diskseq = 42 + 2 * i;
		o.empty = true;
		bm_map_observe(map, &o);
	}
	bm_map_finish(map, 0, 100 * MS);

	ck_assert_uint_eq(bm_map_count(map), 5);
	for (i = 1; i < 5; i++) {
		uint64_t t = (10 + 20 * ((i - 1) / 2) + 5 * ((i - 1) % 2)) * MS;

		s = bm_map_span(map, i);
		ck_assert_uint_eq(s->from.lo, t);
		ck_assert_uint_eq(s->from.hi, t);
		ck_assert_uint_eq(bm_map_span(map, i - 1)->to.lo, t);
		ck_assert_uint_eq(bm_map_span(map, i - 1)->to.hi, t);
		ck_assert_uint_eq(s->diskseq, 40 + i);
		ck_assert_int_eq(s->empty, i % 2 == 0);
	}
	ck_assert_str_eq(bm_map_span(map, 1)->backing, "/srv/a.img");
	ck_assert_str_eq(bm_map_span(map, 2)->backing, "");
	ck_assert_str_eq(bm_map_span(map, 3)->backing, "/srv/b.img");
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 14 * MS, 0, &b), bm_map_span(map, 1));
	ck_assert_int_eq(b, BM_LABEL_ONLY);
	ck_assert_ptr_eq(bm_map_label(map, BM_MKDEV(7, 0), 34 * MS, 0, &b), bm_map_span(map, 3));
	ck_assert_int_eq(b, BM_LABEL_ONLY);
}
END_TEST

/* dmsetup splitname's answers, from libdevmapper's _unquote(). */
START_TEST(dm_names_split_as_dmsetup_splitname)
{
	static const struct { const char *name, *vg, *lv, *layer; } cases[] = {
		{ "vg0-data", "vg0", "data", "" },
		{ "vg0-data-real", "vg0", "data", "real" },
		{ "vg0-snap-cow", "vg0", "snap", "cow" },
		{ "vg0-pool-tpool", "vg0", "pool", "tpool" },
		{ "vg0-pool_tdata", "vg0", "pool_tdata", "" },
		{ "my--vg-my--lv", "my-vg", "my-lv", "" },
		{ "a--b--c-d---e-tmeta", "a-b-c", "d-", "e" },
		{ "vg0", "vg0", "", "" },
		{ "vg0-", "vg0-", "", "" },
	};
	struct bm_lvm l;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bm_lvm_split(cases[i].name, &l);
		ck_assert_msg(!strcmp(l.vg, cases[i].vg) && !strcmp(l.lv, cases[i].lv) &&
			      !strcmp(l.layer, cases[i].layer), "%s: '%s' '%s' '%s'",
			      cases[i].name, l.vg, l.lv, l.layer);
	}
}
END_TEST

#define VG_LV_UUID "LVM-Xa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5dYa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"

/*
 * An LV's dm device renamed (lvrename): its volume follows the dm name at
 * each moment; --disk finds it as VG/LV, /dev/VG/LV, /dev/mapper/NAME; a
 * layer is named as part of its volume and not found as the volume; a dm
 * device that is not LVM's is never split.
 */
START_TEST(lvm_volumes_are_named_over_time)
{
	struct bm_span lv = { .dev = BM_MKDEV(254, 3), .name = "dm-3", .dm = "vg0-data",
			      .dm_names = { { 0, 0, "vg0-data" }, { 10 * MS, 11 * MS, "vg0-my--db" } },
			      .ndm = 2, .dm_uuid = VG_LV_UUID };
	struct bm_span real = { .dev = BM_MKDEV(254, 4), .name = "dm-4", .dm = "vg0-data-real",
				.dm_names = { { 0, 0, "vg0-data-real" } }, .ndm = 1,
				.dm_uuid = VG_LV_UUID "-real" };
	struct bm_span crypt = { .dev = BM_MKDEV(254, 5), .name = "dm-5", .dm = "home-crypt",
				 .dm_names = { { 0, 0, "home-crypt" } }, .ndm = 1,
				 .dm_uuid = "CRYPT-LUKS2-0123-home-crypt" };
	char buf[288];

	ck_assert_str_eq(bm_span_lv_at(&lv, 5 * MS, buf, sizeof(buf)), "vg0/data");
	ck_assert_str_eq(bm_span_lv_at(&lv, 12 * MS, buf, sizeof(buf)), "vg0/my-db");
	ck_assert_str_eq(bm_span_known_as(&lv, 12 * MS, buf, sizeof(buf)), "vg0/my-db");
	/* As dmsetup splitname: the volume data, its layer real (not a volume "data-real"). */
	ck_assert_str_eq(bm_span_lv_at(&real, 5 * MS, buf, sizeof(buf)), "vg0/data");
	ck_assert_str_eq(bm_span_known_as(&real, 5 * MS, buf, sizeof(buf)),
			 "vg0/data, origin layer real");
	ck_assert_str_eq(bm_lvm_layer_text("cow", buf, sizeof(buf)), "snapshot layer cow");
	ck_assert_str_eq(bm_lvm_layer_text("tpool", buf, sizeof(buf)), "thin pool layer tpool");
	ck_assert_str_eq(bm_lvm_layer_text("vdata", buf, sizeof(buf)), "layer vdata");
	ck_assert_str_eq(bm_span_lv_at(&crypt, 5 * MS, buf, sizeof(buf)), "");
	ck_assert_str_eq(bm_span_known_as(&crypt, 5 * MS, buf, sizeof(buf)), "home-crypt");
	ck_assert(bm_span_named(&lv, "vg0/data"));
	ck_assert(bm_span_named(&lv, "/dev/vg0/data"));
	ck_assert(bm_span_named(&lv, "/dev/mapper/vg0-data"));
	ck_assert(bm_span_named(&lv, "vg0/my-db"));
	ck_assert(bm_span_named(&lv, "/dev/mapper/vg0-my--db"));
	ck_assert(!bm_span_named(&lv, "vg0/my--db"));
	ck_assert(!bm_span_named(&real, "vg0/data"));
	ck_assert(bm_span_named(&real, "vg0-data-real"));
	ck_assert(!bm_span_named(&crypt, "home/crypt"));
	ck_assert(!bm_lvm_uuid("LVM-short"));
	{
		struct bm_span path = { .name = "nvme0c1n1",
					.via = "nvme1 tcp traddr=10.0.0.2,trsvcid=4420" };

		ck_assert_str_eq(bm_span_known_as(&path, 0, buf, sizeof(buf)),
				 "path via nvme1, tcp traddr=10.0.0.2,trsvcid=4420");
	}
	ck_assert(bm_lvm_uuid(VG_LV_UUID "-cow"));
}
END_TEST

/* A statedump's entry of an NVMe path disk, with its controller and diskseq. */
static void dump_path(uint64_t ts, uint32_t dev, const char *name, const char *via,
		      uint64_t diskseq)
{
	struct bm_obs o = { .type = BM_OBS_PRESENT, .ts = ts, .dev = dev, .name = name,
			    .via = via, .diskseq = diskseq, .by = BM_SRC_SYSFS, .kind = BM_DISK };

	observe(BM_OBS_DUMP_BEGIN, ts - 1000, 0, NULL, BM_SRC_SYSFS, 0);
	bm_map_observe(map, &o);
	observe(BM_OBS_DUMP_END, ts + 1000, 0, NULL, 0, 0);
}

static void controller(enum bm_obs_type type, uint64_t ts, const char *name, uint64_t after)
{
	struct bm_obs o = { .type = type, .ts = ts, .name = name, .after = after,
			    .by = BM_SRC_UEVENT };

	bm_map_observe(map, &o);
}

/*
 * An NVMe path (a hidden disk: no uevents) whose controller went away and
 * came back on the same number and name, seen by the sysfs statedumps and
 * the controller's uevents only: two incarnations, the first ended by the
 * removal's marker, the second begun after the add was sent; every time
 * between has one answer. Without the uevents, the dumps' diskseq alone
 * still splits them, over the window between the dumps.
 */
START_TEST(an_nvme_path_back_with_its_controller_is_another_incarnation)
{
	const struct bm_span *first, *second;
	enum bm_label_basis basis;
	int with_uevents;

	for (with_uevents = 1; with_uevents >= 0; with_uevents--) {
		bm_map_free(map);
		setup();
		dump_path(10 * MS, P0, "nvme0c1n1", "nvme1 pcie 0000:00:11.0", 3);
		if (with_uevents) {
			controller(BM_OBS_CTRL_REMOVE, 50 * MS, "nvme10", 40 * MS);	/* another */
			controller(BM_OBS_CTRL_REMOVE, 100 * MS, "nvme1", 90 * MS);
			controller(BM_OBS_CTRL_ADD, 300 * MS, "nvme1", 250 * MS);
		}
		dump_path(900 * MS, P0, "nvme0c1n1", "nvme1 pcie 0000:00:11.0", 4);
		bm_map_finish(map, 0, 1000 * MS);
		ck_assert_uint_eq(bm_map_count(map), 2);
		first = bm_map_span(map, 0);
		second = bm_map_span(map, 1);
		ck_assert_uint_eq(first->diskseq, 3);
		ck_assert_uint_eq(second->diskseq, 4);
		ck_assert(first->to.known && second->from.known);
		if (with_uevents) {
			ck_assert_uint_eq(first->to.hi, 100 * MS);
			ck_assert_uint_eq(second->from.lo, 250 * MS);
			ck_assert_ptr_eq(bm_map_label(map, P0, 99 * MS, 0, &basis), first);
			ck_assert_int_eq(basis, BM_LABEL_ONLY);
			ck_assert_ptr_eq(bm_map_label(map, P0, 400 * MS, 0, &basis), second);
			ck_assert_int_eq(basis, BM_LABEL_ONLY);
			ck_assert_ptr_null(bm_map_label(map, P0, 200 * MS, 0, &basis));
		} else {
			ck_assert_uint_le(first->to.lo, 10 * MS);
			ck_assert_uint_eq(first->to.hi, 900 * MS);
			ck_assert_uint_eq(second->from.hi, 900 * MS);
		}
		ck_assert_str_eq(second->via, "nvme1 pcie 0000:00:11.0");
	}
}
END_TEST

/*
 * LOOP_CHANGE_FD swaps the file under an attached loop device and leaves
 * lo_file_name as it was: the probe's attach then names the previous file,
 * which must not label the new attachment; a statedump's sysfs path does.
 */
START_TEST(a_changed_fd_is_not_named_after_the_previous_file)
{
	struct bm_obs o = { .type = BM_OBS_CHANGE, .ts = 10 * MS, .exact = true,
			    .by = BM_SRC_KPROBE, .dev = BM_MKDEV(7, 0), .name = "loop0",
			    .kind = BM_DISK, .diskseq = 41, .backing = "/srv/a.img" };
	int dumped;

	for (dumped = 0; dumped < 2; dumped++) {
		bm_map_free(map);
		setup();
		o.ts = 10 * MS;
		o.diskseq = 41;
		bm_map_observe(map, &o);
		o.ts = 20 * MS;
		o.diskseq = 42;	/* LOOP_CHANGE_FD: lo_file_name still a.img */
		bm_map_observe(map, &o);
		if (dumped) {
			struct bm_obs p = { .type = BM_OBS_PRESENT, .ts = 90 * MS,
					    .by = BM_SRC_SYSFS, .dev = BM_MKDEV(7, 0),
					    .name = "loop0", .kind = BM_DISK, .diskseq = 42,
					    .backing = "/srv/b.img" };

			observe(BM_OBS_DUMP_BEGIN, 89 * MS, 0, NULL, BM_SRC_SYSFS, 0);
			bm_map_observe(map, &p);
			observe(BM_OBS_DUMP_END, 91 * MS, 0, NULL, 0, 0);
		}
		bm_map_finish(map, 0, 100 * MS);
		ck_assert_uint_eq(bm_map_count(map), 2);
		ck_assert_str_eq(bm_map_span(map, 0)->backing, "/srv/a.img");
		ck_assert_uint_eq(bm_map_span(map, 1)->from.lo, 20 * MS);
		ck_assert_str_eq(bm_map_span(map, 1)->backing, dumped ? "/srv/b.img" : "");
	}
}
END_TEST

/*
 * The module's records are exact, but a dm name its statedump is the first
 * to show held by the dump, not from it: the rename is a window back to
 * when the last name was known.
 */
START_TEST(a_rename_first_seen_in_a_dump_is_a_window)
{
	struct bm_obs o = { .type = BM_OBS_ADD, .ts = 10 * MS, .exact = true,
			    .by = BM_SRC_MODULE, .dev = BM_MKDEV(254, 0), .name = "dm-0",
			    .kind = BM_DISK, .dm = "vg0-a" };
	const struct bm_span *s;

	bm_map_observe(map, &o);
	observe(BM_OBS_DUMP_BEGIN, 499 * MS, 0, NULL, BM_SRC_MODULE, 0);
	o.type = BM_OBS_PRESENT;
	o.ts = 500 * MS;
	o.dm = "vg0-b";
	bm_map_observe(map, &o);
	observe(BM_OBS_DUMP_END, 501 * MS, 0, NULL, 0, 0);
	bm_map_finish(map, 0, 1000 * MS);
	ck_assert_uint_eq(bm_map_count(map), 1);
	s = bm_map_span(map, 0);
	ck_assert_uint_eq(s->ndm, 2);
	ck_assert_uint_eq(s->dm_names[1].lo, 10 * MS);
	ck_assert_uint_eq(s->dm_names[1].hi, 500 * MS);
}
END_TEST

/*
 * A controller's removal marker stamped late, after the same-named
 * controller came back and its path's add was recorded exactly: it ends
 * the path that went, not the one that came back.
 */
START_TEST(a_late_controller_removal_spares_the_path_that_came_back)
{
	struct bm_obs o = { .type = BM_OBS_REMOVE, .ts = 100 * MS, .exact = true,
			    .by = BM_SRC_KPROBE, .dev = P0, .name = "nvme0c1n1", .kind = BM_DISK };

	dump_path(10 * MS, P0, "nvme0c1n1", "nvme1 pcie 0000:00:11.0", 3);
	bm_map_observe(map, &o);
	o.type = BM_OBS_ADD;
	o.ts = 200 * MS;
	o.diskseq = 4;
	bm_map_observe(map, &o);
	dump_path(250 * MS, P0, "nvme0c1n1", "nvme1 pcie 0000:00:11.0", 4);
	controller(BM_OBS_CTRL_REMOVE, 300 * MS, "nvme1", 90 * MS);
	bm_map_finish(map, 0, 1000 * MS);
	ck_assert_uint_eq(bm_map_count(map), 2);
	ck_assert_uint_eq(bm_map_span(map, 0)->to.hi, 100 * MS);
	ck_assert(!bm_map_span(map, 1)->to.known);
}
END_TEST

/*
 * loop0's file system mounted on /srv, unmounted, mounted on /mnt: each
 * mount point is a label of the incarnation over its windows; --disk /srv
 * names the device only while it was (or may have been) mounted there.
 */
START_TEST(mount_points_are_labels_over_time)
{
	static const struct { enum bm_obs_type type; const char *at; uint64_t after, ts; } seq[] = {
		{ BM_OBS_MOUNTED, "/boot", 0, 2 * MS },
		{ BM_OBS_MOUNT, "/srv", 10 * MS, 11 * MS },
		{ BM_OBS_UMOUNT, "/srv", 20 * MS, 21 * MS },
		{ BM_OBS_MOUNT, "/mnt", 30 * MS, 31 * MS },
	};
	struct bm_obs o = { .dev = BM_MKDEV(7, 0), .name = "loop0", .kind = BM_DISK,
			    .by = BM_SRC_UEVENT, .type = BM_OBS_ADD, .ts = 1 * MS };
	const struct bm_span *s;
	char buf[256];
	size_t i;

	bm_map_observe(map, &o);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		o.type = seq[i].type;
		o.mount = seq[i].at;
		o.fstype = "ext4";
		o.after = seq[i].after;
		o.ts = seq[i].ts;
		bm_map_observe(map, &o);
	}
	bm_map_finish(map, 0, 100 * MS);
	s = bm_map_span(map, 0);
	ck_assert_uint_eq(s->nmounts, 3);
	ck_assert_str_eq(bm_span_mounts_at(s, 5 * MS, buf, sizeof(buf)), "/boot");
	ck_assert_str_eq(bm_span_mounts_at(s, 15 * MS, buf, sizeof(buf)), "/boot;/srv");
	ck_assert_str_eq(bm_span_mounts_at(s, 20 * MS + 1, buf, sizeof(buf)), "/boot;/srv");
	ck_assert_str_eq(bm_span_mounts_at(s, 25 * MS, buf, sizeof(buf)), "/boot");
	ck_assert_str_eq(bm_span_mounts_at(s, 50 * MS, buf, sizeof(buf)), "/boot;/mnt");
	ck_assert_str_eq(bm_span_mounts_at(s, 0, buf, sizeof(buf)), "/boot;/srv;/mnt");
	ck_assert_str_eq(bm_span_known_as(s, 15 * MS, buf, sizeof(buf)), "on /boot;/srv");
	ck_assert(bm_span_named_at(s, "/srv", 15 * MS));
	ck_assert(!bm_span_named_at(s, "/srv", 25 * MS));
	ck_assert(!bm_span_named_at(s, "/srv", 5 * MS));
	ck_assert(bm_span_named(s, "/srv"));
	ck_assert(!bm_span_named(s, "/var"));
	ck_assert_uint_eq(s->mounts[1].to_lo, 20 * MS);
	ck_assert_uint_eq(s->mounts[1].to_hi, 21 * MS);
	ck_assert(!s->mounts[0].from_known && !s->mounts[2].to_known);
}
END_TEST

/*
 * The recorder reads the mount table before its first statedump: a mount
 * present then, of a device the map does not know yet, is its first
 * incarnation's once the dump lists it.
 */
START_TEST(mounts_read_before_the_first_dump_are_kept)
{
	struct bm_obs o = { .type = BM_OBS_MOUNTED, .ts = 1 * MS, .dev = BM_MKDEV(254, 0),
			    .by = BM_SRC_UEVENT, .mount = "/", .fstype = "ext4" };
	char buf[64];

	bm_map_observe(map, &o);
	observe(BM_OBS_DUMP_BEGIN, 2 * MS, 0, NULL, BM_SRC_SYSFS, 0);
	observe(BM_OBS_PRESENT, 2 * MS + 1000, BM_MKDEV(254, 0), "vda", BM_SRC_SYSFS, 0);
	observe(BM_OBS_DUMP_END, 3 * MS, 0, NULL, 0, 0);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 1);
	ck_assert_str_eq(bm_span_mounts_at(bm_map_span(map, 0), 50 * MS, buf, sizeof(buf)), "/");
	ck_assert_str_eq(bm_span_known_as(bm_map_span(map, 0), 50 * MS, buf, sizeof(buf)), "on /");
}
END_TEST

/*
 * A record without a diskseq (a dm probe that reads no diskseq) about a
 * disk whose diskseq is known is not late news of a past one: its dm name
 * and rename are the current incarnation's.
 */
START_TEST(a_change_without_a_diskseq_is_the_current_incarnations)
{
	struct bm_obs o = { .type = BM_OBS_ADD, .ts = 1 * MS, .exact = true, .by = BM_SRC_KPROBE,
			    .dev = BM_MKDEV(254, 0), .name = "dm-0", .kind = BM_DISK,
			    .diskseq = 7 };
	const struct bm_span *s;

	bm_map_observe(map, &o);
	o.type = BM_OBS_CHANGE;
	o.diskseq = 0;
	o.ts = 2 * MS;
	o.dm = "vg0-data";
	bm_map_observe(map, &o);
	o.ts = 3 * MS;
	o.dm = "vg0-old";
	bm_map_observe(map, &o);
	bm_map_finish(map, 0, 100 * MS);
	ck_assert_uint_eq(bm_map_count(map), 1);
	s = bm_map_span(map, 0);
	ck_assert_uint_eq(s->diskseq, 7);
	ck_assert_uint_eq(s->ndm, 2);
	ck_assert_str_eq(bm_span_dm_at(s, 50 * MS), "vg0-old");
}
END_TEST

Suite *suite_map(void)
{
	Suite *s = suite_create("map");
	TCase *tc = tcase_create("map");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reuse_of_one_dev_t_gives_two_incarnations);
	tcase_add_test(tc, remembered_labels_agree_at_every_time);
	tcase_add_test(tc, io_after_a_removal_belongs_to_the_next_incarnation_known_later);
	tcase_add_test(tc, a_registration_tracepoint_makes_the_add_exact);
	tcase_add_test(tc, a_registration_caps_the_previous_removal);
	tcase_add_test(tc, a_reused_name_without_diskseq_after_its_removal_uevent_is_a_new_incarnation);
	tcase_add_test(tc, loop_attachments_without_diskseq_are_incarnations_with_their_files);
	tcase_add_test(tc, a_partition_rescan_removes_and_re_adds_every_partition);
	tcase_add_test(tc, a_statedump_racing_an_add_is_one_incarnation);
	tcase_add_test(tc, a_statedump_racing_a_remove_decides_it_not_the_late_uevent);
	tcase_add_test(tc, a_lost_removal_is_inferred_and_reported);
	tcase_add_test(tc, a_statedump_contradicting_the_map_is_a_conflict);
	tcase_add_test(tc, a_conflict_row_carries_its_incarnation);
	tcase_add_test(tc, the_parent_disk_picks_among_overlapping_partitions);
	tcase_add_test(tc, a_device_never_seen_is_unknown);
	tcase_add_test(tc, io_after_the_last_removal_is_unknown);
	tcase_add_test(tc, late_uevents_of_an_exact_remove_and_re_add_change_nothing);
	tcase_add_test(tc, a_late_add_uevent_of_a_gone_device_opens_nothing);
	tcase_add_test(tc, another_diskseq_is_another_incarnation);
	tcase_add_test(tc, probed_loop_attachments_are_exact);
	tcase_add_test(tc, a_diskseq_grown_without_a_removal_is_another_incarnation);
	tcase_add_test(tc, each_incarnation_carries_the_serial_its_disk_reported);
	tcase_add_test(tc, device_mapper_names_are_labels_over_time);
	tcase_add_test(tc, the_same_diskseq_from_every_source_is_one_incarnation);
	tcase_add_test(tc, an_empty_kernel_dump_closes_nothing);
	tcase_add_test(tc, a_dump_short_of_its_own_count_closes_nothing);
	tcase_add_test(tc, labels_in_a_loss_gap_are_guesses);
	tcase_add_test(tc, late_uevents_of_past_incarnations_open_nothing);
	tcase_add_test(tc, an_older_diskseq_goes_before_the_newer_incarnation);
	tcase_add_test(tc, a_partition_of_an_older_disk_comes_after_all_the_same);
	tcase_add_test(tc, each_loop_attachment_is_an_incarnation_with_its_file);
	tcase_add_test(tc, dm_names_split_as_dmsetup_splitname);
	tcase_add_test(tc, lvm_volumes_are_named_over_time);
	tcase_add_test(tc, mount_points_are_labels_over_time);
	tcase_add_test(tc, an_nvme_path_back_with_its_controller_is_another_incarnation);
	tcase_add_test(tc, mounts_read_before_the_first_dump_are_kept);
	tcase_add_test(tc, a_change_without_a_diskseq_is_the_current_incarnations);
	tcase_add_test(tc, a_changed_fd_is_not_named_after_the_previous_file);
	tcase_add_test(tc, a_rename_first_seen_in_a_dump_is_a_window);
	tcase_add_test(tc, a_late_controller_removal_spares_the_path_that_came_back);
	tcase_add_loop_test(tc, any_interleaving_of_one_history_gives_its_incarnations, 0, 200);
	suite_add_tcase(s, tc);
	return s;
}
