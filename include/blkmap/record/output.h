/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_OUTPUT_H
#define BLKMAP_RECORD_OUTPUT_H

/*
 * Where a recording is written (output.c). The output's directory is
 * opened once, when the recording starts, and every file of the recording
 * is made relative to it: a file of a random name, created O_EXCL (never
 * through a symbolic link, never an existing file), mode 0600 as perf
 * writes perf.data (a recording holds kernel addresses and every command
 * name), then renamed over the output's name. Whatever the output's name
 * was (a file, a symbolic link to another file) is replaced, never written
 * through; a directory swapped in under the output's path later is never
 * looked at.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/meta.h"

#define BM_OUTPUT_MODE 0600

struct bm_output {
	int dir;			/* the directory it goes in (-1: not opened) */
	char name[NAME_MAX + 1];	/* its name there */
	char path[PATH_MAX];		/* as given, for messages */
};

/* Open @path's directory; refused if @path is a directory. */
int bm_output_open(struct bm_output *o, const char *path);
void bm_output_close(struct bm_output *o);
/* Is there anything (a file, a symbolic link) by @o's name? */
bool bm_output_exists(const struct bm_output *o);

/* @prefix, 12 random letters and digits, @suffix: into @name (@size bytes). */
int bm_random_name(char *name, size_t size, const char *prefix, const char *suffix);
/*
 * A new file in directory @dir, named @prefix and random characters
 * (*@name, @size bytes), created O_EXCL|O_NOFOLLOW with @mode: its
 * descriptor, or -1 with errno.
 */
int bm_create_random(int dir, const char *prefix, int mode, char *name, size_t size);

/*
 * @o whole or not at all: written to a new file beside it (version 7,
 * compressed, unless @compression is BM_COMPRESS_NONE), synced, then
 * renamed. *@bytes (if not NULL): its size.
 */
int bm_output_write(const struct bm_output *o, const struct bm_trace_meta *meta,
		    const struct bm_cpu_data *cpus, enum bm_compression compression,
		    uint64_t *bytes);

#endif
