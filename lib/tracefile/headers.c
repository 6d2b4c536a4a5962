// SPDX-License-Identifier: GPL-2.0-only
/*
 * The header's sections as both versions hold them (reading.h): the event
 * formats, header_page and header_event, kallsyms, printk formats and
 * cmdlines, read at the cursor (version 6 one after the other, version 7
 * where its options say); and each CPU's data checked against the file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "blkmap/tracefile/format.h"
#include "blkmap/util/error.h"

#include "reading.h"

#define MAX_FORMATS		65536
#define MIN_FORMAT_BYTES	24	/* "name: x\nID: 1\nformat:\n" and a print fmt */

static int read_sized(struct bm_trace *t, const char *what, char **text, size_t *len)
{
	uint64_t n;

	if (rd_get_u64(t, &n, what) < 0)
		return -1;
	*text = rd_get_block(t, n, what);
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
		return rd_fail(t, at, "more than " BM_STRINGIFY(MAX_FORMATS) " event formats");
	if (read_sized(t, "event format", &text, &len) < 0)
		return -1;
	if (len < MIN_FORMAT_BYTES) {
		free(text);
		return rd_fail(t, at, "an event format too short to be one");
	}
	ret = bm_trace_meta_add_format(&t->meta, system, text, len);
	free(text);
	if (ret < 0)
		bm_error_errno("cannot read '%s'", t->path);
	else
		t->meta.formats[t->meta.nformats - 1].offset = at;
	return ret;
}

int rd_read_ftrace_formats(struct bm_trace *t)
{
	uint32_t count, i;

	if (rd_get_u32(t, &count, "ftrace format count") < 0)
		return -1;
	if (count > MAX_FORMATS)
		return rd_fail(t, t->pos - 4, "absurd ftrace format count");
	for (i = 0; i < count; i++)
		if (read_format(t, "ftrace") < 0)
			return -1;
	return 0;
}

int rd_read_event_formats(struct bm_trace *t)
{
	uint32_t count, systems, i, j;
	char *system;

	if (rd_get_u32(t, &systems, "system count") < 0)
		return -1;
	if (systems > MAX_FORMATS)
		return rd_fail(t, t->pos - 4, "absurd event system count");
	for (i = 0; i < systems; i++) {
		system = rd_get_string(t, 256, "system name");
		if (!system)
			return -1;
		if (rd_get_u32(t, &count, "event format count") < 0 || count > MAX_FORMATS) {
			free(system);
			return count > MAX_FORMATS ?
			       rd_fail(t, t->pos - 4, "absurd event count") : -1;
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

int rd_read_header_info(struct bm_trace *t)
{
	struct bm_trace_meta *m = &t->meta;

	if (rd_expect(t, "header_page", 12) < 0 ||
	    read_sized(t, "header_page", &m->header_page, &m->header_page_len) < 0 ||
	    rd_expect(t, "header_event", 13) < 0 ||
	    read_sized(t, "header_event", &m->header_event, &m->header_event_len) < 0)
		return -1;
	return 0;
}

int rd_read_kallsyms(struct bm_trace *t)
{
	uint32_t n;

	if (rd_get_u32(t, &n, "kallsyms size") < 0)
		return -1;
	t->meta.kallsyms = rd_get_block(t, n, "kallsyms");
	t->meta.kallsyms_len = n;
	return t->meta.kallsyms ? 0 : -1;
}

int rd_read_printk(struct bm_trace *t)
{
	uint32_t n;

	if (rd_get_u32(t, &n, "printk size") < 0)
		return -1;
	t->meta.printk = rd_get_block(t, n, "printk formats");
	t->meta.printk_len = n;
	return t->meta.printk ? 0 : -1;
}

int rd_read_cmdlines(struct bm_trace *t)
{
	return read_sized(t, "cmdlines", &t->meta.cmdlines, &t->meta.cmdlines_len);
}

int rd_alloc_cpus(struct bm_trace *t, uint32_t ncpus)
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
int rd_check_cpu_data(struct bm_trace *t, struct bm_cpu_data *c, uint64_t at)
{
	uint64_t have;

	if (c->offset % t->meta.page_size)
		return rd_fail(t, at, "CPU data is not page-aligned");
	c->size -= c->size % t->meta.page_size;
	if (c->offset <= t->size && c->size <= t->size - c->offset)
		return 0;
	have = c->offset < t->size ? t->size - c->offset : 0;
	have -= have % t->meta.page_size;
	c->cut = c->size - have;
	c->size = have;
	return 0;
}
