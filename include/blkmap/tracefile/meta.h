/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_META_H
#define BLKMAP_TRACEFILE_META_H

/*
 * What a trace file holds besides its pages, as record collects it and
 * report reads it back (meta.c); the format itself is in format.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An event format as the kernel prints it in events/SYSTEM/EVENT/format. */
struct bm_format {
	char *system;
	char *text;
	size_t len;
	uint64_t offset;	/* in the file it was read from */
};

/*
 * How trace-cmd turns a file's timestamps into the ones it prints, from
 * its options: a guest's per-CPU offsets to its host's clock (TIME_SHIFT),
 * TSC cycles to nanoseconds (TSC2NSEC), then a constant (OFFSET, and DATE
 * in microseconds). None for the files blkmap records.
 */
struct bm_ts_sample {
	int64_t time, offset, scaling, fraction;
};

struct bm_ts_adjust {
	bool any;
	int64_t offset;			/* ns */
	uint32_t mult, shift;		/* TSC2NSEC; mult 0: none */
	bool interpolate;		/* TIME_SHIFT: between samples */
	int ncpus;			/* TIME_SHIFT's, 0: none */
	struct bm_ts_samples {
		int n;
		struct bm_ts_sample *s;	/* by time, no two at one time */
	} *cpu;
};

/* @ts of @cpu as trace-cmd reports it. */
uint64_t bm_ts_adjusted(const struct bm_ts_adjust *a, int cpu, uint64_t ts);
void bm_ts_adjust_release(struct bm_ts_adjust *a);

/* Everything in a trace file but the per-CPU pages. */
struct bm_trace_meta {
	char *header_page;
	size_t header_page_len;
	char *header_event;
	size_t header_event_len;
	struct bm_format *formats;	/* "ftrace" ones go in the ftrace section */
	size_t nformats, capformats;
	char *kallsyms;			/* may be NULL */
	size_t kallsyms_len;
	char *printk;			/* trace_printk() formats: "0xADDR : \"FORMAT\"" lines, may be NULL */
	size_t printk_len;
	char *cmdlines;			/* "pid comm\n" lines, may be NULL */
	size_t cmdlines_len;
	char *clock;			/* "mono"; NULL for none */
	char **cpustats;		/* per CPU stats text, or NULL */
	int ncpus;
	uint32_t page_size;		/* of a ring-buffer sub-buffer, header included */
	int long_size;			/* the kernel's long, 4 or 8 */
	struct bm_ts_adjust ts;		/* of the timestamps, as trace-cmd reports them */
};

/* A run of whole pages to write: @size bytes at @mem, or at @offset of @fd. */
struct bm_extent {
	const void *mem;
	int fd;
	uint64_t offset, size;
};

/* Where each CPU's pages are: in the trace file, or in a spool file. */
struct bm_cpu_data {
	int fd;
	uint64_t offset;
	uint64_t size;		/* of its pages, uncompressed */
	uint64_t cut;		/* reading: bytes of pages the file was cut short of */
	/* Writing only: the pages are these runs, one after the other (not @fd). */
	const struct bm_extent *extents;
	size_t nextents;
	/* Compressed (version 7): the pages are in these chunks at @fd. */
	int compression;	/* enum bm_compression */
	struct bm_chunk *chunks;
	size_t nchunks;
};

/* A compressed chunk of pages: @packed bytes at @offset hold @size bytes of pages. */
struct bm_chunk {
	uint64_t offset;
	uint32_t packed, size;
};

/*
 * A recording in progress keeps, in its spool directory, "meta.dat" (a
 * trace file without pages, written when tracing is armed) and its pages
 * (spoolfile.h). bm_trace_open() reads such a directory as a recording, which
 * is how a recording cut short is recovered.
 */
#define BM_SPOOL_META "meta.dat"

void bm_trace_meta_release(struct bm_trace_meta *meta);
/* The value of "KEY: N" in per-CPU statistics text (cpustats); 0 if absent. */
uint64_t bm_cpustat_value(const char *stats, const char *key);
int bm_trace_meta_add_format(struct bm_trace_meta *meta, const char *system,
			     const char *text, size_t len);

#endif
