// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkbig IN OUT COPIES: a large recording from a real one, its pages
 * repeated COPIES times with timestamps shifted so that each copy follows
 * the previous one. The events are real; only their times move.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

int main(int argc, char **argv)
{
	const struct bm_trace_meta *m;
	struct bm_trace *t;
	uint64_t first = UINT64_MAX, last = 0, shift;
	long copies;
	struct bm_cpu_data *spools;
	int cpu, out;

	if (argc != 4 || (copies = strtol(argv[3], NULL, 10)) < 1) {
		fprintf(stderr, "usage: mkbig IN OUT COPIES\n");
		return 64;
	}
	t = bm_trace_open(argv[1]);
	if (!t) {
		fprintf(stderr, "mkbig: %s\n", bm_error_message());
		return 1;
	}
	m = bm_trace_get_meta(t);
	spools = calloc(m->ncpus, sizeof(*spools));
	if (!spools)
		return 1;
	/* The time one copy covers: from the first page's start to the last one's. */
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const struct bm_cpu_data *c = bm_trace_cpu(t, cpu);
		uint64_t off, ts;

		for (off = 0; off < c->size; off += m->page_size) {
			if (pread(c->fd, &ts, 8, c->offset + off) != 8)
				return 1;
			if (ts < first)
				first = ts;
			if (ts > last)
				last = ts;
		}
	}
	shift = last - first + 1000000000ULL;
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const struct bm_cpu_data *c = bm_trace_cpu(t, cpu);
		char *pages = malloc(c->size ? c->size : 1);
		long k;

		spools[cpu].fd = memfd_create("cpu", 0);
		spools[cpu].size = c->size * copies;
		if (!pages || spools[cpu].fd < 0 ||
		    pread(c->fd, pages, c->size, c->offset) != (ssize_t)c->size)
			return 1;
		for (k = 0; k < copies; k++) {
			uint64_t off;

			if (write(spools[cpu].fd, pages, c->size) != (ssize_t)c->size)
				return 1;
			for (off = 0; off < c->size; off += m->page_size) {
				uint64_t ts;

				memcpy(&ts, pages + off, 8);
				ts += shift;
				memcpy(pages + off, &ts, 8);
			}
		}
		free(pages);
	}
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || bm_trace_write(out, argv[2], m, spools) < 0) {
		fprintf(stderr, "mkbig: %s\n", bm_error_message());
		return 1;
	}
	close(out);
	for (cpu = 0; cpu < m->ncpus; cpu++)
		close(spools[cpu].fd);
	free(spools);
	bm_trace_close(t);
	return 0;
}
