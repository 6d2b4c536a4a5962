/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_SPOOL_H
#define BLKMAP_RECORD_SPOOL_H

/*
 * A recording's spool directory holds meta.dat (the formats, written when
 * tracing is armed) and "pages": one sparse file in which CPU k's pages
 * fill a region of their own from offset (k + 1) * R, region 0 being kept
 * for the header of the finished file. (On file systems that would write
 * the holes out, vfat or NFS, each CPU has a file "pages.K" instead, R is
 * 0 and the pages are copied at the stop.) At the stop the file becomes the
 * recording in place: the header goes into region 0 and the holes between
 * the regions are collapsed (FALLOC_FL_COLLAPSE_RANGE), so the pages are
 * never copied however long the recording. Where the file system cannot
 * collapse, they are copied into a new file instead.
 *
 * R is the file's size at creation divided by ncpus + 1: the recorder
 * writes the file's last byte first, to learn that the file system takes
 * a file that large (R shrinks until it does). A region is full at R bytes.
 *
 * While a collapse is under way, "collapsing" holds each CPU's byte count,
 * so that a recorder killed half-way leaves a spool that can still be
 * read: the file's size says how many holes are gone.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/record/output.h"
#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/meta.h"

#define BM_SPOOL_PAGES		"pages"
#define BM_SPOOL_COLLAPSING	"collapsing"
#define BM_SPOOL_PROBE		"collapse-test"	/* a scratch file, for a moment */
#define BM_SPOOL_RING		"ring"		/* a flight recording's (ring.h) */

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
 * Where each CPU's pages are in @dir's page file now (@cpus[cpu], one
 * descriptor each), and R. A CPU's pages end at its first page not written.
 * @cpus[cpu].fd is -1 and the size 0 if the spool has no page file.
 * bm_spool_locate_at(): in the spool directory @dfd, named @dir in messages.
 */
int bm_spool_locate(const char *dir, int ncpus, uint32_t page_size, struct bm_cpu_data *cpus,
		    uint64_t *region);
int bm_spool_locate_at(int dfd, const char *dir, int ncpus, uint32_t page_size,
		       struct bm_cpu_data *cpus, uint64_t *region);

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
/* The name of the file holding CPU @cpu's pages in a spool of regions of @region bytes. */
void bm_spool_pages_name(char *buf, size_t size, int cpu, uint64_t region);
/*
 * Remove what @s holds, then the directory if its name is still it; close
 * it. Nothing is followed: a name swapped for a symbolic link is left.
 */
void bm_spool_remove(struct bm_spool *s);

#endif
