// SPDX-License-Identifier: GPL-2.0-only
/* How --cgroups shows a cgroup (container ids shortened) and what --cgroup keeps. */
#include <string.h>

#include "blkmap/report/cgroupsview.h"

#include "helpers.h"

static const char *shown(const char *path)
{
	static char buf[512];

	return bm_cgroup_shown(path, buf, sizeof(buf));
}

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

START_TEST(a_containers_id_is_cut_to_twelve_characters)
{
	ck_assert_str_eq(shown("/system.slice/docker-" ID64 ".scope"),
			 "/system.slice/docker-0123456789ab.scope");
	ck_assert_str_eq(shown("/machine.slice/libpod-" ID64 ".scope/container"),
			 "/machine.slice/libpod-0123456789ab.scope/container");
	ck_assert_str_eq(shown("/docker/" ID64), "/docker/0123456789ab");
	ck_assert_str_eq(shown("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
			       "1f2e3d4c_5b6a_4978_8a9b_0c1d2e3f4a5b.slice/cri-containerd-" ID64
			       ".scope"),
			 "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1f2e3d4c_5b6"
			 ".slice/cri-containerd-0123456789ab.scope");
	ck_assert_str_eq(shown("/kubepods/besteffort/pod1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b/" ID64),
			 "/kubepods/besteffort/pod1f2e3d4c-5b6/0123456789ab");
}
END_TEST

START_TEST(other_paths_are_shown_as_they_are)
{
	ck_assert_str_eq(shown("/"), "/");
	ck_assert_str_eq(shown("/system.slice/cron.service"), "/system.slice/cron.service");
	/* Short hex words, and hex inside a word, are no ids. */
	ck_assert_str_eq(shown("/user.slice/user-1000.slice/deadbeef"),
			 "/user.slice/user-1000.slice/deadbeef");
	ck_assert_str_eq(shown("/x" ID64), "/x" ID64);
}
END_TEST

START_TEST(a_path_keeps_itself_and_those_below_it)
{
	struct bm_cgroup db = { .id = 9, .path = "/db", .incarnation = 1 };
	struct bm_cgroup db2 = { .id = 10, .path = "/db", .incarnation = 2 };
	struct bm_cgroup below = { .id = 11, .path = "/db/replica", .incarnation = 1 };
	struct bm_cgroup dbx = { .id = 12, .path = "/dbx", .incarnation = 1 };
	struct bm_cgroup docker = { .id = 13, .path = "/system.slice/docker-" ID64 ".scope",
				    .incarnation = 1 };

	ck_assert(bm_cgroup_wanted(NULL, NULL));
	ck_assert(bm_cgroup_wanted("/db", &db));
	ck_assert(bm_cgroup_wanted("/db/", &db2));
	ck_assert(bm_cgroup_wanted("/db", &below));
	ck_assert(!bm_cgroup_wanted("/db", &dbx));
	ck_assert(!bm_cgroup_wanted("/db", NULL));
	ck_assert(bm_cgroup_wanted("/", &dbx));
	/* #N: that incarnation alone, not those below. */
	ck_assert(!bm_cgroup_wanted("/db#2", &db));
	ck_assert(bm_cgroup_wanted("/db#2", &db2));
	ck_assert(!bm_cgroup_wanted("/db#1", &below));
	/* A container by its path as shown, or as recorded. */
	ck_assert(bm_cgroup_wanted("/system.slice/docker-0123456789ab.scope", &docker));
	ck_assert(bm_cgroup_wanted("/system.slice/docker-" ID64 ".scope", &docker));
}
END_TEST

Suite *suite_cgroupsview(void)
{
	Suite *s = suite_create("cgroupsview");
	TCase *tc = tcase_create("cgroupsview");

	tcase_add_test(tc, a_containers_id_is_cut_to_twelve_characters);
	tcase_add_test(tc, other_paths_are_shown_as_they_are);
	tcase_add_test(tc, a_path_keeps_itself_and_those_below_it);
	suite_add_tcase(s, tc);
	return s;
}
