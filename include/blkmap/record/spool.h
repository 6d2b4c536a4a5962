/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_SPOOL_H
#define BLKMAP_RECORD_SPOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/record/output.h"
#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/meta.h"
#include "blkmap/tracefile/spoolfile.h"

/* The spool a recorder makes and finishes; its layout on disk is in spoolfile.h. */
#define BM_SPOOL_PROBE		"collapse-test"	/* a scratch file, for a moment */

/*
 * The spool directory, ".blkmap-PID-RANDOM.spool" beside the output:
 * made by mkdir with a random name, opened once (O_NOFOLLOW), its owner
 * the recorder's user and its mode 0700, and every file in it created,
 * opened, renamed and unlinked from that descriptor, never by a path. So
 * a spool's name swapped for a symbolic link, or the spool moved, while
 * recording or after a crash, makes blkmap neither read nor write nor
 * remove anything but what it made. A spool found again (a dead
 * recorder's, one named to recover) is used only if it still is what
 * blkmap made: a directory, not a symbolic link, of this user, mode 0700,
 * holding regular files of this user with one link each.
 */
struct bm_spool {
	int fd;				/* the directory */
	int parent;			/* the directory it is in */
	char name[NAME_MAX + 1];	/* its name there */
	char path[PATH_MAX];		/* for messages and the registry */
};

#define BM_SPOOL_INIT { .fd = -1, .parent = -1 }

/* Make a new spool in the directory @parent (named @parent_path in messages). */
int bm_spool_make(struct bm_spool *s, int parent, const char *parent_path);
/* Open the spool at @path if it is what blkmap makes; if not, -1 and why in the message. */
int bm_spool_open(struct bm_spool *s, const char *path);
void bm_spool_close(struct bm_spool *s);
/* Is it a flight recording's spool? */
bool bm_spool_is_ring(const struct bm_spool *s);

/*
 * Create @s's page file for @ncpus CPUs and open it once per CPU, each
 * descriptor placed at its CPU's region (@fds[cpu]). *@region: R (0: a
 * file per CPU).
 */
int bm_spool_create(const struct bm_spool *s, int ncpus, int *fds, uint64_t *region);

/*
 * Make @s's page file, whose pages bm_spool_locate() found in @cpus, the
 * complete recording @out, in place: write the header of @meta, collapse
 * the holes, rename. 0 on success; 1 if the file system cannot collapse,
 * or @out is on another (nothing was changed: copy instead); -1 on error
 * (message set; the spool can still be located and copied).
 */
int bm_spool_finish_in_place(const struct bm_spool *s, const struct bm_trace_meta *meta,
			     const struct bm_cpu_data *cpus, uint64_t region,
			     const struct bm_output *out);

/*
 * Write the recording spooled in @s, with @meta, to @out: in place where
 * the file system can collapse, else by copying the pages into a new file
 * beside @out; a version 7 file with its pages compressed unless
 * @compression is BM_COMPRESS_NONE. *@bytes: the file's size. The spool
 * stays, holding what it held and readable, if this fails.
 */
int bm_spool_write_out(const struct bm_spool *s, const struct bm_trace_meta *meta,
		       const struct bm_output *out, enum bm_compression compression,
		       uint64_t *bytes);
/*
 * Remove what @s holds, then the directory if its name is still it; close
 * it. Nothing is followed: a name swapped for a symbolic link is left.
 */
void bm_spool_remove(struct bm_spool *s);

#endif
