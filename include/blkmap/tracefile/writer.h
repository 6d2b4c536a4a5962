/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_WRITER_H
#define BLKMAP_TRACEFILE_WRITER_H

/* Writing a trace.dat version 6 file (writer.c). */
#include <stddef.h>
#include <stdint.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/meta.h"

/*
 * Write a complete file to @fd: @meta, then the pages of CPU i copied from
 * @cpus[i] (whole pages, at its fd or in its extents; fd -1 and no extents
 * for none; @cpus NULL for no pages at all).
 * @path names the output in messages.
 */
int bm_trace_write(int fd, const char *path, const struct bm_trace_meta *meta,
		   const struct bm_cpu_data *cpus);
/*
 * The same as version 7 (trace-cmd.dat.v7(5)): sections, then the pages
 * compressed with @compression in chunks of 16 pages, then the options
 * that locate them. What trace-cmd 3 and KernelShark open.
 */
int bm_trace_write_compressed(int fd, const char *path, const struct bm_trace_meta *meta,
			      const struct bm_cpu_data *cpus, enum bm_compression compression);
/*
 * The bytes of a trace file before its pages, for CPUs holding @sizes
 * bytes of pages each (whole pages); malloc'ed, *@len long. The pages
 * follow at the next page boundary, CPU after CPU.
 */
char *bm_trace_header(const struct bm_trace_meta *meta, const uint64_t *sizes, size_t *len);

#endif
