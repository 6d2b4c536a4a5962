/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_REGISTRY_H
#define BLKMAP_RECORD_REGISTRY_H

/*
 * The registry of recorders (registry.c): /run/blkmap/PID holds
 * "spool=DIR" and "output=FILE" lines while recorder PID runs, so that what
 * a recorder killed by SIGKILL or a crash leaves can be found (reclaim.h).
 * A flight recorder adds "ring=BYTES", and "snapshot=FILE" for each
 * snapshot written (blkmap snapshot waits for it).
 * A recorder is dead when no process PID runs blkmap.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define BM_REGISTRY_DIR "/run/blkmap"

/* Register this recorder's spool and output; remove the entry when done. */
int bm_registry_add(const char *spool_dir, const char *output);
void bm_registry_remove(void);
/* Add "@key=@value" to this recorder's entry (what it did since, for other commands). */
int bm_registry_note(const char *key, const char *value);
/*
 * How many "@key=" lines recorder @pid's entry holds (-1: no entry), the
 * last one's value into @value.
 */
int bm_registry_value(pid_t pid, const char *key, char *value, size_t size);

/* Where recorder @pid's entry is; what it says (-1 if there is none). */
void bm_registry_path(pid_t pid, char *buf, size_t size);
int bm_registry_read(pid_t pid, char *spool, size_t spool_size, char *output, size_t output_size);
/* Forget the entry naming @spool, written out or gone. */
void bm_registry_forget_spool(const char *spool);

/* The running recorders: up to @max pids into @pids; how many there are. */
int bm_registry_live(pid_t *pids, int max);
/* Is @pid a running blkmap? */
bool bm_recorder_alive(pid_t pid);

#endif
