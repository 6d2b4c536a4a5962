// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process-to-cgroup map (cgroups.h), on scripted observations: a
 * statedump, moves, forks, exits and reused pids, a cgroup removed and
 * made again on its path, renames and losses.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "blkmap/map/cgroups.h"

#include "helpers.h"

static struct bm_cgroups *cg;

static void setup(void)
{
	cg = bm_cgroups_new();
	ck_assert_ptr_nonnull(cg);
	/* The statedump at 100: two cgroups, three tasks. */
	ck_assert_int_eq(bm_cgroups_made(cg, 100, 1, "/"), 0);
	ck_assert_int_eq(bm_cgroups_made(cg, 100, 20, "/web"), 0);
	ck_assert_int_eq(bm_cgroups_moved(cg, 100, 1, 1, "/"), 0);
	ck_assert_int_eq(bm_cgroups_moved(cg, 100, 500, 20, "/web"), 0);
	ck_assert_int_eq(bm_cgroups_moved(cg, 100, 600, 1, "/"), 0);
}

static void teardown(void)
{
	bm_cgroups_free(cg);
}

/* @pid's cgroup at @ts: its path and incarnation as "/web#2", or "?" (unknown), "~" prefix for a guess. */
static const char *at(int pid, uint64_t ts)
{
	static char buf[128];
	struct bm_cgroup c;
	enum bm_cgroup_basis b = bm_cgroups_of(cg, pid, ts, &c);

	if (b == BM_CG_UNKNOWN)
		return "?";
	snprintf(buf, sizeof(buf), "%s%s#%u", b == BM_CG_GUESS ? "~" : "", c.path,
		 c.incarnation);
	return buf;
}

START_TEST(a_task_is_where_the_statedump_or_its_last_move_put_it)
{
	ck_assert_str_eq(at(500, 150), "/web#1");
	ck_assert_str_eq(at(600, 150), "/#1");
	ck_assert_int_eq(bm_cgroups_moved(cg, 200, 600, 20, "/web"), 0);
	ck_assert_str_eq(at(600, 199), "/#1");
	ck_assert_str_eq(at(600, 200), "/web#1");
	ck_assert_str_eq(at(600, 1000), "/web#1");
	/* Before the dump, and a pid never seen: not known. */
	ck_assert_str_eq(at(500, 50), "?");
	ck_assert_str_eq(at(4242, 150), "?");
}
END_TEST

START_TEST(a_child_starts_in_its_parents_cgroup_and_a_reused_pid_is_another_task)
{
	ck_assert_int_eq(bm_cgroups_forked(cg, 300, 500, 700), 0);
	ck_assert_str_eq(at(700, 299), "?");
	ck_assert_str_eq(at(700, 300), "/web#1");
	/* The parent moves on; the child stays where it was born. */
	ck_assert_int_eq(bm_cgroups_moved(cg, 310, 500, 1, "/"), 0);
	ck_assert_str_eq(at(700, 320), "/web#1");
	/* 700 exits; a new 700, forked by 600 (in /), is in /. */
	bm_cgroups_exited(cg, 400, 700);
	ck_assert_str_eq(at(700, 450), "?");
	ck_assert_int_eq(bm_cgroups_forked(cg, 500, 600, 700), 0);
	ck_assert_str_eq(at(700, 320), "/web#1");
	ck_assert_str_eq(at(700, 550), "/#1");
	/* A child of a parent not known is not known until it moves. */
	ck_assert_int_eq(bm_cgroups_forked(cg, 600, 4242, 800), 0);
	ck_assert_str_eq(at(800, 650), "?");
	ck_assert_int_eq(bm_cgroups_moved(cg, 700, 800, 20, "/web"), 0);
	ck_assert_str_eq(at(800, 650), "?");
	ck_assert_str_eq(at(800, 700), "/web#1");
}
END_TEST

START_TEST(a_cgroup_made_again_on_its_path_is_its_next_incarnation)
{
	struct bm_cgroup c;

	bm_cgroups_removed(cg, 400, 20);
	ck_assert_int_eq(bm_cgroups_made(cg, 450, 21, "/web"), 0);
	ck_assert_int_eq(bm_cgroups_moved(cg, 460, 600, 21, "/web"), 0);
	ck_assert_str_eq(at(500, 300), "/web#1");
	ck_assert_str_eq(at(600, 470), "/web#2");
	ck_assert_int_eq(bm_cgroups_by_id(cg, 20, 0, &c), 1);
	ck_assert_uint_eq(c.to, 400);
	ck_assert_int_eq(bm_cgroups_by_id(cg, 21, 500, &c), 1);
	ck_assert_uint_eq(c.from, 450);
	ck_assert_uint_eq(c.to, UINT64_MAX);
	ck_assert_int_eq(bm_cgroups_by_id(cg, 99, 500, &c), 0);
	/* A move names a cgroup not seen made: it is made then. */
	ck_assert_int_eq(bm_cgroups_moved(cg, 480, 1, 30, "/db"), 0);
	ck_assert_str_eq(at(1, 490), "/db#1");
}
END_TEST

START_TEST(a_rename_changes_the_path_from_then_on)
{
	ck_assert_int_eq(bm_cgroups_renamed(cg, 300, 20, "/www"), 0);
	ck_assert_str_eq(at(500, 299), "/web#1");
	ck_assert_str_eq(at(500, 300), "/www#1");
}
END_TEST

START_TEST(after_a_loss_a_cgroup_known_from_before_is_a_guess)
{
	ck_assert_int_eq(bm_cgroups_moved(cg, 200, 600, 20, "/web"), 0);
	bm_cgroups_lost(cg, 250, 260);
	ck_assert_str_eq(at(600, 240), "/web#1");
	ck_assert_str_eq(at(600, 270), "~/web#1");
	/* A move after the loss is known again. */
	ck_assert_int_eq(bm_cgroups_moved(cg, 300, 600, 1, "/"), 0);
	ck_assert_str_eq(at(600, 310), "/#1");
}
END_TEST

START_TEST(many_tasks_each_keep_their_own_cgroup)
{
	int pid;

	for (pid = 1000; pid < 21000; pid++)
		ck_assert_int_eq(bm_cgroups_forked(cg, 1000 + pid, pid % 2 ? 500 : 600, pid), 0);
	for (pid = 1000; pid < 21000; pid++)
		ck_assert_str_eq(at(pid, 100000), pid % 2 ? "/web#1" : "/#1");
}
END_TEST

START_TEST(a_statedump_does_not_undo_a_move_the_events_told_first)
{
	/* The dump read the task's file before the move, its marker came after. */
	ck_assert_int_eq(bm_cgroups_made(cg, 0, 20, "/web"), 0);
	ck_assert_int_eq(bm_cgroups_moved(cg, 100, 700, 20, "/web"), 0);
	ck_assert_int_eq(bm_cgroups_seen(cg, 110, 700, 1, "/"), 0);
	ck_assert_str_eq(at(700, 120), "/web#1");
	/* A task the events did not place is where the dump saw it. */
	ck_assert_int_eq(bm_cgroups_seen(cg, 110, 701, 20, "/web"), 0);
	ck_assert_str_eq(at(701, 120), "/web#1");
}
END_TEST

/* @pid's bios at @ts are charged to: "/web#1", "w/web#1" written back, "?" unknown. */
static const char *charged(int pid, uint64_t ts)
{
	static char buf[128];
	struct bm_cgroup c;
	enum bm_cgroup_basis b = bm_cgroups_charged(cg, pid, ts, true, &c);

	if (b == BM_CG_UNKNOWN)
		return "?";
	snprintf(buf, sizeof(buf), "%s%s#%u", b == BM_CG_WRITEBACK ? "w" : b == BM_CG_GUESS ?
		 "~" : "", c.path, c.incarnation);
	return buf;
}

START_TEST(a_flushers_bios_go_to_the_cgroup_it_writes_back_for)
{
	/* Flusher 600 (in /) writes /web's inode from 200 to 300, then the root's. */
	ck_assert_int_eq(bm_cgroups_writing(cg, 200, 600, 20), 0);
	bm_cgroups_written(cg, 300, 600);
	ck_assert_int_eq(bm_cgroups_writing(cg, 400, 600, 1), 0);
	ck_assert_str_eq(charged(600, 150), "/#1");
	ck_assert_str_eq(charged(600, 250), "w/web#1");
	ck_assert_str_eq(charged(600, 350), "/#1");
	ck_assert_str_eq(charged(600, 450), "w/#1");
	/* Its own cgroup is still the root, as the events view says, and its reads'. */
	ck_assert_str_eq(at(600, 250), "/#1");
	ck_assert_int_eq(bm_cgroups_charged(cg, 600, 250, false, &(struct bm_cgroup){ 0 }),
			 BM_CG_EXACT);
	/* A writeback whose end was lost ends at the next one's start. */
	ck_assert_int_eq(bm_cgroups_writing(cg, 500, 600, 20), 0);
	ck_assert_str_eq(charged(600, 510), "w/web#1");
	/* A flusher the statedump missed; a cgroup not known is left out. */
	ck_assert_int_eq(bm_cgroups_writing(cg, 200, 800, 20), 0);
	ck_assert_str_eq(charged(800, 210), "w/web#1");
	ck_assert_int_eq(bm_cgroups_writing(cg, 300, 801, 99), 0);
	ck_assert_str_eq(charged(801, 310), "?");
	/* Events lost during a writeback make it a guess. */
	bm_cgroups_lost(cg, 505, 506);
	ck_assert_str_eq(charged(600, 510), "~/web#1");
}
END_TEST

Suite *suite_cgroups(void)
{
	Suite *s = suite_create("cgroups");
	TCase *tc = tcase_create("cgroups");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_task_is_where_the_statedump_or_its_last_move_put_it);
	tcase_add_test(tc, a_child_starts_in_its_parents_cgroup_and_a_reused_pid_is_another_task);
	tcase_add_test(tc, a_cgroup_made_again_on_its_path_is_its_next_incarnation);
	tcase_add_test(tc, a_rename_changes_the_path_from_then_on);
	tcase_add_test(tc, after_a_loss_a_cgroup_known_from_before_is_a_guess);
	tcase_add_test(tc, many_tasks_each_keep_their_own_cgroup);
	tcase_add_test(tc, a_statedump_does_not_undo_a_move_the_events_told_first);
	tcase_add_test(tc, a_flushers_bios_go_to_the_cgroup_it_writes_back_for);
	suite_add_tcase(s, tc);
	return s;
}
