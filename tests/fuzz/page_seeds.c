// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_seeds OUTDIR RECORDING...: seeds for fuzz_pages. Each recording's
 * pages, CPU after CPU, are cut into runs of SEED_PAGES; each run is a seed
 * for every view: a byte that picks the view (and one CPU), then the pages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

#define VIEWS		5	/* as fuzz_pages has them */
#define MAX_CPUS	4
#define SEED_PAGES	3	/* fuzz_pages runs with -max_len for this many */

int main(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		struct bm_trace *t = bm_trace_open(argv[i]);
		const struct bm_trace_meta *m;
		size_t total = 0, run;
		char *pages;

		if (!t) {
			fprintf(stderr, "page_seeds: %s\n", bm_error_message());
			return 1;
		}
		m = bm_trace_get_meta(t);
		for (int cpu = 0; cpu < m->ncpus; cpu++)
			total += bm_trace_cpu(t, cpu)->size;
		pages = malloc(total ? total : 1);
		total = 0;
		for (int cpu = 0; pages && cpu < m->ncpus; cpu++) {
			const struct bm_cpu_data *c = bm_trace_cpu(t, cpu);

			if (pread(c->fd, pages + total, c->size, c->offset) != (ssize_t)c->size) {
				perror(argv[i]);
				return 1;
			}
			total += c->size;
		}
		run = (size_t)SEED_PAGES * m->page_size;
		for (size_t at = 0; pages && at < total; at += run) {
			for (int view = 0; view < VIEWS; view++) {
				unsigned char first = view * MAX_CPUS;
				size_t len = total - at < run ? total - at : run;
				char path[4096];
				FILE *f;

				snprintf(path, sizeof(path), "%s/%d-%zu-view%d", argv[1], i - 1,
					 at / m->page_size, view);
				f = fopen(path, "w");
				if (!f || fwrite(&first, 1, 1, f) != 1 ||
				    fwrite(pages + at, 1, len, f) != len || fclose(f) != 0) {
					perror(path);
					return 1;
				}
			}
		}
		free(pages);
		bm_trace_close(t);
	}
	return 0;
}
