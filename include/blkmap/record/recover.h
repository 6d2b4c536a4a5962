/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_RECOVER_H
#define BLKMAP_RECORD_RECOVER_H

#include <stdint.h>

/*
 * Build a trace file at @output from a spool directory, then remove the
 * spool and its registry entry (recover.c).
 */
int bm_recover(const char *spool_dir, const char *output, uint64_t *bytes);

#endif
