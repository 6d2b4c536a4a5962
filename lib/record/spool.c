// SPDX-License-Identifier: GPL-2.0-only
/* The spool's page file: one region per CPU, finished in place (spool.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "blkmap/record/spool.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

#define MAX_REGION	(1ULL << 40)	/* 1 TiB for each CPU, file systems allowing */
#define MIN_REGION	(1ULL << 26)	/* below this, give up */
#define REGION_ALIGN	(1ULL << 20)	/* any file system's block divides it */

/*
 * File systems known to keep holes out of the disk: regions cost nothing
 * there. Elsewhere (vfat, exfat, network file systems) a region would be
 * written out as zeros, so each CPU gets a file of its own.
 */
static bool has_holes(const char *dir)
{
	static const unsigned long types[] = {
		0xEF53,		/* ext2/3/4 */
		0x58465342,	/* XFS */
		0x9123683E,	/* Btrfs */
		0x01021994,	/* tmpfs */
		0xF2F52010,	/* F2FS */
		0x794C7630,	/* overlayfs, over one of these as a rule */
	};
	struct statfs sf;
	size_t i;

	if (statfs(dir, &sf) < 0)
		return false;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((unsigned long)sf.f_type == types[i])
			return true;
	return false;
}

static void cpu_file(char *buf, size_t size, const char *dir, int cpu)
{
	snprintf(buf, size, "%s/" BM_SPOOL_PAGES ".%d", dir, cpu);
}

void bm_spool_pages_path(char *buf, size_t size, const char *dir, int cpu, uint64_t region)
{
	if (region)
		snprintf(buf, size, "%s/" BM_SPOOL_PAGES, dir);
	else
		cpu_file(buf, size, dir, cpu);
}

static int create_cpu_files(const char *dir, int ncpus, int *fds)
{
	char path[4096];
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		cpu_file(path, sizeof(path), dir, cpu);
		fds[cpu] = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fds[cpu] < 0) {
			bm_error_errno("cannot create spool file '%s'", path);
			while (cpu-- > 0) {
				close(fds[cpu]);
				cpu_file(path, sizeof(path), dir, cpu);
				unlink(path);
			}
			return -1;
		}
	}
	return 0;
}

int bm_spool_create(const char *dir, int ncpus, int *fds, uint64_t *region)
{
	/* ext4 with 4 KiB blocks stops just short of 16 TiB. */
	uint64_t r = (((1ULL << 44) - (1ULL << 30)) / (ncpus + 1)) & ~(REGION_ALIGN - 1);
	char path[4096];
	int fd, cpu;

	if (!has_holes(dir)) {
		*region = 0;
		return create_cpu_files(dir, ncpus, fds);
	}
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_PAGES, dir);
	/* The recording's own mode: this file becomes it. The directory is private. */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		bm_error_errno("cannot create spool file '%s'", path);
		return -1;
	}
	if (r > MAX_REGION)
		r = MAX_REGION;
	/* The last byte first: the size the file system allows sets R. */
	while (pwrite(fd, "", 1, (ncpus + 1) * r - 1) != 1) {
		if ((errno != EFBIG && errno != EINVAL) || r / 4 < MIN_REGION) {
			bm_error_errno("cannot create spool file '%s' of %llu MiB per CPU", path,
				       (unsigned long long)(r >> 20));
			goto fail;
		}
		r = r / 4 & ~(REGION_ALIGN - 1);
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		fds[cpu] = open(path, O_RDWR | O_CLOEXEC);
		if (fds[cpu] < 0 || lseek(fds[cpu], (cpu + 1) * r, SEEK_SET) < 0) {
			bm_error_errno("cannot open spool file '%s'", path);
			for (; cpu >= 0; cpu--)
				if (fds[cpu] >= 0)
					close(fds[cpu]);
			goto fail;
		}
	}
	close(fd);
	*region = r;
	return 0;
fail:
	close(fd);
	unlink(path);
	return -1;
}

/* The spool's pages in one file per CPU: each from its start, whole pages. */
static int locate_cpu_files(const char *dir, int ncpus, uint32_t page_size,
			    struct bm_cpu_data *cpus)
{
	char path[4096];
	struct stat st;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		cpu_file(path, sizeof(path), dir, cpu);
		cpus[cpu].fd = open(path, O_RDONLY | O_CLOEXEC);
		if (cpus[cpu].fd < 0 && errno == ENOENT)
			continue;
		if (cpus[cpu].fd < 0 || fstat(cpus[cpu].fd, &st) < 0) {
			bm_error_errno("cannot open '%s'", path);
			return -1;
		}
		/* A page cut short by a crash is left out. */
		cpus[cpu].size = st.st_size - st.st_size % page_size;
	}
	return 0;
}

/* A page the recorder wrote has the ring buffer's time stamp, never 0. */
static int page_written(int fd, uint64_t at)
{
	uint64_t ts = 0;
	ssize_t n = pread(fd, &ts, sizeof(ts), at);

	return n < 0 ? -1 : n == sizeof(ts) && ts != 0;
}

/* Pages are written in order from the region's start: find the first hole. */
static int extent(int fd, uint64_t base, uint64_t room, uint32_t page_size, uint64_t *size)
{
	uint64_t lo = 0, hi = room / page_size;	/* pages [0, lo) written, [hi, ..) not */

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int w = page_written(fd, base + mid * page_size);

		if (w < 0)
			return -1;
		if (w)
			lo = mid + 1;
		else
			hi = mid;
	}
	*size = lo * page_size;
	return 0;
}

/*
 * A collapse, planned: the file is first cut after the last CPU with pages
 * (at *@end), then, from the last region back, the hole after each CPU's
 * pages goes, then the unused part of the header's region (@header: the
 * header's bytes, rounded up to a page). Step i removes @len[i] bytes at
 * @at[i]; going backwards, each @at is still where the recorder wrote.
 * Returns the number of steps.
 */
static int plan(int ncpus, const uint64_t *sizes, uint64_t region, uint64_t header,
		uint64_t *at, uint64_t *len, uint64_t *end)
{
	int cpu, last = -1, n = 0;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (sizes[cpu])
			last = cpu;
	*end = last < 0 ? header : (last + 1) * region + sizes[last];
	for (cpu = last - 1; cpu >= 0; cpu--) {
		at[n] = (cpu + 1) * region + sizes[cpu];
		len[n++] = region - sizes[cpu];
	}
	if (last >= 0 && header < region) {
		at[n] = header;
		len[n++] = region - header;
	}
	return n;
}

/* Where CPU @cpu's pages are once the first @done steps are done. */
static uint64_t moved_base(int cpu, uint64_t region, const uint64_t *at, const uint64_t *len,
			   int done)
{
	uint64_t base = (cpu + 1) * region;
	int i;

	for (i = 0; i < done; i++)
		if (at[i] < base)
			base -= len[i];
	return base;
}

/* "R header size0 size1 ...": the plan of a collapse under way, or 0 for none. */
static int read_collapsing(const char *dir, int ncpus, uint64_t *region, uint64_t *header,
			   uint64_t *sizes)
{
	char path[4096];
	FILE *f;
	int cpu, n;

	snprintf(path, sizeof(path), "%s/" BM_SPOOL_COLLAPSING, dir);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	n = fscanf(f, "%" SCNu64 " %" SCNu64, region, header) == 2 ? 2 : 0;
	for (cpu = 0; n && cpu < ncpus; cpu++)
		n += fscanf(f, "%" SCNu64, &sizes[cpu]) == 1;
	fclose(f);
	if (n != ncpus + 2 || !*region) {
		bm_error("'%s' is damaged", path);
		return -1;
	}
	return 1;
}

static void close_cpus(struct bm_cpu_data *cpus, int ncpus)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
		cpus[cpu].fd = -1;
	}
}

int bm_spool_locate(const char *dir, int ncpus, uint32_t page_size, struct bm_cpu_data *cpus,
		    uint64_t *region)
{
	uint64_t *sizes = calloc(ncpus, sizeof(*sizes)), *at = calloc(ncpus + 1, sizeof(*at));
	uint64_t *len = calloc(ncpus + 1, sizeof(*len)), header, end;
	char path[4096];
	struct stat st;
	int cpu, fd = -1, done = 0, n, ret = -1;

	for (cpu = 0; cpu < ncpus; cpu++)
		cpus[cpu] = (struct bm_cpu_data){ .fd = -1 };
	*region = 0;
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_RING, dir);
	if (access(path, F_OK) == 0) {
		bm_error("'%s' is a flight recording's spool: its pages go round a ring and cannot "
			 "be read back; what 'blkmap record --ring' writes at a stop or snapshot is "
			 "the recording", dir);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_PAGES, dir);
	if (!sizes || !at || !len) {
		bm_error_errno("cannot read '%s'", path);
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* One file per CPU, or killed before creating any. */
		ret = locate_cpu_files(dir, ncpus, page_size, cpus);
		goto out;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		bm_error_errno("cannot open '%s'", path);
		goto out;
	}
	switch (read_collapsing(dir, ncpus, region, &header, sizes)) {
	case -1:
		goto out;
	case 0:
		*region = st.st_size / (ncpus + 1);
		for (cpu = 0; cpu < ncpus; cpu++) {
			cpus[cpu].offset = (cpu + 1) * *region;
			if (extent(fd, cpus[cpu].offset, *region, page_size, &sizes[cpu]) < 0) {
				bm_error_errno("cannot read '%s'", path);
				goto out;
			}
		}
		break;
	default:
		/* Killed while collapsing: each step shortened the file. */
		n = plan(ncpus, sizes, *region, header, at, len, &end);
		while (done < n && end > (uint64_t)st.st_size)
			end -= len[done++];
		for (cpu = 0; cpu < ncpus; cpu++)
			cpus[cpu].offset = moved_base(cpu, *region, at, len, done);
		break;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		cpus[cpu].size = sizes[cpu];
		if (sizes[cpu] && (cpus[cpu].fd = dup(fd)) < 0) {
			bm_error_errno("cannot open '%s'", path);
			goto out;
		}
	}
	ret = 0;
out:
	if (ret < 0)
		close_cpus(cpus, ncpus);
	if (fd >= 0)
		close(fd);
	free(sizes);
	free(at);
	free(len);
	return ret;
}

/* Can this file system collapse ranges of @block bytes? Try on a scratch file. */
static bool can_collapse(const char *dir, uint64_t block)
{
	char path[4096];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "%s/" BM_SPOOL_PROBE, dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	ok = ftruncate(fd, 3 * block) == 0 &&
	     fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, block, block) == 0;
	close(fd);
	unlink(path);
	return ok;
}

static int write_collapsing(const char *dir, int ncpus, uint64_t region, uint64_t header,
			    const uint64_t *sizes)
{
	char path[4096];
	FILE *f;
	int cpu, fd, ok;

	snprintf(path, sizeof(path), "%s/" BM_SPOOL_COLLAPSING, dir);
	f = fopen(path, "we");
	if (!f)
		return -1;
	fprintf(f, "%" PRIu64 " %" PRIu64, region, header);
	for (cpu = 0; cpu < ncpus; cpu++)
		fprintf(f, " %" PRIu64, sizes[cpu]);
	fputc('\n', f);
	ok = fflush(f) == 0 && !ferror(f);
	fd = fileno(f);
	ok = ok && fsync(fd) == 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int bm_spool_finish_in_place(const char *dir, const struct bm_trace_meta *meta,
			     const struct bm_cpu_data *cpus, uint64_t region, const char *output)
{
	int ncpus = meta->ncpus, cpu, n = 0, i, fd = -1, ret = -1;
	bool pages = false;
	uint64_t *sizes = calloc(ncpus + 1, sizeof(*sizes)), *at = calloc(ncpus + 1, sizeof(*at));
	uint64_t *len = calloc(ncpus + 1, sizeof(*len)), room, end;
	char path[4096], collapsing[4096], *header = NULL;
	struct stat st;
	size_t hlen;

	snprintf(path, sizeof(path), "%s/" BM_SPOOL_PAGES, dir);
	snprintf(collapsing, sizeof(collapsing), "%s/" BM_SPOOL_COLLAPSING, dir);
	if (!sizes || !at || !len)
		goto out;
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (cpus[cpu].fd >= 0 && cpus[cpu].offset != (cpu + 1) * region) {
			ret = 1;	/* not where the recorder wrote: copy */
			goto out;
		}
		sizes[cpu] = cpus[cpu].fd < 0 ? 0 : cpus[cpu].size;
		pages |= sizes[cpu] != 0;
	}
	header = bm_trace_header(meta, sizes, &hlen);
	if (!header)
		goto out;
	room = (hlen + meta->page_size - 1) / meta->page_size * meta->page_size;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto out;
	n = plan(ncpus, sizes, region, room, at, len, &end);
	/* Collapses take whole blocks: anything else, or no support, is copied. */
	ret = 1;
	if (room > region || !st.st_blksize)
		goto out;
	for (i = 0; i < n; i++)
		if (at[i] % st.st_blksize || len[i] % st.st_blksize)
			goto out;
	if (n && !can_collapse(dir, st.st_blksize))
		goto out;
	ret = -1;
	if (write_collapsing(dir, ncpus, region, room, sizes) < 0 || ftruncate(fd, end) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, at[i], len[i]) < 0)
			goto out;
	if (pwrite(fd, header, hlen, 0) != (ssize_t)hlen ||
	    (!pages && ftruncate(fd, hlen) < 0) || fsync(fd) < 0 || rename(path, output) < 0)
		goto out;
	unlink(collapsing);
	ret = 0;
out:
	if (ret < 0)
		bm_error_errno("cannot write '%s' (finishing '%s')", output, path);
	if (fd >= 0)
		close(fd);
	free(header);
	free(sizes);
	free(at);
	free(len);
	return ret;
}

/* Copy the spool's pages after @meta into a new file, then rename it @output. */
static int copy_out(const char *dir, const struct bm_trace_meta *meta, const char *output,
		    enum bm_compression compression)
{
	struct bm_cpu_data *cpus = calloc(meta->ncpus ? meta->ncpus : 1, sizeof(*cpus));
	uint64_t region;
	int ret = -1;

	if (!cpus) {
		bm_error_errno("cannot write '%s'", output);
		return -1;
	}
	if (bm_spool_locate(dir, meta->ncpus, meta->page_size, cpus, &region) == 0)
		ret = bm_trace_write_file(output, meta, cpus, compression, NULL);
	close_cpus(cpus, meta->ncpus);
	free(cpus);
	return ret;
}

int bm_spool_write_out(const char *dir, const struct bm_trace_meta *meta, const char *output,
		       enum bm_compression compression, uint64_t *bytes)
{
	struct bm_cpu_data *cpus = calloc(meta->ncpus ? meta->ncpus : 1, sizeof(*cpus));
	uint64_t region;
	struct stat st;
	int r = -1;

	if (!cpus) {
		bm_error_errno("cannot write '%s'", output);
		return -1;
	}
	if (!compression && bm_spool_locate(dir, meta->ncpus, meta->page_size, cpus, &region) == 0)
		r = region ? bm_spool_finish_in_place(dir, meta, cpus, region, output) : 1;
	close_cpus(cpus, meta->ncpus);
	free(cpus);
	/* Not in place: copy, from wherever the pages are now. */
	if (r != 0 && copy_out(dir, meta, output, compression) < 0)
		return -1;
	if (stat(output, &st) < 0) {
		bm_error_errno("cannot write '%s'", output);
		return -1;
	}
	if (bytes)
		*bytes = st.st_size;
	return 0;
}

void bm_spool_remove(const char *dir)
{
	struct dirent *d;
	char path[4096];
	DIR *dp = opendir(dir);

	/* Everything in it is the recorder's: pages, meta, a ring's kept pages. */
	while (dp && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		unlink(path);
	}
	if (dp)
		closedir(dp);
	rmdir(dir);
}
