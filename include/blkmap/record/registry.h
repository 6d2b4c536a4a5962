/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_REGISTRY_H
#define BLKMAP_RECORD_REGISTRY_H

/*
 * The registry of recorders (registry.c): /run/blkmap/PID holds
 * "spool=DIR" and "output=FILE" lines while recorder PID runs, so that what
 * a recorder killed by SIGKILL or a crash leaves can be found (reclaim.h).
 * A flight recorder adds "ring=BYTES", and "snapshot=FILE" for each
 * snapshot written (blkmap snapshot waits for it).
 * A recorder is dead when process PID is gone or is not the recorder: its
 * start time (/proc/PID/stat, field 22) is not the "start=" the recorder
 * wrote. The directory and its entries are used only if they are root's
 * (the user's), not writable by others, and not symbolic links.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BM_REGISTRY_DIR "/run/blkmap"

/* Is the registry, if there is one, blkmap's? -1 if not (why in the message). */
int bm_registry_check(void);
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
/* Forget the entry naming @spool, written out or gone; recorder @pid's entry. */
void bm_registry_forget_spool(const char *spool);
void bm_registry_forget(pid_t pid);

/* The running recorders: up to @max pids into @pids; how many there are. */
int bm_registry_live(pid_t *pids, int max);
/* The registered recorders alive (or dead, @alive false): as bm_registry_live(). */
int bm_registry_pids(pid_t *pids, int max, bool alive);
/* Is @pid a running recorder (or, with no entry to say, a process named blkmap)? */
bool bm_recorder_alive(pid_t pid);
/* Process @pid's start time, in clock ticks since boot (/proc/PID/stat field 22). */
int bm_process_start(pid_t pid, uint64_t *start);

#endif
