// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: any bytes as a recording, through the whole report
 * pipeline (reader, merge, decoding, map, labelling, every view).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blkmap/report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct bm_report_opts views[] = {
		{ .view = BM_VIEW_EVENTS, .format = BM_FORMAT_TEXT, .explain = true },
		{ .view = BM_VIEW_EVENTS, .format = BM_FORMAT_JSON },
		{ .view = BM_VIEW_MAP, .format = BM_FORMAT_CSV },
	};
	static FILE *out;
	char path[64];
	int fd;

	if (!out)
		out = fopen("/dev/null", "w");
	fd = memfd_create("recording", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* One view an input, picked by its size: the same input, the same path. */
	bm_report(path, &views[size % (sizeof(views) / sizeof(views[0]))], out);
	close(fd);
	return 0;
}
