// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where drained pages go (capturing.h): a CPU's region of the spool, its
 * writer's pipes (spliced.c), or a flight recording's ring, a trigger
 * looking at them on the way; and the read(2) path's drain, a batch of
 * pages at a time, which the recorder's reclaim uses too (bm_drain_pages).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "blkmap/record/ring.h"
#include "blkmap/record/trigger.h"
#include "blkmap/util/sys.h"

#include "capturing.h"

/*
 * With a trigger, the two halves of a slow I/O may be on two CPUs, and the
 * pair is seen only once the later CPU is read. The earlier half must
 * still be in its ring then, which a flood on its CPU turns over in a
 * fraction of a second: a CPU whose ring goes round has the others read
 * at most this often (each read of a quiet CPU takes a slot of its ring,
 * so not while nothing goes round).
 */
#define TRIGGER_READ_NS	100000000ULL

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

int cap_put(struct sink *s, const char *pages, size_t len, uint32_t page_size)
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
		return cap_to_writer(s->writer, pages, len);	/* counted there */
	} else if (bm_write_full(s->fd, pages, len) < 0) {
		return -1;
	}
	*s->bytes += len;
	return 0;
}

int cap_drain_into(int pipe_fd, struct sink *s, uint32_t page_size, char *batch,
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
		if (cap_put(s, batch, len, page_size) < 0)
			goto write_error;
		len = 0;
	}
	if (len && cap_put(s, batch, len, page_size) < 0)
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

	return cap_drain_into(pipe_fd, &s, page_size, batch, batch_pages, write_failed);
}
