// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each CPU's thread waits in poll(2) until the kernel says enough of the
 * buffer is full (buffer_percent) or a second has passed, then reads pages
 * until the buffer is empty. It uses read(2) rather than splice: read also
 * returns a partly filled page (its commit field says how much is valid),
 * and nothing is ever left in an intermediate pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
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

#define BATCH_PAGES	64	/* pages gathered before one write(2) */
#define POLL_MS		1000	/* read partial pages at least this often */

struct cpu_reader {
	struct bm_capture *capture;
	int cpu;
	int pipe_fd;		/* trace_pipe_raw */
	int flush_fd;		/* eventfd: drain now */
	atomic_uint flushed;	/* drains done on request */
	_Atomic uint64_t drained_ns;	/* CLOCK_MONOTONIC when the last drain began */
	unsigned flush_wanted;	/* the count bm_capture_flush() waits for */
	int spool_fd;		/* the spool's page file, at this CPU's region */
	pthread_t thread;
	bool started;
	uint64_t bytes;
	char error[512];
};

struct bm_capture {
	int ncpus;
	uint32_t page_size;
	char spool_path[4096];	/* the spool directory, for messages */
	uint64_t region;	/* bytes each CPU may spool */
	int stop_fd;		/* eventfd: readable once stopping */
	int notify_fd;
	atomic_bool failed;
	struct bm_ring *ring;	/* a flight recording's, or NULL */
	_Atomic(struct bm_trigger *) trigger;	/* looks at pages as they come */
	struct cpu_reader *cpus;
};

/* Where drained pages go: a spool region, or a ring. */
struct sink {
	int fd;
	uint64_t room, *bytes;
	struct bm_ring *ring;
	struct bm_trigger *trigger;
	int cpu;
};

static int put(struct sink *s, const char *pages, size_t len, uint32_t page_size)
{
	if (s->trigger)
		bm_trigger_pages(s->trigger, pages, len / page_size, page_size);
	if (s->ring) {
		if (bm_ring_put(s->ring, s->cpu, pages, len / page_size) < 0)
			return -1;
	} else if (len > s->room - *s->bytes) {
		errno = EFBIG;
		return -1;
	} else if (bm_write_full(s->fd, pages, len) < 0) {
		return -1;
	}
	*s->bytes += len;
	return 0;
}

static int drain_into(int pipe_fd, struct sink *s, uint32_t page_size, char *batch,
		      size_t batch_pages, bool *write_failed)
{
	size_t len = 0;

	*write_failed = false;
	for (;;) {
		ssize_t n = read(pipe_fd, batch + len, page_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		/* A short read is a partial page: pad it to a whole page. */
		memset(batch + len + n, 0, page_size - n);
		len += page_size;
		if (len < batch_pages * page_size)
			continue;
		if (put(s, batch, len, page_size) < 0)
			goto write_error;
		len = 0;
	}
	if (len && put(s, batch, len, page_size) < 0)
		goto write_error;
	return 0;
write_error:
	*write_failed = true;
	return -1;
}

int bm_drain_pages(int pipe_fd, int out_fd, uint32_t page_size, char *batch,
		   size_t batch_pages, uint64_t room, uint64_t *bytes, bool *write_failed)
{
	struct sink s = { .fd = out_fd, .room = room, .bytes = bytes };

	return drain_into(pipe_fd, &s, page_size, batch, batch_pages, write_failed);
}

/* Read pages until the ring buffer of this CPU is empty. */
static int drain(struct cpu_reader *r, char *batch)
{
	struct sink s = { .fd = r->spool_fd, .room = r->capture->region, .bytes = &r->bytes,
			  .ring = r->capture->ring, .cpu = r->cpu,
			  .trigger = atomic_load(&r->capture->trigger) };
	bool write_failed;

	if (drain_into(r->pipe_fd, &s, r->capture->page_size, batch, BATCH_PAGES,
		       &write_failed) == 0)
		return 0;
	if (write_failed && errno == EFBIG)
		snprintf(r->error, sizeof(r->error), "CPU %d filled its %llu MiB of spool in "
			 "'%s'", r->cpu, (unsigned long long)(r->capture->region >> 20),
			 r->capture->spool_path);
	else if (write_failed)
		snprintf(r->error, sizeof(r->error), "cannot write the spool in '%s': %s",
			 r->capture->spool_path, strerror(errno));
	else
		snprintf(r->error, sizeof(r->error), "cannot read CPU %d's trace_pipe_raw: %s",
			 r->cpu, strerror(errno));
	return -1;
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
	bool stopping = false;
	eventfd_t requests;
	uint64_t began;

	if (!batch) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		goto failed;
	}
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
		if (drain(r, batch) < 0)
			goto failed;
		atomic_store(&r->drained_ns, began);
		if (requests)
			atomic_fetch_add(&r->flushed, 1);
	}
	free(batch);
	return NULL;
failed:
	free(batch);
	atomic_store(&c->failed, true);
	if (c->notify_fd >= 0)
		eventfd_write(c->notify_fd, 1);
	return NULL;
}

struct bm_capture *bm_capture_start(struct tracefs_instance *inst, int ncpus,
				    uint32_t page_size, const char *spool_dir, uint64_t ring_bytes,
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
	for (cpu = 0; cpu < ncpus; cpu++)
		c->cpus[cpu].pipe_fd = c->cpus[cpu].spool_fd = c->cpus[cpu].flush_fd = -1;
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
	snprintf(c->spool_path, sizeof(c->spool_path), "%s", spool_dir);
	fds = calloc(ncpus, sizeof(*fds));
	if (!fds || bm_spool_create(spool_dir, ncpus, fds, &c->region) < 0) {
		if (!fds)
			bm_error_errno("cannot start capture");
		free(fds);
		goto fail;
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		c->cpus[cpu].spool_fd = fds[cpu];
	if (ring_bytes)
		c->ring = bm_ring_new(spool_dir, ncpus, page_size, ring_bytes, fds, c->region);
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
	int cpu;

	if (!atomic_load(&c->failed))
		return NULL;
	for (cpu = 0; cpu < c->ncpus; cpu++)
		if (c->cpus[cpu].error[0])
			return c->cpus[cpu].error;
	return "capture failed";
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

void bm_capture_set_trigger(struct bm_capture *c, struct bm_trigger *t)
{
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

		if (r->pipe_fd >= 0)
			close(r->pipe_fd);
		if (r->spool_fd >= 0)
			close(r->spool_fd);
		if (r->flush_fd >= 0)
			close(r->flush_fd);
	}
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	bm_ring_free(c->ring);
	free(c->cpus);
	free(c);
}
