/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_FORMAT_H
#define BLKMAP_TRACEFILE_FORMAT_H

/*
 * trace.dat version 6, the file format of trace-cmd: what its writer and
 * its reader agree on. The layout is in blkmap.dat(5).
 */
#define BM_TRACE_FILE_VERSION	6
#define BM_STRINGIFY_(x)	#x
#define BM_STRINGIFY(x)		BM_STRINGIFY_(x)

/* The file's first bytes, before the version string. */
#define BM_TRACE_MAGIC		"\x17\x08\x44tracing"
#define BM_TRACE_MAGIC_LEN	10

/* Ids of the options section (trace-cmd's TRACECMD_OPTION_*). */
#define BM_OPTION_DONE		0
#define BM_OPTION_CPUSTAT	2
#define BM_OPTION_TRACECLOCK	4

#endif
