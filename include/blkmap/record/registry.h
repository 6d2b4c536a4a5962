/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_REGISTRY_H
#define BLKMAP_RECORD_REGISTRY_H

/*
 * The registry of recorders (registry.c): /run/blkmap/PID holds
 * "spool=DIR" and "output=FILE" lines while recorder PID runs, so that what
 * a recorder killed by SIGKILL or a crash leaves can be found (reclaim.h).
 * A recorder is dead when no process PID runs blkmap.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define BM_REGISTRY_DIR "/run/blkmap"

/* Register this recorder's spool and output; remove the entry when done. */
int bm_registry_add(const char *spool_dir, const char *output);
void bm_registry_remove(void);

/* Where recorder @pid's entry is; what it says (-1 if there is none). */
void bm_registry_path(pid_t pid, char *buf, size_t size);
int bm_registry_read(pid_t pid, char *spool, size_t spool_size, char *output, size_t output_size);
/* Forget the entry naming @spool, written out or gone. */
void bm_registry_forget_spool(const char *spool);

/* Is @pid a running blkmap? */
bool bm_recorder_alive(pid_t pid);

#endif
