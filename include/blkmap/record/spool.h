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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/meta.h"

#define BM_SPOOL_PAGES		"pages"
#define BM_SPOOL_COLLAPSING	"collapsing"
#define BM_SPOOL_PROBE		"collapse-test"	/* a scratch file, for a moment */
#define BM_SPOOL_RING		"ring"		/* a flight recording's (ring.h) */

/*
 * Create @dir/pages for @ncpus CPUs and open it once per CPU, each
 * descriptor placed at its CPU's region (@fds[cpu]). *@region: R (0: a
 * file per CPU).
 */
int bm_spool_create(const char *dir, int ncpus, int *fds, uint64_t *region);

/*
 * Where each CPU's pages are in @dir's page file now (@cpus[cpu], one
 * descriptor each), and R. A CPU's pages end at its first page not written.
 * @cpus[cpu].fd is -1 and the size 0 if the spool has no page file.
 */
int bm_spool_locate(const char *dir, int ncpus, uint32_t page_size, struct bm_cpu_data *cpus,
		    uint64_t *region);

/*
 * Make @dir's page file, whose pages bm_spool_locate() found in @cpus,
 * the complete recording @output, in place: write the header of @meta,
 * collapse the holes, rename. 0 on success; 1 if the file system cannot
 * collapse (nothing was changed: copy instead); -1 on error (message set;
 * the spool can still be located and copied).
 */
int bm_spool_finish_in_place(const char *dir, const struct bm_trace_meta *meta,
			     const struct bm_cpu_data *cpus, uint64_t region, const char *output);

/*
 * Write the recording spooled in @dir, with @meta, to @output: in place
 * where the file system can collapse, else by copying the pages into a
 * new file beside @output; a version 7 file with its pages compressed
 * unless @compression is BM_COMPRESS_NONE. *@bytes: the file's size. The
 * spool stays, holding what it held, if this fails.
 */
int bm_spool_write_out(const char *dir, const struct bm_trace_meta *meta, const char *output,
		       enum bm_compression compression, uint64_t *bytes);
/* The file holding CPU @cpu's pages in a spool of regions of @region bytes. */
void bm_spool_pages_path(char *buf, size_t size, const char *dir, int cpu, uint64_t region);
/* Remove the spool directory @dir and what it holds. */
void bm_spool_remove(const char *dir);

#endif
