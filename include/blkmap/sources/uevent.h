/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_UEVENT_H
#define BLKMAP_SOURCES_UEVENT_H

#include <stdint.h>

#include "blkmap/sources/marker.h"

/*
 * uevent listener: a thread receiving the kernel's block uevents and
 * writing a "uevent" marker for each, as soon as it arrives. The socket
 * is bound before this returns, so no later uevent is missed.
 */
struct bm_uevents;

struct bm_uevents *bm_uevents_start(bm_mark_fn mark, void *ctx);
/*
 * Write markers for what is still queued, then stop. Returns how many
 * markers were written in all; NULL is fine.
 */
uint64_t bm_uevents_stop(struct bm_uevents *u);
uint64_t bm_uevents_count(const struct bm_uevents *u);

#endif
