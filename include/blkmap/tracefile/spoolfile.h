/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_SPOOLFILE_H
#define BLKMAP_TRACEFILE_SPOOLFILE_H

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
 *
 * This layout is the one place both sides read it from: the reader opens
 * a spool as a recording (reader.c), the recorder makes, finishes and
 * recovers one (record/spool.c, recover.c).
 */
#include <stddef.h>
#include <stdint.h>

#include "blkmap/tracefile/meta.h"

#define BM_SPOOL_PAGES		"pages"
#define BM_SPOOL_COLLAPSING	"collapsing"
#define BM_SPOOL_RING		"ring"		/* a flight recording's (record/ring.h) */

#define BM_SPOOL_MIN_REGION	(1ULL << 26)	/* below this, the recorder gives up */
/* The region the recorder tries first; each refusal of the file system divides it by 4. */
uint64_t bm_spool_first_region(int ncpus);
/* The next region the recorder tries after @r. */
uint64_t bm_spool_next_region(uint64_t r);
/*
 * A collapse, planned: the file is first cut after the last CPU with pages
 * (at *@end), then, from the last region back, the hole after each CPU's
 * pages goes, then the unused part of the header's region (@header: the
 * header's bytes, rounded up to a page). Step i removes @len[i] bytes at
 * @at[i]; going backwards, each @at is still where the recorder wrote.
 * Returns the number of steps.
 */
int bm_spool_plan(int ncpus, const uint64_t *sizes, uint64_t region, uint64_t header,
		  uint64_t *at, uint64_t *len, uint64_t *end);

/* The name of the file holding CPU @cpu's pages in a spool of regions of @region bytes. */
void bm_spool_pages_name(char *buf, size_t size, int cpu, uint64_t region);
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

/* Close the descriptors bm_spool_locate() opened in @cpus, and mark them closed. */
void bm_spool_close_cpus(struct bm_cpu_data *cpus, int ncpus);

#endif
