// SPDX-License-Identifier: GPL-2.0-only
/*
 * pagecost [-b EVENT_BYTES] [-d DIR] [-r ROUNDS]: the kernel's own CPU to
 * hand over a page of its ring buffer, with no recorder around it: the
 * floor under any recorder's CPU per event. One CPU's buffer in an
 * instance of its own is filled with markers of about EVENT_BYTES each (the
 * recording's bytes per event), then emptied, the emptying timed on the
 * thread's CPU clock, by each way there is:
 *
 *   splice  trace_pipe_raw into a pipe of 1 MiB, the pipe into a file in
 *           DIR past the page cache where it can (an unnamed O_TMPFILE):
 *           the kernel's part of blkmap's default path, its writer's too
 *   read    read(2) of a page at a time into memory, written nowhere
 *   read+direct  the same into a batch of 1 MiB, each batch written into a
 *           file in DIR past the page cache
 *   mapped  the reader ioctl of the mapped buffer (Linux 6.10+), a page a
 *           call, the data looked at by no one
 *
 * A line a way: "WAY us_per_page events_per_page s_per_M_events", medians
 * of ROUNDS. Run under the workload (bench/floor does), the caches are as
 * the recorder finds them. Root; the instance goes on every exit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS		"/sys/kernel/tracing"
#define PIPE_BYTES	(1 << 20)
#define MAX_ROUNDS	64
#define RB_MMAP_GET_READER	_IO('R', 0x20)	/* TRACE_MMAP_IOCTL_GET_READER */
#define META_READER_ID	24	/* offset of reader.id in the meta page (6.10) */

static char instance[96];

static void remove_instance(int sig)
{
	rmdir(instance);
	if (sig)
		_exit(128 + sig);
}

static void die(const char *what)
{
	fprintf(stderr, "pagecost: %s: %s\n", what, strerror(errno));
	remove_instance(0);
	exit(1);
}

static void put(const char *file, const char *value)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", instance, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, value, strlen(value)) < 0)
		die(path);
	close(fd);
}

static double thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Fill this CPU's buffer to the brim with markers: with overwrite off, a
 * full buffer refuses the next with EBADF.
 */
static void fill(int bytes)
{
	static char marker[512];
	/* A print event: 16 bytes of header and ip, the text and its NUL, 4 of ring header. */
	int len = bytes - 21;
	char path[160];
	int fd;

	memset(marker, 'm', sizeof(marker));
	snprintf(path, sizeof(path), "%s/trace_marker", instance);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	while (write(fd, marker, len) == len)
		;
	if (errno != EBADF)
		die(path);
	close(fd);
}

/* The events CPU @cpu's buffer holds, from its stats. */
static long entries(int cpu)
{
	char path[160];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", instance, cpu);
	f = fopen(path, "re");
	if (!f || fscanf(f, "entries: %ld", &n) != 1)
		die(path);
	fclose(f);
	return n;
}

/* Empty the buffer by @way: the pages taken, the CPU seconds in @cpu. */
static long empty(const char *way, int cpu, const char *dir, double *secs)
{
	char path[160];
	long pages = 0;
	int fd, out = -1, pipefd[2] = { -1, -1 };
	double t0;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", instance, cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (strcmp(way, "read") && strcmp(way, "mapped")) {
		/* Through the page cache where the file system has no direct I/O (tmpfs). */
		out = open(dir, O_TMPFILE | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
		if (out < 0 && errno == EINVAL)
			out = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (out < 0)
			die(dir);
	}
	if (!strcmp(way, "splice")) {
		if (pipe2(pipefd, O_CLOEXEC) < 0 || fcntl(pipefd[1], F_SETPIPE_SZ, PIPE_BYTES) < 0)
			die("a pipe of 1 MiB");
	}
	t0 = thread_cpu();
	if (!strcmp(way, "splice")) {
		ssize_t n, w;

		while ((n = splice(fd, NULL, pipefd[1], NULL, PIPE_BYTES, SPLICE_F_NONBLOCK)) > 0) {
			pages += n / getpagesize();
			for (; n > 0; n -= w)
				if ((w = splice(pipefd[0], NULL, out, NULL, n, SPLICE_F_MOVE)) <= 0)
					die("splice into the file");
		}
	} else if (!strcmp(way, "read")) {
		static char page[1 << 16];

		while (read(fd, page, getpagesize()) > 0)
			pages++;
	} else if (!strcmp(way, "read+direct")) {
		static char batch[PIPE_BYTES] __attribute__((aligned(4096)));
		size_t len = 0, ps = getpagesize();

		for (;;) {
			ssize_t n = read(fd, batch + len, ps);

			if (n > 0) {
				pages++;
				len += ps;
			}
			if ((n <= 0 || len == sizeof(batch)) && len) {
				if (write(out, batch, len) != (ssize_t)len)
					die("write into the file");
				len = 0;
			}
			if (n <= 0)
				break;
		}
	} else {
		const char *meta = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
		unsigned last = ~0U, id;

		if (meta == MAP_FAILED)
			return -1;
		/* The same sub-buffer twice: the buffer is empty. */
		while (ioctl(fd, RB_MMAP_GET_READER) == 0) {
			memcpy(&id, meta + META_READER_ID, sizeof(id));
			if (id == last)
				break;
			last = id;
			pages++;
		}
		pages--;	/* the first call only took the reader page in hand */
		munmap((void *)meta, getpagesize());
	}
	*secs = thread_cpu() - t0;
	close(fd);
	if (out >= 0)
		close(out);
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	return pages;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const char *const ways[] = { "splice", "read+direct", "read", "mapped" };
	enum { WAYS = sizeof(ways) / sizeof(ways[0]) };
	double us[WAYS][MAX_ROUNDS], per_page[WAYS][MAX_ROUNDS], secs;
	int bytes = 57, rounds = 5, opt, cpu, w, r;
	const char *dir = "/var/tmp";
	bool refused[WAYS] = { false };
	cpu_set_t set;
	long held, pages;

	while ((opt = getopt(argc, argv, "b:d:r:")) != -1) {
		if (opt == 'b')
			bytes = atoi(optarg);
		else if (opt == 'd')
			dir = optarg;
		else if (opt == 'r')
			rounds = atoi(optarg);
		else
			goto usage;
	}
	if (optind != argc || bytes < 24 || bytes > 500 || rounds < 1 || rounds > MAX_ROUNDS)
		goto usage;
	/* On the first CPU this may run on: the buffer filled and emptied is its. */
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		die("sched_getaffinity");
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity");
	snprintf(instance, sizeof(instance), TRACEFS "/instances/pagecost-%d", getpid());
	signal(SIGINT, remove_instance);
	signal(SIGTERM, remove_instance);
	signal(SIGHUP, remove_instance);
	if (mkdir(instance, 0700) < 0)
		die(instance);
	put("buffer_size_kb", "8192");
	put("options/overwrite", "0");
	for (r = 0; r < rounds; r++) {
		for (w = 0; w < WAYS; w++) {
			if (refused[w])
				continue;
			fill(bytes);
			held = entries(cpu);
			pages = empty(ways[w], cpu, dir, &secs);
			if (pages <= 0) {
				refused[w] = true;
				continue;
			}
			us[w][r] = secs / pages * 1e6;
			per_page[w][r] = (double)held / pages;
		}
	}
	remove_instance(0);
	for (w = 0; w < WAYS; w++) {
		if (refused[w]) {
			printf("%s not offered by this kernel\n", ways[w]);
			continue;
		}
		qsort(us[w], rounds, sizeof(double), by_value);
		qsort(per_page[w], rounds, sizeof(double), by_value);
		printf("%s %.3f %.1f %.4f\n", ways[w], us[w][rounds / 2], per_page[w][rounds / 2],
		       us[w][rounds / 2] / per_page[w][rounds / 2]);
	}
	return 0;
usage:
	fprintf(stderr, "usage: pagecost [-b EVENT_BYTES] [-d DIR] [-r ROUNDS]\n");
	return 64;
}
