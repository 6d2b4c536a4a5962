// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each CPU's thread waits in poll(2) until the kernel says enough of the
 * buffer is full (buffer_percent) or a second has passed, then takes pages
 * until the buffer is empty, by one path chosen at start for every CPU
 * alike (choose_path()):
 *
 * - read(2) of trace_pipe_raw: each read copies a page out, a partly
 *   filled one included (its commit field says how much is valid), and the
 *   pages go to the spool BATCH_PAGES at a time.
 * - splice(2) of trace_pipe_raw into pipes, whole pages only, the kernel's
 *   own pages handed on; read(2) takes the partly filled page when
 *   everything must be out (a stop, a flush), or partial_ns after it last
 *   did once the writer has caught up, and writes it into the pipe behind
 *   them. A writer thread per CPU
 *   splices each pipe, once filled with a batch, into the spool, past the
 *   page cache (O_DIRECT) where the file system allows it: the pages are
 *   not copied again. The reader fills the next pipe meanwhile: it waits
 *   for the disk only once all its pipes wait for it (a pipe is locked
 *   while it is written). A drain for a stop or a flush returns once the
 *   writer has written everything.
 * - mapped (Linux 6.10+): the CPU's ring buffer is mapped read-only and the
 *   reader ioctl hands over one sub-buffer at a time. A page goes to the
 *   spool once the writer has left it; the page the writer is on goes only
 *   when everything must be out (a stop, a flush, partial_ns without a
 *   wake-up), and what is added to it afterwards follows as a page of its
 *   own (bm_page_rest()).
 *
 * This file holds the threads and the choice of path; where drained pages
 * go, and the read(2) path's drain, is sink.c, the splice(2) path
 * spliced.c, the mapped one mapped.c (capturing.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <tracefs.h>

#include "blkmap/record/capture.h"
#include "blkmap/record/ring.h"
#include "blkmap/record/trigger.h"
#include "blkmap/record/spool.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

#include "capturing.h"

#define POLL_MS		1000	/* look for partly filled pages this often */
#define PARTIAL_NS	(POLL_MS * 1000000ULL)	/* take them so often, sub-buffers of a page */

/*
 * Take pages until the ring buffer of this CPU is empty; the page the
 * kernel's writer is on too with @all (then *@all_taken). With @written (a
 * stop, a flush) the splice path takes it whatever the spool's writer
 * does, and returns once that has written everything; otherwise it takes
 * it only once the spool's writer has caught up: a pipe handed to a busy
 * writer half full would take a pipe's room from the slack that the pipes
 * give a disk that stalls, and waiting for the disk would leave the rest
 * of the pipes unused.
 */
static int drain(struct cpu_reader *r, char *batch, bool all, bool written, bool *all_taken)
{
	struct sink s = { .fd = r->spool_fd, .room = r->capture->region, .bytes = &r->bytes,
			  .capture = r->capture,
			  .ring = r->capture->ring, .cpu = r->cpu,
			  .trigger = atomic_load(&r->capture->trigger) };
	bool write_failed;
	int ret;

	if (r->capture->by == BY_MAP) {
		ret = cap_map_drain(r, &s, batch, all, &write_failed);
	} else if (r->capture->by == BY_SPLICE) {
		/* The partly filled page goes into the pipe behind the whole ones. */
		ret = cap_splice_drain(r, &write_failed);
		if (ret == 0 && all && !written && !cap_writer_idle(r))
			all = false;
		if (ret == 0 && all) {
			s.writer = r;
			s.bytes = &r->piped;
			ret = cap_drain_into(r->pipe_fd, &s, r->capture->page_size, batch,
					     BATCH_PAGES, &write_failed);
		}
		/*
		 * The reader's pipe (this wake-up's pages, and any an earlier
		 * one left in it) goes to the writer, a batch or not, with the
		 * partly filled page or when the writer has nothing else to
		 * write: as little waits in the recorder as the disk allows,
		 * should it be killed. While the writer is busy (the disk is
		 * slow), the pipe fills on.
		 */
		if (ret == 0 && (all || cap_writer_idle(r)))
			cap_hand_over(r);
		if (ret == 0 && written && cap_wait_writer(r, 0) < 0) {
			write_failed = true;
			ret = -1;
		}
	} else {
		ret = cap_drain_into(r->pipe_fd, &s, r->capture->page_size, batch, BATCH_PAGES,
				     &write_failed);
	}
	*all_taken = all;
	if (ret == 0)
		return 0;
	if (r->capture->by == BY_SPLICE && cap_writer_failed(r))
		return -1;	/* it said why */
	if (write_failed && errno == EFBIG)
		snprintf(r->error, sizeof(r->error), "CPU %d filled its %llu MiB of spool in "
			 "'%s'", r->cpu, (unsigned long long)(r->capture->region >> 20),
			 r->capture->spool_path);
	else if (write_failed)
		snprintf(r->error, sizeof(r->error), "cannot write the spool in '%s': %s",
			 r->capture->spool_path, strerror(errno));
	else if (r->capture->by == BY_MAP)
		snprintf(r->error, sizeof(r->error), "cannot take a page from CPU %d's mapped "
			 "ring buffer: %s", r->cpu, strerror(errno));
	else
		snprintf(r->error, sizeof(r->error), "cannot read CPU %d's trace_pipe_raw: %s",
			 r->cpu, strerror(errno));
	return -1;
}

/* The reader is done: the writer ends once it has written what it has. */
static void reader_done(struct cpu_reader *r)
{
	pthread_mutex_lock(&r->lock);
	r->closing = true;
	pthread_cond_signal(&r->filled);
	pthread_mutex_unlock(&r->lock);
}

/* CPUs a mask here can name: the kernel's largest NR_CPUS (x86's MAXSMP). */
#define MASK_CPUS	8192

/*
 * Run on @cpu, the CPU whose ring buffer this thread reads, if the mask
 * blkmap started with allows it (taskset(1), a cpuset, isolcpus: a user
 * keeps the readers off CPUs that way), or stay within that mask. Measured,
 * not explained: on 2 CPUs busy with fio at a million events a second,
 * readers free to run on either lost 10 to 50 ms of events on one CPU in 7
 * recordings of 30 s in 12; pinned, in none of 10. The price: a reader
 * shares its CPU with whatever runs there (a real-time task that holds the
 * CPU starves it), and after the CPU goes offline it runs anywhere.
 */
static void pin_to(int cpu)
{
	size_t size = CPU_ALLOC_SIZE(MASK_CPUS);
	cpu_set_t *set = CPU_ALLOC(MASK_CPUS);

	if (!set || cpu >= MASK_CPUS)
		goto out;
	if (pthread_getaffinity_np(pthread_self(), size, set) == 0 && CPU_ISSET_S(cpu, size, set)) {
		CPU_ZERO_S(size, set);
		CPU_SET_S(cpu, size, set);
		pthread_setaffinity_np(pthread_self(), size, set);
	}
out:
	CPU_FREE(set);
}

static void *reader_main(void *arg)
{
	struct cpu_reader *r = arg;
	struct bm_capture *c = r->capture;
	char *batch = malloc((size_t)BATCH_PAGES * c->page_size);
	struct pollfd fds[3] = {
		{ .fd = r->pipe_fd, .events = POLLIN },
		{ .fd = c->stop_fd, .events = POLLIN },
		{ .fd = r->flush_fd, .events = POLLIN },
	};
	bool stopping = false, all, all_taken;
	eventfd_t requests;
	uint64_t began;

	if (!batch) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		goto failed;
	}
	pin_to(r->cpu);
	while (!stopping) {
		if (poll(fds, 3, POLL_MS) < 0 && errno != EINTR) {
			snprintf(r->error, sizeof(r->error), "cannot poll CPU %d's trace_pipe_raw: %s",
				 r->cpu, strerror(errno));
			goto failed;
		}
		stopping = fds[1].revents & POLLIN;
		requests = 0;
		if (fds[2].revents & POLLIN)
			eventfd_read(r->flush_fd, &requests);
		began = bm_now_ns();
		/* The partly filled page too: at a stop, a flush, every partial_ns. */
		all = stopping || requests || c->by == BY_READ ||
		      began - r->all_ns >= c->partial_ns;
		if (drain(r, batch, all, stopping || requests, &all_taken) < 0)
			goto failed;
		if (all_taken)
			r->all_ns = began;
		/* In the spool: the splice path's pages are once written. */
		if (all_taken && (c->by != BY_SPLICE || stopping || requests))
			atomic_store(&r->drained_ns, began);
		if (requests)
			atomic_fetch_add(&r->flushed, 1);
	}
	free(batch);
	reader_done(r);
	return NULL;
failed:
	free(batch);
	cap_hand_over(r);	/* what fitted before the failure, a full region's last batch */
	reader_done(r);
	atomic_store(&c->failed, true);
	if (c->notify_fd >= 0)
		eventfd_write(c->notify_fd, 1);
	return NULL;
}

/*
 * The path, for every CPU alike; BLKMAP_CAPTURE=read, splice or mapped asks
 * for one (for A/B runs, bench/run). A flight recording reads: its ring and
 * trigger look at every page. Otherwise, by sub-buffer size:
 * - larger (-S, Linux 6.8+, 16 KiB by default there): splice(2), whole
 *   sub-buffers only. read(2) takes the writer's sub-buffer partly filled
 *   at every wake-up, copied event by event: with 64 KiB it cost 1.2 to 1.7
 *   times read(2)'s of 4 KiB.
 * - a page (6.1's only size, and where the kernel refuses another):
 *   splice(2) as well, the kernel allocating and clearing a page in place
 *   of each it hands over, but many pages a call where read(2) takes one:
 *   0.42 times read(2)'s CPU per event past the page cache on 6.18
 *   (bench/floor, 0.032 against 0.076 s per million events), 0.52 times
 *   through it (ramfs, 0.042 against 0.081).
 * The mapped buffer (6.10+) is never the default: its reader ioctl walks
 * every event of the sub-buffer it hands over, the dearest of the three.
 */
static void choose_path(struct bm_capture *c)
{
	const char *want = getenv("BLKMAP_CAPTURE");
	bool large = c->page_size > (uint32_t)sysconf(_SC_PAGESIZE);

	if (c->ring) {
		snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (a flight recording "
			 "looks at every page)");
	} else if (want && !strcmp(want, "mapped")) {
		if (!cap_map_all(c))
			return;
		c->by = BY_MAP;
		snprintf(c->path, sizeof(c->path), "the ring buffer mapped (BLKMAP_CAPTURE=mapped)");
	} else if (want && !strcmp(want, "read")) {
		snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (BLKMAP_CAPTURE=read)");
	} else if (want && strcmp(want, "splice")) {
		snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (BLKMAP_CAPTURE=%.32s "
			 "is none of read, splice, mapped)", want);
	} else {
		if (!cap_pipe_all(c))
			return;
		c->direct = cap_direct_all(c);
		c->by = BY_SPLICE;
		snprintf(c->path, sizeof(c->path), "splice(2) of trace_pipe_raw (%s) into the "
			 "spool %s", want ? "BLKMAP_CAPTURE=splice" : large ?
			 "sub-buffers larger than a page" : "sub-buffers of a page",
			 c->direct ? "past the page cache (O_DIRECT)"
				   : "through the page cache (the file system has no O_DIRECT)");
	}
}

const char *bm_capture_path(struct bm_capture *c)
{
	return c->path;
}

struct bm_capture *bm_capture_start(struct tracefs_instance *inst, int ncpus,
				    uint32_t page_size, const struct bm_spool *spool, uint64_t ring_bytes,
				    int notify_fd)
{
	struct bm_capture *c;
	int cpu, *fds;

	c = calloc(1, sizeof(*c));
	if (!c || !(c->cpus = calloc(ncpus, sizeof(*c->cpus)))) {
		free(c);
		bm_error_errno("cannot start capture");
		return NULL;
	}
	c->ncpus = ncpus;
	c->page_size = page_size;
	c->notify_fd = notify_fd;
	/* Every descriptor marked unopened before the first can fail: 0 is stdin. */
	c->stop_fd = -1;
	for (cpu = 0; cpu < ncpus; cpu++) {
		c->cpus[cpu].pipe_fd = c->cpus[cpu].spool_fd = c->cpus[cpu].flush_fd = -1;
		memset(c->cpus[cpu].pipes, -1, sizeof(c->cpus[cpu].pipes));
		pthread_mutex_init(&c->cpus[cpu].lock, NULL);
		pthread_cond_init(&c->cpus[cpu].filled, NULL);
		pthread_cond_init(&c->cpus[cpu].moved, NULL);
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		c->cpus[cpu].flush_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (c->cpus[cpu].flush_fd < 0) {
			bm_error_errno("cannot start capture");
			goto fail;
		}
	}
	c->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (c->stop_fd < 0) {
		bm_error_errno("cannot start capture");
		goto fail;
	}
	snprintf(c->spool_path, sizeof(c->spool_path), "%s", spool->path);
	fds = calloc(ncpus, sizeof(*fds));
	if (!fds || bm_spool_create(spool, ncpus, fds, &c->region) < 0) {
		if (!fds)
			bm_error_errno("cannot start capture");
		free(fds);
		goto fail;
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		c->cpus[cpu].spool_fd = fds[cpu];
	if (ring_bytes)
		c->ring = bm_ring_new(spool->fd, spool->path, ncpus, page_size, ring_bytes, fds,
				      c->region);
	free(fds);
	if (ring_bytes && !c->ring)
		goto fail;
	if (!c->region)		/* a file per CPU: no region to fill */
		c->region = UINT64_MAX;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct cpu_reader *r = &c->cpus[cpu];
		char file[64];

		r->capture = c;
		r->cpu = cpu;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		r->pipe_fd = tracefs_instance_file_open(inst, file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->pipe_fd < 0) {
			bm_error_errno("cannot open %s", file);
			goto fail;
		}
	}
	choose_path(c);
	/*
	 * A partly filled sub-buffer fills a whole one in the file: larger
	 * ones are taken less often, so that a light load's recording grows no
	 * faster than with pages. A flush, the live view and the stop take
	 * them at once whatever their size.
	 */
	c->partial_ns = PARTIAL_NS * (page_size / 4096 ? page_size / 4096 : 1);
	for (cpu = 0; cpu < ncpus && c->by == BY_SPLICE; cpu++) {
		errno = pthread_create(&c->cpus[cpu].writer, NULL, cap_writer_main, &c->cpus[cpu]);
		if (errno) {
			bm_error_errno("cannot start the spool writer of CPU %d", cpu);
			goto fail;
		}
		c->cpus[cpu].writer_started = true;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		errno = pthread_create(&c->cpus[cpu].thread, NULL, reader_main, &c->cpus[cpu]);
		if (errno) {
			bm_error_errno("cannot start the capture thread of CPU %d", cpu);
			goto fail;
		}
		c->cpus[cpu].started = true;
	}
	return c;
fail:
	bm_capture_stop(c);
	bm_capture_free(c);
	return NULL;
}

int bm_capture_stop(struct bm_capture *c)
{
	int cpu;

	if (c->stop_fd >= 0)
		eventfd_write(c->stop_fd, 1);
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		if (c->cpus[cpu].started)
			pthread_join(c->cpus[cpu].thread, NULL);
		c->cpus[cpu].started = false;
	}
	/* Readers that did not start have not said they are done. */
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		reader_done(&c->cpus[cpu]);
		if (c->cpus[cpu].writer_started)
			pthread_join(c->cpus[cpu].writer, NULL);
		c->cpus[cpu].writer_started = false;
	}
	if (bm_capture_failure(c)) {
		bm_error("%s", bm_capture_failure(c));
		return -1;
	}
	return 0;
}

void bm_capture_flush(struct bm_capture *c)
{
	int cpu, tries;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		c->cpus[cpu].flush_wanted = atomic_load(&c->cpus[cpu].flushed) + 1;
		eventfd_write(c->cpus[cpu].flush_fd, 1);
	}
	/* A drain takes microseconds; do not wait on a stuck thread for long. */
	for (cpu = 0, tries = 0; cpu < c->ncpus && tries < 1000; tries++) {
		if (atomic_load(&c->cpus[cpu].flushed) >= c->cpus[cpu].flush_wanted ||
		    atomic_load(&c->failed))
			cpu++;
		else
			usleep(100);
	}
}

const char *bm_capture_failure(struct bm_capture *c)
{
	const char *why = NULL;
	int cpu;

	if (!atomic_load(&c->failed))
		return NULL;
	for (cpu = 0; cpu < c->ncpus && !why; cpu++) {
		struct cpu_reader *r = &c->cpus[cpu];

		if (r->error[0])
			why = r->error;
		pthread_mutex_lock(&r->lock);	/* the writer's words are whole once it says so */
		if (!why && r->write_errno)
			why = r->write_error;
		pthread_mutex_unlock(&r->lock);
	}
	return why ? why : "capture failed";
}

uint64_t bm_capture_drained(struct bm_capture *c)
{
	uint64_t t, oldest = UINT64_MAX;
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		t = atomic_load(&c->cpus[cpu].drained_ns);
		if (t < oldest)
			oldest = t;
	}
	return oldest;
}

struct bm_ring *bm_capture_ring(struct bm_capture *c)
{
	return c->ring;
}

static void hold_ring(void *ring)
{
	bm_ring_hold(ring);
}

void bm_capture_set_trigger(struct bm_capture *c, struct bm_trigger *t)
{
	/*
	 * A slow I/O holds the ring at once, before the pages after it can
	 * push it out: the snapshot due --post seconds later must have it.
	 */
	if (c->ring)
		bm_trigger_on_slow(t, hold_ring, c->ring);
	atomic_store(&c->trigger, t);
}

uint64_t bm_capture_bytes(struct bm_capture *c)
{
	uint64_t total = 0;
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++)
		total += c->cpus[cpu].bytes;
	return total;
}

void bm_capture_free(struct bm_capture *c)
{
	int cpu;

	if (!c)
		return;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cpu_reader *r = &c->cpus[cpu];

		cap_unmap_cpu(&r->map);
		cap_close_pipes(r);
		if (r->pipe_fd >= 0)
			close(r->pipe_fd);
		if (r->spool_fd >= 0)
			close(r->spool_fd);
		if (r->flush_fd >= 0)
			close(r->flush_fd);
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->filled);
		pthread_cond_destroy(&r->moved);
	}
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	bm_ring_free(c->ring);
	free(c->cpus);
	free(c);
}
