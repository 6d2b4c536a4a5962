// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat version 6 writer: the headers are built in memory, then each
 * CPU's spooled pages are copied behind them, each CPU starting on a page
 * boundary. Integers are written in host byte order; the header says which.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/format.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"


struct buf {
	char *data;
	size_t len, cap;
	bool failed;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->failed || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *data;

		while (cap < b->len + n)
			cap *= 2;
		data = realloc(b->data, cap);
		if (!data) {
			b->failed = true;
			return;
		}
		b->data = data;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u16(struct buf *b, uint16_t v) { put(b, &v, sizeof(v)); }
static void put_u32(struct buf *b, uint32_t v) { put(b, &v, sizeof(v)); }
static void put_u64(struct buf *b, uint64_t v) { put(b, &v, sizeof(v)); }
static void put_str(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

static void put_option(struct buf *b, uint16_t id, const char *data, size_t len)
{
	put_u16(b, id);
	put_u32(b, len);
	put(b, data, len);
}

static bool is_ftrace(const struct bm_format *f)
{
	return strcmp(f->system, "ftrace") == 0;
}

static void put_header_info(struct buf *b, const struct bm_trace_meta *meta)
{
	put(b, "header_page", 12);
	put_u64(b, meta->header_page_len);
	put(b, meta->header_page, meta->header_page_len);
	put(b, "header_event", 13);
	put_u64(b, meta->header_event_len);
	put(b, meta->header_event, meta->header_event_len);
}

static void put_printk(struct buf *b, const struct bm_trace_meta *meta)
{
	put_u32(b, meta->printk_len);
	put(b, meta->printk, meta->printk_len);
}

static void put_kallsyms(struct buf *b, const struct bm_trace_meta *meta)
{
	put_u32(b, meta->kallsyms_len);
	put(b, meta->kallsyms, meta->kallsyms_len);
}

static void put_cmdlines(struct buf *b, const struct bm_trace_meta *meta)
{
	put_u64(b, meta->cmdlines_len);
	put(b, meta->cmdlines, meta->cmdlines_len);
}

static void put_ftrace_formats(struct buf *b, const struct bm_trace_meta *meta)
{
	uint32_t count = 0;
	size_t i;

	for (i = 0; i < meta->nformats; i++)
		count += is_ftrace(&meta->formats[i]);
	put_u32(b, count);
	for (i = 0; i < meta->nformats; i++) {
		if (!is_ftrace(&meta->formats[i]))
			continue;
		put_u64(b, meta->formats[i].len);
		put(b, meta->formats[i].text, meta->formats[i].len);
	}
}

/* Formats of one system are written together, in the order first seen. */
static void put_event_formats(struct buf *b, const struct bm_trace_meta *meta)
{
	uint32_t count, systems = 0;
	size_t i, j;

	for (i = 0; i < meta->nformats; i++) {
		const char *sys = meta->formats[i].system;
		bool seen = is_ftrace(&meta->formats[i]);

		for (j = 0; j < i && !seen; j++)
			seen = strcmp(meta->formats[j].system, sys) == 0;
		systems += !seen;
	}
	put_u32(b, systems);
	for (i = 0; i < meta->nformats; i++) {
		const char *sys = meta->formats[i].system;
		bool seen = is_ftrace(&meta->formats[i]);

		for (j = 0; j < i && !seen; j++)
			seen = strcmp(meta->formats[j].system, sys) == 0;
		if (seen)
			continue;
		count = 0;
		for (j = i; j < meta->nformats; j++)
			count += strcmp(meta->formats[j].system, sys) == 0;
		put_str(b, sys);
		put_u32(b, count);
		for (j = i; j < meta->nformats; j++) {
			if (strcmp(meta->formats[j].system, sys) != 0)
				continue;
			put_u64(b, meta->formats[j].len);
			put(b, meta->formats[j].text, meta->formats[j].len);
		}
	}
}

/* The trace clock and each CPU's statistics, as options of either version. */
static void put_clock_and_stats(struct buf *b, const struct bm_trace_meta *meta)
{
	int cpu;

	if (meta->clock) {
		char text[64];
		int n = snprintf(text, sizeof(text), "[%s]", meta->clock);

		put_option(b, BM_OPTION_TRACECLOCK, text, n + 1);
	}
	for (cpu = 0; meta->cpustats && cpu < meta->ncpus; cpu++) {
		char head[32];
		const char *stats = meta->cpustats[cpu] ? meta->cpustats[cpu] : "";
		int n = snprintf(head, sizeof(head), "CPU: %d\n", cpu);
		size_t len = strlen(stats);

		put_u16(b, BM_OPTION_CPUSTAT);
		put_u32(b, n + len + 1);
		put(b, head, n);
		put(b, stats, len + 1);
	}
}

static void put_options(struct buf *b, const struct bm_trace_meta *meta)
{
	put(b, "options  ", 10);
	put_clock_and_stats(b, meta);
	put_u16(b, BM_OPTION_DONE);
}

static int write_all(int fd, const char *path, const void *p, size_t n)
{
	if (bm_write_full(fd, p, n) < 0) {
		bm_error_errno("cannot write '%s'", path);
		return -1;
	}
	return 0;
}

/* Copy @size bytes of @in from @in_off on to the current position of @out. */
static int copy_pages(int out, const char *path, int in, loff_t in_off, uint64_t size)
{
	char chunk[65536];

	while (size) {
		ssize_t n = copy_file_range(in, &in_off, out, NULL, size, 0);

		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP))
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			bm_error_errno("cannot write '%s'", path);
			return -1;
		}
		if (n == 0) {
			bm_error("spool of '%s' ended early", path);
			return -1;
		}
		size -= n;
	}
	while (size) {	/* file systems copy_file_range() cannot join */
		ssize_t n = pread(in, chunk, size < sizeof(chunk) ? size : sizeof(chunk),
				  in_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			bm_error_errno("cannot read the spool of '%s'", path);
			return -1;
		}
		if (write_all(out, path, chunk, n) < 0)
			return -1;
		in_off += n;
		size -= n;
	}
	return 0;
}

/* The bytes of whole pages @c holds. */
static uint64_t cpu_size(const struct bm_cpu_data *c, uint32_t page_size)
{
	uint64_t size = 0;
	size_t i;

	if (!c->nextents)
		return c->fd < 0 ? 0 : c->size - c->size % page_size;
	for (i = 0; i < c->nextents; i++)
		size += c->extents[i].size;
	return size - size % page_size;
}

/* Copy @c's pages to the current position of @out. */
static int copy_cpu(int out, const char *path, const struct bm_cpu_data *c, uint64_t size)
{
	size_t i;

	if (!c->nextents)
		return copy_pages(out, path, c->fd, c->offset, size);
	for (i = 0; i < c->nextents && size; i++) {
		const struct bm_extent *e = &c->extents[i];
		uint64_t n = e->size < size ? e->size : size;

		if (e->mem ? write_all(out, path, e->mem, n) :
			     copy_pages(out, path, e->fd, e->offset, n))
			return -1;
		size -= n;
	}
	return 0;
}

/* Read @n bytes of @c's pages from @at on into @buf. */
static int read_cpu(const struct bm_cpu_data *c, uint64_t at, char *buf, size_t n)
{
	struct bm_extent whole = { .fd = c->fd, .offset = c->offset, .size = UINT64_MAX };
	const struct bm_extent *e = c->nextents ? c->extents : &whole;
	size_t count = c->nextents ? c->nextents : 1;

	for (; count && n; e++, count--) {
		size_t len;

		if (at >= e->size) {
			at -= e->size;
			continue;
		}
		len = e->size - at < n ? e->size - at : n;
		if (e->mem) {
			memcpy(buf, (const char *)e->mem + at, len);
		} else {
			ssize_t got = pread(e->fd, buf, len, e->offset + at);

			if (got != (ssize_t)len)
				return got < 0 ? -1 : (errno = EIO, -1);
		}
		buf += len;
		n -= len;
		at = 0;
	}
	return n ? (errno = EIO, -1) : 0;
}

static uint64_t page_align(uint64_t v, uint32_t page_size)
{
	return (v + page_size - 1) / page_size * page_size;
}

char *bm_trace_header(const struct bm_trace_meta *meta, const uint64_t *sizes, size_t *len)
{
	struct buf b = { 0 };
	uint64_t offset;
	int cpu;

	put(&b, BM_TRACE_MAGIC, BM_TRACE_MAGIC_LEN);
	put_str(&b, BM_STRINGIFY(BM_TRACE_FILE_VERSION));
	put(&b, &(char){ __BYTE_ORDER == __BIG_ENDIAN }, 1);
	put(&b, &(char){ meta->long_size }, 1);
	put_u32(&b, meta->page_size);
	put_header_info(&b, meta);
	put_ftrace_formats(&b, meta);
	put_event_formats(&b, meta);
	put_kallsyms(&b, meta);
	put_printk(&b, meta);
	put_cmdlines(&b, meta);
	put_u32(&b, meta->ncpus);
	put_options(&b, meta);
	put(&b, "flyrecord", 10);

	/* Offsets follow the rest of the header: compute its final length. */
	offset = b.len + 16 * (uint64_t)meta->ncpus;
	if (meta->clock)
		offset += 8 + strlen(meta->clock) + 2;
	offset = page_align(offset, meta->page_size);
	for (cpu = 0; cpu < meta->ncpus; cpu++) {
		put_u64(&b, sizes[cpu] ? offset : 0);
		put_u64(&b, sizes[cpu]);
		offset += sizes[cpu];
	}
	if (meta->clock) {
		put_u64(&b, strlen(meta->clock) + 2);
		put(&b, "[", 1);
		put(&b, meta->clock, strlen(meta->clock));
		put(&b, "]", 1);
	}
	if (b.failed) {
		free(b.data);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.data;
}

int bm_trace_write(int fd, const char *path, const struct bm_trace_meta *meta,
		   const struct bm_cpu_data *cpus)
{
	static const char zeros[65536];
	uint64_t *sizes, offset;
	char *header = NULL;
	size_t len;
	int cpu, ret = -1;

	sizes = calloc(meta->ncpus ? meta->ncpus : 1, sizeof(*sizes));
	if (!sizes) {
		bm_error_errno("cannot write '%s'", path);
		return -1;
	}
	for (cpu = 0; cpu < meta->ncpus && cpus; cpu++)
		sizes[cpu] = cpu_size(&cpus[cpu], meta->page_size);
	header = bm_trace_header(meta, sizes, &len);
	if (!header) {
		bm_error_errno("cannot write '%s'", path);
		goto out;
	}
	if (write_all(fd, path, header, len) < 0)
		goto out;
	offset = len;
	for (cpu = 0; cpu < meta->ncpus; cpu++) {
		uint64_t pad = page_align(offset, meta->page_size) - offset;

		if (!sizes[cpu])
			continue;
		if (write_all(fd, path, zeros, pad) < 0 ||
		    copy_cpu(fd, path, &cpus[cpu], sizes[cpu]) < 0)
			goto out;
		offset += pad + sizes[cpu];
	}
	ret = 0;
out:
	free(header);
	free(sizes);
	return ret;
}

/* ---- version 7: sections, the pages in compressed chunks ---- */

#define CHUNK_PAGES	16		/* a chunk of pages compressed at once */
#define SECTION_COMPRESSED	1

struct out {
	int fd;
	const char *path;
	uint64_t at;			/* bytes written so far */
	enum bm_compression compression;
};

static int out_put(struct out *o, const void *p, size_t n)
{
	if (write_all(o->fd, o->path, p, n) < 0)
		return -1;
	o->at += n;
	return 0;
}

static int out_u32(struct out *o, uint32_t v) { return out_put(o, &v, sizeof(v)); }

/* Section @id holding @data, compressed if the file is; its offset into *@at. */
static int put_section(struct out *o, uint16_t id, struct buf *data, uint64_t *at)
{
	size_t room = bm_compress_bound(o->compression, data->len), packed;
	struct buf h = { 0 };
	char *p = NULL;
	int ret = -1;

	if (data->failed) {
		errno = ENOMEM;
		bm_error_errno("cannot write '%s'", o->path);
		return -1;
	}
	*at = o->at;
	put_u16(&h, id);
	put_u16(&h, o->compression ? SECTION_COMPRESSED : 0);
	put_u32(&h, 0);			/* no description */
	if (!o->compression) {
		put_u64(&h, data->len);
		ret = h.failed || out_put(o, h.data, h.len) < 0 ||
		      out_put(o, data->data, data->len) < 0 ? -1 : 0;
		goto out;
	}
	p = malloc(room ? room : 1);
	if (!p || !(packed = bm_compress(o->compression, data->data, data->len, p, room))) {
		if (!p)
			bm_error_errno("cannot write '%s'", o->path);
		goto out;
	}
	put_u64(&h, 8 + packed);
	put_u32(&h, packed);
	put_u32(&h, data->len);
	ret = h.failed || out_put(o, h.data, h.len) < 0 || out_put(o, p, packed) < 0 ? -1 : 0;
out:
	free(p);
	free(h.data);
	free(data->data);
	memset(data, 0, sizeof(*data));
	return ret;
}

/* CPU @cpu's pages, "COUNT, then (PACKED, SIZE, DATA) COUNT times". */
static int put_chunks(struct out *o, const struct bm_cpu_data *c, uint64_t size,
		      uint32_t page_size, char *pages, char *packed, size_t room)
{
	uint64_t chunk = (uint64_t)CHUNK_PAGES * page_size, done;

	if (out_u32(o, (size + chunk - 1) / chunk) < 0)
		return -1;
	for (done = 0; done < size; done += chunk) {
		size_t n = size - done < chunk ? size - done : chunk, z;

		if (read_cpu(c, done, pages, n) < 0) {
			bm_error_errno("cannot read the spool of '%s'", o->path);
			return -1;
		}
		z = bm_compress(o->compression, pages, n, packed, room);
		if (!z || out_u32(o, z) < 0 || out_u32(o, n) < 0 || out_put(o, packed, z) < 0)
			return -1;
	}
	return 0;
}

static int put_flyrecord(struct out *o, const struct bm_trace_meta *meta,
			 const struct bm_cpu_data *cpus, const uint64_t *sizes, uint64_t *offsets,
			 uint64_t *lengths, uint64_t *at)
{
	size_t chunk = (size_t)CHUNK_PAGES * meta->page_size;
	size_t room = bm_compress_bound(o->compression, chunk);
	char *pages = malloc(chunk), *packed = malloc(room);
	struct buf h = { 0 };
	int cpu, ret = -1;

	*at = o->at;
	put_u16(&h, BM_OPTION_BUFFER);
	put_u16(&h, SECTION_COMPRESSED);
	put_u32(&h, 0);
	put_u64(&h, 0);			/* its size, known at the end */
	if (!pages || !packed || h.failed) {
		bm_error_errno("cannot write '%s'", o->path);
		goto out;
	}
	if (out_put(o, h.data, h.len) < 0)
		goto out;
	for (cpu = 0; cpu < meta->ncpus; cpu++) {
		offsets[cpu] = o->at;
		if (sizes[cpu] && put_chunks(o, &cpus[cpu], sizes[cpu], meta->page_size, pages,
					     packed, room) < 0)
			goto out;
		lengths[cpu] = o->at - offsets[cpu];
	}
	h.len = 0;
	put_u64(&h, o->at - *at - 16);
	if (pwrite(o->fd, h.data, 8, *at + 8) != 8) {
		bm_error_errno("cannot write '%s'", o->path);
		goto out;
	}
	ret = 0;
out:
	free(h.data);
	free(pages);
	free(packed);
	return ret;
}

static void put_offset_option(struct buf *b, uint16_t id, uint64_t at)
{
	put_u16(b, id);
	put_u32(b, 8);
	put_u64(b, at);
}

int bm_trace_write_compressed(int fd, const char *path, const struct bm_trace_meta *meta,
			      const struct bm_cpu_data *cpus, enum bm_compression compression)
{
	struct out o = { fd, path, 0, compression };
	uint64_t *sizes = calloc(meta->ncpus ? meta->ncpus : 1, 3 * sizeof(*sizes));
	uint64_t *offsets = sizes + meta->ncpus, *lengths = offsets + meta->ncpus;
	uint64_t at[BM_OPTION_CMDLINES + 1] = { 0 }, buffer_at, options_at, first_options;
	struct buf b = { 0 };
	uint32_t with_data = 0;
	int cpu, id, ret = -1;

	if (!sizes) {
		bm_error_errno("cannot write '%s'", path);
		return -1;
	}
	for (cpu = 0; cpu < meta->ncpus && cpus; cpu++) {
		sizes[cpu] = cpu_size(&cpus[cpu], meta->page_size);
		with_data += sizes[cpu] != 0;
	}
	/* The preamble; where the options are is known last. */
	put(&b, BM_TRACE_MAGIC, BM_TRACE_MAGIC_LEN);
	put_str(&b, "7");
	put(&b, &(char){ __BYTE_ORDER == __BIG_ENDIAN }, 1);
	put(&b, &(char){ meta->long_size }, 1);
	put_u32(&b, meta->page_size);
	put_str(&b, bm_compression_name(compression));
	put_str(&b, bm_compression_version(compression));
	put_u64(&b, 0);
	if (b.failed || out_put(&o, b.data, b.len) < 0)
		goto out;
	options_at = b.len - 8;
	free(b.data);
	memset(&b, 0, sizeof(b));

	put_header_info(&b, meta);
	if (put_section(&o, BM_OPTION_HEADER_INFO, &b, &at[BM_OPTION_HEADER_INFO]) < 0)
		goto out;
	put_ftrace_formats(&b, meta);
	if (put_section(&o, BM_OPTION_FTRACE_EVENTS, &b, &at[BM_OPTION_FTRACE_EVENTS]) < 0)
		goto out;
	put_event_formats(&b, meta);
	if (put_section(&o, BM_OPTION_EVENT_FORMATS, &b, &at[BM_OPTION_EVENT_FORMATS]) < 0)
		goto out;
	put_kallsyms(&b, meta);
	if (put_section(&o, BM_OPTION_KALLSYMS, &b, &at[BM_OPTION_KALLSYMS]) < 0)
		goto out;
	put_printk(&b, meta);
	if (put_section(&o, BM_OPTION_PRINTK, &b, &at[BM_OPTION_PRINTK]) < 0)
		goto out;
	put_cmdlines(&b, meta);
	if (put_section(&o, BM_OPTION_CMDLINES, &b, &at[BM_OPTION_CMDLINES]) < 0 ||
	    put_flyrecord(&o, meta, cpus, sizes, offsets, lengths, &buffer_at) < 0)
		goto out;

	/* The options, last, as trace-cmd writes them; never compressed. */
	for (id = BM_OPTION_HEADER_INFO; id <= BM_OPTION_CMDLINES; id++)
		put_offset_option(&b, id, at[id]);
	put_u16(&b, BM_OPTION_CPUCOUNT);
	put_u32(&b, 4);
	put_u32(&b, meta->ncpus);
	put_clock_and_stats(&b, meta);
	put_u16(&b, BM_OPTION_BUFFER);
	put_u32(&b, 8 + 1 + strlen(meta->clock ? meta->clock : "") + 1 + 4 + 4 + 20 * with_data);
	put_u64(&b, buffer_at);
	put_str(&b, "");
	put_str(&b, meta->clock ? meta->clock : "");
	put_u32(&b, meta->page_size);
	put_u32(&b, with_data);
	for (cpu = 0; cpu < meta->ncpus; cpu++) {
		if (!sizes[cpu])
			continue;
		put_u32(&b, cpu);
		put_u64(&b, offsets[cpu]);
		put_u64(&b, lengths[cpu]);
	}
	put_offset_option(&b, BM_OPTION_DONE, 0);
	o.compression = BM_COMPRESS_NONE;
	if (put_section(&o, BM_OPTION_DONE, &b, &first_options) < 0)
		goto out;
	if (pwrite(fd, &first_options, 8, options_at) != 8) {
		bm_error_errno("cannot write '%s'", path);
		goto out;
	}
	ret = 0;
out:
	free(b.data);
	free(sizes);
	return ret;
}
