// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/sources/source.h"
#include "blkmap/util/error.h"

/* The most precise first: the order of every list of sources. */
static const struct {
	enum bm_source bit;
	const char *name;
} source_names[] = {
	{ BM_SRC_MODULE, "module" },
	{ BM_SRC_KPROBE, "kprobe" },
	{ BM_SRC_TRACEPOINT, "tracepoint" },
	{ BM_SRC_UEVENT, "uevent" },
	{ BM_SRC_SYSFS, "sysfs" },
	{ BM_SRC_INFERENCE, "inferred" },
};

#define NSOURCES (sizeof(source_names) / sizeof(source_names[0]))

int bm_source_parse(const char *list, unsigned *mask)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int all = 0;
	size_t i;

	if (!copy)
		return -1;
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned bit = 0;

		for (i = 0; i < NSOURCES; i++)
			if (!strcmp(tok, source_names[i].name))
				bit = source_names[i].bit & BM_SRC_ALL;
		if (!strcmp(tok, "all")) {
			bit = BM_SRC_ALL;
			all = 1;
		}
		if (!bit) {
			bm_error("unknown source '%s' (known: module, kprobe, tracepoint, uevent, "
				 "sysfs, all)", tok);
			free(copy);
			errno = EINVAL;
			return -1;
		}
		*mask |= bit;
	}
	free(copy);
	return all;
}

const char *bm_sources_str(unsigned mask, char sep, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NSOURCES; i++)
		if (mask & source_names[i].bit)
			n += snprintf(buf + n, n < size ? size - n : 0, "%.*s%s", n ? 1 : 0,
				      &sep, source_names[i].name);
	return buf;
}
