// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening a recording (reader.h): a trace.dat file of version 6 or 7, from
 * a path, a pipe or standard input, or a recorder's spool; its preamble,
 * version 6's order of the header's sections and its CPU list.
 * Every size and count read from the file is checked against what the file
 * can hold before it is used, so a damaged file yields a message naming
 * the offset of the problem, never a crash. The cursor, the header's
 * sections, the options, version 7's sections and the event parser are
 * files of their own (reading.h).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/tracefile/compress.h"
#include "blkmap/tracefile/format.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/spoolfile.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

#include "reading.h"

/* Version 7: "NAME\0VERSION\0", then where the first options section is. */
static int read_compression(struct bm_trace *t)
{
	uint64_t at = t->pos;
	char *name, *version;
	int c;

	name = rd_get_string(t, 64, "compression name");
	if (!name)
		return -1;
	version = rd_get_string(t, 64, "compression version");
	c = bm_compression_of(name);
	free(version);
	if (c < 0) {
		char msg[128];

		snprintf(msg, sizeof(msg), "compression '%.32s' is not supported (only zstd and "
			 "zlib)", name);
		free(name);
		return rd_fail(t, at, msg);
	}
	free(name);
	t->compression = c;
	return version ? rd_get_u64(t, &t->options_at, "options offset") : -1;
}

static int read_preamble(struct bm_trace *t)
{
	char buf[16];
	char version[8];
	char endian, long_size;
	char *v;

	if (t->size < BM_TRACE_MAGIC_LEN || rd_get(t, buf, BM_TRACE_MAGIC_LEN, "magic") < 0 ||
	    memcmp(buf, BM_TRACE_MAGIC, BM_TRACE_MAGIC_LEN) != 0)
		return rd_fail(t, 0, "not a trace file (no trace.dat magic)");
	v = rd_get_string(t, sizeof(version), "version");
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
	if (rd_get(t, &endian, 1, "endianness") < 0 || rd_get(t, &long_size, 1, "long size") < 0)
		return -1;
	if (endian != 0 && endian != 1)
		return rd_fail(t, t->pos - 2, "bad endianness byte");
	if (long_size != 4 && long_size != 8)
		return rd_fail(t, t->pos - 1, "bad long size");
	t->swap = endian != (__BYTE_ORDER == __BIG_ENDIAN);
	t->meta.long_size = long_size;
	if (rd_get_u32(t, &t->meta.page_size, "page size") < 0)
		return -1;
	if (t->meta.page_size < 64 || t->meta.page_size > (1u << 24) ||
	    (t->meta.page_size & (t->meta.page_size - 1)))
		return rd_fail(t, t->pos - 4, "bad page size");
	return t->version == 7 ? read_compression(t) : 0;
}

static int read_cpus(struct bm_trace *t)
{
	uint32_t ncpus;
	int cpu;

	if (rd_get_u32(t, &ncpus, "CPU count") < 0)
		return -1;
	if (ncpus == 0 || ncpus > MAX_CPUS)
		return rd_fail(t, t->pos - 4, "absurd CPU count");
	if (rd_alloc_cpus(t, ncpus) < 0)
		return -1;
	if (rd_read_options(t) < 0 || rd_expect(t, "flyrecord", 10) < 0)
		return -1;
	for (cpu = 0; cpu < (int)ncpus; cpu++) {
		struct bm_cpu_data *c = &t->cpus[cpu];
		uint64_t at = t->pos;

		c->fd = t->fd;
		if (rd_get_u64(t, &c->offset, "CPU data offset") < 0 ||
		    rd_get_u64(t, &c->size, "CPU data size") < 0)
			return -1;
		if (c->size && rd_check_cpu_data(t, c, at) < 0)
			return -1;
	}
	return 0;
}

static int read_headers(struct bm_trace *t)
{
	if (read_preamble(t) < 0)
		return -1;
	if (t->version == 7)
		return rd_read_sections(t);
	if (rd_read_header_info(t) < 0 || rd_read_ftrace_formats(t) < 0 ||
	    rd_read_event_formats(t) < 0 || rd_read_kallsyms(t) < 0 || rd_read_printk(t) < 0 ||
	    rd_read_cmdlines(t) < 0)
		return -1;
	return read_cpus(t);
}

/*
 * A spool directory: its meta.dat, and the pages of its page file (spoolfile.h).
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
	if (read_headers(t) < 0 || (spool && open_spool(t, dfd, path) < 0) || rd_load_tep(t) < 0)
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
		rd_give_back(t);
	if (t->tep)
		rd_free_tep(t->tep, t->plugins);
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

const struct bm_cpu_data *bm_trace_cpu(const struct bm_trace *t, int cpu)
{
	return cpu >= 0 && cpu < t->meta.ncpus ? &t->cpus[cpu] : NULL;
}
