// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat version 6 writer: the headers are built in memory, then each
 * CPU's spooled pages are copied behind them, each CPU starting on a page
 * boundary. Integers are written in host byte order; the header says which.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Formats of one system are written together, in the order first seen. */
static void put_formats(struct buf *b, const struct bm_trace_meta *meta)
{
	uint32_t count = 0, systems = 0;
	size_t i, j;

	for (i = 0; i < meta->nformats; i++)
		count += is_ftrace(&meta->formats[i]);
	put_u32(b, count);
	for (i = 0; i < meta->nformats; i++) {
		if (!is_ftrace(&meta->formats[i]))
			continue;
		put_u64(b, meta->formats[i].len);
		put(b, meta->formats[i].text, meta->formats[i].len);
	}

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

static void put_options(struct buf *b, const struct bm_trace_meta *meta)
{
	int cpu;

	put(b, "options  ", 10);
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
	put_u16(b, 0);
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
	put(&b, "header_page", 12);
	put_u64(&b, meta->header_page_len);
	put(&b, meta->header_page, meta->header_page_len);
	put(&b, "header_event", 13);
	put_u64(&b, meta->header_event_len);
	put(&b, meta->header_event, meta->header_event_len);
	put_formats(&b, meta);
	put_u32(&b, meta->kallsyms_len);
	put(&b, meta->kallsyms, meta->kallsyms_len);
	put_u32(&b, 0);				/* printk formats */
	put_u64(&b, meta->cmdlines_len);
	put(&b, meta->cmdlines, meta->cmdlines_len);
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
		sizes[cpu] = cpus[cpu].fd < 0 ? 0 : cpus[cpu].size - cpus[cpu].size % meta->page_size;
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
		    copy_pages(fd, path, cpus[cpu].fd, cpus[cpu].offset, sizes[cpu]) < 0)
			goto out;
		offset += pad + sizes[cpu];
	}
	ret = 0;
out:
	free(header);
	free(sizes);
	return ret;
}
