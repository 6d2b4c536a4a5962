/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_RECLAIM_H
#define BLKMAP_RECORD_RECLAIM_H

/*
 * What a recorder killed by SIGKILL or a crash leaves behind: its tracefs
 * instance ("blkmap-PID"), its probe group ("blkmap_PID"), the module
 * attached to its instance, and its spool directory, registered in
 * registry.h. A live recorder's things are never touched (reclaim.c).
 */
#include "blkmap/util/tell.h"

/*
 * Remove what dead recorders left. Their spools become files first: the
 * output they were recording into if it does not exist, else
 * OUTPUT.recovered-PID. @notify says what was done (one line each).
 * Returns how many things were reclaimed.
 */
int bm_reclaim(bm_tell_fn notify);

#endif
