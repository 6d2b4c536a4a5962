// SPDX-License-Identifier: GPL-2.0-only
/*
 * flood FILE N: write N markers of 16 bytes into FILE (a tracefs
 * instance's trace_marker), one write(2) each and nothing else, for
 * bench/floor's flood: dd reads each block before it writes it, and
 * reaches about half the rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char marker[16] = "blkmap-flood-16";
	unsigned long n, i;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: flood FILE N\n");
		return 64;
	}
	n = strtoul(argv[2], NULL, 10);
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "flood: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		if (write(fd, marker, sizeof(marker)) != sizeof(marker)) {
			fprintf(stderr, "flood: cannot write %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
	return 0;
}
