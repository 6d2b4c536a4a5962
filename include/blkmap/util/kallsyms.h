/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_UTIL_KALLSYMS_H
#define BLKMAP_UTIL_KALLSYMS_H

/* The running kernel's symbols, from /proc/kallsyms (kallsyms.c). */
#include <stdbool.h>

struct bm_ksym {
	const char *line;	/* the whole line, newline included */
	const char *addr;	/* zeros when kptr_restrict hides addresses */
	char type;		/* 't' or 'T' for text */
	const char *name;
};

/*
 * Call @fn with each symbol in turn until it returns false; -1 if the file
 * cannot be read. The strings live until @fn returns.
 */
int bm_kallsyms_scan(bool (*fn)(void *ctx, const struct bm_ksym *sym), void *ctx);

#endif
