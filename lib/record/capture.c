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
 * - splice(2) of trace_pipe_raw into the spool through a pipe: whole pages
 *   only, the kernel's own pages handed on; read(2) takes the partly filled
 *   page when everything must be out (a stop, a flush, a second without a
 *   wake-up). Nothing is left in the pipe between two drains.
 * - mapped (Linux 6.10+): the CPU's ring buffer is mapped read-only and the
 *   reader ioctl hands over one sub-buffer at a time. A page goes to the
 *   spool once the writer has left it; the page the writer is on goes only
 *   when everything must be out (a stop, a flush, a second without a
 *   wake-up), and what is added to it afterwards follows as a page of its
 *   own (bm_page_rest()).
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tracefs.h>

#include "blkmap/record/capture.h"
#include "blkmap/record/ring.h"
#include "blkmap/record/trigger.h"
#include "blkmap/record/spool.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

#define BATCH_PAGES	64	/* pages gathered before one write(2) */
#define BATCH_BYTES	(256 << 10)	/* the most one splice(2) moves, as one write(2) of pages */
#define POLL_MS		1000	/* read partial pages at least this often */
#define PARTIAL_NS	(POLL_MS * 1000000ULL)

/*
 * The reader's view of a mapped ring buffer, as linux/trace_mmap.h (6.10)
 * has it; Debian 12's headers predate it.
 */
struct rb_meta {
	uint32_t meta_page_size;
	uint32_t meta_struct_len;
	uint32_t subbuf_size;
	uint32_t nr_subbufs;
	struct {
		uint64_t lost_events;
		uint32_t id;
		uint32_t read;
	} reader;
	uint64_t flags, entries, overrun, read, reserved1, reserved2;
};

#define RB_MMAP_GET_READER	_IO('R', 0x20)	/* TRACE_MMAP_IOCTL_GET_READER */
#define PAGE_HDR		16	/* time stamp, commit (64-bit kernels) */
#define COMMIT_MISSED		(1U << 31)	/* events lost before this page */
#define COMMIT_STORED		(1U << 30)	/* their count after the data */
#define COMMIT_FLAGS		(COMMIT_MISSED | COMMIT_STORED)

/* One CPU's mapped ring buffer and the sub-buffer in hand. */
struct mapped {
	volatile struct rb_meta *meta;
	size_t meta_len;
	const char *data;	/* the sub-buffers */
	size_t data_len;
	int64_t id;		/* the reader sub-buffer in hand, or -1 */
	uint32_t seen;		/* its data bytes at the last look */
	uint32_t sent;		/* its data bytes already put */
	unsigned looks;		/* looks since it was handed over */
};

struct cpu_reader {
	struct bm_capture *capture;
	int cpu;
	int pipe_fd;		/* trace_pipe_raw */
	struct mapped map;	/* its ring buffer, when mapped */
	int splice_fds[2];	/* a pipe between trace_pipe_raw and the spool */
	size_t splice_max;	/* what the pipe holds */
	int flush_fd;		/* eventfd: drain now */
	atomic_uint flushed;	/* drains done on request */
	_Atomic uint64_t drained_ns;	/* CLOCK_MONOTONIC when the last drain began */
	uint64_t all_ns;	/* when the last drain that took everything began */
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
	enum { BY_READ, BY_SPLICE, BY_MAP } by;	/* the path */
	char path[160];		/* the path, in words */
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

static uint32_t read4(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t read8(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Bytes of data a page's commit field says it holds, within the page. */
static uint32_t page_data(const char *page, uint32_t page_size)
{
	uint32_t len = (uint32_t)read8(page + 8) & ~COMMIT_FLAGS;

	return len < page_size - PAGE_HDR ? len : page_size - PAGE_HDR;
}

int bm_page_rest(char *page, uint32_t from, uint32_t page_size)
{
	uint32_t len = page_data(page, page_size), off = 0, head, type, size;
	uint64_t ts = read8(page), commit;

	if (from > len)
		return -1;
	while (off < from) {
		if (from - off < 4)
			return -1;
		head = read4(page + PAGE_HDR + off);
		type = head & 31;
		if (type == 0 || type == 29) {	/* a long event, padding */
			if (from - off < 8)
				return -1;
			size = 4 + ((read4(page + PAGE_HDR + off + 4) + 3) & ~3U);
		} else if (type >= 30) {	/* time extend, absolute time */
			size = 8;
		} else {
			size = 4 + 4 * type;
		}
		if (size > from - off)
			return -1;
		if (type == 30)
			ts += ((uint64_t)read4(page + PAGE_HDR + off + 4) << 27) + (head >> 5);
		else if (type == 31)
			ts = ((uint64_t)read4(page + PAGE_HDR + off + 4) << 27) + (head >> 5);
		else
			ts += head >> 5;
		off += size;
	}
	memmove(page + PAGE_HDR, page + PAGE_HDR + from, len - from);
	memset(page + PAGE_HDR + len - from, 0, page_size - PAGE_HDR - (len - from));
	commit = len - from;
	memcpy(page, &ts, sizeof(ts));
	memcpy(page + 8, &commit, sizeof(commit));
	return 0;
}

/*
 * Copy sub-buffer @id into @slot as a page of its own (the lost-events
 * count stored after the data kept, the rest zeroed); its data bytes.
 */
static uint32_t look(struct mapped *m, char *slot, uint32_t page_size)
{
	const char *sub = m->data + (size_t)m->id * page_size;
	uint64_t commit = __atomic_load_n((const uint64_t *)(sub + 8), __ATOMIC_ACQUIRE);
	uint32_t len = (uint32_t)commit & ~COMMIT_FLAGS, copy;

	if (len > page_size - PAGE_HDR)
		len = page_size - PAGE_HDR;
	copy = len;
	if ((commit & COMMIT_STORED) && copy + 8 <= page_size - PAGE_HDR)
		copy += 8;
	memcpy(slot, sub, PAGE_HDR + copy);
	memcpy(slot + 8, &commit, sizeof(commit));
	memset(slot + PAGE_HDR + copy, 0, page_size - PAGE_HDR - copy);
	return len;
}

/*
 * Take the mapped buffer's pages into @s. Each ioctl marks the sub-buffer
 * in hand read up to its commit at that moment, or, when it was read to
 * its end, hands over the next one: so a look taken after the last ioctl
 * that kept the page already holds everything the page will ever hold when
 * the next ioctl moves on. The look lives at @batch + len until then.
 * With @all, the page the writer is on goes too, up to what it holds now.
 */
static int map_drain(struct cpu_reader *r, struct sink *s, char *batch, bool all,
		     bool *write_failed)
{
	uint32_t ps = r->capture->page_size, size = 0;
	struct mapped *m = &r->map;
	size_t len = 0;

	*write_failed = false;
	for (;;) {
		if (ioctl(r->pipe_fd, RB_MMAP_GET_READER) < 0)
			return -1;
		if (m->meta->reader.id != m->id) {
			/* The page in hand is whole: its rest goes out. */
			if (m->id >= 0 && m->seen > m->sent) {
				if (m->sent && bm_page_rest(batch + len, m->sent, ps) < 0)
					goto bad_page;
				len += ps;
			}
			m->id = m->meta->reader.id;
			m->seen = m->sent = m->looks = 0;
			if (m->id >= m->meta->nr_subbufs)
				goto bad_page;
			if (len == BATCH_PAGES * (size_t)ps) {
				if (put(s, batch, len, ps) < 0)
					goto write_error;
				len = 0;
			}
		}
		size = look(m, batch + len, ps);
		if (size == m->seen || (!all && ++m->looks > 1))
			break;		/* empty, or the writer's page */
		m->seen = size;
	}
	m->seen = size;
	if (all && m->seen > m->sent) {
		if (m->sent && bm_page_rest(batch + len, m->sent, ps) < 0)
			goto bad_page;
		m->sent = m->seen;
		len += ps;
	}
	if (len && put(s, batch, len, ps) < 0)
		goto write_error;
	/* The look at the page in hand moves to the batch's start. */
	if (len && m->id >= 0)
		m->seen = look(m, batch, ps);
	return 0;
bad_page:
	errno = EPROTO;
	return -1;
write_error:
	*write_failed = true;
	return -1;
}

/*
 * Move whole pages from trace_pipe_raw through the pipe into the spool,
 * as long as there are whole pages and room for them.
 */
static int splice_drain(struct cpu_reader *r, struct sink *s, bool *write_failed)
{
	uint32_t ps = r->capture->page_size;
	ssize_t n, m;
	size_t want;

	*write_failed = false;
	for (;;) {
		want = r->splice_max / ps * ps;
		if (s->room - *s->bytes < want)
			want = (s->room - *s->bytes) / ps * ps;
		if (!want) {	/* the region is full: as read(2)'s path says */
			errno = EFBIG;
			*write_failed = true;
			return -1;
		}
		n = splice(r->pipe_fd, NULL, r->splice_fds[1], NULL, want,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return n;
		while (n > 0) {
			m = splice(r->splice_fds[0], NULL, s->fd, NULL, n, SPLICE_F_MOVE);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				*write_failed = true;
				if (!m)
					errno = EIO;
				return -1;
			}
			n -= m;
			*s->bytes += m;
		}
	}
}

/*
 * Take pages until the ring buffer of this CPU is empty; when mapped, the
 * page the writer is on only with @all.
 */
static int drain(struct cpu_reader *r, char *batch, bool all)
{
	struct sink s = { .fd = r->spool_fd, .room = r->capture->region, .bytes = &r->bytes,
			  .ring = r->capture->ring, .cpu = r->cpu,
			  .trigger = atomic_load(&r->capture->trigger) };
	bool write_failed;
	int ret;

	if (r->capture->by == BY_MAP) {
		ret = map_drain(r, &s, batch, all, &write_failed);
	} else if (r->capture->by == BY_SPLICE) {
		ret = splice_drain(r, &s, &write_failed);
		if (ret == 0 && all)
			ret = drain_into(r->pipe_fd, &s, r->capture->page_size, batch,
					 BATCH_PAGES, &write_failed);
	} else {
		ret = drain_into(r->pipe_fd, &s, r->capture->page_size, batch, BATCH_PAGES,
				 &write_failed);
	}
	if (ret == 0)
		return 0;
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
	bool stopping = false, all;
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
		all = stopping || requests || c->by == BY_READ || began - r->all_ns >= PARTIAL_NS;
		if (drain(r, batch, all) < 0)
			goto failed;
		if (all) {
			r->all_ns = began;
			atomic_store(&r->drained_ns, began);
		}
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

static void unmap_cpu(struct mapped *m)
{
	if (m->data)
		munmap((void *)m->data, m->data_len);
	if (m->meta)
		munmap((void *)m->meta, m->meta_len);
	m->data = NULL;
	m->meta = NULL;
}

/* Map CPU @r's ring buffer, its sub-buffers of @page_size. -1 with errno. */
static int map_cpu(struct cpu_reader *r, uint32_t page_size)
{
	struct mapped *m = &r->map;
	long psz = sysconf(_SC_PAGESIZE);
	void *p;

	m->id = -1;
	p = mmap(NULL, psz, PROT_READ, MAP_SHARED, r->pipe_fd, 0);
	if (p == MAP_FAILED)
		return -1;
	m->meta = p;
	m->meta_len = psz;
	if (m->meta->subbuf_size != page_size || !m->meta->nr_subbufs ||
	    m->meta->meta_struct_len < sizeof(struct rb_meta) - 16) {
		errno = EPROTO;
		return -1;
	}
	m->data_len = (size_t)m->meta->subbuf_size * m->meta->nr_subbufs;
	p = mmap(NULL, m->data_len, PROT_READ, MAP_SHARED, r->pipe_fd, m->meta->meta_page_size);
	if (p == MAP_FAILED)
		return -1;
	m->data = p;
	return 0;
}

/* Map every CPU's buffer, or none. */
static bool map_all(struct bm_capture *c)
{
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++)
		if (map_cpu(&c->cpus[cpu], c->page_size) < 0)
			break;
	if (cpu == c->ncpus)
		return true;
	snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (CPU %d's ring buffer "
		 "cannot be mapped: %s)", cpu, strerror(errno));
	for (cpu = 0; cpu < c->ncpus; cpu++)
		unmap_cpu(&c->cpus[cpu].map);
	return false;
}

/*
 * A pipe per CPU, each holding at least a sub-buffer and a splice(2) at
 * most BATCH_BYTES (or a sub-buffer): what one failing write loses is what
 * read(2)'s batch would. Every CPU's, or none.
 */
static bool pipe_all(struct bm_capture *c)
{
	size_t want = c->page_size > BATCH_BYTES ? c->page_size : BATCH_BYTES;
	int cpu, size;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cpu_reader *r = &c->cpus[cpu];

		if (pipe2(r->splice_fds, O_CLOEXEC) < 0)
			break;
		size = fcntl(r->splice_fds[1], F_SETPIPE_SZ, (int)want);
		if (size < 0)	/* above /proc/sys/fs/pipe-max-size: as it is */
			size = fcntl(r->splice_fds[1], F_GETPIPE_SZ);
		if (size < (int)c->page_size) {
			errno = size < 0 ? errno : EMSGSIZE;
			break;
		}
		r->splice_max = (size_t)size < want ? (size_t)size : want;
	}
	if (cpu == c->ncpus)
		return true;
	snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (no pipe for splice(2): "
		 "%s)", strerror(errno));
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cpu_reader *r = &c->cpus[cpu];

		if (r->splice_fds[0] >= 0)
			close(r->splice_fds[0]);
		if (r->splice_fds[1] >= 0)
			close(r->splice_fds[1]);
		r->splice_fds[0] = r->splice_fds[1] = -1;
	}
	return false;
}

/*
 * The path, for every CPU alike; BLKMAP_CAPTURE=read, splice or mapped asks
 * for one (for A/B runs, bench/run). A flight recording reads: its ring and
 * trigger look at every page. Otherwise, by sub-buffer size:
 * - a page (the kernel's default): read(2). splice(2) hands the kernel's
 *   own page on, but allocates and clears a page in its place for each,
 *   and the spool's page cache copies it all the same: it cost no less per
 *   event than read(2) on 6.18 (1.1 times, paired runs; record(1)).
 * - larger (-S, Linux 6.8+): splice(2), whole sub-buffers only. read(2)
 *   takes the writer's sub-buffer partly filled at every wake-up, copied
 *   event by event: with 64 KiB it cost 1.2 to 1.7 times read(2)'s of 4 KiB.
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
		if (!map_all(c))
			return;
		c->by = BY_MAP;
		snprintf(c->path, sizeof(c->path), "the ring buffer mapped (BLKMAP_CAPTURE=mapped)");
	} else if (want && !strcmp(want, "read")) {
		snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (BLKMAP_CAPTURE=read)");
	} else if ((want && !strcmp(want, "splice")) || (!want && large)) {
		if (!pipe_all(c))
			return;
		c->by = BY_SPLICE;
		snprintf(c->path, sizeof(c->path), "splice(2) of trace_pipe_raw (%s)",
			 want ? "BLKMAP_CAPTURE=splice" : "sub-buffers larger than a page");
	} else if (want && strcmp(want, "read")) {
		snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (BLKMAP_CAPTURE=%.32s "
			 "is none of read, splice, mapped)", want);
	} else {
		snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (sub-buffers of a "
			 "page)");
	}
}

const char *bm_capture_path(struct bm_capture *c)
{
	return c->path;
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
		c->cpus[cpu].pipe_fd = c->cpus[cpu].spool_fd = c->cpus[cpu].flush_fd =
			c->cpus[cpu].splice_fds[0] = c->cpus[cpu].splice_fds[1] = -1;
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
	choose_path(c);
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

		unmap_cpu(&r->map);
		if (r->splice_fds[0] >= 0)
			close(r->splice_fds[0]);
		if (r->splice_fds[1] >= 0)
			close(r->splice_fds[1]);
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
