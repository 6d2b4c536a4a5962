// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "blkmap/util/tell.h"

void bm_tell(bm_tell_fn to, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!to)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	to(line);
}
