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
 *   everything must be out (a stop, a flush, partial_ns without a wake-up)
 *   and writes it into the pipe behind them. A writer thread per CPU
 *   splices each pipe, once filled with a batch, into the spool, past the
 *   page cache (O_DIRECT) where the file system allows it: the pages are
 *   not copied again. The reader fills the next pipe meanwhile: it waits
 *   for the disk only once PIPES batches wait for it (a pipe is locked
 *   while it is written). A drain that takes everything returns once the
 *   writer has written it.
 * - mapped (Linux 6.10+): the CPU's ring buffer is mapped read-only and the
 *   reader ioctl hands over one sub-buffer at a time. A page goes to the
 *   spool once the writer has left it; the page the writer is on goes only
 *   when everything must be out (a stop, a flush, partial_ns without a
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
#define BATCH_BYTES	(1 << 20)	/* a pipe's, and so a write's at most, on the splice path */
#define PIPES		4	/* batches that may wait for the disk, per CPU */
#define POLL_MS		1000	/* read partial pages at least this often */
/*
 * With a trigger, the two halves of a slow I/O may be on two CPUs, and the
 * pair is seen only once the later CPU is read. The earlier half must
 * still be in its ring then, which a flood on its CPU turns over in a
 * fraction of a second: a CPU whose ring goes round has the others read
 * at most this often (each read of a quiet CPU takes a slot of its ring,
 * so not while nothing goes round).
 */
#define TRIGGER_READ_NS	100000000ULL
#define PARTIAL_NS	(POLL_MS * 1000000ULL)	/* ... for sub-buffers of a page */

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
	int pipes[PIPES][2];	/* between trace_pipe_raw and the spool, used in turn */
	size_t batch;		/* bytes a pipe takes before the writer does */
	size_t fill;		/* bytes in the reader's pipe, pipes[handed % PIPES] */
	uint64_t piped;		/* bytes put into pipes (the reader's) */
	pthread_mutex_t lock;	/* guards the six below */
	pthread_cond_t filled;	/* for the writer: a pipe handed over, or the reader done */
	pthread_cond_t moved;	/* for the reader: a pipe written, or the writer failed */
	unsigned handed;	/* pipes handed to the writer */
	unsigned emptied;	/* of those, written */
	size_t sizes[PIPES];	/* bytes in each pipe handed over */
	bool closing;		/* the reader is done */
	int write_errno;	/* why the writer stopped */
	char write_error[512];	/* its words, set before write_errno */
	pthread_t writer;
	bool writer_started;
	int flush_fd;		/* eventfd: drain now */
	atomic_uint flushed;	/* drains done on request */
	_Atomic uint64_t drained_ns;	/* CLOCK_MONOTONIC when the last drain began */
	uint64_t all_ns;	/* when the last drain that took everything began */
	unsigned flush_wanted;	/* the count bm_capture_flush() waits for */
	int spool_fd;		/* the spool's page file, at this CPU's region */
	pthread_t thread;
	bool started;
	uint64_t bytes;		/* in the spool */
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
	bool direct;		/* the spool is written past the page cache */
	uint64_t partial_ns;	/* take partly filled pages at least this often */
	char path[160];		/* the path, in words */
	atomic_bool failed;
	struct bm_ring *ring;	/* a flight recording's, or NULL */
	_Atomic(struct bm_trigger *) trigger;	/* looks at pages as they come */
	_Atomic uint64_t others_read_ns;	/* when a ring going round last had them read */
	struct cpu_reader *cpus;
};

/* Where drained pages go: a spool region, a CPU's writer, or a ring. */
struct sink {
	int fd;
	uint64_t room, *bytes;
	struct cpu_reader *writer;	/* through its pipe */
	struct bm_ring *ring;
	struct bm_trigger *trigger;
	struct bm_capture *capture;
	int cpu;
};

static int to_writer(struct cpu_reader *r, const char *pages, size_t len);

/* CPU @cpu's ring goes round: have the other CPUs read soon (TRIGGER_READ_NS). */
static void read_others(struct bm_capture *c, int cpu)
{
	uint64_t now = bm_now_ns(), last = atomic_load(&c->others_read_ns);
	int other;

	if (now - last < TRIGGER_READ_NS ||
	    !atomic_compare_exchange_strong(&c->others_read_ns, &last, now))
		return;
	for (other = 0; other < c->ncpus; other++)
		if (other != cpu)
			eventfd_write(c->cpus[other].flush_fd, 1);
}

static int put(struct sink *s, const char *pages, size_t len, uint32_t page_size)
{
	if (s->trigger)		/* a slow I/O holds the ring (bm_capture_set_trigger) */
		bm_trigger_pages(s->trigger, pages, len / page_size, page_size);
	if (s->ring) {
		int full = bm_ring_put(s->ring, s->cpu, pages, len / page_size);

		if (full < 0)
			return -1;
		if (full && s->trigger)
			bm_trigger_poke(s->trigger);	/* the snapshot is due now */
		if (s->trigger && bm_ring_went_round(s->ring, s->cpu))
			read_others(s->capture, s->cpu);
	} else if (len > s->room - *s->bytes) {
		errno = EFBIG;
		return -1;
	} else if (s->writer) {
		return to_writer(s->writer, pages, len);	/* counted there */
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
 * Wait until the writer has written all but @left of the pipes handed to
 * it. -1 with errno once it has failed.
 */
static int wait_writer(struct cpu_reader *r, unsigned left)
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
static bool writer_failed(struct cpu_reader *r)
{
	bool failed;

	pthread_mutex_lock(&r->lock);
	failed = r->write_errno != 0;
	pthread_mutex_unlock(&r->lock);
	return failed;
}

/* The reader's pipe goes to the writer. */
static void hand_over(struct cpu_reader *r)
{
	if (!r->fill)
		return;
	pthread_mutex_lock(&r->lock);
	r->sizes[r->handed % PIPES] = r->fill;
	r->handed++;
	pthread_cond_signal(&r->filled);
	pthread_mutex_unlock(&r->lock);
	r->fill = 0;
}

/* The reader's pipe, with room for @len: a free one. */
static int reader_pipe(struct cpu_reader *r, size_t len)
{
	if (r->fill && r->fill + len > r->batch)
		hand_over(r);
	if (!r->fill && wait_writer(r, PIPES - 1) < 0)
		return -1;
	return r->pipes[r->handed % PIPES][1];
}

/* @n bytes more in the reader's pipe: a full batch goes to the writer. */
static void add_piped(struct cpu_reader *r, size_t n)
{
	r->fill += n;
	r->piped += n;
	if (r->fill >= r->batch)
		hand_over(r);
}

/* Copy pages into the pipes, a batch a pipe at most. */
static int to_writer(struct cpu_reader *r, const char *pages, size_t len)
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
static int splice_drain(struct cpu_reader *r, bool *write_failed)
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
static void *writer_main(void *arg)
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
		fd = r->pipes[r->emptied % PIPES][0];
		len = r->sizes[r->emptied % PIPES];
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
		r->bytes += r->sizes[r->emptied % PIPES];
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

/*
 * Take pages until the ring buffer of this CPU is empty; when mapped, the
 * page the writer is on only with @all.
 */
static int drain(struct cpu_reader *r, char *batch, bool all)
{
	struct sink s = { .fd = r->spool_fd, .room = r->capture->region, .bytes = &r->bytes,
			  .capture = r->capture,
			  .ring = r->capture->ring, .cpu = r->cpu,
			  .trigger = atomic_load(&r->capture->trigger) };
	bool write_failed;
	int ret;

	if (r->capture->by == BY_MAP) {
		ret = map_drain(r, &s, batch, all, &write_failed);
	} else if (r->capture->by == BY_SPLICE) {
		/* The partly filled page goes into the pipe behind the whole ones. */
		ret = splice_drain(r, &write_failed);
		if (ret == 0 && all) {
			s.writer = r;
			s.bytes = &r->piped;
			ret = drain_into(r->pipe_fd, &s, r->capture->page_size, batch,
					 BATCH_PAGES, &write_failed);
		}
		/*
		 * What this wake-up took goes to the writer, a batch or not:
		 * no more waits in the recorder than the page cache would hold
		 * after read(2)'s write, should it be killed.
		 */
		if (ret == 0)
			hand_over(r);
		if (ret == 0 && all && wait_writer(r, 0) < 0) {
			write_failed = true;
			ret = -1;
		}
	} else {
		ret = drain_into(r->pipe_fd, &s, r->capture->page_size, batch, BATCH_PAGES,
				 &write_failed);
	}
	if (ret == 0)
		return 0;
	if (r->capture->by == BY_SPLICE && writer_failed(r))
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
		all = stopping || requests || c->by == BY_READ ||
		      began - r->all_ns >= c->partial_ns;
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
	reader_done(r);
	return NULL;
failed:
	free(batch);
	hand_over(r);	/* what fitted before the failure, a full region's last batch */
	reader_done(r);
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

static void close_pipes(struct cpu_reader *r)
{
	int i;

	for (i = 0; i < PIPES; i++) {
		if (r->pipes[i][0] >= 0)
			close(r->pipes[i][0]);
		if (r->pipes[i][1] >= 0)
			close(r->pipes[i][1]);
		r->pipes[i][0] = r->pipes[i][1] = -1;
	}
}

/*
 * PIPES pipes per CPU between its reader and its writer, each holding a
 * batch: BATCH_BYTES (the default /proc/sys/fs/pipe-max-size), or a
 * sub-buffer if larger. Every CPU's, or none (the recorder raised its
 * limit on descriptors: they are many on a large machine).
 */
static void close_all_pipes(struct bm_capture *c)
{
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++)
		close_pipes(&c->cpus[cpu]);
}

static bool pipe_all(struct bm_capture *c)
{
	size_t batch = c->page_size > BATCH_BYTES ? c->page_size : BATCH_BYTES;
	int cpu, i, size = 0;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cpu_reader *r = &c->cpus[cpu];

		for (i = 0; i < PIPES; i++) {
			if (pipe2(r->pipes[i], O_CLOEXEC) < 0)
				goto failed;
			size = fcntl(r->pipes[i][1], F_SETPIPE_SZ, (int)batch);
			if (size < (int)batch) {
				errno = size < 0 ? errno : EMSGSIZE;
				goto failed;
			}
		}
		r->batch = batch;
	}
	return true;
failed:
	snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (no pipe of %zu KiB for "
		 "splice(2): %s)", batch >> 10, strerror(errno));
	close_all_pipes(c);
	return false;
}

/*
 * Write the spool past the page cache where the file system allows it
 * (the kernel refuses O_DIRECT at fcntl(2) where it has no direct I/O):
 * every CPU's, or none. Writes are whole sub-buffers from the start of a
 * region, which any file system's block divides.
 */
static bool direct_all(struct bm_capture *c)
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

/*
 * The path, for every CPU alike; BLKMAP_CAPTURE=read, splice or mapped asks
 * for one (for A/B runs, bench/run). A flight recording reads: its ring and
 * trigger look at every page. Otherwise, by sub-buffer size:
 * - larger (-S, Linux 6.8+, 16 KiB by default there): splice(2), whole
 *   sub-buffers only. read(2) takes the writer's sub-buffer partly filled
 *   at every wake-up, copied event by event: with 64 KiB it cost 1.2 to 1.7
 *   times read(2)'s of 4 KiB.
 * - a page (6.1's only size, and where the kernel refuses another):
 *   splice(2) as well where the spool takes O_DIRECT: a page a splice, the
 *   kernel allocating and clearing one in its place, but no copy into the
 *   spool's page cache; 0.75 times read(2)'s CPU per event on 6.18
 *   (bench/run, 0.031 against 0.041 s per million events). Through the page
 *   cache it cost no less than read(2) (1.1 times): there, read(2).
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
	} else if (want && strcmp(want, "splice")) {
		snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (BLKMAP_CAPTURE=%.32s "
			 "is none of read, splice, mapped)", want);
	} else {
		if (!pipe_all(c))
			return;
		c->direct = direct_all(c);
		if (!want && !large && !c->direct) {
			close_all_pipes(c);
			snprintf(c->path, sizeof(c->path), "read(2) of trace_pipe_raw (sub-buffers "
				 "of a page, and the file system has no O_DIRECT)");
			return;
		}
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
		errno = pthread_create(&c->cpus[cpu].writer, NULL, writer_main, &c->cpus[cpu]);
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

		unmap_cpu(&r->map);
		close_pipes(r);
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
