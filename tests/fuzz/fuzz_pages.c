// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: any bytes as the ring-buffer pages of a recording whose
 * headers are a real one's (FUZZ_PAGES_HEADERS, a trace.dat file), through
 * the whole report pipeline after the headers: page reader, merge, decoding,
 * map, labelling, analyses, every view. The first byte picks how many CPUs
 * the pages are shared among, and the view.
 *
 * The headers stay the same, so the parser state is reused from one input to
 * the next: thousands of inputs a second where fuzz_report, which also
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

#define MAX_CPUS 4

static struct bm_trace *headers;
static FILE *out;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("FUZZ_PAGES_HEADERS");

	headers = path ? bm_trace_open(path) : NULL;
	if (!headers) {
		fprintf(stderr, "fuzz_pages: set FUZZ_PAGES_HEADERS to a recording (%s)\n",
			path ? bm_error_message() : "unset");
		exit(1);
	}
	out = fopen("/dev/null", "w");
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
	struct bm_trace_meta meta = *bm_trace_get_meta(headers);
	struct bm_cpu_data cpus[MAX_CPUS];
	uint32_t page = meta.page_size;
	size_t pages, cpu, from, to;
	char path[64];
	int pages_fd, fd;

	if (size < 1)
		return 0;
	meta.ncpus = 1 + data[0] % MAX_CPUS;
	meta.cpustats = NULL;
	pages = (size - 1) / page;
	pages_fd = memfd_create("pages", MFD_CLOEXEC);
	fd = memfd_create("recording", MFD_CLOEXEC);
	if (pages_fd < 0 || fd < 0 || write(pages_fd, data + 1, pages * page) != (ssize_t)(pages * page))
		goto out;
	for (cpu = 0; cpu < (size_t)meta.ncpus; cpu++) {
		from = pages * cpu / meta.ncpus;
		to = pages * (cpu + 1) / meta.ncpus;
		cpus[cpu] = (struct bm_cpu_data){ .fd = to > from ? pages_fd : -1,
						  .offset = from * page, .size = (to - from) * page };
	}
	if (bm_trace_write(fd, "fuzz", &meta, cpus) < 0)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	bm_report(path, &views[(data[0] / MAX_CPUS) % (sizeof(views) / sizeof(views[0]))], out);
out:
	if (pages_fd >= 0)
		close(pages_fd);
	if (fd >= 0)
		close(fd);
	return 0;
}
