/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_SESSION_H
#define BLKMAP_SOURCES_SESSION_H

/*
 * A recording's own tracefs instance: created, configured and torn down
 * here, so nothing else on the system (the top-level instance, other
 * tools' instances) is ever touched. It sits with the sources, which
 * enable their events in it (kprobes.c, kmodule.c); the recorder (lib/record)
 * makes it, reads it and saves what it collects into the file.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/util/tell.h"

struct tracefs_instance;
struct bm_trace_meta;

#define BM_INSTANCE_PREFIX "blkmap-"

struct bm_cpu_stats {
	uint64_t overrun;		/* events overwritten before they were read */
	uint64_t commit_overrun;
	uint64_t dropped;		/* events dropped (non-overwrite mode) */
	uint64_t entries;
};

struct bm_session;

/* Check that this process may trace, mounting tracefs if need be. */
int bm_session_check_access(void);
/*
 * What the instance is asked for. The user's values (0: none given) must
 * be taken, or the session is not made. blkmap's own choices are wishes:
 * where the kernel refuses one, the instance keeps the kernel's value and
 * @warn is told, in one line, what was refused, what is used instead and
 * what that costs. The capture path follows what was granted
 * (bm_session_page_size()).
 */
struct bm_session_opts {
	unsigned buffer_kib;		/* per CPU (-b) */
	unsigned subbuf_kib;		/* sub-buffer size (-S), Linux 6.8+ */
	unsigned wish_buffer_kib;	/* blkmap's choice when the user gave none; 0: none */
	unsigned wish_subbuf_kib;	/* likewise, where the kernel sizes sub-buffers */
	bm_tell_fn warn;
};

/*
 * Create the instance "blkmap-PID", tracing off, clock mono, buffers as
 * @o asks; NULL with a message (and nothing left) when it cannot be.
 */
struct bm_session *bm_session_create(const struct bm_session_opts *o);
/* Remove the instance (events off first); safe to call on NULL. */
void bm_session_destroy(struct bm_session *s);

/* Does SYSTEM:EVENT exist on this kernel? */
bool bm_session_has_event(struct bm_session *s, const char *system, const char *event);
/*
 * Enable "SYSTEM:EVENT" or every event of "SYSTEM"; remembers it so its
 * format goes into the file.
 */
int bm_session_enable(struct bm_session *s, const char *spec);
/* Disable @system:@event in the instance and forget it (its format is not saved); 0 or -1. */
int bm_session_disable(struct bm_session *s, const char *system, const char *event);

/* Record only the events of @system:@event that pass @filter (tracefs syntax). */
int bm_session_filter(struct bm_session *s, const char *system, const char *event,
		      const char *filter);
int bm_session_tracing(struct bm_session *s, bool on);
/* Write a text marker into the instance (thread-safe). */
int bm_session_mark(struct bm_session *s, const char *text, size_t len);
int bm_session_cpu_stats(struct bm_session *s, int cpu, struct bm_cpu_stats *st);

struct tracefs_instance *bm_session_instance(struct bm_session *s);
const char *bm_session_name(struct bm_session *s);
int bm_session_ncpus(struct bm_session *s);
uint32_t bm_session_page_size(struct bm_session *s);

/*
 * What a file needs besides the pages: the formats of the enabled events,
 * the clock and page layout (once armed, as probes may go away later)...
 */
int bm_session_collect_formats(struct bm_session *s, struct bm_trace_meta *meta);
/* ...and, at the end, the cmdlines and per-CPU statistics. */
int bm_session_collect_final(struct bm_session *s, struct bm_trace_meta *meta);

#endif
