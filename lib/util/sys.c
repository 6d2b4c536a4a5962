// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blkmap/util/sys.h"

int bm_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

uint64_t bm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t bm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int bm_grow(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t want = *cap ? 2 * *cap : first;
	void *old, *grown;

	if (n < *cap)
		return 0;
	memcpy(&old, v, sizeof(old));
	if (*cap > SIZE_MAX / 2 / size || want > SIZE_MAX / size) {
		errno = ENOMEM;
		return -1;
	}
	if (!(grown = realloc(old, want * size)))
		return -1;
	memcpy(v, &grown, sizeof(grown));
	*cap = want;
	return 0;
}
