// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>

#include "blkmap/util/kallsyms.h"

int bm_kallsyms_scan(bool (*fn)(void *ctx, const struct bm_ksym *sym), void *ctx)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], fields[512];
	bool more = true;

	if (!f)
		return -1;
	/* "ADDR TYPE NAME [MODULE]\n" */
	while (more && fgets(line, sizeof(line), f)) {
		struct bm_ksym sym = { .line = line };
		char *type, *name, *end;

		memcpy(fields, line, sizeof(fields));
		type = strchr(fields, ' ');
		name = type ? strchr(type + 1, ' ') : NULL;
		if (!name)
			continue;
		*type++ = '\0';
		*name++ = '\0';
		end = name + strcspn(name, " \t\n");
		*end = '\0';
		sym.addr = fields;
		sym.type = *type;
		sym.name = name;
		more = fn(ctx, &sym);
	}
	fclose(f);
	return 0;
}
