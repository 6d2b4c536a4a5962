/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_RECORD_H
#define BLKMAP_RECORD_RECORD_H

/*
 * The record pipeline: detect -> arm -> capture -> stop -> write.
 * On every exit path the instance, the spool files and any temporary
 * file are removed; the output exists only if it is complete.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "blkmap/record/trigger.h"
#include "blkmap/sources/source.h"
#include "blkmap/tracefile/compress.h"
#include "blkmap/util/tell.h"

/*
 * Called every tick_s seconds of a flight recording with a file of what the
 * ring holds (removed after the call) and the interval since the last call
 * (trace times, ns). Nonzero: stop recording.
 */
typedef int (*bm_tick_fn)(void *ctx, const char *path, uint64_t since, uint64_t until);

struct bm_record_opts {
	const char *output;		/* NULL: none (a live view's recording) */
	double duration;		/* seconds; 0 for none */
	/* The user's (they must be taken); 0 for blkmap's choice, a wish (session.h). */
	unsigned buffer_kib;		/* per CPU */
	unsigned subbuf_kib;		/* sub-buffer (page) size */
	enum bm_compression compression;	/* not NONE: a version 7 file, compressed */
	uint64_t ring_bytes;		/* a flight recording of this size; 0 for none */
	/* A flight recording's trigger: a snapshot @post_s after an I/O slower than it. */
	const struct bm_trigger_spec *trigger;
	double post_s;
	unsigned snapshots_per_minute;	/* at most, by the trigger */
	double tick_s;			/* with ring_bytes: call tick this often */
	bm_tick_fn tick;
	void *tick_ctx;
	const char **events;		/* extra "SYSTEM[:EVENT]" to enable */
	bool phase_events;		/* --events=phases: merges and plugs too */
	int nevents;
	char **argv;			/* command to run and trace, or NULL */
	/* Run @argv as this user (--user): only the recorder needs root. */
	const char *user;		/* NULL: as blkmap runs */
	uid_t user_uid;
	gid_t user_gid;
	const char *user_home;
	unsigned sources;		/* enum bm_source bits */
	/*
	 * @sources were named (--sources without the word "all"): each must be armed,
	 * or nothing is recorded. Otherwise they are what this kernel offers.
	 */
	bool sources_named;
	/* Progress and notes for the user (one line, no newline). */
	bm_tell_fn notify;
	/* Faults the recording survives, such as a failed statedump: always shown. */
	bm_tell_fn warn;
};

struct bm_record_result {
	uint64_t events;		/* events read from the ring buffers */
	uint64_t lost;			/* events the kernel overwrote or dropped */
	int ncpus;
	uint64_t lost_per_cpu[64];	/* first 64 CPUs */
	uint64_t file_bytes;
	unsigned snapshots;		/* written while recording (out.1.dat, ...) */
	uint64_t ring_dropped;		/* bytes of events the ring let go */
	uint64_t ring_kept;		/* bytes of map records kept from them */
	bool has_command;
	int command_status;		/* exit code, or 128 + signal */
	bool command_running;		/* left running after a second signal */
};

#define BM_DEFAULT_BUFFER_KIB	4096

/*
 * Where snapshot @n of a recording into @output goes: out.dat -> out.N.dat,
 * out -> out.N.
 */
void bm_snapshot_path(char *buf, size_t size, const char *output, unsigned n);

/* 0 on success (the file is complete); -1 with a message. */
int bm_record(const struct bm_record_opts *opts, struct bm_record_result *res);

#endif
