/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_H
#define BLKMAP_TRACEFILE_H

/*
 * trace.dat version 6, the file format of trace-cmd, written by record and
 * read by report. Layout in blkmap.dat(5).
 */
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/* An event format as the kernel prints it in events/SYSTEM/EVENT/format. */
struct bm_format {
	char *system;
	char *text;
	size_t len;
	uint64_t offset;	/* in the file it was read from */
};

/* Everything in a trace file but the per-CPU pages. */
struct bm_trace_meta {
	char *header_page;
	size_t header_page_len;
	char *header_event;
	size_t header_event_len;
	struct bm_format *formats;	/* "ftrace" ones go in the ftrace section */
	size_t nformats;
	char *kallsyms;			/* may be NULL */
	size_t kallsyms_len;
	char *cmdlines;			/* "pid comm\n" lines, may be NULL */
	size_t cmdlines_len;
	char *clock;			/* "mono"; NULL for none */
	char **cpustats;		/* per CPU stats text, or NULL */
	int ncpus;
	uint32_t page_size;		/* of a ring-buffer sub-buffer, header included */
	int long_size;			/* the kernel's long, 4 or 8 */
};

/* Where each CPU's pages are: in the trace file, or in a spool file. */
struct bm_cpu_data {
	int fd;
	uint64_t offset;
	uint64_t size;
};

/*
 * A recording in progress keeps, in its spool directory, "meta.dat" (a
 * trace file without pages, written when tracing is armed) and its pages
 * (spool.h). bm_trace_open() reads such a directory as a recording, which
 * is how a recording cut short is recovered.
 */
#define BM_SPOOL_META "meta.dat"

#define BM_TRACE_FILE_VERSION 6

void bm_trace_meta_release(struct bm_trace_meta *meta);
/* The value of "KEY: N" in per-CPU statistics text (cpustats); 0 if absent. */
uint64_t bm_cpustat_value(const char *stats, const char *key);
int bm_trace_meta_add_format(struct bm_trace_meta *meta, const char *system,
			     const char *text, size_t len);

/*
 * Write a complete file to @fd: @meta, then the pages of CPU i copied from
 * @cpus[i] (whole pages; fd -1 for none; @cpus NULL for no pages at all).
 * @path names the output in messages.
 */
int bm_trace_write(int fd, const char *path, const struct bm_trace_meta *meta,
		   const struct bm_cpu_data *cpus);
/*
 * The bytes of a trace file before its pages, for CPUs holding @sizes
 * bytes of pages each (whole pages); malloc'ed, *@len long. The pages
 * follow at the next page boundary, CPU after CPU.
 */
char *bm_trace_header(const struct bm_trace_meta *meta, const uint64_t *sizes, size_t *len);

/* A trace file opened for reading. */
struct bm_trace;

/* A trace file, or a spool directory. */
struct bm_trace *bm_trace_open(const char *path);
void bm_trace_close(struct bm_trace *trace);
const char *bm_trace_path(const struct bm_trace *trace);
const struct bm_trace_meta *bm_trace_get_meta(const struct bm_trace *trace);
const struct bm_cpu_data *bm_trace_cpu(const struct bm_trace *trace, int cpu);
/* The event parser, loaded with the file's own formats and cmdlines. */
struct tep_handle *bm_trace_tep(const struct bm_trace *trace);

#endif
