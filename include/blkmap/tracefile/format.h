/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_FORMAT_H
#define BLKMAP_TRACEFILE_FORMAT_H

/*
 * trace.dat, the file format of trace-cmd: what its writer and its reader
 * agree on. blkmap writes version 6 (blkmap.dat(5)) and reads 6 and 7
 * (trace-cmd.dat.v7(5): sections, optionally compressed).
 */
#define BM_TRACE_FILE_VERSION	6
#define BM_STRINGIFY_(x)	#x
#define BM_STRINGIFY(x)		BM_STRINGIFY_(x)

/* The file's first bytes, before the version string. */
#define BM_TRACE_MAGIC		"\x17\x08\x44tracing"
#define BM_TRACE_MAGIC_LEN	10

/*
 * Ids of the options (trace-cmd's TRACECMD_OPTION_*). In version 7 the
 * options also locate the sections, and a section's id is the id of the
 * option that locates it (the options sections' is DONE's, 0).
 */
#define BM_OPTION_DONE		0
#define BM_OPTION_DATE		1
#define BM_OPTION_CPUSTAT	2
#define BM_OPTION_BUFFER	3
#define BM_OPTION_TRACECLOCK	4
#define BM_OPTION_OFFSET	7
#define BM_OPTION_CPUCOUNT	8
#define BM_OPTION_TIME_SHIFT	12
#define BM_OPTION_TSC2NSEC	14
#define BM_OPTION_HEADER_INFO	16
#define BM_OPTION_FTRACE_EVENTS	17
#define BM_OPTION_EVENT_FORMATS	18
#define BM_OPTION_KALLSYMS	19
#define BM_OPTION_PRINTK	20
#define BM_OPTION_CMDLINES	21

#endif
