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
	char *end;
	ssize_t w;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: flood FILE N\n");
		return 64;
	}
	n = strtoul(argv[2], &end, 10);
	if (!*argv[2] || *end) {
		fprintf(stderr, "flood: not a number of markers: %s\n", argv[2]);
		return 64;
	}
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "flood: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		w = write(fd, marker, sizeof(marker));
		if (w != sizeof(marker)) {
			fprintf(stderr, "flood: cannot write %s: %s\n", argv[1],
				w < 0 ? strerror(errno) : "a short write");
			return 1;
		}
	}
	return 0;
}
