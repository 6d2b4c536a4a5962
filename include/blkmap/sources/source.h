/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_SOURCE_H
#define BLKMAP_SOURCES_SOURCE_H

/*
 * The map sources, as bits: those a recording is made with (record's
 * --sources), and, as the evidence of a map boundary, what bounded it
 * (a boundary may be bounded by several) (source.c).
 */
#include <stddef.h>

enum bm_source {
	BM_SRC_SYSFS = 1 << 0,		/* statedump from /sys at start and end */
	BM_SRC_UEVENT = 1 << 1,		/* netlink uevents, marker on receipt */
	BM_SRC_TRACEPOINT = 1 << 2,	/* writeback:writeback_bdi_register */
	BM_SRC_KPROBE = 1 << 3,		/* probes on add/remove functions, diskstats dump */
	BM_SRC_MODULE = 1 << 4,		/* blkmap's kernel module */
	BM_SRC_ALL = BM_SRC_SYSFS | BM_SRC_UEVENT | BM_SRC_TRACEPOINT | BM_SRC_KPROBE |
		     BM_SRC_MODULE,
	/* Evidence only: a boundary the map implied from another change. */
	BM_SRC_INFERENCE = 1 << 5,
};

/*
 * "sysfs,uevent" -> mask: 1 if "all" was among the names, else 0; -1 with
 * a message on an unknown name.
 */
int bm_source_parse(const char *list, unsigned *mask);
/*
 * The names of the sources in @mask ("inferred" for BM_SRC_INFERENCE),
 * the most precise first, joined by @sep, into @buf.
 */
const char *bm_sources_str(unsigned mask, char sep, char *buf, size_t size);

#endif
