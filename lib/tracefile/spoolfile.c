// SPDX-License-Identifier: GPL-2.0-only
/*
 * A spool's files as they lie on disk (spoolfile.h): the regions of its
 * page file, the plan of a collapse, and where each CPU's pages are found
 * again, by the reader and by the recorder that finishes or recovers it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/tracefile/spoolfile.h"
#include "blkmap/util/error.h"

#define MAX_REGION	(1ULL << 40)	/* 1 TiB for each CPU, file systems allowing */
#define REGION_ALIGN	(1ULL << 20)	/* any file system's block divides it */

static void cpu_file(char *buf, size_t size, int cpu)
{
	snprintf(buf, size, BM_SPOOL_PAGES ".%d", cpu);
}

void bm_spool_pages_name(char *buf, size_t size, int cpu, uint64_t region)
{
	if (region)
		snprintf(buf, size, BM_SPOOL_PAGES);
	else
		cpu_file(buf, size, cpu);
}

static int open_file(int dir, const char *name, int flags)
{
	return openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
}

uint64_t bm_spool_first_region(int ncpus)
{
	/* ext4 with 4 KiB blocks stops just short of 16 TiB. */
	uint64_t r = (((1ULL << 44) - (1ULL << 30)) / (ncpus + 1)) & ~(REGION_ALIGN - 1);

	return r > MAX_REGION ? MAX_REGION : r;
}

uint64_t bm_spool_next_region(uint64_t r)
{
	return r / 4 & ~(REGION_ALIGN - 1);
}

/*
 * The region of a page file of @size bytes: the largest the recorder could
 * have chosen whose last CPU's region starts within the file. The file is
 * (ncpus + 1) regions long as made, less if it was cut short (a full disk,
 * a copy interrupted), and the regions stay where they were.
 */
static uint64_t region_of(int ncpus, uint64_t size)
{
	uint64_t r = bm_spool_first_region(ncpus);

	while (bm_spool_next_region(r) >= BM_SPOOL_MIN_REGION && (uint64_t)ncpus * r >= size)
		r = bm_spool_next_region(r);
	return r;
}
/* The spool's pages in one file per CPU: each from its start, whole pages. */
static int locate_cpu_files(int dfd, const char *dir, int ncpus, uint32_t page_size,
			    struct bm_cpu_data *cpus)
{
	char name[64];
	struct stat st;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		cpu_file(name, sizeof(name), cpu);
		cpus[cpu].fd = open_file(dfd, name, O_RDONLY);
		if (cpus[cpu].fd < 0 && errno == ENOENT)
			continue;
		if (cpus[cpu].fd < 0 || fstat(cpus[cpu].fd, &st) < 0) {
			bm_error_errno("cannot open '%s/%s'", dir, name);
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

int bm_spool_plan(int ncpus, const uint64_t *sizes, uint64_t region, uint64_t header,
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
static int read_collapsing(int dfd, const char *dir, int ncpus, uint64_t *region,
			   uint64_t *header, uint64_t *sizes)
{
	char path[4096];
	FILE *f;
	int cpu, n, fd;

	snprintf(path, sizeof(path), "%s/" BM_SPOOL_COLLAPSING, dir);
	fd = open_file(dfd, BM_SPOOL_COLLAPSING, O_RDONLY);
	if (fd < 0 && errno == ENOENT)
		return 0;
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		bm_error_errno("cannot open '%s'", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
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

void bm_spool_close_cpus(struct bm_cpu_data *cpus, int ncpus)
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
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (dfd < 0) {
		bm_error_errno("cannot open '%s'", dir);
		return -1;
	}
	ret = bm_spool_locate_at(dfd, dir, ncpus, page_size, cpus, region);
	close(dfd);
	return ret;
}

int bm_spool_locate_at(int dfd, const char *dir, int ncpus, uint32_t page_size,
		       struct bm_cpu_data *cpus, uint64_t *region)
{
	uint64_t *sizes = calloc(ncpus, sizeof(*sizes)), *at = calloc(ncpus + 1, sizeof(*at));
	uint64_t *len = calloc(ncpus + 1, sizeof(*len)), header, end;
	char path[4096];
	struct stat st;
	int cpu, fd = -1, done = 0, n, ret = -1;

	for (cpu = 0; cpu < ncpus; cpu++)
		cpus[cpu] = (struct bm_cpu_data){ .fd = -1 };
	*region = 0;
	if (faccessat(dfd, BM_SPOOL_RING, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
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
	fd = open_file(dfd, BM_SPOOL_PAGES, O_RDONLY);
	if (fd < 0 && errno == ENOENT) {
		/* One file per CPU, or killed before creating any. */
		ret = locate_cpu_files(dfd, dir, ncpus, page_size, cpus);
		goto out;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		bm_error_errno("cannot open '%s'", path);
		goto out;
	}
	switch (read_collapsing(dfd, dir, ncpus, region, &header, sizes)) {
	case -1:
		goto out;
	case 0:
		/* A CPU's pages end at the last whole one the file holds. */
		*region = region_of(ncpus, st.st_size);
		for (cpu = 0; cpu < ncpus; cpu++) {
			uint64_t room;

			cpus[cpu].offset = (cpu + 1) * *region;
			room = cpus[cpu].offset >= (uint64_t)st.st_size ? 0 :
			       st.st_size - cpus[cpu].offset;
			if (room > *region)
				room = *region;
			if (extent(fd, cpus[cpu].offset, room - room % page_size, page_size,
				   &sizes[cpu]) < 0) {
				bm_error_errno("cannot read '%s'", path);
				goto out;
			}
		}
		break;
	default:
		/* Killed while collapsing: each step shortened the file. */
		n = bm_spool_plan(ncpus, sizes, *region, header, at, len, &end);
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
		bm_spool_close_cpus(cpus, ncpus);
	if (fd >= 0)
		close(fd);
	free(sizes);
	free(at);
	free(len);
	return ret;
}
