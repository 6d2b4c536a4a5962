// SPDX-License-Identifier: GPL-2.0-only
/*
 * Version 7's headers (reading.h): options sections chained from the
 * preamble name where the other sections are, any of them compressed; the
 * BUFFER option gives the top instance's pages, compressed in chunks or
 * not. Every offset, size and count is checked against the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/format.h"
#include "blkmap/util/error.h"

#include "reading.h"

#define SECTION_COMPRESSED	1
#define MAX_SECTION_BYTES	(256u << 20)	/* decompressed; pages are not sections */
#define MAX_OPTION_SECTIONS	64
#define MAX_CHUNKS		(1u << 24)
#define MAX_UNPACKED_SECTIONS	(512u << 20)
#define MAX_CPUSTAT_BYTES	65536	/* trace-cmd's are some 200 */
#define MAX_CHUNK_PAGES		64	/* trace-cmd writes 10, blkmap 16 */
#define MIN_PACKED_CHUNK	8	/* zlib's and zstd's smallest streams are longer */
#define MAX_CHUNK_WINDOWS	(1ULL << 30)	/* the windows of every CPU, to read the chunks */

/* Where sections are, and the top instance's buffer, as the options say. */
struct sections {
	uint64_t at[BM_OPTION_CMDLINES + 1];	/* by the option naming them */
	uint64_t buffer_at;			/* 0: no BUFFER option for the top instance */
	uint32_t page_size, ncpus;
	char **cpustats;			/* CPUSTAT options, applied once CPUs are known */
	size_t ncpustats;
	struct {
		uint32_t cpu;
		uint64_t offset, size;
	} *cpu;
	uint32_t ncpu;
};

struct file_state {
	uint64_t size, pos;
};

/*
 * Read the header of the section at @at, which must be section @want: its
 * data is read next; a compressed one is decompressed into memory first,
 * and stands for the file until leave_section().
 */
static int enter_section(struct bm_trace *t, uint64_t at, uint16_t want, struct file_state *saved)
{
	uint16_t id, flags;
	uint32_t desc, packed, unpacked;
	uint64_t size;
	char msg[96], *data, *out;

	saved->size = t->size;
	saved->pos = t->pos;
	if (at >= t->size) {
		snprintf(msg, sizeof(msg), "section %u is said to be at %llu, past the end of the "
			 "file: truncated?", want, (unsigned long long)at);
		return rd_fail(t, t->pos, msg);
	}
	t->pos = at;
	if (rd_get_u16(t, &id, "section id") < 0 || rd_get_u16(t, &flags, "section flags") < 0 ||
	    rd_get_u32(t, &desc, "section description") < 0 ||
	    rd_get_u64(t, &size, "section size") < 0)
		return -1;
	if (id != want) {
		snprintf(msg, sizeof(msg), "expected section %u, found section %u", want, id);
		return rd_fail(t, at, msg);
	}
	if (!(flags & SECTION_COMPRESSED))
		return 0;
	if (t->compression == BM_COMPRESS_NONE)
		return rd_fail(t, at, "a compressed section in a file that names no compression");
	if (rd_get_u32(t, &packed, "compressed size") < 0 || rd_get_u32(t, &unpacked, "size") < 0)
		return -1;
	if (unpacked > MAX_SECTION_BYTES)
		return rd_fail(t, t->pos - 4, "absurd section size");
	/* Sections are formats, symbols and options: they never add up to this much. */
	if (unpacked > MAX_UNPACKED_SECTIONS - t->unpacked)
		return rd_fail(t, t->pos - 4, "its compressed sections hold more than 512 MiB");
	t->unpacked += unpacked;
	data = rd_get_block(t, packed, "compressed section");
	out = data ? malloc(unpacked + 1) : NULL;
	if (data && !out)
		bm_error_errno("cannot read '%s'", t->path);
	snprintf(msg, sizeof(msg), "'%s': the section at %llu", t->path, (unsigned long long)at);
	if (!out || bm_decompress(t->compression, data, packed, out, unpacked, msg) < 0) {
		free(data);
		free(out);
		return -1;
	}
	free(data);
	out[unpacked] = '\0';
	t->section = out;
	t->section_at = at;
	t->size = unpacked;
	t->pos = 0;
	return 0;
}

static void leave_section(struct bm_trace *t, const struct file_state *saved)
{
	free(t->section);
	t->section = NULL;
	t->size = saved->size;
	t->pos = saved->pos;
}

static int with_section(struct bm_trace *t, uint64_t at, uint16_t id,
			int (*read)(struct bm_trace *t))
{
	struct file_state saved;
	int ret = enter_section(t, at, id, &saved);

	if (ret == 0)
		ret = read(t);
	leave_section(t, &saved);
	return ret;
}

/* Little readers of an option's data, @len bytes at @p. */
static bool take(const char **p, const char *end, void *v, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(v, *p, n);
	*p += n;
	return true;
}

static bool take_u32(struct bm_trace *t, const char **p, const char *end, uint32_t *v)
{
	if (!take(p, end, v, 4))
		return false;
	if (t->swap)
		*v = __builtin_bswap32(*v);
	return true;
}

static bool take_u64(struct bm_trace *t, const char **p, const char *end, uint64_t *v)
{
	if (!take(p, end, v, 8))
		return false;
	if (t->swap)
		*v = __builtin_bswap64(*v);
	return true;
}

static bool take_string(const char **p, const char *end, const char **v)
{
	const char *nul = memchr(*p, '\0', end - *p);

	if (!nul)
		return false;
	*v = *p;
	*p = nul + 1;
	return true;
}

/* BUFFER: the flyrecord section of an instance, its page size and its CPUs' data. */
static int read_buffer_option(struct bm_trace *t, struct sections *sec, const char *data,
			      uint32_t len, uint64_t at)
{
	const char *p = data, *end = data + len, *name, *clock;
	uint64_t offset;
	uint32_t i, page_size, count;

	if (!take_u64(t, &p, end, &offset) || !take_string(&p, end, &name) ||
	    !take_string(&p, end, &clock) || !take_u32(t, &p, end, &page_size) ||
	    !take_u32(t, &p, end, &count))
		return rd_fail(t, at, "a BUFFER option too short for what it holds");
	if (name[0] || sec->cpu)
		return 0;	/* another instance's, or a second: blkmap reads the top one */
	if (!offset || offset >= t->size)
		return rd_fail(t, at, "a BUFFER option whose pages lie outside the file");
	if (count > MAX_CPUS || (size_t)(end - p) < count * 20ULL)
		return rd_fail(t, at, "a BUFFER option with an absurd CPU count");
	sec->cpu = calloc(count ? count : 1, sizeof(*sec->cpu));
	if (!sec->cpu) {
		bm_error_errno("cannot read '%s'", t->path);
		return -1;
	}
	for (i = 0; i < count; i++) {
		take_u32(t, &p, end, &sec->cpu[i].cpu);
		take_u64(t, &p, end, &sec->cpu[i].offset);
		take_u64(t, &p, end, &sec->cpu[i].size);
		if (sec->cpu[i].cpu >= MAX_CPUS)
			return rd_fail(t, at, "a BUFFER option with an absurd CPU number");
	}
	sec->ncpu = count;
	sec->buffer_at = offset;
	sec->page_size = page_size;
	if (clock[0] && !t->meta.clock)
		t->meta.clock = strdup(clock);
	return 0;
}

/* One options section; *@next is where the next one is (0: none). */
static int read_option_section(struct bm_trace *t, struct sections *sec, uint64_t *next)
{
	for (;;) {
		uint64_t at = t->pos, offset;
		uint16_t id;
		uint32_t len;
		char *data;
		int ret = 0;

		if (rd_get_u16(t, &id, "option id") < 0 || rd_get_u32(t, &len, "option size") < 0)
			return -1;
		if (id == BM_OPTION_DONE)
			return len == 8 ? rd_get_u64(t, next, "next options offset") :
					  rd_fail(t, at, "a DONE option without the next offset");
		data = rd_get_block(t, len, "option");
		if (!data)
			return -1;
		if (id == BM_OPTION_TRACECLOCK) {
			rd_keep_clock(t, data);
		} else if (id == BM_OPTION_CPUSTAT && sec->ncpustats < MAX_CPUS &&
			   len <= MAX_CPUSTAT_BYTES) {
			char **more = realloc(sec->cpustats, (sec->ncpustats + 1) * sizeof(*more));

			if (!more) {
				free(data);
				bm_error_errno("cannot read '%s'", t->path);
				return -1;
			}
			sec->cpustats = more;
			sec->cpustats[sec->ncpustats++] = data;
			data = NULL;
		} else if (id == BM_OPTION_CPUCOUNT && len == 4) {
			memcpy(&sec->ncpus, data, 4);
			if (t->swap)
				sec->ncpus = __builtin_bswap32(sec->ncpus);
		} else if (id == BM_OPTION_BUFFER) {
			ret = read_buffer_option(t, sec, data, len, at);
		} else if (id >= BM_OPTION_HEADER_INFO && id <= BM_OPTION_CMDLINES && len == 8) {
			memcpy(&offset, data, 8);
			sec->at[id] = t->swap ? __builtin_bswap64(offset) : offset;
		} else {
			rd_keep_time_option(t, id, data, len);
		}
		free(data);
		if (ret < 0)
			return -1;
	}
}

/*
 * A CPU's compressed pages: "COUNT, then (PACKED, SIZE, DATA) COUNT times".
 * The size the BUFFER option gives them is short of that (trace-cmd 3.1
 * counts neither COUNT nor the first chunk's SIZE): the chunks are read to
 * the end of the file, as trace-cmd reads them.
 */
static int read_chunks(struct bm_trace *t, struct bm_cpu_data *c, uint64_t packed,
		       uint64_t *largest, uint64_t *end_at)
{
	uint64_t end = t->size, total = 0;
	uint32_t count, i;

	t->pos = c->offset;
	if (rd_get_u32(t, &count, "chunk count") < 0)
		return -1;
	if (count > MAX_CHUNKS || count > packed / 8)
		return rd_fail(t, c->offset, "absurd chunk count");
	c->chunks = calloc(count ? count : 1, sizeof(*c->chunks));
	if (!c->chunks) {
		bm_error_errno("cannot read '%s'", t->path);
		return -1;
	}
	for (i = 0; i < count; i++) {
		struct bm_chunk *k = &c->chunks[i];
		uint64_t at = t->pos;

		if (rd_get_u32(t, &k->packed, "chunk size") < 0 ||
		    rd_get_u32(t, &k->size, "chunk size") < 0)
			return -1;
		k->offset = t->pos;
		if (k->packed > end - t->pos)
			return rd_fail(t, at, "a chunk runs past the end of the file");
		if (!k->size || k->size % t->meta.page_size || k->size > MAX_SECTION_BYTES)
			return rd_fail(t, at, "a chunk that is not whole pages");
		/* trace-cmd writes 10 pages a chunk, blkmap 16: a reader needs a window as large */
		if (k->size > MAX_CHUNK_PAGES * (uint64_t)t->meta.page_size &&
		    k->size > t->meta.page_size)
			return rd_fail(t, at, "a chunk of more than " BM_STRINGIFY(MAX_CHUNK_PAGES) " pages");
		if (k->packed < MIN_PACKED_CHUNK)
			return rd_fail(t, at, "a chunk too short to hold compressed data");
		t->pos += k->packed;
		total += k->size;
		if (k->size > *largest)
			*largest = k->size;
	}
	*end_at = t->pos;
	c->nchunks = count;
	c->compression = t->compression;
	c->size = total;
	return 0;
}

struct extent {
	uint64_t start, end;
};

static int by_start(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Do any of the @n extents (those with an end) overlap? Sorts them. */
static bool overlapping(struct extent *e, size_t n)
{
	size_t i;

	qsort(e, n, sizeof(*e), by_start);
	for (i = 1; i < n; i++)
		if (e[i - 1].end && e[i].end && e[i].start < e[i - 1].end)
			return true;
	return false;
}

static int read_cpu_buffers(struct bm_trace *t, struct sections *sec, struct extent *extent)
{
	uint16_t id, flags;
	uint32_t i, ncpus = sec->ncpus;
	uint64_t largest = 0, windows = 0;

	if (!sec->buffer_at)
		return rd_fail(t, t->options_at, "no flyrecord data (no BUFFER option for the top "
			       "instance)");
	if (sec->page_size) {
		if (sec->page_size < 64 || sec->page_size > (1u << 24) ||
		    (sec->page_size & (sec->page_size - 1)))
			return rd_fail(t, sec->buffer_at, "bad page size");
		t->meta.page_size = sec->page_size;
	}
	if (sec->buffer_at >= t->size)
		return rd_fail(t, sec->buffer_at, "the flyrecord section is said to lie past the "
			       "end of the file");
	t->pos = sec->buffer_at;
	if (rd_get_u16(t, &id, "section id") < 0 || rd_get_u16(t, &flags, "section flags") < 0)
		return -1;
	if (id != BM_OPTION_BUFFER)
		return rd_fail(t, sec->buffer_at, "expected the flyrecord section");
	if ((flags & SECTION_COMPRESSED) && t->compression == BM_COMPRESS_NONE)
		return rd_fail(t, sec->buffer_at, "compressed pages in a file that names no compression");
	for (i = 0; i < sec->ncpu; i++)
		if (sec->cpu[i].cpu >= ncpus)
			ncpus = sec->cpu[i].cpu + 1;
	if (ncpus == 0 || ncpus > MAX_CPUS)
		return rd_fail(t, t->options_at, "absurd CPU count");
	if (rd_alloc_cpus(t, ncpus) < 0)
		return -1;
	for (i = 0; i < ncpus; i++)
		t->cpus[i].fd = t->fd;
	for (i = 0; i < sec->ncpu; i++) {
		struct bm_cpu_data *c = &t->cpus[sec->cpu[i].cpu];

		if (c->size || c->chunks)
			return rd_fail(t, sec->buffer_at, "two BUFFER entries for one CPU");
		c->offset = sec->cpu[i].offset;
		c->size = sec->cpu[i].size;
		if (!c->size)
			continue;
		if (!(flags & SECTION_COMPRESSED)) {
			if (rd_check_cpu_data(t, c, sec->buffer_at) < 0)
				return -1;
		} else if (c->offset > t->size || c->size > t->size - c->offset) {
			return rd_fail(t, sec->buffer_at, "compressed CPU data runs past the end "
				       "of the file: truncated?");
		} else if (read_chunks(t, c, c->size, &largest, &extent[i].end) < 0) {
			return -1;
		} else {
			/* Each CPU's chunks its own: a reader keeps a window of each CPU's largest. */
			extent[i].start = c->offset;
			windows += largest;
			largest = 0;
			if (windows > MAX_CHUNK_WINDOWS)
				return rd_fail(t, sec->buffer_at, "its CPUs' compressed pages would take "
					       "more than 1 GiB to read");
		}
	}
	if ((flags & SECTION_COMPRESSED) && overlapping(extent, sec->ncpu))
		return rd_fail(t, sec->buffer_at, "two CPUs' compressed pages overlap");
	for (i = 0; i < sec->ncpustats; i++)
		rd_keep_cpustat(t, sec->cpustats[i]);
	return 0;
}

/* The top instance's pages, CPU by CPU, from the BUFFER section. */
static int read_flyrecord(struct bm_trace *t, struct sections *sec)
{
	struct extent *extent;
	int ret;

	extent = calloc(sec->ncpu ? sec->ncpu : 1, sizeof(*extent));
	if (!extent) {
		bm_error_errno("cannot read '%s'", t->path);
		return -1;
	}
	ret = read_cpu_buffers(t, sec, extent);
	free(extent);
	return ret;
}

int rd_read_sections(struct bm_trace *t)
{
	struct sections sec = { .ncpus = 0 };
	uint64_t at = t->options_at, visited[MAX_OPTION_SECTIONS];
	struct file_state saved;
	int n, ret = -1;
	size_t i;

	for (n = 0; at; n++) {
		int k;

		if (n == MAX_OPTION_SECTIONS) {
			ret = rd_fail(t, at, "too many options sections (a loop?)");
			goto out;
		}
		for (k = 0; k < n; k++)
			if (visited[k] == at) {
				ret = rd_fail(t, at, "an options section names one read already as the "
					      "next: a loop");
				goto out;
			}
		visited[n] = at;
		ret = enter_section(t, at, BM_OPTION_DONE, &saved);
		if (ret == 0)
			ret = read_option_section(t, &sec, &at);
		leave_section(t, &saved);
		if (ret < 0)
			goto out;
	}
	ret = -1;
	if (!sec.at[BM_OPTION_HEADER_INFO] || !sec.at[BM_OPTION_EVENT_FORMATS]) {
		rd_fail(t, t->options_at, "no header info or event formats section");
		goto out;
	}
	if (with_section(t, sec.at[BM_OPTION_HEADER_INFO], BM_OPTION_HEADER_INFO,
			 rd_read_header_info) < 0 ||
	    (sec.at[BM_OPTION_FTRACE_EVENTS] &&
	     with_section(t, sec.at[BM_OPTION_FTRACE_EVENTS], BM_OPTION_FTRACE_EVENTS,
			  rd_read_ftrace_formats) < 0) ||
	    with_section(t, sec.at[BM_OPTION_EVENT_FORMATS], BM_OPTION_EVENT_FORMATS,
			 rd_read_event_formats) < 0 ||
	    (sec.at[BM_OPTION_KALLSYMS] &&
	     with_section(t, sec.at[BM_OPTION_KALLSYMS], BM_OPTION_KALLSYMS,
			  rd_read_kallsyms) < 0) ||
	    (sec.at[BM_OPTION_PRINTK] &&
	     with_section(t, sec.at[BM_OPTION_PRINTK], BM_OPTION_PRINTK, rd_read_printk) < 0) ||
	    (sec.at[BM_OPTION_CMDLINES] &&
	     with_section(t, sec.at[BM_OPTION_CMDLINES], BM_OPTION_CMDLINES, rd_read_cmdlines) < 0))
		goto out;
	ret = read_flyrecord(t, &sec);
out:
	for (i = 0; i < sec.ncpustats; i++)
		free(sec.cpustats[i]);
	free(sec.cpustats);
	free(sec.cpu);
	return ret;
}
