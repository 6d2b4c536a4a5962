/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_CGROUPSVIEW_H
#define BLKMAP_REPORT_CGROUPSVIEW_H

/*
 * Which cgroup did the I/O (cgroupsview.c): report --cgroups, a row a
 * cgroup incarnation and disk incarnation; how a cgroup is shown (a
 * container's id shortened) and what --cgroup=PATH keeps.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/map/cgroups.h"
#include "blkmap/report/output.h"

struct bm_row;

/*
 * @path as a person reads it: a container runtime's id in it (docker-ID.scope,
 * libpod-ID.scope, cri-containerd-ID.scope, crio-ID.scope, a bare
 * 64-character id, a kubepods pod's podUID) cut to its first 12 characters.
 */
const char *bm_cgroup_shown(const char *path, char *buf, size_t size);

/*
 * Does --cgroup=@want keep @cg: its path is @want or lies below it; with
 * "#N" at its end, only that incarnation of the path (not those below).
 * The path as recorded or as shown. NULL @want keeps every cgroup; a
 * cgroup not known (NULL @cg) only that.
 */
bool bm_cgroup_wanted(const char *want, const struct bm_cgroup *cg);

/* The cgroup as shown, with its incarnation: "/web#2"; "?" for NULL. */
const char *bm_cgroup_key(const struct bm_cgroup *cg, char *buf, size_t size);

/* The cgroup keys of a row: cgroup, cgroup_incarnation, cgroup_basis. */
void bm_row_cgroup(struct bm_row *r, const struct bm_cgroup *cg, enum bm_cgroup_basis basis);

/*
 * --cgroups: per disk incarnation, its cgroups (bm_analysis_cgroups),
 * those @want keeps, over the window from @since to @until. 0, or -1
 * (errno set: no memory).
 */
int bm_view_cgroups(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header, const char *want, uint64_t since, uint64_t until);

#endif
