// SPDX-License-Identifier: GPL-2.0-only
/*
 * walk FILE: count the events of a recording, page by page, CPU by CPU,
 * with nothing else: no merge, no decoding. The floor no report can beat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "blkmap/error.h"
#include "blkmap/tracefile.h"

int main(int argc, char **argv)
{
	const struct bm_trace_meta *m;
	struct bm_trace *t;
	struct kbuffer *kb;
	unsigned long long ts, events = 0;
	size_t chunk = 256 * 4096;
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
	kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	buf = malloc(chunk);
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const struct bm_cpu_data *c = bm_trace_cpu(t, cpu);
		uint64_t off;

		for (off = 0; off < c->size; off += chunk) {
			size_t n = c->size - off < chunk ? c->size - off : chunk, p;

			if (pread(c->fd, buf, n, c->offset + off) != (ssize_t)n)
				return 1;
			for (p = 0; p < n; p += m->page_size) {
				kbuffer_load_subbuffer(kb, buf + p);
				for (void *e = kbuffer_read_event(kb, &ts); e;
				     e = kbuffer_next_event(kb, &ts))
					events++;
			}
		}
	}
	printf("%llu\n", events);
	free(buf);
	kbuffer_free(kb);
	bm_trace_close(t);
	return 0;
}
