// SPDX-License-Identifier: GPL-2.0-only
/*
 * pagecost [-b BYTES] [-d DIR] [-r ROUNDS]: the kernel's own CPU to hand
 * over a page of its ring buffer, with no recorder around it: the floor
 * under any recorder's CPU per event. One CPU's buffer, in an instance of
 * its own, is filled with markers sized so that a page holds as many as a
 * recording holds at BYTES a page's share per event (a recording's bytes
 * per event), then emptied, the emptying timed on the thread's CPU clock,
 * by each way there is:
 *
 *   splice       trace_pipe_raw into a pipe of 1 MiB, the pipe into a file
 *                in DIR: the kernel's part of blkmap's default path, its
 *                writer's too
 *   read+direct  read(2) of a page at a time into a batch of 1 MiB, each
 *                batch written into a file in DIR
 *   read         read(2) of a page at a time, written nowhere
 *   mapped       the reader ioctl of the mapped buffer (Linux 6.10+), a
 *                page a call, the data looked at by no one
 *
 * The files go past the page cache where DIR's file system allows it. A
 * line a way, medians of ROUNDS: "WAY us_per_page events_per_page
 * s_per_M_events direct|buffered|-", or "WAY not offered by this kernel".
 * Run under the workload (bench/floor does), the caches are as the
 * recorder finds them. Root. The work runs in a child: the instance, which
 * the kernel removes only once no file of it is open, goes on every exit.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS		"/sys/kernel/tracing"
#define PIPE_BYTES	(1 << 20)
#define MAX_ROUNDS	64
#define PAGE_HDR	16	/* a page's time stamp and commit (64-bit kernels) */
#define RB_MMAP_GET_READER	_IO('R', 0x20)	/* TRACE_MMAP_IOCTL_GET_READER */
#define META_READER_ID	24	/* offset of reader.id in the meta page (6.10) */

enum { SPLICE, READ_DIRECT, READ, MAPPED, WAYS };
static const char *const ways[WAYS] = { "splice", "read+direct", "read", "mapped" };

static char instance[96];
static int cpu;
static long page_size;
static pid_t child;

static void pass_on(int sig)
{
	int err = errno;

	kill(child, sig);
	errno = err;
}

static void die(const char *what)
{
	fprintf(stderr, "pagecost: %s: %s\n", what, strerror(errno));
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

/* A number of CPU @cpu's stats ("entries", "dropped events"). */
static long stat_of(const char *name)
{
	char path[160], line[128];
	size_t len = strlen(name);
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", instance, cpu);
	f = fopen(path, "re");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			n = strtol(line + len + 1, NULL, 10);
	fclose(f);
	if (n < 0) {
		errno = EPROTO;
		die(path);
	}
	return n;
}

static double thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * The marker text whose events a page holds as many of as a recording's at
 * @bytes a page's share per event. A print event of 64-bit kernels: 16
 * bytes of common fields and ip, the text (9 at least where the kernel
 * pads a short one), a NUL and a newline's room; 4 bytes of ring header,
 * 8 above 112 bytes of data; rounded up to 4. The events a page are
 * measured all the same, and printed.
 */
static int marker_len(double bytes)
{
	long want = (long)(page_size / bytes + 0.5), fits, best = -1;
	int len, data, pick = 1;

	for (len = 1; len < 400; len++) {
		data = 16 + (len < 9 ? 9 : len) + 2;
		fits = (page_size - PAGE_HDR) / ((data + (data > 112 ? 8 : 4) + 3) & ~3);
		if (best < 0 || labs(fits - want) < labs(best - want)) {
			best = fits;
			pick = len;
		}
	}
	return pick;
}

/*
 * Fill this CPU's buffer to the brim with markers of @len: with overwrite
 * off, the full buffer drops the next (its stats count it) and the write
 * fails with EBADF.
 */
static void fill(int len)
{
	static char marker[512];
	long dropped = stat_of("dropped events");
	char path[160];
	ssize_t w;
	int fd;

	memset(marker, 'm', sizeof(marker));
	snprintf(path, sizeof(path), "%s/trace_marker", instance);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	while ((w = write(fd, marker, len)) == len)
		;
	if (w >= 0)
		errno = EIO;
	if (w >= 0 || errno != EBADF || stat_of("dropped events") == dropped)
		die(path);
	close(fd);
}

/* A file in @dir to write pages into: unnamed, past the page cache if it can. */
static int open_out(const char *dir, bool *direct)
{
	char path[4200];
	int fd;

	*direct = true;
	fd = open(dir, O_TMPFILE | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EINVAL) {
		*direct = false;
		fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	}
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {	/* no O_TMPFILE */
		snprintf(path, sizeof(path), "%s/pagecost.XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		*direct = fd >= 0 && fcntl(fd, F_SETFL, O_DIRECT) == 0;
	}
	if (fd < 0)
		die(dir);
	return fd;
}

/*
 * Empty the buffer by @way: the pages taken, their CPU seconds in @secs;
 * -1 where the kernel does not offer the way.
 */
static long empty(int way, const char *dir, double *secs, bool *direct)
{
	static char batch[PIPE_BYTES] __attribute__((aligned(4096)));
	int fd, out = -1, pipefd[2] = { -1, -1 };
	const char *meta = NULL;
	char path[160];
	long pages = 0;
	size_t len = 0;
	ssize_t n = 0, w;
	double t0;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", instance, cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die(path);
	*direct = false;
	if (way == SPLICE || way == READ_DIRECT)
		out = open_out(dir, direct);
	if (way == SPLICE &&
	    (pipe2(pipefd, O_CLOEXEC) < 0 || fcntl(pipefd[1], F_SETPIPE_SZ, PIPE_BYTES) < 0))
		die("a pipe of 1 MiB");
	if (way == MAPPED) {
		meta = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
		if (meta == MAP_FAILED && errno == ENODEV) {	/* before 6.10 */
			close(fd);
			return -1;
		}
		if (meta == MAP_FAILED)
			die("mmap of trace_pipe_raw");
	}
	t0 = thread_cpu();
	switch (way) {
	case SPLICE:
		while ((n = splice(fd, NULL, pipefd[1], NULL, PIPE_BYTES, SPLICE_F_NONBLOCK)) > 0) {
			pages += n / page_size;
			for (; n > 0; n -= w)
				if ((w = splice(pipefd[0], NULL, out, NULL, n, SPLICE_F_MOVE)) <= 0)
					die("splice into the file");
		}
		break;
	case READ_DIRECT:
	case READ:
		for (;;) {
			n = read(fd, batch + len, page_size);
			if (n > 0) {
				pages++;
				len += page_size;	/* a partly filled page goes whole */
			}
			if (way == READ)
				len = 0;
			else if ((n <= 0 || len == sizeof(batch)) && len) {
				if (write(out, batch, len) != (ssize_t)len)
					die("write into the file");
				len = 0;
			}
			if (n <= 0)
				break;
		}
		break;
	case MAPPED: {
		unsigned last = ~0U, id;

		/* Each call hands over a page; the same one twice: the buffer is empty. */
		while ((n = ioctl(fd, RB_MMAP_GET_READER)) == 0) {
			memcpy(&id, meta + META_READER_ID, sizeof(id));
			if (id == last)
				break;
			last = id;
			pages++;
		}
		break;
	}
	}
	*secs = thread_cpu() - t0;
	if (n < 0 && errno != EAGAIN)
		die(path);
	if (meta)
		munmap((void *)meta, page_size);
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

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	return v[n / 2];
}

static void measure(double bytes, const char *dir, int rounds)
{
	double us[WAYS][MAX_ROUNDS], per_page[WAYS][MAX_ROUNDS], per_m[WAYS][MAX_ROUNDS], secs;
	bool offered[WAYS], direct[WAYS];
	int len = marker_len(bytes), w, r;
	long held, left, pages;
	char kib[32];

	/* This CPU's buffer alone: 8 MiB, 2048 pages of 4 KiB. */
	snprintf(kib, sizeof(kib), "per_cpu/cpu%d/buffer_size_kb", cpu);
	put(kib, "8192");
	put("options/overwrite", "0");
	memset(offered, true, sizeof(offered));
	for (r = 0; r < rounds; r++) {
		for (w = 0; w < WAYS; w++) {
			if (!offered[w])
				continue;
			fill(len);
			held = stat_of("entries");
			pages = empty(w, dir, &secs, &direct[w]);
			if (pages < 0) {
				offered[w] = false;
				continue;
			}
			/* What it took: splice leaves the partly filled page, no more. */
			left = stat_of("entries");
			if (!pages || left > (w == SPLICE ? held / pages + 1 : 0)) {
				fprintf(stderr, "pagecost: %s took %ld pages and left %ld of %ld events\n",
					ways[w], pages, left, held);
				exit(1);
			}
			held -= left;
			us[w][r] = secs / pages * 1e6;
			per_page[w][r] = (double)held / pages;
			per_m[w][r] = secs / held * 1e6;
		}
	}
	for (w = 0; w < WAYS; w++) {
		if (!offered[w]) {
			printf("%s not offered by this kernel\n", ways[w]);
			continue;
		}
		printf("%s %.3f %.1f %.4f %s\n", ways[w], median(us[w], rounds),
		       median(per_page[w], rounds), median(per_m[w], rounds),
		       w == SPLICE || w == READ_DIRECT ? direct[w] ? "direct" : "buffered" : "-");
	}
}

int main(int argc, char **argv)
{
	const char *dir = "/var/tmp";
	double bytes = 56;
	int rounds = 5, opt, status = 0, tries;
	sigset_t stops, old_mask;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "b:d:r:")) != -1) {
		if (opt == 'b')
			bytes = atof(optarg);
		else if (opt == 'd')
			dir = optarg;
		else if (opt == 'r')
			rounds = atoi(optarg);
		else
			goto usage;
	}
	if (optind != argc || bytes < 24 || bytes > 400 || rounds < 1 || rounds > MAX_ROUNDS)
		goto usage;
	page_size = sysconf(_SC_PAGESIZE);
	/* On the first CPU this may run on: the buffer filled and emptied is its. */
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		die("sched_getaffinity");
	for (cpu = 0; cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set); cpu++)
		;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity");
	/*
	 * The work runs in a child; this one outlives it to remove the
	 * instance, passing a signal on. Signals wait until the child is there.
	 */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigaddset(&stops, SIGQUIT);
	sigprocmask(SIG_BLOCK, &stops, &old_mask);
	signal(SIGCHLD, SIG_DFL);
	snprintf(instance, sizeof(instance), TRACEFS "/instances/pagecost-%d", (int)getpid());
	if (mkdir(instance, 0700) < 0)
		die(instance);
	child = fork();
	if (child == 0) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		measure(bytes, dir, rounds);
		exit(0);
	}
	if (child < 0) {
		fprintf(stderr, "pagecost: cannot fork: %s\n", strerror(errno));
		status = 1 << 8;
	} else {
		struct sigaction pass = { .sa_handler = pass_on };

		sigaction(SIGINT, &pass, NULL);
		sigaction(SIGTERM, &pass, NULL);
		sigaction(SIGHUP, &pass, NULL);
		sigaction(SIGQUIT, &pass, NULL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		while (waitpid(child, &status, 0) < 0)
			if (errno != EINTR) {
				status = 1 << 8;
				break;
			}
		sigprocmask(SIG_BLOCK, &stops, NULL);	/* no one to pass a signal to now */
	}
	/* Its files are closed once the child is gone; the kernel may lag a little. */
	for (tries = 0; rmdir(instance) < 0 && errno == EBUSY && tries < 50; tries++)
		usleep(20000);
	if (access(instance, F_OK) == 0) {
		fprintf(stderr, "pagecost: cannot remove %s: %s\n", instance, strerror(errno));
		return 1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
usage:
	fprintf(stderr, "usage: pagecost [-b BYTES] [-d DIR] [-r ROUNDS]\n");
	return 64;
}
