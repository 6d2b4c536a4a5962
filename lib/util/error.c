// SPDX-License-Identifier: GPL-2.0-only
/* The last error message of the calling thread. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blkmap/util/error.h"

static __thread char message[1024];

void bm_error(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	errno = saved;
}

void bm_error_errno(const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	len = strlen(message);
	snprintf(message + len, sizeof(message) - len, ": %s", strerror(saved));
	errno = saved;
}

const char *bm_error_message(void)
{
	return message[0] ? message : "unknown error";
}
