// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: any bytes as the ring-buffer pages of a recording whose
 * headers are a real one's (FUZZ_PAGES_HEADERS, a trace.dat file), through
 * the whole report pipeline after the headers: page reader, merge, decoding,
 * map, labelling, analyses, every view. The first byte picks how many CPUs
 * the pages are shared among, and the view.
 *
 * The headers stay the same, and so does the recording: it is opened once,
 * a file of MAX_CPUS CPUs of MAX_PAGES pages each, and each input's pages
 * are written into it (the rest of each CPU's pages zeroed: empty pages)
 * before it is reported on again, in this process. No file is parsed
 * anew: thousands of inputs a second, where fuzz_report, which also
 * mutates the headers, runs hundreds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blkmap/report/report.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

#define MAX_CPUS	4
#define MAX_PAGES	3	/* of an input (-max_len), all on one CPU at most */

static struct bm_trace *trace;	/* the recording the inputs' pages are written into */
static int trace_fd;
static uint32_t page_size;
static char *zeros;
static FILE *out;

/* The headers of @headers, and MAX_CPUS CPUs of MAX_PAGES empty pages, opened. */
static struct bm_trace *open_template(struct bm_trace *headers)
{
	struct bm_trace_meta meta = *bm_trace_get_meta(headers);
	struct bm_cpu_data cpus[MAX_CPUS];
	int pages_fd = memfd_create("pages", MFD_CLOEXEC);
	size_t room = (size_t)MAX_PAGES * meta.page_size;
	char path[64];
	int cpu;

	trace_fd = memfd_create("recording", MFD_CLOEXEC);
	if (pages_fd < 0 || trace_fd < 0 || ftruncate(pages_fd, MAX_CPUS * room) < 0)
		return NULL;
	meta.ncpus = MAX_CPUS;
	meta.cpustats = NULL;
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		cpus[cpu] = (struct bm_cpu_data){ .fd = pages_fd, .offset = cpu * room,
						  .size = room };
	if (bm_trace_write(trace_fd, "fuzz", &meta, cpus) < 0)
		return NULL;
	close(pages_fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", trace_fd);
	return bm_trace_open(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("FUZZ_PAGES_HEADERS");
	struct bm_trace *headers = path ? bm_trace_open(path) : NULL;

	if (!headers) {
		fprintf(stderr, "fuzz_pages: set FUZZ_PAGES_HEADERS to a recording (%s)\n",
			path ? bm_error_message() : "unset");
		exit(1);
	}
	page_size = bm_trace_get_meta(headers)->page_size;
	trace = open_template(headers);
	zeros = calloc(MAX_PAGES, page_size);
	if (!trace || !zeros) {
		fprintf(stderr, "fuzz_pages: cannot make a recording of %s's headers: %s\n", path,
			bm_error_message());
		exit(1);
	}
	bm_trace_close(headers);
	out = fopen("/dev/null", "w");
	/*
	 * Printing loads libtraceevent's plugins for each file, a dozen
	 * dlopen()s and dlclose()s that took most of an input's time; their
	 * code is not blkmap's.
	 */
	bm_trace_plugins(false);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct bm_report_opts views[] = {
		{ .view = BM_VIEW_EVENTS, .format = BM_FORMAT_TEXT, .explain = true },
		{ .view = BM_VIEW_EVENTS, .format = BM_FORMAT_JSON },
		{ .view = BM_VIEW_MAP, .format = BM_FORMAT_TEXT },
		{ .view = BM_VIEW_DISKS, .format = BM_FORMAT_CSV },
		{ .view = BM_VIEW_TOP, .format = BM_FORMAT_JSON },
	};
	size_t pages, ncpus, cpu, from, to;

	if (size < 1)
		return 0;
	ncpus = 1 + data[0] % MAX_CPUS;
	pages = (size - 1) / page_size;
	if (pages > MAX_PAGES)
		pages = MAX_PAGES;
	/* The input's pages shared among its first CPUs, in order; the others empty. */
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		const struct bm_cpu_data *c = bm_trace_cpu(trace, cpu);
		size_t n;

		from = cpu < ncpus ? pages * cpu / ncpus : 0;
		to = cpu < ncpus ? pages * (cpu + 1) / ncpus : 0;
		n = (to - from) * page_size;
		if (pwrite(trace_fd, data + 1 + from * page_size, n, c->offset) != (ssize_t)n ||
		    pwrite(trace_fd, zeros, c->size - n, c->offset + n) != (ssize_t)(c->size - n))
			abort();
	}
	bm_report_trace(trace, &views[(data[0] / MAX_CPUS) % (sizeof(views) / sizeof(views[0]))],
			out);
	return 0;
}
