// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder's rings (ring.h). Each CPU's capture thread puts its
 * pages in slot after slot; a slot about to be overwritten is read back
 * first (from the page cache: it was written a ring's length ago) and its
 * map records packed into the CPU's kept pages. A write-out locks one CPU
 * at a time, for as long as its window takes to copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "blkmap/record/ring.h"
#include "blkmap/record/spool.h"
#include "blkmap/sources/marker.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/page.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

#define SCRATCH_PAGES	64	/* slots read back at once */
#define NIDS		65536	/* event ids are 16 bits */

/* What becomes of an event of a page leaving the ring, by its id. */
enum fate { DROP, KEEP, KEEP_UNLESS_TICK };

struct cpu_ring {
	pthread_mutex_t lock;
	int fd;			/* the page file (the caller's) */
	uint64_t base;		/* where slot 0 is in it */
	uint64_t count;		/* pages put so far: slot count % slots is next */
	int kept_fd;		/* kept.CPU */
	uint64_t kept_pages;
	struct bm_page_packer pack;	/* the kept page being filled */
	bool packing;
	unsigned char *pack_page, *scratch;
	/* The last idle marker dropped, not yet kept. */
	unsigned char *tick;
	uint32_t tick_size;
	uint64_t tick_ts;
	bool has_tick;
	uint64_t dropped, kept;	/* bytes of events */
};

struct bm_ring {
	char dir[4096];
	int ncpus;
	uint32_t page_size;
	uint64_t slots;		/* per CPU */
	struct bm_page_format format;
	uint32_t print_buf;	/* where ftrace:print's text is in its record */
	uint16_t print_id;
	_Atomic(uint8_t *) fates;	/* by event id; NULL until learnt */
	struct cpu_ring *cpus;
};

static void file_path(char *buf, size_t size, const struct bm_ring *r, const char *name, int cpu)
{
	snprintf(buf, size, "%s/%s.%d", r->dir, name, cpu);
}

struct bm_ring *bm_ring_new(const char *dir, int ncpus, uint32_t page_size, uint64_t bytes,
			    const int *fds, uint64_t region)
{
	struct bm_ring *r = calloc(1, sizeof(*r));
	char path[4200];
	int cpu, fd;

	if (!r || !(r->cpus = calloc(ncpus, sizeof(*r->cpus)))) {
		free(r);
		bm_error_errno("cannot set up the ring");
		return NULL;
	}
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	r->ncpus = ncpus;
	r->page_size = page_size;
	r->slots = bytes / ncpus / page_size;
	for (cpu = 0; cpu < ncpus; cpu++)
		r->cpus[cpu].kept_fd = -1;
	if (r->slots < BM_RING_MIN_PAGES) {
		bm_error("a ring of %llu KiB is too small: at least %u KiB (%d pages of %u bytes "
			 "a CPU)", (unsigned long long)(bytes >> 10),
			 (unsigned)((uint64_t)BM_RING_MIN_PAGES * ncpus * page_size >> 10),
			 BM_RING_MIN_PAGES, page_size);
		goto fail;
	}
	if (region && r->slots * page_size > region) {
		bm_error("a ring of %llu MiB does not fit in the spool in '%s' (%llu MiB a CPU)",
			 (unsigned long long)(bytes >> 20), dir,
			 (unsigned long long)(region >> 20));
		goto fail;
	}
	/* Marks the spool as a ring's: its pages are not in time order. */
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_RING, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		bm_error_errno("cannot create '%s'", path);
		goto fail;
	}
	close(fd);
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct cpu_ring *c = &r->cpus[cpu];

		pthread_mutex_init(&c->lock, NULL);
		c->fd = fds[cpu];
		c->base = region ? (uint64_t)(cpu + 1) * region : 0;
		c->pack_page = malloc(page_size);
		c->tick = malloc(page_size);
		c->scratch = malloc((size_t)SCRATCH_PAGES * page_size);
		if (!c->pack_page || !c->tick || !c->scratch) {
			bm_error_errno("cannot set up the ring");
			goto fail;
		}
		file_path(path, sizeof(path), r, "kept", cpu);
		c->kept_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (c->kept_fd < 0) {
			bm_error_errno("cannot create '%s'", path);
			goto fail;
		}
	}
	return r;
fail:
	bm_ring_free(r);
	return NULL;
}

int bm_ring_learn(struct bm_ring *r, const char *meta_path)
{
	struct bm_trace *t = bm_trace_open(meta_path);
	struct bm_decoder *d = NULL;
	struct tep_handle *tep;
	uint8_t *fates = calloc(NIDS, 1);
	int i, n, ret = -1;

	if (!t || !fates)
		goto out;
	tep = bm_trace_tep(t);
	d = bm_decoder_new(tep);
	if (!d)
		goto out;
	r->format = (struct bm_page_format){ .page_size = r->page_size,
		.long_size = bm_trace_get_meta(t)->long_size,
		.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ };
	n = tep_get_events_count(tep);
	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		enum bm_kind kind = bm_decoder_kind(d, ev->id);
		struct tep_format_field *buf;

		if (ev->id < 0 || ev->id >= NIDS || kind == BM_EV_OTHER || bm_is_block(kind))
			continue;
		fates[ev->id] = KEEP;
		if (kind == BM_EV_PRINT && (buf = tep_find_field(ev, "buf"))) {
			fates[ev->id] = KEEP_UNLESS_TICK;
			r->print_buf = buf->offset;
			r->print_id = ev->id;
		}
	}
	atomic_store_explicit(&r->fates, fates, memory_order_release);
	fates = NULL;
	ret = 0;
out:
	if (ret < 0)
		bm_error("cannot tell map records from I/O in the ring: %s", bm_error_message());
	free(fates);
	bm_decoder_free(d);
	bm_trace_close(t);
	return ret;
}

/* Write the kept page being filled out to kept.CPU. */
static int flush_pack(struct cpu_ring *c, uint32_t page_size)
{
	if (!c->packing)
		return 0;
	bm_pack_finish(&c->pack);
	if (pwrite(c->kept_fd, c->pack_page, page_size, c->kept_pages * page_size) !=
	    (ssize_t)page_size)
		return -1;
	c->kept_pages++;
	c->packing = false;
	return 0;
}

/* Add an event to @c's kept pages, a page starting with @missed lost before it. */
static int pack(struct cpu_ring *c, uint32_t page_size, int long_size, int64_t missed,
		uint64_t ts, const void *data, uint32_t size)
{
	if (c->packing && missed && c->pack.used && flush_pack(c, page_size) < 0)
		return -1;
	if (c->packing && missed)	/* an empty page: both losses precede it */
		c->pack.missed = c->pack.missed < 0 || missed < 0 ? -1 : c->pack.missed + missed;
	if (!c->packing) {
		bm_pack_start(&c->pack, c->pack_page, page_size, long_size, missed);
		c->packing = true;
	}
	if (!data)
		return 0;
	if (bm_pack_add(&c->pack, ts, data, size) == 0) {
		c->kept += size;
		return 0;
	}
	if (flush_pack(c, page_size) < 0)
		return -1;
	bm_pack_start(&c->pack, c->pack_page, page_size, long_size, 0);
	c->packing = true;
	c->kept += size;
	return bm_pack_add(&c->pack, ts, data, size) == 0 ? 0 : (errno = E2BIG, -1);
}

static bool is_tick(const struct bm_ring *r, const struct bm_page_event *ev)
{
	return r->print_buf < ev->size &&
	       bm_marker_is_idle((const char *)ev->data + r->print_buf, ev->size - r->print_buf);
}

/* What of @page, leaving CPU @c's ring, must outlive it. */
static int keep_from(struct bm_ring *r, struct cpu_ring *c, const unsigned char *page)
{
	const uint8_t *fates = atomic_load_explicit(&r->fates, memory_order_acquire);
	struct bm_page_event ev;
	struct bm_page p;
	const char *why;
	int64_t missed;
	int got;

	/* Formats unknown yet, or a page we cannot read: keep it all. */
	if (!fates || bm_page_load(&p, &r->format, page, &missed, &why) < 0) {
		if (flush_pack(c, r->page_size) < 0 ||
		    pwrite(c->kept_fd, page, r->page_size, c->kept_pages * r->page_size) !=
		    (ssize_t)r->page_size)
			return -1;
		c->kept_pages++;
		return 0;
	}
	if (missed && pack(c, r->page_size, r->format.long_size, missed, 0, NULL, 0) < 0)
		return -1;
	while ((got = bm_page_next(&p, &ev, &why)) == 1) {
		uint16_t id;

		memcpy(&id, ev.data, sizeof(id));
		if (fates[id] == DROP) {
			c->dropped += ev.size;
			continue;
		}
		if (fates[id] == KEEP_UNLESS_TICK && is_tick(r, &ev)) {
			memcpy(c->tick, ev.data, ev.size);
			c->tick_size = ev.size;
			c->tick_ts = p.ts;
			c->has_tick = true;
			continue;
		}
		if (c->has_tick && pack(c, r->page_size, r->format.long_size, 0, c->tick_ts,
					c->tick, c->tick_size) < 0)
			return -1;
		c->has_tick = false;
		if (pack(c, r->page_size, r->format.long_size, 0, p.ts, ev.data, ev.size) < 0)
			return -1;
	}
	return 0;
}

int bm_ring_put(struct bm_ring *r, int cpu, const void *pages, size_t npages)
{
	struct cpu_ring *c = &r->cpus[cpu];
	const unsigned char *at = pages;
	size_t ps = r->page_size, i;
	int ret = 0;

	pthread_mutex_lock(&c->lock);
	while (npages && ret == 0) {
		uint64_t slot = c->count % r->slots;
		size_t n = npages, len;
		off_t where = c->base + slot * ps;

		if (n > r->slots - slot)
			n = r->slots - slot;
		if (n > SCRATCH_PAGES)
			n = SCRATCH_PAGES;
		len = n * ps;
		/* Once round, every slot holds a page: what leaves, leaves now. */
		if (c->count >= r->slots) {
			if (pread(c->fd, c->scratch, len, where) != (ssize_t)len) {
				ret = -1;
				break;
			}
			for (i = 0; i < n && ret == 0; i++)
				ret = keep_from(r, c, c->scratch + i * ps);
		}
		if (ret == 0 && pwrite(c->fd, at, len, where) != (ssize_t)len)
			ret = -1;
		c->count += n;
		at += len;
		npages -= n;
	}
	pthread_mutex_unlock(&c->lock);
	if (ret < 0 && !errno)
		errno = EIO;
	return ret;
}

/* Copy @len bytes at @from of @in to the end of @out. */
static int copy_range(int in, uint64_t from, int out, uint64_t len)
{
	char buf[65536];

	while (len) {
		loff_t off = from;
		ssize_t n = copy_file_range(in, &off, out, NULL, len, 0);

		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP)) {
			n = pread(in, buf, len < sizeof(buf) ? len : sizeof(buf), from);
			if (n > 0 && bm_write_full(out, buf, n) < 0)
				return -1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (errno = EIO, -1);
		from += n;
		len -= n;
	}
	return 0;
}

/* The time of the oldest page in @c's ring: where its window starts. */
static int window_start(struct bm_ring *r, struct cpu_ring *c, uint64_t *ts)
{
	uint64_t first = c->count > r->slots ? c->count - r->slots : 0;

	if (!c->count)
		return 0;
	return pread(c->fd, ts, 8, c->base + (first % r->slots) * r->page_size) == 8 ? 0 : -1;
}

/*
 * The marker "window-begin": events before it were let go on some
 * CPU, so a report's rates and listings start there (blkmap.dat(5)). An
 * ftrace:print record as the kernel writes one: common fields, ip, text.
 */
static uint32_t window_marker(const struct bm_ring *r, unsigned char *rec, uint32_t room)
{
	char text[96];
	int len = snprintf(text, sizeof(text), BM_MARKER_PREFIX "window-begin\n");
	uint32_t size = (r->print_buf + len + 1 + 3) & ~3U;
	int32_t pid = getpid();

	if (!r->print_id || size > room)
		return 0;
	memset(rec, 0, size);
	memcpy(rec, &r->print_id, 2);
	memcpy(rec + 4, &pid, 4);
	memcpy(rec + r->print_buf, text, len);
	return size;
}

/*
 * CPU @c's window into @out: its kept pages (with the page being filled,
 * the last idle marker and @marker at @marker_ts if any), then its ring
 * from the oldest page on.
 */
static int write_window(struct bm_ring *r, struct cpu_ring *c, int out, const void *marker,
			uint32_t marker_size, uint64_t marker_ts, uint64_t *size)
{
	uint64_t ps = r->page_size, first, slot, n;
	struct bm_page_packer tail = c->pack;
	unsigned char *page = malloc(ps);
	struct {
		const void *data;
		uint32_t size;
		uint64_t ts;
	} extra[2] = { { c->tick, c->has_tick ? c->tick_size : 0, c->tick_ts },
		       { marker, marker_size, marker_ts } };
	int ret = -1, i;

	if (!page)
		return -1;
	*size = 0;
	if (copy_range(c->kept_fd, 0, out, c->kept_pages * ps) < 0)
		goto out;
	*size += c->kept_pages * ps;
	if (c->packing || extra[0].size || extra[1].size) {
		/* On a copy of the page being filled: the ring goes on filling it. */
		if (c->packing)
			memcpy(page, c->pack_page, ps);
		else
			bm_pack_start(&tail, page, ps, r->format.long_size, 0);
		tail.page = page;
		for (i = 0; i < 2; i++) {
			if (!extra[i].size || bm_pack_add(&tail, extra[i].ts, extra[i].data,
							  extra[i].size) == 0)
				continue;
			bm_pack_finish(&tail);
			if (bm_write_full(out, page, ps) < 0)
				goto out;
			*size += ps;
			bm_pack_start(&tail, page, ps, r->format.long_size, 0);
			bm_pack_add(&tail, extra[i].ts, extra[i].data, extra[i].size);
		}
		bm_pack_finish(&tail);
		if (bm_write_full(out, page, ps) < 0)
			goto out;
		*size += ps;
	}
	first = c->count > r->slots ? c->count - r->slots : 0;
	for (; first < c->count; first += n) {
		slot = first % r->slots;
		n = c->count - first;
		if (n > r->slots - slot)
			n = r->slots - slot;
		if (copy_range(c->fd, c->base + slot * ps, out, n * ps) < 0)
			goto out;
		*size += n * ps;
	}
	ret = 0;
out:
	free(page);
	return ret;
}

/*
 * Every CPU's window into a file of its own (@cpus), all CPUs locked so
 * that the windows are of one moment. Where a ring has gone round, the
 * latest of the windows' starts is marked, on the CPU it is the start of.
 */
static int write_windows(struct bm_ring *r, struct bm_cpu_data *cpus, const char *output)
{
	unsigned char marker[256];
	uint32_t marker_size = 0;
	uint64_t start = 0, ts;
	int cpu, marked = -1, ret = -1;
	char path[4200];

	for (cpu = 0; cpu < r->ncpus; cpu++)
		pthread_mutex_lock(&r->cpus[cpu].lock);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		if (r->cpus[cpu].count <= r->slots)
			continue;
		if (window_start(r, &r->cpus[cpu], &ts) < 0) {
			bm_error_errno("cannot write '%s' (reading CPU %d's ring in '%s')", output,
				       cpu, r->dir);
			goto out;
		}
		if (marked < 0 || ts > start) {
			start = ts;
			marked = cpu;
		}
	}
	if (marked >= 0)
		marker_size = window_marker(r, marker, sizeof(marker));
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		file_path(path, sizeof(path), r, "window", cpu);
		cpus[cpu].fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (cpus[cpu].fd < 0) {
			bm_error_errno("cannot write '%s' (creating '%s')", output, path);
			goto out;
		}
		unlink(path);	/* gone with its descriptor, whatever happens */
		if (write_window(r, &r->cpus[cpu], cpus[cpu].fd, marker,
				 cpu == marked ? marker_size : 0, start, &cpus[cpu].size) < 0) {
			bm_error_errno("cannot write '%s' (copying CPU %d's ring in '%s')",
				       output, cpu, r->dir);
			goto out;
		}
	}
	ret = 0;
out:
	for (cpu = 0; cpu < r->ncpus; cpu++)
		pthread_mutex_unlock(&r->cpus[cpu].lock);
	return ret;
}

int bm_ring_write(struct bm_ring *r, const struct bm_trace_meta *meta, const char *output,
		  enum bm_compression compression, uint64_t *bytes)
{
	struct bm_cpu_data *cpus = calloc(r->ncpus, sizeof(*cpus));
	int cpu, ret = -1;

	if (!cpus) {
		bm_error_errno("cannot write '%s'", output);
		return -1;
	}
	for (cpu = 0; cpu < r->ncpus; cpu++)
		cpus[cpu].fd = -1;
	if (write_windows(r, cpus, output) == 0)
		ret = bm_trace_write_file(output, meta, cpus, compression, bytes);
	for (cpu = 0; cpu < r->ncpus; cpu++)
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
	free(cpus);
	return ret;
}

void bm_ring_stats(struct bm_ring *r, uint64_t *dropped, uint64_t *kept)
{
	int cpu;

	*dropped = *kept = 0;
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		pthread_mutex_lock(&r->cpus[cpu].lock);
		*dropped += r->cpus[cpu].dropped;
		*kept += r->cpus[cpu].kept;
		pthread_mutex_unlock(&r->cpus[cpu].lock);
	}
}

void bm_ring_free(struct bm_ring *r)
{
	char path[4200];
	int cpu;

	if (!r)
		return;
	for (cpu = 0; r->cpus && cpu < r->ncpus; cpu++) {
		struct cpu_ring *c = &r->cpus[cpu];

		if (c->kept_fd >= 0) {
			close(c->kept_fd);
			file_path(path, sizeof(path), r, "kept", cpu);
			unlink(path);
			pthread_mutex_destroy(&c->lock);
		}
		free(c->pack_page);
		free(c->tick);
		free(c->scratch);
	}
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_RING, r->dir);
	unlink(path);
	free(atomic_load(&r->fates));
	free(r->cpus);
	free(r);
}
