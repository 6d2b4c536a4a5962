// SPDX-License-Identifier: GPL-2.0-only
/*
 * walk [--kbuffer] FILE: count the events of a recording, page by page,
 * CPU by CPU, with nothing else: no merge, no decoding. The floor no report
 * can beat: it reads pages as report does (64 KiB preads, blkmap's page
 * reader) and does nothing with the events but count them. --kbuffer reads
 * the pages with libtraceevent's kbuffer instead, as trace-cmd does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "blkmap/tracefile/page.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

#define CHUNK (16 * 4096)

static unsigned long long page_events(const struct bm_page_format *f, void *page)
{
	unsigned long long n = 0;
	struct bm_page p;
	struct bm_page_event e;
	const char *why;
	int64_t missed;

	if (bm_page_load(&p, f, page, &missed, &why) < 0)
		return 0;
	while (bm_page_next(&p, &e, &why) > 0)
		n++;
	return n;
}

static unsigned long long kbuffer_events(struct kbuffer *kb, void *page)
{
	unsigned long long n = 0, ts;

	if (kbuffer_load_subbuffer(kb, page) < 0)
		return 0;
	for (void *e = kbuffer_read_event(kb, &ts); e; e = kbuffer_next_event(kb, &ts))
		n++;
	return n;
}

int main(int argc, char **argv)
{
	const struct bm_trace_meta *m;
	struct bm_page_format f;
	struct kbuffer *kb = NULL;
	unsigned long long events = 0;
	struct bm_trace *t;
	bool use_kbuffer = argc == 3 && !strcmp(argv[1], "--kbuffer");
	char *buf;
	int cpu;

	if (argc != 2 && !use_kbuffer) {
		fprintf(stderr, "usage: walk [--kbuffer] FILE\n");
		return 64;
	}
	t = bm_trace_open(argv[argc - 1]);
	if (!t) {
		fprintf(stderr, "walk: %s\n", bm_error_message());
		return 1;
	}
	m = bm_trace_get_meta(t);
	f.page_size = m->page_size;
	f.long_size = tep_get_long_size(bm_trace_tep(t));
	f.big_endian = tep_is_file_bigendian(bm_trace_tep(t));
	f.swap = f.big_endian != tep_is_local_bigendian(bm_trace_tep(t));
	if (use_kbuffer)
		kb = kbuffer_alloc(f.long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				   f.big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	buf = malloc(CHUNK > m->page_size ? CHUNK : m->page_size);
	if (!buf || (use_kbuffer && !kb)) {
		fprintf(stderr, "walk: out of memory\n");
		return 1;
	}
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const struct bm_cpu_data *c = bm_trace_cpu(t, cpu);
		size_t chunk = CHUNK - CHUNK % m->page_size;
		uint64_t off;

		if (chunk < m->page_size)
			chunk = m->page_size;
		for (off = 0; off < c->size; off += chunk) {
			size_t n = c->size - off < chunk ? c->size - off : chunk, p;

			if (pread(c->fd, buf, n, c->offset + off) != (ssize_t)n) {
				fprintf(stderr, "walk: cannot read %s\n", argv[argc - 1]);
				return 1;
			}
			for (p = 0; p < n; p += m->page_size)
				events += kb ? kbuffer_events(kb, buf + p) : page_events(&f, buf + p);
		}
	}
	printf("%llu\n", events);
	free(buf);
	if (kb)
		kbuffer_free(kb);
	bm_trace_close(t);
	return 0;
}
