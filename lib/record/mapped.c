// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture's mapped path (capturing.h, Linux 6.10+): each CPU's ring
 * buffer mapped read-only, the reader ioctl handing over one sub-buffer
 * at a time, each copied into a page of its own; and bm_page_rest(), what
 * is added to a page after part of it was taken, as a page of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capturing.h"

#define RB_MMAP_GET_READER	_IO('R', 0x20)	/* TRACE_MMAP_IOCTL_GET_READER */
#define PAGE_HDR		16	/* time stamp, commit (64-bit kernels) */
#define COMMIT_MISSED		(1U << 31)	/* events lost before this page */
#define COMMIT_STORED		(1U << 30)	/* their count after the data */
#define COMMIT_FLAGS		(COMMIT_MISSED | COMMIT_STORED)

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
int cap_map_drain(struct cpu_reader *r, struct sink *s, char *batch, bool all,
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
				if (cap_put(s, batch, len, ps) < 0)
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
	if (len && cap_put(s, batch, len, ps) < 0)
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

void cap_unmap_cpu(struct mapped *m)
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
bool cap_map_all(struct bm_capture *c)
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
		cap_unmap_cpu(&c->cpus[cpu].map);
	return false;
}
