// SPDX-License-Identifier: GPL-2.0-only
/*
 * nullread [-b KIB] [-o DIR [-W BYTES_A_SECOND] | -p | -S CPU] EVENT...: a
 * reader of the ring buffer with no recorder around it, for bench/floor to
 * set beside the recorder under the same workload: the IOPS it costs is
 * what taking the pages costs, with nothing written. With -p, taken by splice(2) as the
 * recorder's readers take them, whole pages into a pipe of a MiB, and
 * spliced on into /dev/null; but one pipe, not 4 to 16, and the partly
 * filled page left, where the recorder takes it by read(2) once a second
 * and at the stop. With -o, what taking them and keeping them costs with
 * nothing around them (a file a CPU in DIR, written past the page cache a
 * MiB at a time by the reader itself: while it writes, the ring buffer
 * fills, and it loses events where the recorder's writer threads and
 * pipes would not). With -S, nothing is read, as in the floor: the threads
 * spend CPU seconds a second of wall time between them (fewer than the
 * CPUs), spinning in bursts SPIN_MS apart, the recorder's CPU as CPU
 * alone; the events it reports are those the kernel wrote (entries and
 * overruns), none lost. With -o and -W, nothing is read either: the
 * threads write BYTES_A_SECOND between them into their files in DIR, a
 * MiB at a time, each once due: the recorder's writes as writes alone.
 * The block EVENTs (block_rq_issue, ...) are enabled in an
 * instance of its own as the recorder sets its own: the trace clock mono,
 * KIB a CPU (4096, the recorder's default), the kernel's sub-buffers of a
 * page, woken by the recorder's rule (buffer_percent leaving 1536 KiB
 * free, 20 to 80 %; and every second); a thread a CPU, pinned to it where
 * the process may run there, reads with read(2) into one page of memory
 * until the buffer is empty (the partly filled page too) and writes it
 * nowhere, or with -o into a MiB of memory, written when full and at the
 * stop (with -p it splices, with -S it spins, with -W it only writes).
 *
 * Until SIGINT, SIGTERM, SIGHUP or SIGQUIT; its lines are in the
 * recorder's words, which bench/floor reads: "recording into instance
 * NAME, ...; Ctrl-C to stop" and "recorded N events into nowhere (or
 * DIR) (...); lost N (cpuN N, ...)" (the events read, and those
 * overwritten or dropped, from each CPU's stats). Root. The files in DIR
 * have no name (O_TMPFILE, as bench/pagecost's), so none outlives the
 * process and no path is followed. The instance (its
 * events disabled first) is removed on every exit but a fatal signal other
 * than those four; bench/floor removes it then.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS		"/sys/kernel/tracing"
#define WAKE_ROOM_KIB	1536	/* lib/sources/session.c's */
#define POLL_MS		1000	/* lib/record/capture.c's */
#define MAX_CPUS	4096
#define BATCH		(1 << 20)	/* lib/record/capturing.h's BATCH_BYTES */
/*
 * -S: bursts this far apart, about the recorder's: on 2 CPUs at 0.4 million
 * events a second its readers woke 6 times a second each, its writers 20.
 */
#define SPIN_MS		50

struct reader {
	pthread_t thread;
	int cpu, fd;
	int out_fd;		/* -o: the CPU's file, or -1 */
	unsigned long long bytes;	/* read */
	unsigned long long written;	/* -W */
	int err;		/* errno of a failed read or poll */
	bool started;
};

static char instance[96];
static const char *out_dir;	/* -o */
static bool by_splice;		/* -p */
static _Atomic double spin_share;	/* -S: of a CPU, for each thread; 0 until all started */
static _Atomic double write_share;	/* -W: bytes a second a thread; 0 until all started */
static int stop_fd = -1;
static long page_size;

/* Write @value to the instance's @file; -1 with errno if it is refused. */
static int put(const char *file, const char *value)
{
	char path[256];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", instance, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	err = n < 0 ? errno : EIO;
	close(fd);
	if (n == (ssize_t)strlen(value))
		return 0;
	errno = err;
	return -1;
}

/* The instance's @file, up to @size - 1 bytes; -1 if unreadable. */
static int get(const char *file, char *text, size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", instance, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	text[n] = '\0';
	return 0;
}

/* A number of @cpu's stats ("read events", "overrun"); -1 if none. */
static long long stat_of(int cpu, const char *name)
{
	char file[64], text[1024], *line;
	size_t len = strlen(name);

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	if (get(file, text, sizeof(text)) < 0)
		return -1;
	for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, name, len) && line[len] == ':')
			return strtoll(line + len + 1, NULL, 10);
	return -1;
}

/* The CPUs the instance has a buffer for: 1 + the highest per_cpu/cpuN. */
static int count_cpus(void)
{
	char path[160];
	struct dirent *d;
	int max = -1, cpu;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/per_cpu", instance);
	dp = opendir(path);
	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (sscanf(d->d_name, "cpu%d", &cpu) == 1 && cpu > max)
			max = cpu;
	closedir(dp);
	return max + 1;
}

/* -o: the CPU's file closed (it has no name: nothing is left). */
static void close_out(struct reader *r)
{
	if (r->out_fd < 0)
		return;
	close(r->out_fd);
	r->out_fd = -1;
}

/* On @cpu, as the recorder's readers, where the process may run there. */
static void pin_to(int cpu)
{
	cpu_set_t set;

	if (cpu < CPU_SETSIZE && pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0 &&
	    CPU_ISSET(cpu, &set)) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
}

/* -o: the first @len bytes of @buf, whole pages, into the CPU's file. */
static int write_out(struct reader *r, char *buf, size_t len)
{
	ssize_t n;

	for (; len; buf += n, len -= n) {
		n = write(r->out_fd, buf, len);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n <= 0) {
			r->err = n < 0 ? errno : EIO;
			return -1;
		}
	}
	return 0;
}

static double ns_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * -S: read nothing; SPIN_MS after each burst, spin until the thread has
 * spent its share of the time since it began (a burst the share was still
 * 0 for is made up later). A burst lasts SPIN_MS at most, so that a thread
 * that cannot get its share still sees the stop. The thread's CPU clock is
 * a system call: between two looks at it, the spin watches the monotonic
 * clock (the vDSO's) for what is left, as CPU is wall time while it runs.
 */
static void *spin(void *arg)
{
	struct reader *r = arg;
	struct pollfd stop = { .fd = stop_fd, .events = POLLIN };
	double start = ns_of(CLOCK_MONOTONIC);

	pin_to(r->cpu);
	while (poll(&stop, 1, SPIN_MS) == 0 || (stop.revents & POLLIN) == 0) {
		double now = ns_of(CLOCK_MONOTONIC), until = now + SPIN_MS * 1e6;
		double due = (now - start) * atomic_load(&spin_share), left;

		while (now < until && (left = due - ns_of(CLOCK_THREAD_CPUTIME_ID)) > 0) {
			double end = now + left < until ? now + left : until;

			while ((now = ns_of(CLOCK_MONOTONIC)) < end)
				;
		}
	}
	return NULL;
}

/*
 * -W: read nothing; write the thread's share of the bytes a second into
 * its -o file, a MiB at a time past the page cache, each once due (a MiB
 * the share was still 0 for is made up later): the recorder's writes to
 * the disk with nothing else. Bytes of no pattern, each page numbered
 * anew at each write, so that no layer below (a host's file, a disk that
 * compresses or deduplicates) writes them cheaper than a recording; one
 * that compresses writes them dearer.
 */
static void *write_only(void *arg)
{
	struct reader *r = arg;
	struct pollfd stop = { .fd = stop_fd, .events = POLLIN };
	double start = ns_of(CLOCK_MONOTONIC), share, wait_ms;
	unsigned int seed = (unsigned int)r->cpu + 1;
	int timeout;
	char *buf;
	size_t i;

	if (posix_memalign((void **)&buf, page_size, BATCH)) {
		r->err = ENOMEM;
		return NULL;
	}
	for (i = 0; i < BATCH; i++)
		buf[i] = (char)rand_r(&seed);
	pin_to(r->cpu);
	for (;;) {
		share = atomic_load(&write_share);
		/* Until the next MiB is due (POLL_MS at most); share 0: SPIN_MS. */
		wait_ms = share > 0 ? ((r->written + BATCH) / share * 1e9 + start -
				       ns_of(CLOCK_MONOTONIC)) / 1e6 : SPIN_MS;
		timeout = wait_ms <= 0 ? 0 : wait_ms < POLL_MS ? (int)wait_ms + 1 : POLL_MS;
		if (poll(&stop, 1, timeout) > 0)
			break;
		if (wait_ms > 0)
			continue;
		for (i = 0; i < BATCH; i += page_size)
			memcpy(buf + i, &r->written, sizeof(r->written));
		if (write_out(r, buf, BATCH) < 0)
			break;
		r->written += BATCH;
	}
	free(buf);
	return NULL;
}

/*
 * Wait until the kernel wakes the reader or POLL_MS passes: 0, with
 * *@stopping once the stop is asked, or -1 with r->err set.
 */
static int wait_for_pages(struct reader *r, struct pollfd fds[2], bool *stopping)
{
	if (poll(fds, 2, POLL_MS) < 0 && errno != EINTR) {
		r->err = errno;
		return -1;
	}
	*stopping = fds[1].revents & POLLIN;
	/* A CPU the buffer has none for (offline) polls as an error, gives nothing. */
	if (fds[0].revents & (POLLERR | POLLNVAL)) {
		r->err = ENODEV;
		return -1;
	}
	return 0;
}

/* -p: whole pages into a pipe, and on into /dev/null. */
static void *splice_pages(void *arg)
{
	struct reader *r = arg;
	struct pollfd fds[2] = { { .fd = r->fd, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	int pipefd[2] = { -1, -1 }, null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	bool stopping = false;
	ssize_t n, w;

	if (null < 0 || pipe2(pipefd, O_CLOEXEC) < 0 || fcntl(pipefd[1], F_SETPIPE_SZ, BATCH) < 0) {
		r->err = errno;
		goto out;
	}
	pin_to(r->cpu);
	while (!stopping) {
		if (wait_for_pages(r, fds, &stopping) < 0)
			break;
		while ((n = splice(r->fd, NULL, pipefd[1], NULL, BATCH, SPLICE_F_NONBLOCK)) > 0) {
			r->bytes += n;
			for (; n > 0; n -= w)
				if ((w = splice(pipefd[0], NULL, null, NULL, n, SPLICE_F_MOVE)) <= 0) {
					r->err = w < 0 ? errno : EIO;
					goto out;
				}
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			r->err = errno;
			break;
		}
	}
out:
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	if (null >= 0)
		close(null);
	return NULL;
}

static void *read_pages(void *arg)
{
	struct reader *r = arg;
	struct pollfd fds[2] = { { .fd = r->fd, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	size_t size = r->out_fd >= 0 ? BATCH : (size_t)page_size, fill = 0;
	bool stopping = false;
	char *buf;
	ssize_t n;

	if (posix_memalign((void **)&buf, page_size, size)) {
		r->err = ENOMEM;
		return NULL;
	}
	pin_to(r->cpu);
	while (!stopping) {
		if (wait_for_pages(r, fds, &stopping) < 0)
			break;
		/* Without -o, fill stays 0: every page into the same one. */
		while ((n = read(r->fd, buf + fill, page_size)) > 0) {
			r->bytes += n;
			if (r->out_fd < 0)
				continue;
			/* A page a read, whole: O_DIRECT writes pages. */
			if (n < page_size)
				memset(buf + fill + n, 0, page_size - n);
			fill += page_size;
			if (fill == size) {
				if (write_out(r, buf, fill) < 0)
					goto out;
				fill = 0;
			}
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			r->err = errno;
			break;
		}
	}
	if (fill && !r->err)
		write_out(r, buf, fill);
out:
	free(buf);
	return NULL;
}

/*
 * The instance as the recorder sets its own (lib/sources/session.c):
 * tracing off while it is set; the clock first, as changing it empties
 * the buffer. 0, or -1 having said why.
 */
static int set_up(unsigned long kib, unsigned long *percent, char **events, int nevents)
{
	char value[32], text[256], path[256];
	int i, enabled = 0;

	if (put("tracing_on", "0") < 0) {
		fprintf(stderr, "nullread: cannot stop tracing in %s: %s\n", instance, strerror(errno));
		return -1;
	}
	if (put("trace_clock", "mono") < 0 &&
	    (get("trace_clock", text, sizeof(text)) < 0 || !strstr(text, "[mono]"))) {
		fprintf(stderr, "nullread: the kernel refused the trace clock mono: %s\n", strerror(errno));
		return -1;
	}
	snprintf(value, sizeof(value), "%lu", kib);
	if (put("buffer_size_kb", value) < 0)
		fprintf(stderr, "nullread: buffer_size_kb %s refused (%s): the kernel's kept\n", value,
			strerror(errno));
	if (get("buffer_size_kb", text, sizeof(text)) < 0) {
		fprintf(stderr, "nullread: cannot read buffer_size_kb: %s\n", strerror(errno));
		return -1;
	}
	kib = strtoul(text, NULL, 10);
	*percent = kib > WAKE_ROOM_KIB ? 100 - 100 * WAKE_ROOM_KIB / kib : 0;
	*percent = *percent < 20 ? 20 : *percent > 80 ? 80 : *percent;
	snprintf(value, sizeof(value), "%lu", *percent);
	if (put("buffer_percent", value) < 0 && errno != ENOENT) {
		fprintf(stderr, "nullread: cannot set buffer_percent %s: %s\n", value, strerror(errno));
		return -1;
	}
	for (i = 0; i < nevents; i++) {
		snprintf(path, sizeof(path), "events/block/%s/enable", events[i]);
		if (put(path, "1") == 0)
			enabled++;
		else if (errno != ENOENT) {
			fprintf(stderr, "nullread: cannot enable block:%s: %s\n", events[i], strerror(errno));
			return -1;
		}
	}
	if (!enabled) {
		fprintf(stderr, "nullread: this kernel has none of the events asked for\n");
		return -1;
	}
	if (put("tracing_on", "1") < 0) {
		fprintf(stderr, "nullread: cannot start tracing in %s: %s\n", instance, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct reader readers[MAX_CPUS];
	unsigned long kib = 4096, percent = 0;
	double spend = 0;	/* -S */
	double write_rate = 0;	/* -W */
	double began = 0;
	long long events = 0, lost = 0, read_n, over, dropped, entries;
	unsigned long long bytes = 0, written = 0;
	int opt, cpu, ncpus, sig, status = 1, tries, running = 0;
	char path[256], *end, lost_by_cpu[8192] = "";
	sigset_t stops;

	while ((opt = getopt(argc, argv, "b:o:pS:W:")) != -1) {
		if (opt == 'o') {
			out_dir = optarg;
			continue;
		}
		if (opt == 'p') {
			by_splice = true;
			continue;
		}
		if (opt == 'S' || opt == 'W') {
			double *value = opt == 'S' ? &spend : &write_rate;

			*value = strtod(optarg, &end);
			if (*end || end == optarg || !(*value > 0) || !isfinite(*value))
				goto usage;
			continue;
		}
		if (opt != 'b')
			goto usage;
		kib = strtoul(optarg, &end, 10);
		if (*end || end == optarg)
			goto usage;
	}
	if (optind == argc || kib < 8 || (spend > 0) + by_splice + !!out_dir > 1 ||
	    (write_rate > 0 && !out_dir))
		goto usage;
	page_size = sysconf(_SC_PAGESIZE);
	/* Threads inherit the mask: the signals are this thread's, in sigwait. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigaddset(&stops, SIGQUIT);
	sigprocmask(SIG_BLOCK, &stops, NULL);
	snprintf(instance, sizeof(instance), TRACEFS "/instances/nullread-%d", (int)getpid());
	if (mkdir(instance, 0700) < 0) {
		fprintf(stderr, "nullread: cannot create %s: %s\n", instance, strerror(errno));
		return 1;
	}
	ncpus = count_cpus();
	if (ncpus <= 0 || ncpus > MAX_CPUS) {
		fprintf(stderr, "nullread: no CPUs in %s/per_cpu\n", instance);
		goto out;
	}
	if (set_up(kib, &percent, argv + optind, argc - optind) < 0)
		goto out;
	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (stop_fd < 0) {
		fprintf(stderr, "nullread: eventfd: %s\n", strerror(errno));
		goto out;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct reader *r = &readers[cpu];

		r->cpu = cpu;
		r->out_fd = -1;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", instance, cpu);
		r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->fd < 0 && (errno == ENOENT || errno == ENODEV))
			continue;	/* a CPU that is not there */
		if (r->fd < 0) {
			fprintf(stderr, "nullread: cannot open %s: %s\n", path, strerror(errno));
			goto stop;
		}
		if (out_dir) {
			r->out_fd = open(out_dir, O_TMPFILE | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
			if (r->out_fd < 0) {
				fprintf(stderr, "nullread: cannot make an unnamed file in %s to write "
					"past the page cache (O_TMPFILE | O_DIRECT): %s\n", out_dir,
					strerror(errno));
				close(r->fd);
				goto stop;
			}
		}
		if ((errno = pthread_create(&r->thread, NULL, spend > 0 ? spin :
					     write_rate > 0 ? write_only :
					     by_splice ? splice_pages : read_pages, r))) {
			fprintf(stderr, "nullread: cannot start CPU %d's reader: %s\n", cpu, strerror(errno));
			close(r->fd);
			close_out(r);
			goto stop;
		}
		r->started = true;
		running++;
	}
	if (!running) {
		fprintf(stderr, "nullread: no CPU's trace_pipe_raw to read in %s\n", instance);
		goto stop;
	}
	if (spend >= running) {
		fprintf(stderr, "nullread: -S %g: more CPU seconds a second than the %d CPUs read\n",
			spend, running);
		goto stop;
	}
	atomic_store(&spin_share, spend / running);
	atomic_store(&write_share, write_rate / running);
	if (write_rate > 0)
		fprintf(stderr, "nullread: recording into instance nullread-%d, nothing read, "
			"%.0f bytes a second written past the page cache a MiB at a time; Ctrl-C "
			"to stop\n", (int)getpid(), write_rate);
	else if (spend > 0)
		fprintf(stderr, "nullread: recording into instance nullread-%d, nothing read, "
			"%.4f CPU seconds a second spent spinning in bursts %d ms apart; Ctrl-C to stop\n",
			(int)getpid(), spend, SPIN_MS);
	else
		fprintf(stderr, "nullread: recording into instance nullread-%d, %s of "
			"trace_pipe_raw (sub-buffers of a page) %s (buffer_percent %lu); Ctrl-C "
			"to stop\n", (int)getpid(), by_splice ? "splice(2)" : "read(2)",
			out_dir ? "into a MiB of memory, written past the page cache" :
			by_splice ? "into a pipe of a MiB, whole pages, and on into /dev/null" :
			"into one page, written nowhere", percent);
	began = ns_of(CLOCK_MONOTONIC);
	sigwait(&stops, &sig);
	status = 0;
stop:
	eventfd_write(stop_fd, 1);
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct reader *r = &readers[cpu];

		if (r->started) {
			pthread_join(r->thread, NULL);
			close(r->fd);
			close_out(r);
			bytes += r->bytes;
			written += r->written;
			if (r->err) {
				fprintf(stderr, "nullread: CPU %d's reader failed: %s\n", cpu,
					strerror(r->err));
				status = 1;
			}
		}
		/* Every CPU's, read or not: overwritten (the instance's default) or dropped. */
		read_n = stat_of(cpu, "read events");
		over = stat_of(cpu, "overrun");
		dropped = stat_of(cpu, "dropped events");
		entries = stat_of(cpu, "entries");
		if (read_n < 0 || over < 0 || dropped < 0 || entries < 0)
			continue;	/* a CPU that is not there */
		/* -S and -W read nothing: the events written, overwritten or not. */
		if (spend > 0 || write_rate > 0) {
			read_n = entries + over;
			over = dropped = 0;
		}
		events += read_n;
		lost += over + dropped;
		snprintf(lost_by_cpu + strlen(lost_by_cpu), sizeof(lost_by_cpu) - strlen(lost_by_cpu),
			 "%scpu%d %lld", *lost_by_cpu ? ", " : "", cpu, over + dropped);
	}
	if (!status && write_rate > 0)
		fprintf(stderr, "nullread: wrote %.1f MiB in %.1f s\n", written / 1048576.0,
			(ns_of(CLOCK_MONOTONIC) - began) / 1e9);
	if (!status)
		fprintf(stderr, "nullread: recorded %lld events into %s (%.1f KiB read, "
			"%.1f bytes/event); lost %lld (%s)\n", events, out_dir ? out_dir : "nowhere",
			bytes / 1024.0,
			events ? (double)bytes / events : 0.0, lost, lost_by_cpu);
out:
	put("tracing_on", "0");
	put("events/enable", "0");
	/* rmdir fails with EBUSY while a file of the instance is still being closed. */
	for (tries = 0; rmdir(instance) < 0 && errno == EBUSY && tries < 50; tries++)
		usleep(20000);
	if (access(instance, F_OK) == 0) {
		fprintf(stderr, "nullread: cannot remove %s: %s\n", instance, strerror(errno));
		return 1;
	}
	return status;
usage:
	fprintf(stderr, "usage: nullread [-b KIB] [-o DIR [-W BYTES_A_SECOND] | -p | "
		"-S CPU_S_A_SECOND] EVENT...  (block "
		"events: block_rq_issue ...)\n");
	return 64;
}
