/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_READING_H
#define BLKMAP_TRACEFILE_READING_H

/*
 * What the reader's files share (not a public header): the open file, and
 * the functions each file gives the others.
 *   reader.c    opening a file or spool: preamble, version 6's order of
 *               sections and its CPU list, closing
 *   headers.c   the header's sections as both versions hold them, and each
 *               CPU's data checked
 *   cursor.c    the bounded read window and the checked field readers
 *   options.c   the options both versions keep (clock, CPU statistics,
 *               the timestamp adjustments), version 6's options list
 *   sections.c  version 7: sections found through options sections,
 *               compressed sections and chunked pages
 *   tep.c       the event parser: formats checked, the crash harness, the
 *               spare parser state, plugins
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "blkmap/tracefile/meta.h"

#define MAX_CPUS		8192

struct tep_handle;
struct tep_plugin_list;

struct bm_trace {
	char *path;
	int fd;
	uint64_t size;		/* of the file */
	uint64_t pos;		/* where the header parser stands */
	bool swap;		/* file byte order differs from ours */
	struct bm_trace_meta meta;
	struct bm_cpu_data *cpus;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;	/* libtraceevent's, loaded into tep */
	bool tep_ready;		/* every format was parsed into tep */
	bool tep_printed;	/* events were printed through it: it may have learned comms */
	char *tep_key;		/* what the tep was parsed from (tep_key_of) */
	size_t tep_key_len;
	int version;		/* 6 or 7 */
	uint64_t unpacked;	/* version 7: bytes of compressed sections decompressed so far */
	int compression;	/* enum bm_compression: version 7 */
	uint64_t options_at;	/* version 7: the first options section */
	/* A compressed section being read: its bytes stand for the file's. */
	char *section;
	uint64_t section_at;	/* where it is in the file, for messages */
	/* The headers are read field by field: through this window of the file. */
	char window[16384];
	uint64_t window_at;
	size_t window_len;
};

/* cursor.c: reading the headers at t->pos, every size checked against the file. */
/* Up to @n bytes at @at into @p, through the window; what was read, or -1. */
ssize_t rd_read_at(struct bm_trace *t, void *p, size_t n, uint64_t at);
/* The message "'PATH': offset AT: WHAT" (in a compressed section: where it is); -1, EINVAL. */
int rd_fail(struct bm_trace *t, uint64_t at, const char *what);
/* @n bytes at t->pos into @p, t->pos moved past them; -1 with a message naming @what. */
int rd_get(struct bm_trace *t, void *p, uint64_t n, const char *what);
int rd_get_u16(struct bm_trace *t, uint16_t *v, const char *what);
int rd_get_u32(struct bm_trace *t, uint32_t *v, const char *what);
int rd_get_u64(struct bm_trace *t, uint64_t *v, const char *what);
/* A block of @n bytes, NUL-terminated in memory. */
char *rd_get_block(struct bm_trace *t, uint64_t n, const char *what);
/* A NUL-terminated string of at most @max bytes. */
char *rd_get_string(struct bm_trace *t, size_t max, const char *what);
/* The @len bytes of @word, or a message that its section was expected. */
int rd_expect(struct bm_trace *t, const char *word, size_t len);
/* The file's numbers, in its byte order. */
uint32_t rd_file_u32(const struct bm_trace *t, const char *p);
uint64_t rd_file_u64(const struct bm_trace *t, const char *p);

/* headers.c: the header's sections, the same in both versions, and the CPUs' data. */
int rd_read_header_info(struct bm_trace *t);
int rd_read_ftrace_formats(struct bm_trace *t);
int rd_read_event_formats(struct bm_trace *t);
int rd_read_kallsyms(struct bm_trace *t);
int rd_read_printk(struct bm_trace *t);
int rd_read_cmdlines(struct bm_trace *t);
/* t->cpus and the CPU statistics for @ncpus CPUs. */
int rd_alloc_cpus(struct bm_trace *t, uint32_t ncpus);
/*
 * CPU data of @c, read at @at: page-aligned, and within the file. A file
 * cut short (a full disk, a copy interrupted) keeps the whole pages it has:
 * what it lacks is in @c->cut, for the reader of its pages to say.
 */
int rd_check_cpu_data(struct bm_trace *t, struct bm_cpu_data *c, uint64_t at);

/* options.c */
/* Keep the statistics of the CPU @data names (a CPUSTAT option). */
void rd_keep_cpustat(struct bm_trace *t, const char *data);
/* Keep the clock @data marks as in use (a TRACECLOCK option), if none is kept yet. */
void rd_keep_clock(struct bm_trace *t, const char *data);
/* Keep option @id if it says how timestamps are adjusted; others are ignored. */
void rd_keep_time_option(struct bm_trace *t, uint16_t id, const char *data, uint32_t len);
/* Version 6: the options between the CPU count and the flyrecord. */
int rd_read_options(struct bm_trace *t);

/* sections.c: version 7's headers and its pages' places, from t->options_at. */
int rd_read_sections(struct bm_trace *t);

/* tep.c */
/* Check the formats and build t->tep from them, or take the spare one built from the same. */
int rd_load_tep(struct bm_trace *t);
/* @t is closed: its parser state becomes the spare one. */
void rd_give_back(struct bm_trace *t);
void rd_free_tep(struct tep_handle *tep, struct tep_plugin_list *plugins);

#endif
