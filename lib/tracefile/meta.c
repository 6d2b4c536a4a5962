// SPDX-License-Identifier: GPL-2.0-only
/* A trace file's headers in memory: built by record, read back by report. */
#include <stdlib.h>
#include <string.h>

#include "blkmap/tracefile/meta.h"

int bm_trace_meta_add_format(struct bm_trace_meta *meta, const char *system,
			     const char *text, size_t len)
{
	struct bm_format *formats, *f;

	if (meta->nformats == meta->capformats) {	/* by doubling: a file may hold thousands */
		size_t cap = meta->capformats ? 2 * meta->capformats : 64;

		formats = realloc(meta->formats, cap * sizeof(*formats));
		if (!formats)
			return -1;
		meta->formats = formats;
		meta->capformats = cap;
	}
	formats = meta->formats;
	f = &formats[meta->nformats];
	f->system = strdup(system);
	f->text = malloc(len + 1);
	if (!f->system || !f->text) {
		free(f->system);
		free(f->text);
		return -1;
	}
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->len = len;
	meta->nformats++;
	return 0;
}

void bm_trace_meta_release(struct bm_trace_meta *meta)
{
	size_t i;

	for (i = 0; i < meta->nformats; i++) {
		free(meta->formats[i].system);
		free(meta->formats[i].text);
	}
	free(meta->formats);
	for (i = 0; meta->cpustats && i < (size_t)meta->ncpus; i++)
		free(meta->cpustats[i]);
	free(meta->cpustats);
	free(meta->header_page);
	free(meta->header_event);
	free(meta->kallsyms);
	free(meta->printk);
	free(meta->cmdlines);
	free(meta->clock);
	memset(meta, 0, sizeof(*meta));
}

uint64_t bm_cpustat_value(const char *stats, const char *key)
{
	const char *p = stats;
	size_t n = strlen(key);

	/* Keys start lines: "overrun" must not match "commit overrun". */
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}
