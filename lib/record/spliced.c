// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture's splice(2) path (capturing.h): whole pages move from
 * trace_pipe_raw into npipes pipes per CPU, and a writer thread per CPU
 * splices each filled pipe into the spool, past the page cache (O_DIRECT)
 * where the file system allows it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "blkmap/util/sys.h"

#include "capturing.h"

/*
 * Wait until the writer has written all but @left of the pipes handed to
 * it. -1 with errno once it has failed.
 */
int cap_wait_writer(struct cpu_reader *r, unsigned left)
{
	int err;

	pthread_mutex_lock(&r->lock);
	while (!r->write_errno && r->handed - r->emptied > left)
		pthread_cond_wait(&r->moved, &r->lock);
	err = r->write_errno;
	pthread_mutex_unlock(&r->lock);
	errno = err;
	return err ? -1 : 0;
}

/* Has the writer failed (and said why)? */
bool cap_writer_failed(struct cpu_reader *r)
{
	bool failed;

	pthread_mutex_lock(&r->lock);
	failed = r->write_errno != 0;
	pthread_mutex_unlock(&r->lock);
	return failed;
}

/* Has the writer written all it was handed? */
bool cap_writer_idle(struct cpu_reader *r)
{
	bool idle;

	pthread_mutex_lock(&r->lock);
	idle = r->handed == r->emptied;
	pthread_mutex_unlock(&r->lock);
	return idle;
}

/* The reader's pipe goes to the writer. */
void cap_hand_over(struct cpu_reader *r)
{
	if (!r->fill)
		return;
	pthread_mutex_lock(&r->lock);
	r->sizes[r->handed % r->npipes] = r->fill;
	r->handed++;
	pthread_cond_signal(&r->filled);
	pthread_mutex_unlock(&r->lock);
	r->fill = 0;
}

/* The reader's pipe, with room for @len: a free one. */
static int reader_pipe(struct cpu_reader *r, size_t len)
{
	if (r->fill && r->fill + len > r->batch)
		cap_hand_over(r);
	if (!r->fill && cap_wait_writer(r, r->npipes - 1) < 0)
		return -1;
	return r->pipes[r->handed % r->npipes][1];
}

/* @n bytes more in the reader's pipe: a full batch goes to the writer. */
static void add_piped(struct cpu_reader *r, size_t n)
{
	r->fill += n;
	r->piped += n;
	if (r->fill >= r->batch)
		cap_hand_over(r);
}

/* Copy pages into the pipes, a batch a pipe at most. */
int cap_to_writer(struct cpu_reader *r, const char *pages, size_t len)
{
	size_t n;
	int fd;

	for (; len; pages += n, len -= n) {
		n = len < r->batch ? len : r->batch;
		fd = reader_pipe(r, n);
		if (fd < 0 || bm_write_full(fd, pages, n) < 0)
			return -1;
		add_piped(r, n);
	}
	return 0;
}

/*
 * Move whole pages from trace_pipe_raw into the pipes, as long as there
 * are whole pages and room for them in the spool. A pipe holds a batch
 * whatever its make-up: each of its slots holds a page or more (a
 * sub-buffer, or a page of a partly filled one written into it).
 */
int cap_splice_drain(struct cpu_reader *r, bool *write_failed)
{
	uint32_t ps = r->capture->page_size;
	uint64_t region = r->capture->region;
	size_t want;
	ssize_t n;
	int fd;

	*write_failed = false;
	for (;;) {
		want = r->batch - r->fill;
		if (region - r->piped < want)
			want = (region - r->piped) / ps * ps;
		if (!want) {	/* the region is full: as read(2)'s path says */
			errno = EFBIG;
			*write_failed = true;
			return -1;
		}
		fd = reader_pipe(r, want);
		if (fd < 0) {
			*write_failed = true;
			return -1;
		}
		n = splice(r->pipe_fd, NULL, fd, NULL, want, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return n;
		add_piped(r, n);
	}
}

/*
 * The writer: each pipe handed over into the spool, in one write as a rule
 * (a batch: what one failing write loses is what read(2)'s batch would),
 * until the reader is done and everything written.
 */
void *cap_writer_main(void *arg)
{
	struct cpu_reader *r = arg;
	struct bm_capture *c = r->capture;
	bool buffered = !c->direct;
	size_t len;
	ssize_t n = 0;
	int fd, err, flags;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (r->emptied == r->handed && !r->closing)
			pthread_cond_wait(&r->filled, &r->lock);
		if (r->emptied == r->handed)
			break;		/* the reader is done */
		fd = r->pipes[r->emptied % r->npipes][0];
		len = r->sizes[r->emptied % r->npipes];
		pthread_mutex_unlock(&r->lock);
		while (len) {
			n = splice(fd, NULL, r->spool_fd, NULL, len, SPLICE_F_MOVE);
			if (n < 0 && errno == EINTR)
				continue;
			/*
			 * A device whose blocks are larger than a sub-buffer refuses
			 * the direct write: the pipe is as it was, through the page
			 * cache then.
			 */
			if (n < 0 && errno == EINVAL && !buffered &&
			    (flags = fcntl(r->spool_fd, F_GETFL)) >= 0 &&
			    fcntl(r->spool_fd, F_SETFL, flags & ~O_DIRECT) == 0) {
				buffered = true;
				continue;
			}
			if (n <= 0)
				goto failed;
			len -= n;
		}
		pthread_mutex_lock(&r->lock);
		r->bytes += r->sizes[r->emptied % r->npipes];
		r->emptied++;
		pthread_cond_signal(&r->moved);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
failed:
	err = n < 0 ? errno : EIO;
	snprintf(r->write_error, sizeof(r->write_error), "cannot write the spool in '%s': %s",
		 c->spool_path, strerror(err));
	pthread_mutex_lock(&r->lock);
	r->write_errno = err;
	pthread_cond_signal(&r->moved);
	pthread_mutex_unlock(&r->lock);
	atomic_store(&c->failed, true);
	if (c->notify_fd >= 0)
		eventfd_write(c->notify_fd, 1);
	return NULL;
}

void cap_close_pipes(struct cpu_reader *r)
{
	int i;

	for (i = 0; i < MAX_PIPES; i++) {
		if (r->pipes[i][0] >= 0)
			close(r->pipes[i][0]);
		if (r->pipes[i][1] >= 0)
			close(r->pipes[i][1]);
		r->pipes[i][0] = r->pipes[i][1] = -1;
	}
	r->npipes = 0;
}

void cap_close_all_pipes(struct bm_capture *c)
{
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++)
		cap_close_pipes(&c->cpus[cpu]);
}

/*
 * Pipes per CPU between its reader and its writer, each holding a batch:
 * BATCH_BYTES (the default /proc/sys/fs/pipe-max-size), or a sub-buffer if
 * larger. They are the slack for a disk that stalls: while the writer waits
 * on the disk, the reader fills the pipes, then the ring buffer. A stall of
 * 87 ms on a spool write lost events at 140 MB a second a CPU (2 CPUs, 4
 * pipes each: with the default buffer's 4 MiB, some 57 ms). The pages are
 * the kernel's, moved, and held only while the writer lags: as many pipes
 * as PIPE_BUDGET gives every CPU the kernel has a buffer for (possible
 * CPUs), a power of two from 4 to MAX_PIPES: with batches of a MiB, 16 on 1
 * or 2 CPUs, 8 on 3 or 4, 4 from 5 on. The kernel counts the pages of all
 * a user ID's pipes (pipe-user-pages-soft, 16384 by default) and refuses
 * to enlarge a pipe past that (F_SETPIPE_SZ: EPERM) where the recorder has
 * neither CAP_SYS_RESOURCE nor CAP_SYS_ADMIN in the initial user namespace
 * (root in a container): a large machine's recorder there, or one beside
 * others, may get none, and reads by read(2) then. Every
 * CPU's pipes, or none (the recorder raised its limit on descriptors: they
 * are many on a large machine).
 */
bool cap_pipe_all(struct bm_capture *c)
{
	size_t batch = c->page_size > BATCH_BYTES ? c->page_size : BATCH_BYTES;
	size_t npipes = PIPE_BUDGET / ((size_t)c->ncpus * batch);
	int cpu, size = 0;
	unsigned i;

	npipes = npipes < 4 ? 4 : npipes > MAX_PIPES ? MAX_PIPES : npipes;
	/* A power of two: handed % npipes runs on in turn when handed wraps. */
	while (npipes & (npipes - 1))
		npipes &= npipes - 1;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cpu_reader *r = &c->cpus[cpu];

		for (i = 0; i < npipes; i++) {
			if (pipe2(r->pipes[i], O_CLOEXEC) < 0)
				goto failed;
			size = fcntl(r->pipes[i][1], F_SETPIPE_SZ, (int)batch);
			if (size < (int)batch) {
				errno = size < 0 ? errno : EMSGSIZE;
				goto failed;
			}
		}
		r->npipes = npipes;
		r->batch = batch;
	}
	return true;
failed:
	snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (no pipe of %zu KiB for "
		 "splice(2): %s)", batch >> 10, strerror(errno));
	cap_close_all_pipes(c);
	return false;
}

/*
 * Write the spool past the page cache where the file system allows it
 * (the kernel refuses O_DIRECT at fcntl(2) where it has no direct I/O):
 * every CPU's, or none. Writes are whole sub-buffers from the start of a
 * region, which any file system's block divides.
 */
bool cap_direct_all(struct bm_capture *c)
{
	int cpu, flags;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		flags = fcntl(c->cpus[cpu].spool_fd, F_GETFL);
		if (flags < 0 || fcntl(c->cpus[cpu].spool_fd, F_SETFL, flags | O_DIRECT) < 0)
			break;
	}
	if (cpu == c->ncpus)
		return true;
	while (cpu-- > 0) {
		flags = fcntl(c->cpus[cpu].spool_fd, F_GETFL);
		fcntl(c->cpus[cpu].spool_fd, F_SETFL, flags & ~O_DIRECT);
	}
	return false;
}
