// SPDX-License-Identifier: GPL-2.0-only
/*
 * walk FILE: count the events of a recording, page by page, CPU by CPU,
 * with nothing else: no merge, no decoding. The floor no report can beat:
 * it reads pages the way report does (the same chunked pread and the same
 * page reader), and does nothing with the events but count them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "blkmap/error.h"
#include "blkmap/page.h"
#include "blkmap/tracefile.h"

#include <event-parse.h>

int main(int argc, char **argv)
{
	const struct bm_trace_meta *m;
	struct bm_trace *t;
	struct bm_page_format f;
	unsigned long long events = 0;
	size_t chunk = 16 * 4096;	/* as report reads */
	char *buf;
	int cpu;

	if (argc != 2) {
		fprintf(stderr, "usage: walk FILE\n");
		return 64;
	}
	t = bm_trace_open(argv[1]);
	if (!t) {
		fprintf(stderr, "walk: %s\n", bm_error_message());
		return 1;
	}
	m = bm_trace_get_meta(t);
	f.page_size = m->page_size;
	f.long_size = tep_get_long_size(bm_trace_tep(t));
	f.big_endian = tep_is_file_bigendian(bm_trace_tep(t));
	f.swap = f.big_endian != tep_is_local_bigendian(bm_trace_tep(t));
	buf = malloc(chunk);
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const struct bm_cpu_data *c = bm_trace_cpu(t, cpu);
		uint64_t off;

		for (off = 0; off < c->size; off += chunk) {
			size_t n = c->size - off < chunk ? c->size - off : chunk, p;

			if (pread(c->fd, buf, n, c->offset + off) != (ssize_t)n)
				return 1;
			for (p = 0; p < n; p += m->page_size) {
				struct bm_page page;
				struct bm_page_event e;
				const char *why;
				int64_t missed;

				if (bm_page_load(&page, &f, buf + p, &missed, &why) < 0)
					return 1;
				while (bm_page_next(&page, &e, &why) > 0)
					events++;
			}
		}
	}
	printf("%llu\n", events);
	free(buf);
	bm_trace_close(t);
	return 0;
}
