// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat version 6 reader. Every size and count read from the file is
 * checked against what the file can hold before it is used, so a damaged
 * file yields a message naming the offset of the problem, never a crash.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/format.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/spoolfile.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

#define MAX_CPUS		8192
#define MAX_FORMATS		65536
#define MIN_FORMAT_BYTES	24	/* "name: x\nID: 1\nformat:\n" and a print fmt */

struct bm_trace {
	char *path;
	int fd;
	uint64_t size;		/* of the file */
	uint64_t pos;		/* where the header parser stands */
	bool swap;		/* file byte order differs from ours */
	struct bm_trace_meta meta;
	struct bm_cpu_data *cpus;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;	/* libtraceevent's, loaded into tep */
	bool tep_ready;		/* every format was parsed into tep */
	bool tep_printed;	/* events were printed through it: it may have learned comms */
	char *tep_key;		/* what the tep was parsed from (tep_key_of) */
	size_t tep_key_len;
	int version;		/* 6 or 7 */
	uint64_t unpacked;	/* version 7: bytes of compressed sections decompressed so far */
	int compression;	/* enum bm_compression: version 7 */
	uint64_t options_at;	/* version 7: the first options section */
	/* A compressed section being read: its bytes stand for the file's. */
	char *section;
	uint64_t section_at;	/* where it is in the file, for messages */
	/* The headers are read field by field: through this window of the file. */
	char window[16384];
	uint64_t window_at;
	size_t window_len;
};

/* Up to @n bytes at @at into @p, through the window; what was read, or -1. */
static ssize_t read_at(struct bm_trace *t, void *p, size_t n, uint64_t at)
{
	ssize_t r;

	if (at > t->size)
		return 0;
	if (t->section) {
		if (n > t->size - at)
			n = t->size - at;
		memcpy(p, t->section + at, n);
		return n;
	}
	if (n >= sizeof(t->window))
		return pread(t->fd, p, n, at);
	/* Never at + n: offsets come from the file, and may be near 2^64. */
	if (at < t->window_at || at - t->window_at > t->window_len ||
	    n > t->window_len - (at - t->window_at)) {
		r = pread(t->fd, t->window, sizeof(t->window), at);
		if (r < 0)
			return -1;
		t->window_at = at;
		t->window_len = r;
	}
	if (n > t->window_at + t->window_len - at)
		n = t->window_at + t->window_len - at;
	memcpy(p, t->window + (at - t->window_at), n);
	return n;
}

static int fail(struct bm_trace *t, uint64_t at, const char *what)
{
	if (t->section)
		bm_error("'%s': compressed section at %llu, offset %llu: %s", t->path,
			 (unsigned long long)t->section_at, (unsigned long long)at, what);
	else
		bm_error("'%s': offset %llu: %s", t->path, (unsigned long long)at, what);
	errno = EINVAL;
	return -1;
}

static int get(struct bm_trace *t, void *p, uint64_t n, const char *what)
{
	char msg[128];
	ssize_t r;

	if (t->pos > t->size || n > t->size - t->pos) {
		snprintf(msg, sizeof(msg), "file ends inside the %s", what);
		return fail(t, t->pos, msg);
	}
	r = read_at(t, p, n, t->pos);
	if (r < 0 || (uint64_t)r != n) {
		bm_error_errno("cannot read '%s' at offset %llu", t->path,
			       (unsigned long long)t->pos);
		return -1;
	}
	t->pos += n;
	return 0;
}

static int get_u16(struct bm_trace *t, uint16_t *v, const char *what)
{
	if (get(t, v, 2, what) < 0)
		return -1;
	if (t->swap)
		*v = __builtin_bswap16(*v);
	return 0;
}

static int get_u32(struct bm_trace *t, uint32_t *v, const char *what)
{
	if (get(t, v, 4, what) < 0)
		return -1;
	if (t->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

static int get_u64(struct bm_trace *t, uint64_t *v, const char *what)
{
	if (get(t, v, 8, what) < 0)
		return -1;
	if (t->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

/* A block of @n bytes, NUL-terminated in memory. */
static char *get_block(struct bm_trace *t, uint64_t n, const char *what)
{
	uint64_t at = t->pos;
	char *p;

	if (t->pos > t->size || n > t->size - t->pos) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s size %llu runs past the end of the file",
			 what, (unsigned long long)n);
		fail(t, at, msg);
		return NULL;
	}
	p = malloc(n + 1);
	if (!p) {
		bm_error_errno("cannot read '%s'", t->path);
		return NULL;
	}
	if (get(t, p, n, what) < 0) {
		free(p);
		return NULL;
	}
	p[n] = '\0';
	return p;
}

/* A NUL-terminated string of at most @max bytes. */
static char *get_string(struct bm_trace *t, size_t max, const char *what)
{
	char buf[256];
	uint64_t at = t->pos;
	size_t n = max < sizeof(buf) ? max : sizeof(buf);
	ssize_t r;
	char *nul;

	if (t->pos > t->size)
		n = 0;
	else if (n > t->size - t->pos)
		n = t->size - t->pos;
	r = read_at(t, buf, n, t->pos);
	if (r < 0) {
		bm_error_errno("cannot read '%s' at offset %llu", t->path,
			       (unsigned long long)at);
		return NULL;
	}
	nul = memchr(buf, '\0', r);
	if (!nul) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s is not a terminated string", what);
		fail(t, at, msg);
		return NULL;
	}
	t->pos += nul - buf + 1;
	return strdup(buf);
}

static int expect(struct bm_trace *t, const char *word, size_t len)
{
	char buf[32];
	uint64_t at = t->pos;
	char msg[96];

	if (get(t, buf, len, word) < 0)
		return -1;
	if (memcmp(buf, word, len) != 0) {
		snprintf(msg, sizeof(msg), "expected the \"%s\" section", word);
		return fail(t, at, msg);
	}
	return 0;
}

/* Version 7: "NAME\0VERSION\0", then where the first options section is. */
static int read_compression(struct bm_trace *t)
{
	uint64_t at = t->pos;
	char *name, *version;
	int c;

	name = get_string(t, 64, "compression name");
	if (!name)
		return -1;
	version = get_string(t, 64, "compression version");
	c = bm_compression_of(name);
	free(version);
	if (c < 0) {
		char msg[128];

		snprintf(msg, sizeof(msg), "compression '%.32s' is not supported (only zstd and "
			 "zlib)", name);
		free(name);
		return fail(t, at, msg);
	}
	free(name);
	t->compression = c;
	return version ? get_u64(t, &t->options_at, "options offset") : -1;
}

static int read_preamble(struct bm_trace *t)
{
	char buf[16];
	char version[8];
	char endian, long_size;
	char *v;

	if (t->size < BM_TRACE_MAGIC_LEN || get(t, buf, BM_TRACE_MAGIC_LEN, "magic") < 0 ||
	    memcmp(buf, BM_TRACE_MAGIC, BM_TRACE_MAGIC_LEN) != 0)
		return fail(t, 0, "not a trace file (no trace.dat magic)");
	v = get_string(t, sizeof(version), "version");
	if (!v)
		return -1;
	if (strcmp(v, "6") != 0 && strcmp(v, "7") != 0) {
		snprintf(buf, sizeof(buf), "%.8s", v);
		free(v);
		bm_error("'%s': offset 10: trace.dat version %s is not supported (only 6 and 7); "
			 "convert it with 'trace-cmd convert --file-version %d'", t->path, buf,
			 BM_TRACE_FILE_VERSION);
		errno = EINVAL;
		return -1;
	}
	t->version = atoi(v);
	free(v);
	if (get(t, &endian, 1, "endianness") < 0 || get(t, &long_size, 1, "long size") < 0)
		return -1;
	if (endian != 0 && endian != 1)
		return fail(t, t->pos - 2, "bad endianness byte");
	if (long_size != 4 && long_size != 8)
		return fail(t, t->pos - 1, "bad long size");
	t->swap = endian != (__BYTE_ORDER == __BIG_ENDIAN);
	t->meta.long_size = long_size;
	if (get_u32(t, &t->meta.page_size, "page size") < 0)
		return -1;
	if (t->meta.page_size < 64 || t->meta.page_size > (1u << 24) ||
	    (t->meta.page_size & (t->meta.page_size - 1)))
		return fail(t, t->pos - 4, "bad page size");
	return t->version == 7 ? read_compression(t) : 0;
}

static int read_sized(struct bm_trace *t, const char *what, char **text, size_t *len)
{
	uint64_t n;

	if (get_u64(t, &n, what) < 0)
		return -1;
	*text = get_block(t, n, what);
	*len = n;
	return *text ? 0 : -1;
}

static int read_format(struct bm_trace *t, const char *system)
{
	uint64_t at = t->pos;
	char *text;
	size_t len;
	int ret;

	/* In all: a record's type is 16 bits, and each format costs memory. */
	if (t->meta.nformats >= MAX_FORMATS)
		return fail(t, at, "more than " BM_STRINGIFY(MAX_FORMATS) " event formats");
	if (read_sized(t, "event format", &text, &len) < 0)
		return -1;
	if (len < MIN_FORMAT_BYTES) {
		free(text);
		return fail(t, at, "an event format too short to be one");
	}
	ret = bm_trace_meta_add_format(&t->meta, system, text, len);
	free(text);
	if (ret < 0)
		bm_error_errno("cannot read '%s'", t->path);
	else
		t->meta.formats[t->meta.nformats - 1].offset = at;
	return ret;
}

static int read_ftrace_formats(struct bm_trace *t)
{
	uint32_t count, i;

	if (get_u32(t, &count, "ftrace format count") < 0)
		return -1;
	if (count > MAX_FORMATS)
		return fail(t, t->pos - 4, "absurd ftrace format count");
	for (i = 0; i < count; i++)
		if (read_format(t, "ftrace") < 0)
			return -1;
	return 0;
}

static int read_event_formats(struct bm_trace *t)
{
	uint32_t count, systems, i, j;
	char *system;

	if (get_u32(t, &systems, "system count") < 0)
		return -1;
	if (systems > MAX_FORMATS)
		return fail(t, t->pos - 4, "absurd event system count");
	for (i = 0; i < systems; i++) {
		system = get_string(t, 256, "system name");
		if (!system)
			return -1;
		if (get_u32(t, &count, "event format count") < 0 || count > MAX_FORMATS) {
			free(system);
			return count > MAX_FORMATS ? fail(t, t->pos - 4, "absurd event count") : -1;
		}
		for (j = 0; j < count; j++) {
			if (read_format(t, system) < 0) {
				free(system);
				return -1;
			}
		}
		free(system);
	}
	return 0;
}

static int read_header_info(struct bm_trace *t)
{
	struct bm_trace_meta *m = &t->meta;

	if (expect(t, "header_page", 12) < 0 ||
	    read_sized(t, "header_page", &m->header_page, &m->header_page_len) < 0 ||
	    expect(t, "header_event", 13) < 0 ||
	    read_sized(t, "header_event", &m->header_event, &m->header_event_len) < 0)
		return -1;
	return 0;
}

static int read_kallsyms(struct bm_trace *t)
{
	uint32_t n;

	if (get_u32(t, &n, "kallsyms size") < 0)
		return -1;
	t->meta.kallsyms = get_block(t, n, "kallsyms");
	t->meta.kallsyms_len = n;
	return t->meta.kallsyms ? 0 : -1;
}

static int read_printk(struct bm_trace *t)
{
	uint32_t n;

	if (get_u32(t, &n, "printk size") < 0)
		return -1;
	t->meta.printk = get_block(t, n, "printk formats");
	t->meta.printk_len = n;
	return t->meta.printk ? 0 : -1;
}

static int read_cmdlines(struct bm_trace *t)
{
	return read_sized(t, "cmdlines", &t->meta.cmdlines, &t->meta.cmdlines_len);
}

/* Keep CPU @cpu's statistics; @ncpus cpustats exist. */
static void keep_cpustat(struct bm_trace *t, const char *data)
{
	const char *nl = strchr(data, '\n');
	int cpu;

	if (t->meta.cpustats && sscanf(data, "CPU: %d", &cpu) == 1 && cpu >= 0 &&
	    cpu < t->meta.ncpus && !t->meta.cpustats[cpu])
		t->meta.cpustats[cpu] = strdup(nl ? nl + 1 : "");
}

static void keep_clock(struct bm_trace *t, const char *data)
{
	const char *open = strchr(data, '['), *close = open ? strchr(open, ']') : NULL;

	if (open && close && !t->meta.clock)
		t->meta.clock = strndup(open + 1, close - open - 1);
}

static int by_sample_time(const void *x, const void *y)
{
	const struct bm_ts_sample *a = x, *b = y;

	return (a->time > b->time) - (a->time < b->time);
}

/* The file's numbers, in its byte order. */
static uint32_t file_u32(const struct bm_trace *t, const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return t->swap ? __builtin_bswap32(v) : v;
}

static uint64_t file_u64(const struct bm_trace *t, const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return t->swap ? __builtin_bswap64(v) : v;
}

/*
 * TIME_SHIFT (a guest's trace, recorded with its host's): a trace id (8
 * bytes), flags (4), a CPU count (4), then per CPU a sample count (4) and
 * that many times, offsets and scalings (8 bytes each); then, if there is
 * room, per CPU that many fraction bits (8 each). Samples sorted by time,
 * one a time, as trace-cmd keeps them.
 */
static int keep_time_shift(struct bm_trace *t, const char *p, uint32_t len)
{
	struct bm_ts_adjust *a = &t->meta.ts;
	const char *end = p + len;
	uint32_t ncpus, i;
	int k, j, f;

	if (len < 16 || a->cpu)
		return 0;	/* trace-cmd keeps the first */
	a->interpolate = file_u32(t, p + 8) & 1;
	ncpus = file_u32(t, p + 12);
	p += 16;
	if (ncpus > MAX_CPUS)
		return -1;
	a->cpu = calloc(ncpus ? ncpus : 1, sizeof(*a->cpu));
	if (!a->cpu)
		return -1;
	a->ncpus = ncpus;
	for (i = 0; i < ncpus; i++) {
		struct bm_ts_samples *c = &a->cpu[i];
		uint32_t n;

		if (end - p < 4 || (n = file_u32(t, p)) > (uint32_t)((end - p - 4) / 24))
			return -1;
		p += 4;
		c->s = calloc(n ? n : 1, sizeof(*c->s));
		if (!c->s)
			return -1;
		c->n = n;
		for (f = 0; f < 3; f++)
			for (k = 0; k < c->n; k++, p += 8) {
				int64_t v = (int64_t)file_u64(t, p);

				if (f == 0)
					c->s[k].time = v;
				else if (f == 1)
					c->s[k].offset = v;
				else
					c->s[k].scaling = v;
			}
	}
	for (i = 0; i < ncpus && end - p >= 8 * (ptrdiff_t)a->cpu[i].n; i++)
		for (k = 0; k < a->cpu[i].n; k++, p += 8)
			a->cpu[i].s[k].fraction = (int64_t)file_u64(t, p);
	for (i = 0; i < ncpus; i++) {
		struct bm_ts_samples *c = &a->cpu[i];

		for (k = 0; k < c->n; k++)
			if (c->s[k].fraction < 0 || c->s[k].fraction > 63)
				return -1;
		qsort(c->s, c->n, sizeof(*c->s), by_sample_time);
		for (k = 0, j = 0; k < c->n; k++)
			if (!k || c->s[k].time != c->s[k - 1].time)
				c->s[j++] = c->s[k];
		c->n = j;
	}
	return 0;
}

/*
 * The options that say how trace-cmd turns the timestamps into what it
 * prints: DATE (microseconds, as "0x..."), OFFSET (ns), TSC2NSEC
 * (multiplier, shift: cycles to ns), TIME_SHIFT. A malformed one is left
 * out, as trace-cmd leaves it.
 */
static void keep_time_option(struct bm_trace *t, uint16_t id, const char *data, uint32_t len)
{
	struct bm_ts_adjust *a = &t->meta.ts;
	char text[32];
	int i;

	if (id == BM_OPTION_DATE || id == BM_OPTION_OFFSET) {
		long long v, sum;

		snprintf(text, sizeof(text), "%.*s", (int)(len < sizeof(text) ? len : sizeof(text) - 1),
			 data);
		v = strtoll(text, NULL, 0);
		if (__builtin_mul_overflow(v, id == BM_OPTION_DATE ? 1000 : 1, &v) ||
		    __builtin_add_overflow((long long)a->offset, v, &sum))
			return;	/* no clock is that far off */
		a->offset = sum;
	} else if (id == BM_OPTION_TSC2NSEC && len >= 16) {
		uint32_t shift = file_u32(t, data + 4);

		if (shift > 32)
			return;
		a->mult = file_u32(t, data);
		a->shift = shift;
	} else if (id == BM_OPTION_TIME_SHIFT && keep_time_shift(t, data, len) < 0) {
		/* Malformed: left out, the other options kept. */
		for (i = 0; i < a->ncpus; i++)
			free(a->cpu[i].s);
		free(a->cpu);
		a->cpu = NULL;
		a->ncpus = 0;
	} else if (id != BM_OPTION_TIME_SHIFT) {
		return;
	}
	a->any = a->offset || a->mult || a->ncpus;
}

/* Version 6: the options between the CPU count and the flyrecord. */
static int read_options(struct bm_trace *t)
{
	char peek[10];
	uint64_t at = t->pos;

	if (get(t, peek, sizeof(peek), "options or flyrecord") < 0)
		return -1;
	if (memcmp(peek, "options  ", 10) != 0) {
		t->pos = at;
		return 0;
	}
	for (;;) {
		uint16_t id;
		uint32_t len;
		char *data;

		if (get_u16(t, &id, "option id") < 0)
			return -1;
		if (id == BM_OPTION_DONE)
			return 0;
		if (get_u32(t, &len, "option size") < 0)
			return -1;
		data = get_block(t, len, "option");
		if (!data)
			return -1;
		if (id == BM_OPTION_TRACECLOCK)
			keep_clock(t, data);
		else if (id == BM_OPTION_CPUSTAT)
			keep_cpustat(t, data);
		else
			keep_time_option(t, id, data, len);
		free(data);
	}
}

static int alloc_cpus(struct bm_trace *t, uint32_t ncpus)
{
	t->meta.ncpus = ncpus;
	t->cpus = calloc(ncpus, sizeof(*t->cpus));
	t->meta.cpustats = calloc(ncpus, sizeof(*t->meta.cpustats));
	if (!t->cpus || !t->meta.cpustats) {
		bm_error_errno("cannot read '%s'", t->path);
		return -1;
	}
	return 0;
}

/*
 * CPU data of @c, read at @at: page-aligned, and within the file. A file
 * cut short (a full disk, a copy interrupted) keeps the whole pages it has:
 * what it lacks is in @c->cut, for the reader of its pages to say.
 */
static int check_cpu_data(struct bm_trace *t, struct bm_cpu_data *c, uint64_t at)
{
	uint64_t have;

	if (c->offset % t->meta.page_size)
		return fail(t, at, "CPU data is not page-aligned");
	c->size -= c->size % t->meta.page_size;
	if (c->offset <= t->size && c->size <= t->size - c->offset)
		return 0;
	have = c->offset < t->size ? t->size - c->offset : 0;
	have -= have % t->meta.page_size;
	c->cut = c->size - have;
	c->size = have;
	return 0;
}

static int read_cpus(struct bm_trace *t)
{
	uint32_t ncpus;
	int cpu;

	if (get_u32(t, &ncpus, "CPU count") < 0)
		return -1;
	if (ncpus == 0 || ncpus > MAX_CPUS)
		return fail(t, t->pos - 4, "absurd CPU count");
	if (alloc_cpus(t, ncpus) < 0)
		return -1;
	if (read_options(t) < 0 || expect(t, "flyrecord", 10) < 0)
		return -1;
	for (cpu = 0; cpu < (int)ncpus; cpu++) {
		struct bm_cpu_data *c = &t->cpus[cpu];
		uint64_t at = t->pos;

		c->fd = t->fd;
		if (get_u64(t, &c->offset, "CPU data offset") < 0 ||
		    get_u64(t, &c->size, "CPU data size") < 0)
			return -1;
		if (c->size && check_cpu_data(t, c, at) < 0)
			return -1;
	}
	return 0;
}

/*
 * libtraceevent's format parser crashes on some malformed formats. A file
 * someone hands us must not crash the report: parse the formats in a child
 * first, which says how far it got. Returns the index of the first format
 * the parser did not survive, or -1.
 */
/*
 * The shape of a format, as the kernel prints it: "name:", "ID:", "format:",
 * field lines, "print fmt:". Returns NULL if it has it, else what is wrong.
 */
/* A field's offset and size, and the record that holds them, stay below this. */
#define FIELD_LIMIT	65536

/*
 * The decimal number at @text, ended by ';', plus one (so that 0 means
 * none): digits only, below FIELD_LIMIT.
 */
static uint64_t field_number(const char *text)
{
	uint64_t v = 0;
	int digits = 0;

	for (; *text >= '0' && *text <= '9'; text++, digits++) {
		v = v * 10 + (uint64_t)(*text - '0');
		if (v >= FIELD_LIMIT || digits > 5)
			return 0;
	}
	return digits && *text == ';' ? v + 1 : 0;
}

static const char *format_shape_error(const char *text)
{
	static const char *const keys[] = { ";\toffset:", ";\tsize:", ";\tsigned:" };
	uint64_t value[2];
	const char *line = text, *end;
	int fields = 0, state = 0;	/* 0 name, 1 ID, 2 format:, 3 fields, 4 done */
	size_t k;

	for (; *line && state < 4; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		switch (state) {
		case 0:
			if (strncmp(line, "name: ", 6) || end == line + 6)
				return "no event name";
			state = 1;
			break;
		case 1:
			if (strncmp(line, "ID: ", 4) || !strchr("0123456789", line[4]))
				return "no event ID";
			state = 2;
			break;
		case 2:
			if (strncmp(line, "format:", 7))
				return "no \"format:\" line";
			state = 3;
			break;
		case 3:
			if (line == end)
				continue;
			if (!strncmp(line, "print fmt: ", 11)) {
				state = 4;
				break;
			}
			if (strncmp(line, "\tfield:", 7) || !memchr(line, ' ', end - line))
				return "a field line is malformed";
			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
				const char *at = strstr(line, keys[k]);

				if (!at || at > end || !strchr("0123456789", at[strlen(keys[k])]))
					return "a field line is malformed";
				if (k < 2 && !(value[k] = field_number(at + strlen(keys[k]))))
					return "a field's offset or size is not a decimal number below 65536";
			}
			/*
			 * libtraceevent keeps them as int: an offset of 4293967304 would
			 * be -1000000, and a record read there.
			 */
			if (value[0] - 1 + value[1] - 1 > FIELD_LIMIT)
				return "a field lies past the largest event a ring buffer holds";
			fields++;
			break;
		}
	}
	if (state < 4)
		return "no \"print fmt:\" line";
	return fields ? NULL : "no fields";
}

#define SAFE_FORMATS 512

/* Hashes of the format sets known to parse: a process reads few kinds of files. */
static uint64_t safe_formats[SAFE_FORMATS];
static pthread_mutex_t safe_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t formats_hash(const struct bm_trace_meta *m)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	size_t i, j;

	for (i = 0; i < m->nformats; i++)
		for (j = 0; j < m->formats[i].len; j++)
			h = (h ^ (unsigned char)m->formats[i].text[j]) * 1099511628211ULL;
	for (j = 0; j < m->header_page_len; j++)
		h = (h ^ (unsigned char)m->header_page[j]) * 1099511628211ULL;
	return h | 1;
}

/* Open addressing from the hash's own slot; when full, the newest wins that slot. */
static bool formats_known_safe(uint64_t h, bool add)
{
	size_t i, n;

	pthread_mutex_lock(&safe_lock);
	for (i = h % SAFE_FORMATS, n = 0; n < SAFE_FORMATS && safe_formats[i];
	     i = (i + 1) % SAFE_FORMATS, n++)
		if (safe_formats[i] == h)
			break;
	if (n == SAFE_FORMATS)
		i = h % SAFE_FORMATS;
	if (safe_formats[i] == h) {
		pthread_mutex_unlock(&safe_lock);
		return true;
	}
	if (add)
		safe_formats[i] = h;
	pthread_mutex_unlock(&safe_lock);
	return false;
}

static ssize_t format_crashing_the_parser(struct bm_trace *t)
{
	struct bm_trace_meta *m = &t->meta;
	ssize_t last = -1;
	uint64_t hash = formats_hash(m);
	int fds[2], status;
	int32_t i;
	pid_t pid;

	if (formats_known_safe(hash, false))
		return -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
		struct tep_handle *tep;
		size_t k;

		/* Die of it quietly: no inherited crash handler (a sanitizer's) runs. */
		for (k = 0; k < sizeof(fatal) / sizeof(fatal[0]); k++)
			signal(fatal[k], SIG_DFL);
		tep = tep_alloc();
		close(fds[0]);
		if (tep)
			tep_parse_header_page(tep, m->header_page, m->header_page_len, t->meta.long_size);
		for (i = 0; tep && i < (int32_t)m->nformats; i++) {
			if (write(fds[1], &i, sizeof(i)) != sizeof(i))
				_exit(1);
			tep_parse_event(tep, m->formats[i].text, m->formats[i].len,
					m->formats[i].system);
		}
		i = -1;
		_exit(write(fds[1], &i, sizeof(i)) == sizeof(i) ? 0 : 1);
	}
	close(fds[1]);
	while (read(fds[0], &i, sizeof(i)) == sizeof(i))
		if (i >= 0)
			last = i;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFSIGNALED(status)) {
		formats_known_safe(hash, true);
		return -1;
	}
	return last >= 0 ? last : 0;
}

/*
 * The last parser state built, kept when its file is closed for the next
 * file that holds the same formats, kallsyms, cmdlines, byte order and
 * sizes: parsing them is most of the cost of opening a small file, and a
 * process that opens many (the fuzzer, a script over a series) mostly opens
 * one kind. Never shared: a file takes it, and gives it back when closed.
 */
static struct {
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	char *key;
	size_t key_len;
} spare;
/* Whether files are opened with libtraceevent's plugins, as trace-cmd does (-N: not). */
static bool with_plugins = true;

void bm_trace_plugins(bool on)
{
	with_plugins = on;
}

static void free_tep(struct tep_handle *tep, struct tep_plugin_list *plugins)
{
	if (plugins)
		tep_unload_plugins(plugins, tep);
	tep_free(tep);
}
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;

static void key_add(char **p, const void *data, size_t len)
{
	memcpy(*p, &len, sizeof(len));
	if (len)
		memcpy(*p + sizeof(len), data, len);
	*p += sizeof(len) + len;
}

/* Everything a parser state is built from, in one buffer; NULL without memory. */
static char *tep_key_of(const struct bm_trace *t, size_t *len)
{
	const struct bm_trace_meta *m = &t->meta;
	const size_t n = sizeof(size_t);
	int sizes[3] = { t->swap, m->long_size, (int)m->page_size };
	size_t total = 5 * n + sizeof(sizes) + m->header_page_len + m->kallsyms_len +
		       m->printk_len + m->cmdlines_len, i;
	char *key, *p;

	for (i = 0; i < m->nformats; i++)
		total += 2 * n + strlen(m->formats[i].system) + m->formats[i].len;
	key = p = malloc(total);
	if (!key)
		return NULL;
	key_add(&p, sizes, sizeof(sizes));
	key_add(&p, m->header_page, m->header_page_len);
	key_add(&p, m->kallsyms, m->kallsyms_len);
	key_add(&p, m->printk, m->printk_len);
	key_add(&p, m->cmdlines, m->cmdlines_len);
	for (i = 0; i < m->nformats; i++) {
		key_add(&p, m->formats[i].system, strlen(m->formats[i].system));
		key_add(&p, m->formats[i].text, m->formats[i].len);
	}
	*len = p - key;
	return key;
}

/* The spare parser state, if it was built from @t's key. */
static bool take_spare(struct bm_trace *t)
{
	pthread_mutex_lock(&spare_lock);
	if (spare.tep && t->tep_key && spare.key_len == t->tep_key_len &&
	    !memcmp(spare.key, t->tep_key, t->tep_key_len)) {
		t->tep = spare.tep;
		t->plugins = spare.plugins;
		spare.tep = NULL;
		spare.plugins = NULL;
		free(spare.key);
		spare.key = NULL;
	}
	pthread_mutex_unlock(&spare_lock);
	return t->tep != NULL;
}

/* @t is closed: its parser state becomes the spare one. */
static void give_back(struct bm_trace *t)
{
	pthread_mutex_lock(&spare_lock);
	if (spare.tep)
		free_tep(spare.tep, spare.plugins);
	free(spare.key);
	spare.tep = t->tep;
	spare.plugins = t->plugins;
	spare.key = t->tep_key;
	spare.key_len = t->tep_key_len;
	pthread_mutex_unlock(&spare_lock);
	t->tep = NULL;
	t->plugins = NULL;
	t->tep_key = NULL;
}

/*
 * What the parser made of the formats: every field within a record of 64
 * KiB at most, a dynamic one a 4-byte (offset, length) word. The text was
 * checked already, but libtraceevent takes more than one shape of a field
 * line (tokens inside a name's brackets), and keeps offsets and sizes as
 * int: this is what decoding relies on.
 */
/* Where in the file @e's format is, for messages; 0 if not found. */
static uint64_t format_offset(const struct bm_trace *t, const struct tep_event *e)
{
	size_t i, n = strlen(e->name);

	for (i = 0; i < t->meta.nformats; i++) {
		const struct bm_format *f = &t->meta.formats[i];

		if (!strcmp(f->system, e->system) && !strncmp(f->text, "name: ", 6) &&
		    !strncmp(f->text + 6, e->name, n) && f->text[6 + n] == '\n')
			return f->offset;
	}
	return 0;
}

static int parsed_fields_error(struct bm_trace *t)
{
	struct tep_event **events = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
	int i, n = events ? tep_get_events_count(t->tep) : 0;

	for (i = 0; i < n; i++) {
		struct tep_format_field *lists[2] = { events[i]->format.common_fields,
						      events[i]->format.fields }, *f;
		int k;

		for (k = 0; k < 2; k++)
			for (f = lists[k]; f; f = f->next) {
				char msg[200];

				if (f->offset >= 0 && f->size >= 0 &&
				    (uint64_t)f->offset + (uint64_t)f->size <= 65536 &&
				    (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size == 4))
					continue;
				snprintf(msg, sizeof(msg), "the %s:%s event's field %s is at offset %d, "
					 "%d bytes: not within a record", events[i]->system,
					 events[i]->name, f->name, f->offset, f->size);
				return fail(t, format_offset(t, events[i]), msg);
			}
	}
	return 0;
}

static int load_tep(struct bm_trace *t)
{
	struct bm_trace_meta *m = &t->meta;
	ssize_t bad;
	size_t i;

	t->tep_key = tep_key_of(t, &t->tep_key_len);
	if (take_spare(t)) {
		t->tep_ready = true;
		return 0;
	}

	for (i = 0; i < m->nformats; i++) {
		const char *shape = format_shape_error(m->formats[i].text);
		char msg[160];

		if (!shape)
			continue;
		snprintf(msg, sizeof(msg), "a %s event format is malformed: %s",
			 m->formats[i].system, shape);
		return fail(t, m->formats[i].offset, msg);
	}
	bad = format_crashing_the_parser(t);
	if (bad >= 0) {
		const char *name = strstr(m->formats[bad].text, "name: ");
		char msg[160];

		snprintf(msg, sizeof(msg), "a malformed %s event format (%.*s) breaks the "
			 "event parser", m->formats[bad].system,
			 name ? (int)strcspn(name + 6, "\n") : 1, name ? name + 6 : "?");
		return fail(t, m->formats[bad].offset, msg);
	}
	t->tep = tep_alloc();
	if (!t->tep) {
		bm_error_errno("cannot read '%s'", t->path);
		return -1;
	}
	tep_set_file_bigendian(t->tep, (__BYTE_ORDER == __BIG_ENDIAN) != t->swap ?
			       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, __BYTE_ORDER == __BIG_ENDIAN ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, t->meta.long_size);
	tep_set_page_size(t->tep, m->page_size);
	if (tep_parse_header_page(t->tep, m->header_page, m->header_page_len,
				  t->meta.long_size) < 0)
		return fail(t, 0, "the header_page section does not parse");
	for (i = 0; i < m->nformats; i++) {
		if (tep_parse_event(t->tep, m->formats[i].text, m->formats[i].len,
				    m->formats[i].system) != 0) {
			/* An event we cannot parse is shown raw, as trace-cmd does. */
			continue;
		}
	}
	if (parsed_fields_error(t) < 0)
		return -1;
	if (m->kallsyms_len)
		tep_parse_kallsyms(t->tep, m->kallsyms);
	if (m->printk_len)	/* trace_printk()'s formats, which its events point to */
		tep_parse_printk_formats(t->tep, m->printk);
	if (m->cmdlines_len)
		tep_parse_saved_cmdlines(t->tep, m->cmdlines);
	t->tep_ready = true;
	return 0;
}

/* ---- version 7: sections, found through options sections ---- */

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
		return fail(t, t->pos, msg);
	}
	t->pos = at;
	if (get_u16(t, &id, "section id") < 0 || get_u16(t, &flags, "section flags") < 0 ||
	    get_u32(t, &desc, "section description") < 0 || get_u64(t, &size, "section size") < 0)
		return -1;
	if (id != want) {
		snprintf(msg, sizeof(msg), "expected section %u, found section %u", want, id);
		return fail(t, at, msg);
	}
	if (!(flags & SECTION_COMPRESSED))
		return 0;
	if (t->compression == BM_COMPRESS_NONE)
		return fail(t, at, "a compressed section in a file that names no compression");
	if (get_u32(t, &packed, "compressed size") < 0 || get_u32(t, &unpacked, "size") < 0)
		return -1;
	if (unpacked > MAX_SECTION_BYTES)
		return fail(t, t->pos - 4, "absurd section size");
	/* Sections are formats, symbols and options: they never add up to this much. */
	if (unpacked > MAX_UNPACKED_SECTIONS - t->unpacked)
		return fail(t, t->pos - 4, "its compressed sections hold more than 512 MiB");
	t->unpacked += unpacked;
	data = get_block(t, packed, "compressed section");
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
		return fail(t, at, "a BUFFER option too short for what it holds");
	if (name[0] || sec->cpu)
		return 0;	/* another instance's, or a second: blkmap reads the top one */
	if (!offset || offset >= t->size)
		return fail(t, at, "a BUFFER option whose pages lie outside the file");
	if (count > MAX_CPUS || (size_t)(end - p) < count * 20ULL)
		return fail(t, at, "a BUFFER option with an absurd CPU count");
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
			return fail(t, at, "a BUFFER option with an absurd CPU number");
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

		if (get_u16(t, &id, "option id") < 0 || get_u32(t, &len, "option size") < 0)
			return -1;
		if (id == BM_OPTION_DONE)
			return len == 8 ? get_u64(t, next, "next options offset") :
					  fail(t, at, "a DONE option without the next offset");
		data = get_block(t, len, "option");
		if (!data)
			return -1;
		if (id == BM_OPTION_TRACECLOCK) {
			keep_clock(t, data);
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
			keep_time_option(t, id, data, len);
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
	if (get_u32(t, &count, "chunk count") < 0)
		return -1;
	if (count > MAX_CHUNKS || count > packed / 8)
		return fail(t, c->offset, "absurd chunk count");
	c->chunks = calloc(count ? count : 1, sizeof(*c->chunks));
	if (!c->chunks) {
		bm_error_errno("cannot read '%s'", t->path);
		return -1;
	}
	for (i = 0; i < count; i++) {
		struct bm_chunk *k = &c->chunks[i];
		uint64_t at = t->pos;

		if (get_u32(t, &k->packed, "chunk size") < 0 ||
		    get_u32(t, &k->size, "chunk size") < 0)
			return -1;
		k->offset = t->pos;
		if (k->packed > end - t->pos)
			return fail(t, at, "a chunk runs past the end of the file");
		if (!k->size || k->size % t->meta.page_size || k->size > MAX_SECTION_BYTES)
			return fail(t, at, "a chunk that is not whole pages");
		/* trace-cmd writes 10 pages a chunk, blkmap 16: a reader needs a window as large */
		if (k->size > MAX_CHUNK_PAGES * (uint64_t)t->meta.page_size &&
		    k->size > t->meta.page_size)
			return fail(t, at, "a chunk of more than " BM_STRINGIFY(MAX_CHUNK_PAGES) " pages");
		if (k->packed < MIN_PACKED_CHUNK)
			return fail(t, at, "a chunk too short to hold compressed data");
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
		return fail(t, t->options_at, "no flyrecord data (no BUFFER option for the top "
			    "instance)");
	if (sec->page_size) {
		if (sec->page_size < 64 || sec->page_size > (1u << 24) ||
		    (sec->page_size & (sec->page_size - 1)))
			return fail(t, sec->buffer_at, "bad page size");
		t->meta.page_size = sec->page_size;
	}
	if (sec->buffer_at >= t->size)
		return fail(t, sec->buffer_at, "the flyrecord section is said to lie past the end "
			    "of the file");
	t->pos = sec->buffer_at;
	if (get_u16(t, &id, "section id") < 0 || get_u16(t, &flags, "section flags") < 0)
		return -1;
	if (id != BM_OPTION_BUFFER)
		return fail(t, sec->buffer_at, "expected the flyrecord section");
	if ((flags & SECTION_COMPRESSED) && t->compression == BM_COMPRESS_NONE)
		return fail(t, sec->buffer_at, "compressed pages in a file that names no compression");
	for (i = 0; i < sec->ncpu; i++)
		if (sec->cpu[i].cpu >= ncpus)
			ncpus = sec->cpu[i].cpu + 1;
	if (ncpus == 0 || ncpus > MAX_CPUS)
		return fail(t, t->options_at, "absurd CPU count");
	if (alloc_cpus(t, ncpus) < 0)
		return -1;
	for (i = 0; i < ncpus; i++)
		t->cpus[i].fd = t->fd;
	for (i = 0; i < sec->ncpu; i++) {
		struct bm_cpu_data *c = &t->cpus[sec->cpu[i].cpu];

		if (c->size || c->chunks)
			return fail(t, sec->buffer_at, "two BUFFER entries for one CPU");
		c->offset = sec->cpu[i].offset;
		c->size = sec->cpu[i].size;
		if (!c->size)
			continue;
		if (!(flags & SECTION_COMPRESSED)) {
			if (check_cpu_data(t, c, sec->buffer_at) < 0)
				return -1;
		} else if (c->offset > t->size || c->size > t->size - c->offset) {
			return fail(t, sec->buffer_at, "compressed CPU data runs past the end of "
				    "the file: truncated?");
		} else if (read_chunks(t, c, c->size, &largest, &extent[i].end) < 0) {
			return -1;
		} else {
			/* Each CPU's chunks its own: a reader keeps a window of each CPU's largest. */
			extent[i].start = c->offset;
			windows += largest;
			largest = 0;
			if (windows > MAX_CHUNK_WINDOWS)
				return fail(t, sec->buffer_at, "its CPUs' compressed pages would take "
					    "more than 1 GiB to read");
		}
	}
	if ((flags & SECTION_COMPRESSED) && overlapping(extent, sec->ncpu))
		return fail(t, sec->buffer_at, "two CPUs' compressed pages overlap");
	for (i = 0; i < sec->ncpustats; i++)
		keep_cpustat(t, sec->cpustats[i]);
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

static int read_sections(struct bm_trace *t)
{
	struct sections sec = { .ncpus = 0 };
	uint64_t at = t->options_at, visited[MAX_OPTION_SECTIONS];
	struct file_state saved;
	int n, ret = -1;
	size_t i;

	for (n = 0; at; n++) {
		int k;

		if (n == MAX_OPTION_SECTIONS) {
			ret = fail(t, at, "too many options sections (a loop?)");
			goto out;
		}
		for (k = 0; k < n; k++)
			if (visited[k] == at) {
				ret = fail(t, at, "an options section names one read already as the "
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
		fail(t, t->options_at, "no header info or event formats section");
		goto out;
	}
	if (with_section(t, sec.at[BM_OPTION_HEADER_INFO], BM_OPTION_HEADER_INFO,
			 read_header_info) < 0 ||
	    (sec.at[BM_OPTION_FTRACE_EVENTS] &&
	     with_section(t, sec.at[BM_OPTION_FTRACE_EVENTS], BM_OPTION_FTRACE_EVENTS,
			  read_ftrace_formats) < 0) ||
	    with_section(t, sec.at[BM_OPTION_EVENT_FORMATS], BM_OPTION_EVENT_FORMATS,
			 read_event_formats) < 0 ||
	    (sec.at[BM_OPTION_KALLSYMS] &&
	     with_section(t, sec.at[BM_OPTION_KALLSYMS], BM_OPTION_KALLSYMS, read_kallsyms) < 0) ||
	    (sec.at[BM_OPTION_PRINTK] &&
	     with_section(t, sec.at[BM_OPTION_PRINTK], BM_OPTION_PRINTK, read_printk) < 0) ||
	    (sec.at[BM_OPTION_CMDLINES] &&
	     with_section(t, sec.at[BM_OPTION_CMDLINES], BM_OPTION_CMDLINES, read_cmdlines) < 0))
		goto out;
	ret = read_flyrecord(t, &sec);
out:
	for (i = 0; i < sec.ncpustats; i++)
		free(sec.cpustats[i]);
	free(sec.cpustats);
	free(sec.cpu);
	return ret;
}

static int read_headers(struct bm_trace *t)
{
	if (read_preamble(t) < 0)
		return -1;
	if (t->version == 7)
		return read_sections(t);
	if (read_header_info(t) < 0 || read_ftrace_formats(t) < 0 ||
	    read_event_formats(t) < 0 || read_kallsyms(t) < 0 || read_printk(t) < 0 ||
	    read_cmdlines(t) < 0)
		return -1;
	return read_cpus(t);
}

/*
 * A spool directory: its meta.dat, and the pages of its page file (spool.h).
 * Where they are comes from the spool's "collapsing" file when a collapse
 * was cut short: each CPU's pages are checked as a file's CPU data is,
 * page-aligned and within the page file, before anything reads them.
 */
static int open_spool(struct bm_trace *t, int dfd, const char *dir)
{
	uint64_t region, ts;
	struct stat st;
	int cpu;

	if ((dfd >= 0 ? bm_spool_locate_at(dfd, dir, t->meta.ncpus, t->meta.page_size, t->cpus,
					   &region) :
			bm_spool_locate(dir, t->meta.ncpus, t->meta.page_size, t->cpus, &region)) < 0)
		return -1;
	for (cpu = 0; cpu < t->meta.ncpus; cpu++) {
		struct bm_cpu_data *c = &t->cpus[cpu];

		if (c->fd < 0 || !c->size)
			continue;
		if (fstat(c->fd, &st) < 0) {
			bm_error_errno("cannot read the pages of '%s'", dir);
			return -1;
		}
		c->size -= c->size % t->meta.page_size;
		/*
		 * The page file is sparse and larger than its pages: a CPU's
		 * pages also fit its region, and the last of them was written
		 * (a page the recorder wrote has a time stamp; a hole has 0).
		 */
		ts = 0;
		if (c->offset % t->meta.page_size || c->offset > (uint64_t)st.st_size ||
		    c->size > (uint64_t)st.st_size - c->offset || (region && c->size > region) ||
		    (c->size && (pread(c->fd, &ts, sizeof(ts), c->offset + c->size -
				       t->meta.page_size) != sizeof(ts) || !ts))) {
			bm_error("spool '%s' is damaged: CPU %d's pages (%llu bytes at offset %llu) "
				 "are not pages the recorder wrote within its page file (%llu bytes, "
				 "regions of %llu), as the page file's size or its '"
				 BM_SPOOL_COLLAPSING "' file has them: it cannot be read or recovered",
				 dir, cpu, (unsigned long long)c->size, (unsigned long long)c->offset,
				 (unsigned long long)st.st_size, (unsigned long long)region);
			return -1;
		}
	}
	return 0;
}

/*
 * A pipe, a FIFO or a terminal cannot be read at offsets: what @fd holds is
 * copied into a temporary file (in $TMPDIR, else /tmp), removed at once, so
 * nothing is left behind; its descriptor, or -1.
 */
static int spill(int fd, const char *name)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char tmp[PATH_MAX], buf[1 << 16];
	ssize_t n;
	int out;

	size_t got = 0;

	if (isatty(fd)) {
		bm_error("'%s' is a terminal, not a recording", name);
		return -1;
	}
	/* A trace file's magic first: nothing else is copied (a disk, /dev/zero...). */
	while (got < BM_TRACE_MAGIC_LEN &&
	       ((n = read(fd, buf + got, BM_TRACE_MAGIC_LEN - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? n : 0;
	if (n < 0) {
		bm_error_errno("cannot read '%s'", name);
		return -1;
	}
	if (got < BM_TRACE_MAGIC_LEN || memcmp(buf, BM_TRACE_MAGIC, BM_TRACE_MAGIC_LEN)) {
		bm_error("'%s': offset 0: not a trace file (no trace.dat magic)", name);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s/blkmap-input-XXXXXX", dir);
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		bm_error_errno("cannot read '%s': it is not a file, and a copy cannot be made in %s",
			       name, dir);
		return -1;
	}
	unlink(tmp);
	if (bm_write_full(out, buf, got) < 0) {
		bm_error_errno("cannot copy '%s' into %s", name, dir);
		close(out);
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || bm_write_full(out, buf, n) < 0) {
			bm_error_errno(n < 0 ? "cannot read '%s'" : "cannot copy '%s' into %s", name,
				       dir);
			close(out);
			return -1;
		}
	}
	return out;
}

struct bm_trace *bm_trace_open(const char *path)
{
	return bm_trace_open_at(-1, path);
}

struct bm_trace *bm_trace_open_at(int dfd, const char *path)
{
	char meta[4096];
	struct bm_trace *t;
	struct stat st;
	bool spool, stdin_;
	int cpu;

	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		bm_error_errno("cannot open '%s'", path);
		return NULL;
	}
	stdin_ = !strcmp(path, "-");
	spool = dfd >= 0 || (!stdin_ && stat(path, &st) == 0 && S_ISDIR(st.st_mode));
	snprintf(meta, sizeof(meta), "%s/" BM_SPOOL_META, path);
	t->fd = dfd >= 0 ? openat(dfd, BM_SPOOL_META, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) :
		stdin_ ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) :
		open(spool ? meta : path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		if (spool && errno == ENOENT)
			bm_error("'%s' is a directory, not a recording or a recording's spool", path);
		else
			bm_error_errno("cannot open '%s'", spool ? meta : path);
		goto fail;
	}
	if (fstat(t->fd, &st) < 0) {
		bm_error_errno("cannot open '%s'", path);
		goto fail;
	}
	if (S_ISBLK(st.st_mode)) {
		bm_error("'%s' is a block device, not a recording", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		int copy = spill(t->fd, stdin_ ? "standard input" : path);

		close(t->fd);
		t->fd = copy;
		if (copy < 0 || fstat(copy, &st) < 0) {
			if (copy >= 0)
				bm_error_errno("cannot read '%s'", path);
			goto fail;
		}
	}
	t->size = st.st_size;
	if (read_headers(t) < 0 || (spool && open_spool(t, dfd, path) < 0) || load_tep(t) < 0)
		goto fail;
	return t;
fail:
	if (t->cpus)
		for (cpu = 0; cpu < t->meta.ncpus; cpu++)
			if (t->cpus[cpu].fd > 0 && t->cpus[cpu].fd != t->fd)
				close(t->cpus[cpu].fd);
	free(t->cpus);
	t->cpus = NULL;
	bm_trace_close(t);
	return NULL;
}

void bm_trace_close(struct bm_trace *t)
{
	int cpu;

	if (!t)
		return;
	for (cpu = 0; t->cpus && cpu < t->meta.ncpus; cpu++) {
		if (t->cpus[cpu].fd > 0 && t->cpus[cpu].fd != t->fd)
			close(t->cpus[cpu].fd);
		free(t->cpus[cpu].chunks);
	}
	free(t->section);
	if (t->tep && t->tep_ready && t->tep_key && !t->tep_printed)
		give_back(t);
	if (t->tep)
		free_tep(t->tep, t->plugins);
	free(t->tep_key);
	if (t->fd >= 0)
		close(t->fd);
	bm_trace_meta_release(&t->meta);
	free(t->cpus);
	free(t->path);
	free(t);
}

const char *bm_trace_path(const struct bm_trace *t) { return t->path; }
const struct bm_trace_meta *bm_trace_get_meta(const struct bm_trace *t) { return &t->meta; }
struct tep_handle *bm_trace_tep(const struct bm_trace *t) { return t->tep; }

struct tep_handle *bm_trace_tep_printing(struct bm_trace *t)
{
	/*
	 * Events print as trace-cmd prints them, through the plugins it loads
	 * (sched_switch...): loaded only for printing, so that a recorder (or
	 * a view that only counts) never loads code from plugin directories.
	 */
	if (with_plugins && !t->plugins && !t->tep_printed)
		t->plugins = tep_load_plugins(t->tep);
	t->tep_printed = true;
	return t->tep;
}

const struct bm_cpu_data *bm_trace_cpu(const struct bm_trace *t, int cpu)
{
	return cpu >= 0 && cpu < t->meta.ncpus ? &t->cpus[cpu] : NULL;
}
