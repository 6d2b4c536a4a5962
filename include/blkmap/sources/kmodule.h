/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_KMODULE_H
#define BLKMAP_SOURCES_KMODULE_H

/*
 * The module source: blkmap's kernel module (module/), when loaded, writes
 * the synthetic event synthetic:blkmap_dev into the recording's instance: a
 * statedump when attached and on request, and every add and removal.
 *
 * Fields: op (0 present, 1 add, 2 remove, 3 dump begin, 4 dump end), dev,
 * name, partno (0 for a whole disk), disk, diskseq, sectors.
 */
#define BM_MODULE_CONTROL "/sys/kernel/blkmap/control"

struct bm_session;
struct bm_kmodule;

/* Attach the loaded module to @session's instance; NULL with a message. */
struct bm_kmodule *bm_kmodule_attach(struct bm_session *session);
/* A statedump, now. */
int bm_kmodule_dump(struct bm_kmodule *m);
/* Let go of the instance: it cannot be removed before. NULL is fine. */
void bm_kmodule_detach(struct bm_kmodule *m);

#endif
