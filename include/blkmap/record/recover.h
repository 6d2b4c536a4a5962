/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_RECOVER_H
#define BLKMAP_RECORD_RECOVER_H

#include <stdint.h>

struct bm_spool;

/*
 * Build a trace file at @output from a spool directory, then remove the
 * spool and its registry entry (recover.c). A spool that is not what
 * blkmap makes (spool.h) is refused, an existing @output too. The file is
 * written beside @output and renamed at the end: if that fails the spool
 * stays readable, holding what it held.
 */
int bm_recover(const char *spool_dir, const char *output, uint64_t *bytes);
/* The same from a spool opened (and checked) by bm_spool_open(); closed on success. */
int bm_recover_spool(struct bm_spool *spool, const char *output, uint64_t *bytes);

#endif
