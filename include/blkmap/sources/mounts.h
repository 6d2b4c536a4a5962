/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_MOUNTS_H
#define BLKMAP_SOURCES_MOUNTS_H

/*
 * The mount table as the recorder's mount namespace sees it
 * (/proc/self/mountinfo): which block device (MAJ:MIN, major not 0) is
 * mounted where. The kernel marks the file with POLLPRI when the table
 * changes; each read is compared with the previous one and each mount that
 * came or went is written as a "mount" marker (action=add or remove; the
 * first read's with action=present). Nothing is read between changes.
 * Other mount namespaces' tables are not watched: an open
 * /proc/PID/mountinfo holds a reference to its namespace (mounts_open_common
 * in fs/proc_namespace.c), which would keep the file systems mounted only
 * there alive, and their devices busy, after its last process exits.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blkmap/sources/marker.h"

struct bm_mounts;

/* mountinfo's octal escapes (\040 a space, \011, \012, \134) decoded in place. */
void bm_mountinfo_unescape(char *s);

/* Open the table; NULL (errno set) if it cannot be read. */
struct bm_mounts *bm_mounts_open(void);
void bm_mounts_close(struct bm_mounts *t);
/* The descriptor to poll for POLLPRI. */
int bm_mounts_fd(const struct bm_mounts *t);
/*
 * Read the table again and mark what changed since the last read (every
 * mount, as present, on the first), each change with @after: the
 * CLOCK_MONOTONIC time (the trace clock, mono) after which the caller knows
 * it happened. Returns the markers written, or -1.
 */
int bm_mounts_scan(struct bm_mounts *t, uint64_t after, bm_mark_fn mark, void *ctx);

#endif
