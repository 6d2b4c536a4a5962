// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flight recorder's rings (ring.h). Each CPU's capture thread puts its
 * pages in slot after slot; a slot about to be overwritten is read first,
 * in place through a read-only mapping of the ring, and its map records
 * packed into the CPU's kept pages. A write-out locks every CPU: until the
 * file is written when the capture has stopped, for as long as the rings
 * take to copy aside while it goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
	unsigned char *pack_page;
	const unsigned char *map;	/* the ring's slots, read-only */
	int held_fd;		/* held.CPU: pages that left the ring during a hold */
	uint64_t held_pages;
	uint64_t held_first;	/* those before it were let go by a release that failed */
	/* The last idle marker dropped, not yet kept. */
	unsigned char *tick;
	uint32_t tick_size;
	uint64_t tick_ts;
	bool has_tick;
	uint64_t dropped, kept;	/* bytes of events */
};

struct bm_ring {
	int dfd;		/* the spool directory: its files are made from it */
	char dir[4096];		/* for messages */
	int ncpus;
	uint32_t page_size;
	uint64_t slots;		/* per CPU */
	struct bm_page_format format;
	uint32_t print_buf;	/* where ftrace:print's text is in its record */
	uint16_t print_id;
	_Atomic(uint8_t *) fates;	/* by event id; NULL until learnt */
	/*
	 * A hold is on while hold_gen (holds begun) is past released_gen (the
	 * holds a release ended, written with every CPU locked): a hold begun
	 * after the main thread last looked survives its release.
	 */
	_Atomic uint64_t hold_gen;
	uint64_t released_gen;
	atomic_bool hold_full;	/* a CPU held a ring's worth: said once a hold */
	struct cpu_ring *cpus;
};

static void file_name(char *buf, size_t size, const char *name, int cpu)
{
	snprintf(buf, size, "%s.%d", name, cpu);
}

/* A new file in the spool, never one that was there (output.h's mode). */
static int create_file(const struct bm_ring *r, const char *name)
{
	return openat(r->dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      BM_OUTPUT_MODE);
}

struct bm_ring *bm_ring_new(int dfd, const char *dir, int ncpus, uint32_t page_size,
			    uint64_t bytes, const int *fds, uint64_t region)
{
	struct bm_ring *r = calloc(1, sizeof(*r));
	char name[64];
	int cpu, fd;

	if (!r || !(r->cpus = calloc(ncpus, sizeof(*r->cpus)))) {
		free(r);
		bm_error_errno("cannot set up the ring");
		return NULL;
	}
	r->dfd = -1;
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	r->ncpus = ncpus;
	r->page_size = page_size;
	r->slots = bytes / ncpus / page_size;
	for (cpu = 0; cpu < ncpus; cpu++)
		r->cpus[cpu].kept_fd = r->cpus[cpu].held_fd = -1;
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
	r->dfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	/* Marks the spool as a ring's: its pages are not in time order. */
	fd = r->dfd < 0 ? -1 : create_file(r, BM_SPOOL_RING);
	if (fd < 0) {
		bm_error_errno("cannot create '%s/" BM_SPOOL_RING "'", dir);
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
		if (!c->pack_page || !c->tick) {
			bm_error_errno("cannot set up the ring");
			goto fail;
		}
		/*
		 * Its blocks now, so that a full file system is found here, and
		 * a mapping to read back what leaves and to write windows from.
		 */
		errno = posix_fallocate(c->fd, c->base, r->slots * page_size);
		if (errno) {
			bm_error_errno("cannot make room for a ring of %llu MiB in '%s'",
				       (unsigned long long)(bytes >> 20), dir);
			goto fail;
		}
		c->map = mmap(NULL, r->slots * page_size, PROT_READ, MAP_SHARED, c->fd, c->base);
		if (c->map == MAP_FAILED) {
			c->map = NULL;
			bm_error_errno("cannot map the ring in '%s'", dir);
			goto fail;
		}
		file_name(name, sizeof(name), "kept", cpu);
		c->kept_fd = create_file(r, name);
		if (c->kept_fd < 0) {
			bm_error_errno("cannot create '%s/%s'", dir, name);
			goto fail;
		}
		file_name(name, sizeof(name), "held", cpu);
		c->held_fd = create_file(r, name);
		if (c->held_fd < 0) {
			bm_error_errno("cannot create '%s/%s'", dir, name);
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

/*
 * A page leaving CPU @c's ring: during a hold it is held whole, else what
 * of it must outlive it is kept. 1 when this CPU has just held a ring's
 * worth, the first CPU to: the snapshot should be written now.
 */
static int let_go(struct bm_ring *r, struct cpu_ring *c, const unsigned char *page)
{
	if (atomic_load(&r->hold_gen) == r->released_gen)
		return keep_from(r, c, page);
	if (pwrite(c->held_fd, page, r->page_size, c->held_pages * r->page_size) !=
	    (ssize_t)r->page_size)
		return -1;
	return ++c->held_pages >= r->slots && !atomic_exchange(&r->hold_full, true);
}

int bm_ring_put(struct bm_ring *r, int cpu, const void *pages, size_t npages)
{
	struct cpu_ring *c = &r->cpus[cpu];
	const unsigned char *at = pages;
	size_t ps = r->page_size, i;
	int ret = 0, full = 0;

	pthread_mutex_lock(&c->lock);
	while (npages && ret >= 0) {
		uint64_t slot = c->count % r->slots;
		size_t n = npages, len;

		if (n > r->slots - slot)
			n = r->slots - slot;
		len = n * ps;
		/* Once round, every slot holds a page: what leaves, leaves now. */
		for (i = 0; c->count >= r->slots && i < n && ret >= 0; i++) {
			ret = let_go(r, c, c->map + (slot + i) * ps);
			full |= ret > 0;
		}
		if (ret >= 0 && pwrite(c->fd, at, len, c->base + slot * ps) != (ssize_t)len)
			ret = -1;
		c->count += n;
		at += len;
		npages -= n;
	}
	pthread_mutex_unlock(&c->lock);
	if (ret < 0 && !errno)
		errno = EIO;
	return ret < 0 ? -1 : full;
}

bool bm_ring_went_round(struct bm_ring *r, int cpu)
{
	struct cpu_ring *c = &r->cpus[cpu];
	bool round;

	pthread_mutex_lock(&c->lock);
	round = c->count > r->slots;
	pthread_mutex_unlock(&c->lock);
	return round;
}

void bm_ring_hold(struct bm_ring *r)
{
	atomic_fetch_add(&r->hold_gen, 1);
}

uint64_t bm_ring_hold_gen(struct bm_ring *r)
{
	return atomic_load(&r->hold_gen);
}

bool bm_ring_hold_full(struct bm_ring *r)
{
	return atomic_load(&r->hold_full);
}

static void lock_all(struct bm_ring *r)
{
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++)
		pthread_mutex_lock(&r->cpus[cpu].lock);
}

static void unlock_all(struct bm_ring *r)
{
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++)
		pthread_mutex_unlock(&r->cpus[cpu].lock);
}

int bm_ring_reserve_hold(struct bm_ring *r)
{
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++) {
		errno = posix_fallocate(r->cpus[cpu].held_fd, 0, r->slots * r->page_size);
		if (errno) {
			bm_error_errno("cannot make room in '%s' for the pages a triggered snapshot "
				       "holds (as much as the ring)", r->dir);
			return -1;
		}
	}
	return 0;
}

#define DRAIN_PAGES	64	/* read back at a time */

/* Let CPU @c's held pages go, oldest first, as pages leaving the ring do. */
static int drain(struct bm_ring *r, struct cpu_ring *c, unsigned char *buf)
{
	uint64_t i, n;

	for (i = c->held_first; i < c->held_pages; i += n) {
		size_t k, len;

		n = c->held_pages - i < DRAIN_PAGES ? c->held_pages - i : DRAIN_PAGES;
		len = n * r->page_size;
		if (pread(c->held_fd, buf, len, i * r->page_size) != (ssize_t)len)
			return errno ? -1 : (errno = EIO, -1);
		for (k = 0; k < n; k++)
			if (keep_from(r, c, buf + k * r->page_size) < 0)
				return -1;
		/* What is kept need not be kept again if a later page fails. */
		c->held_first = i + n;
	}
	c->held_pages = c->held_first = 0;
	return 0;
}

/*
 * Every CPU locked, so that no page leaves a ring meanwhile and the kept
 * pages stay in time order. The held space stays reserved.
 */
int bm_ring_release(struct bm_ring *r, uint64_t gen)
{
	unsigned char *buf = malloc((size_t)DRAIN_PAGES * r->page_size);
	int cpu, ret = 0;

	if (!buf) {
		bm_error_errno("cannot let go of the pages held for a snapshot");
		return -1;
	}
	lock_all(r);
	for (cpu = 0; cpu < r->ncpus && ret == 0; cpu++)
		ret = drain(r, &r->cpus[cpu], buf);
	if (ret == 0) {
		atomic_store(&r->hold_full, false);
		if (atomic_load(&r->hold_gen) == gen)
			r->released_gen = gen;
	}
	unlock_all(r);
	free(buf);
	if (ret < 0)
		bm_error_errno("cannot let go of the pages held for a snapshot in '%s' (they stay "
			       "held)", r->dir);
	return ret;
}

/* The time of the oldest page held or in @c's ring: where its window starts. */
static void window_start(struct bm_ring *r, struct cpu_ring *c, uint64_t *ts)
{
	uint64_t first = c->count > r->slots ? c->count - r->slots : 0;

	if (c->held_pages > c->held_first &&
	    pread(c->held_fd, ts, sizeof(*ts), c->held_first * r->page_size) == sizeof(*ts))
		return;
	memcpy(ts, c->map + (first % r->slots) * r->page_size, sizeof(*ts));
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

/* A CPU's window: its kept pages, the tail of them, those held, and its ring from the oldest page on. */
struct window {
	struct bm_extent parts[5];
	size_t nparts;
	unsigned char *tail;	/* up to 3 pages: the page being filled, a tick, a marker */
};

static void add_part(struct window *w, struct bm_extent part)
{
	if (part.size)
		w->parts[w->nparts++] = part;
}

/*
 * CPU @c's window: its kept pages, then the page being filled with the
 * last idle marker and @marker at @marker_ts if any (on a copy: the ring
 * goes on filling its own), then the pages held since a hold, then its
 * ring from the oldest page on. Its parts point into @c's files and
 * mapping: valid while @c stays locked (the files' parts for longer: they
 * are only appended to until bm_ring_release()).
 */
static int window_of(struct bm_ring *r, struct cpu_ring *c, struct window *w,
		     const void *marker, uint32_t marker_size, uint64_t marker_ts)
{
	uint64_t ps = r->page_size, first, slot, n, tail_pages = 0;
	struct bm_page_packer tail = c->pack;
	struct {
		const void *data;
		uint32_t size;
		uint64_t ts;
	} extra[2] = { { c->tick, c->has_tick ? c->tick_size : 0, c->tick_ts },
		       { marker, marker_size, marker_ts } };
	int i;

	w->nparts = 0;
	w->tail = malloc(3 * ps);
	if (!w->tail)
		return -1;
	add_part(w, (struct bm_extent){ .fd = c->kept_fd, .size = c->kept_pages * ps });
	if (c->packing || extra[0].size || extra[1].size) {
		if (c->packing)
			memcpy(w->tail, c->pack_page, ps);
		else
			bm_pack_start(&tail, w->tail, ps, r->format.long_size, 0);
		tail.page = w->tail;
		for (i = 0; i < 2; i++) {
			if (!extra[i].size || bm_pack_add(&tail, extra[i].ts, extra[i].data,
							  extra[i].size) == 0)
				continue;
			bm_pack_finish(&tail);
			tail_pages++;
			bm_pack_start(&tail, w->tail + tail_pages * ps, ps, r->format.long_size, 0);
			bm_pack_add(&tail, extra[i].ts, extra[i].data, extra[i].size);
		}
		bm_pack_finish(&tail);
		tail_pages++;
		add_part(w, (struct bm_extent){ .mem = w->tail, .size = tail_pages * ps });
	}
	add_part(w, (struct bm_extent){ .fd = c->held_fd, .offset = c->held_first * ps,
					 .size = (c->held_pages - c->held_first) * ps });
	first = c->count > r->slots ? c->count - r->slots : 0;
	for (; first < c->count; first += n) {
		slot = first % r->slots;
		n = c->count - first;
		if (n > r->slots - slot)
			n = r->slots - slot;
		add_part(w, (struct bm_extent){ .mem = c->map + slot * ps, .size = n * ps });
	}
	return 0;
}

/*
 * Copy the ring's parts of @w into a file of their own in @dir, for a
 * window that must outlive the lock; the kept pages are only ever
 * appended to, and the tail is @w's own.
 */
static int set_aside(struct window *w, const struct bm_ring *r, int cpu, int *fd)
{
	char name[64];
	uint64_t at = 0;
	size_t i;

	file_name(name, sizeof(name), "window", cpu);
	unlinkat(r->dfd, name, 0);	/* one a crash left */
	*fd = create_file(r, name);
	if (*fd < 0)
		return -1;
	unlinkat(r->dfd, name, 0);	/* gone with its descriptor, whatever happens */
	for (i = 0; i < w->nparts; i++) {
		if (w->parts[i].mem == w->tail || !w->parts[i].mem)
			continue;
		if (bm_write_full(*fd, w->parts[i].mem, w->parts[i].size) < 0)
			return -1;
		w->parts[i] = (struct bm_extent){ .fd = *fd, .offset = at,
						  .size = w->parts[i].size };
		at += w->parts[i].size;
	}
	return 0;
}

/*
 * Every CPU's window to @output, all CPUs locked so that the windows are
 * of one moment. Where a ring has gone round, the latest of the windows'
 * starts is marked, on the CPU it is the start of. @live: the capture goes
 * on, so the rings are copied aside and unlocked before the file is
 * written; else the file is written from them.
 */
static int write_out(struct bm_ring *r, const struct bm_trace_meta *meta,
		     const struct bm_output *output, enum bm_compression compression, bool live,
		     uint64_t *bytes)
{
	struct bm_cpu_data *cpus = calloc(r->ncpus, sizeof(*cpus));
	struct window *windows = calloc(r->ncpus, sizeof(*windows));
	int *aside = calloc(r->ncpus, sizeof(*aside));
	unsigned char marker[256];
	uint32_t marker_size = 0;
	uint64_t start = 0, ts;
	int cpu, marked = -1, ret = -1;
	bool locked = true;

	if (!cpus || !windows || !aside) {
		free(cpus);
		free(windows);
		free(aside);
		bm_error_errno("cannot write '%s'", output->path);
		return -1;
	}
	for (cpu = 0; cpu < r->ncpus; cpu++)
		aside[cpu] = -1;
	lock_all(r);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct cpu_ring *c = &r->cpus[cpu];

		if (c->count - (c->held_pages - c->held_first) <= r->slots)
			continue;	/* none of its pages let go */
		window_start(r, c, &ts);
		if (marked < 0 || ts > start) {
			start = ts;
			marked = cpu;
		}
	}
	if (marked >= 0)
		marker_size = window_marker(r, marker, sizeof(marker));
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct window *w = &windows[cpu];

		if (window_of(r, &r->cpus[cpu], w, marker, cpu == marked ? marker_size : 0,
			      start) < 0 ||
		    (live && set_aside(w, r, cpu, &aside[cpu]) < 0)) {
			bm_error_errno("cannot write '%s' (copying CPU %d's ring in '%s')",
				       output->path, cpu, r->dir);
			goto out;
		}
		cpus[cpu] = (struct bm_cpu_data){ .fd = -1, .extents = w->parts,
						  .nextents = w->nparts };
	}
	if (live) {
		unlock_all(r);
		locked = false;
	}
	ret = bm_output_write(output, meta, cpus, compression, bytes);
out:
	if (locked)
		unlock_all(r);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		free(windows[cpu].tail);
		if (aside[cpu] >= 0)
			close(aside[cpu]);
	}
	free(cpus);
	free(windows);
	free(aside);
	return ret;
}

int bm_ring_write(struct bm_ring *r, const struct bm_trace_meta *meta,
		  const struct bm_output *output, enum bm_compression compression,
		  uint64_t *bytes)
{
	return write_out(r, meta, output, compression, false, bytes);
}

int bm_ring_snapshot(struct bm_ring *r, const struct bm_trace_meta *meta,
		     const struct bm_output *output, enum bm_compression compression,
		     uint64_t *bytes)
{
	return write_out(r, meta, output, compression, true, bytes);
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
	char name[64];
	int cpu;

	if (!r)
		return;
	for (cpu = 0; r->cpus && cpu < r->ncpus; cpu++) {
		struct cpu_ring *c = &r->cpus[cpu];

		if (c->kept_fd >= 0) {
			close(c->kept_fd);
			file_name(name, sizeof(name), "kept", cpu);
			unlinkat(r->dfd, name, 0);
			pthread_mutex_destroy(&c->lock);
		}
		if (c->held_fd >= 0) {
			close(c->held_fd);
			file_name(name, sizeof(name), "held", cpu);
			unlinkat(r->dfd, name, 0);
		}
		free(c->pack_page);
		free(c->tick);
		if (c->map)
			munmap((void *)c->map, r->slots * r->page_size);
	}
	if (r->dfd >= 0) {
		unlinkat(r->dfd, BM_SPOOL_RING, 0);
		close(r->dfd);
	}
	free(atomic_load(&r->fates));
	free(r->cpus);
	free(r);
}
