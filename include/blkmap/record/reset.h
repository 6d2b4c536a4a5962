/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RESET_H
#define BLKMAP_RESET_H

/*
 * What recorders leave while they run, and what a recorder killed by
 * SIGKILL or a crash leaves behind: its tracefs instance ("blkmap-PID"),
 * its probe group ("blkmap_PID"), the module attached to its instance, and
 * its spool directory, registered in /run/blkmap/PID. A recorder is dead
 * when no process PID runs blkmap; a live recorder's things are never
 * touched.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "blkmap/util/tell.h"

#define BM_REGISTRY_DIR "/run/blkmap"

/* Register this recorder's spool and output; remove the entry when done. */
int bm_registry_add(const char *spool_dir, const char *output);
void bm_registry_remove(void);

/* Is @pid a running blkmap? */
bool bm_recorder_alive(pid_t pid);

/*
 * Remove what dead recorders left. Their spools become files first: the
 * output they were recording into if it does not exist, else
 * OUTPUT.recovered-PID. @notify says what was done (one line each).
 * Returns how many things were reclaimed, or -1 (message set).
 */
int bm_reset(bm_tell_fn notify);

/* Build a trace file at @output from a spool directory; then remove the spool. */
int bm_recover(const char *spool_dir, const char *output, uint64_t *bytes);

#endif
