/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_READER_H
#define BLKMAP_TRACEFILE_READER_H

/* Reading a trace.dat version 6 or 7 file, or a recorder's spool (reader.c). */
#include <stdbool.h>

#include "blkmap/tracefile/meta.h"

struct tep_handle;

/* A trace file opened for reading. */
struct bm_trace;

/* A trace file, or a spool directory. */
struct bm_trace *bm_trace_open(const char *path);
/* The spool directory @dfd (named @path in messages), its files reached from @dfd. */
struct bm_trace *bm_trace_open_at(int dfd, const char *path);
void bm_trace_close(struct bm_trace *trace);
const char *bm_trace_path(const struct bm_trace *trace);
const struct bm_trace_meta *bm_trace_get_meta(const struct bm_trace *trace);
const struct bm_cpu_data *bm_trace_cpu(const struct bm_trace *trace, int cpu);
/* The event parser, loaded with the file's own formats and cmdlines. */
struct tep_handle *bm_trace_tep(const struct bm_trace *trace);
/*
 * The same, to print events through, with libtraceevent's plugins loaded
 * (unless bm_trace_plugins(false)): the plugins learn commands from the
 * events they print (sched_switch's), so it is not kept for another file.
 */
struct tep_handle *bm_trace_tep_printing(struct bm_trace *trace);
/* Load libtraceevent's plugins for printing (default), or not. */
void bm_trace_plugins(bool on);

#endif
