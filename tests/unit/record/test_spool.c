// SPDX-License-Identifier: GPL-2.0-only
/*
 * The spool's page file: CPU regions read back, finished in place into the
 * same bytes a copy would write, and read at every point of a collapse a
 * recorder could be killed in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/record/capture.h"
#include "blkmap/record/spool.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

#include "helpers.h"

#define NCPUS	3

static char dir[256], out[300], ref[300];
static struct bm_spool sp = BM_SPOOL_INIT;	/* dir, opened */
/* Where spools are made: TMPDIR, or an ext4 image mounted for the tests. */
static char base[256];
static char mounted[256];	/* the ext4 image's mount point, if mounted */
static char no_base[512];	/* why no file system with collapse could be had */
static struct bm_trace_meta meta;
static const size_t npages[NCPUS] = { 5, 0, 3 };	/* CPU 1 has none */

static const char *tmpdir(void)
{
	return getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

/* bm_spool_write_out() into the file @path. */
static int spool_write_out(const struct bm_trace_meta *m, const char *path,
			   enum bm_compression compression, uint64_t *bytes)
{
	struct bm_output o;
	int ret;

	ck_assert_msg(bm_output_open(&o, path) == 0, "%s", bm_error_message());
	ret = bm_spool_write_out(&sp, m, &o, compression, bytes);
	bm_output_close(&o);
	return ret;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/blkmap-unit-spool-%d", base[0] ? base : tmpdir(),
		 (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_msg(bm_spool_open(&sp, dir) == 0, "%s", bm_error_message());
	snprintf(out, sizeof(out), "%s.dat", dir);
	snprintf(ref, sizeof(ref), "%s.ref", dir);
	test_meta_init(&meta, NCPUS);
}

static void teardown(void)
{
	bm_spool_remove(&sp);
	unlink(out);
	unlink(ref);
	bm_trace_meta_release(&meta);
}

/* CPU @cpu's pages, at @fd's position: events seq = cpu * 1000 + i, in time order. */
static void write_pages(int fd, int cpu)
{
	for (size_t p = 0; p < npages[cpu]; p++) {
		struct test_page page;

		test_page_init(&page);
		for (uint32_t i = 0; i < 10; i++)
			test_page_add(&page, 1000 + 100 * (p * 10 + i) + cpu, cpu * 1000 + p * 10 + i);
		test_page_finish(&page, 0);
		ck_assert_int_eq(write(fd, page.data, TEST_PAGE_SIZE), TEST_PAGE_SIZE);
	}
}

static void write_meta(void)
{
	char path[400];
	int fd;

	snprintf(path, sizeof(path), "%s/" BM_SPOOL_META, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(bm_trace_write(fd, path, &meta, NULL), 0);
	close(fd);
}

/* A spool as a recorder leaves it: meta.dat, and the pages in their regions. */
static uint64_t make_spool(void)
{
	uint64_t region;
	int fds[NCPUS], cpu;

	write_meta();
	ck_assert_msg(bm_spool_create(&sp, NCPUS, fds, &region) == 0, "%s", bm_error_message());
	ck_assert_uint_eq(region % (1 << 20), 0);
	for (cpu = 0; cpu < NCPUS; cpu++) {
		write_pages(fds[cpu], cpu);
		close(fds[cpu]);
	}
	return region;
}

/* Every event of @path, in order, is the one make_spool() wrote. */
static void check_events(const char *path)
{
	struct bm_trace *t = bm_trace_open(path);
	size_t seen[NCPUS] = { 0 }, n = 0;
	struct bm_stream *s;
	struct bm_rec rec;
	uint64_t last = 0;

	ck_assert_msg(t, "%s", bm_error_message());
	s = bm_stream_open(t);
	ck_assert_msg(s, "%s", bm_error_message());
	while (bm_stream_next(s, &rec) > 0) {
		uint32_t seq;

		memcpy(&seq, (char *)rec.data + 8, 4);
		ck_assert_uint_eq(seq, rec.cpu * 1000 + seen[rec.cpu]);
		ck_assert_uint_ge(rec.ts, last);
		last = rec.ts;
		seen[rec.cpu]++;
		n++;
	}
	for (int cpu = 0; cpu < NCPUS; cpu++)
		ck_assert_uint_eq(seen[cpu], npages[cpu] * 10);
	ck_assert_uint_eq(n, 80);
	bm_stream_close(s);
	bm_trace_close(t);
}

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *data;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	data = malloc(st.st_size + 1);
	ck_assert_int_eq(pread(fd, data, st.st_size, 0), st.st_size);
	close(fd);
	*len = st.st_size;
	return data;
}

/* What a copy writes from the spool as it stands, for comparison. */
static void write_reference(void)
{
	struct bm_cpu_data cpus[NCPUS];
	uint64_t region;
	int fd, cpu;

	ck_assert_int_eq(bm_spool_locate(dir, NCPUS, TEST_PAGE_SIZE, cpus, &region), 0);
	fd = open(ref, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(bm_trace_write(fd, ref, &meta, cpus), 0);
	close(fd);
	for (cpu = 0; cpu < NCPUS; cpu++)
		if (cpus[cpu].fd >= 0)
			close(cpus[cpu].fd);
}

START_TEST(a_spool_reads_as_its_recording)
{
	make_spool();
	check_events(dir);
}
END_TEST

/* Does the file system under @d collapse ranges? */
static bool collapses_in(const char *d)
{
	char path[400];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "%s/blkmap-probe-%d", d, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ok = ftruncate(fd, 3 << 20) == 0 && fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 1 << 20, 1 << 20) == 0;
	close(fd);
	unlink(path);
	return ok;
}

static bool fs_collapses(void)
{
	return collapses_in(dir);
}

/*
 * The tests of regions and collapses need a file system with holes and
 * FALLOC_FL_COLLAPSE_RANGE: TMPDIR's if it has them, else (as root) a
 * small ext4 image, loop-mounted for these tests. Without either they fail,
 * saying why: a test of a collapse that cannot happen would prove nothing.
 */
static void setup_collapsing_fs(void)
{
	char cmd[1024];

	if (collapses_in(tmpdir()))
		return;
	if (geteuid() != 0) {
		snprintf(no_base, sizeof(no_base), "'%s' cannot collapse ranges and only root can "
			 "mount an ext4 image: set TMPDIR to an ext4 or XFS directory", tmpdir());
		return;
	}
	snprintf(mounted, sizeof(mounted), "%s/blkmap-unit-ext4-%d", tmpdir(), (int)getpid());
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && truncate -s 64M '%s.img' && "
		 "mkfs.ext4 -q -F '%s.img' && mount -o loop '%s.img' '%s'", mounted, mounted,
		 mounted, mounted, mounted);
	if (system(cmd) != 0 || !collapses_in(mounted)) {
		snprintf(no_base, sizeof(no_base), "cannot mount an ext4 image at '%s' (%s)",
			 mounted, cmd);
		return;
	}
	snprintf(base, sizeof(base), "%s", mounted);
}

static void teardown_collapsing_fs(void)
{
	char cmd[1024];

	if (mounted[0]) {
		snprintf(cmd, sizeof(cmd), "umount '%s' 2>/dev/null; rmdir '%s'; rm -f '%s.img'",
			 mounted, mounted, mounted);
		if (system(cmd) != 0)
			fprintf(stderr, "test_spool: cannot remove '%s'\n", mounted);
	}
	base[0] = mounted[0] = '\0';
}

static void need_collapsing_fs(void)
{
	ck_assert_msg(!no_base[0], "no file system with holes and collapse: %s", no_base);
	ck_assert_msg(fs_collapses(), "'%s' cannot collapse ranges", dir);
}

START_TEST(written_out_in_place_or_copied_the_bytes_are_the_same)
{
	struct stat st, pages;
	size_t alen, blen;
	char *a, *b, path[400];
	uint64_t bytes;

	make_spool();
	write_reference();
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_PAGES, dir);
	ck_assert_int_eq(stat(path, &pages), 0);
	ck_assert_msg(spool_write_out(&meta, out, BM_COMPRESS_NONE, &bytes) == 0, "%s", bm_error_message());
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_uint_eq(bytes, st.st_size);
	/* In place, the spool's file is the recording; copied, it is not. */
	if (fs_collapses())
		ck_assert_uint_eq(st.st_ino, pages.st_ino);
	else
		ck_assert_uint_ne(st.st_ino, pages.st_ino);
	a = slurp(out, &alen);
	b = slurp(ref, &blen);
	ck_assert_uint_eq(alen, blen);
	ck_assert_int_eq(memcmp(a, b, alen), 0);
	free(a);
	free(b);
	check_events(out);
}
END_TEST

/* Killed after @_i steps of a collapse: the spool still reads whole. */
START_TEST(a_collapse_cut_short_leaves_a_readable_spool)
{
	const uint64_t header = 2 * TEST_PAGE_SIZE;
	uint64_t region = make_spool(), sizes[NCPUS], at[3], len[3];
	char path[400];
	FILE *f;
	int fd, i;

	need_collapsing_fs();
	ck_assert_msg(region, "no regions in '%s'", dir);
	for (i = 0; i < NCPUS; i++)
		sizes[i] = npages[i] * TEST_PAGE_SIZE;
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_COLLAPSING, dir);
	f = fopen(path, "w");
	fprintf(f, "%llu %llu %llu %llu %llu\n", (unsigned long long)region,
		(unsigned long long)header, (unsigned long long)sizes[0],
		(unsigned long long)sizes[1], (unsigned long long)sizes[2]);
	fclose(f);
	/* The steps, as spool.h describes them: from the last region back. */
	at[0] = 2 * region + sizes[1];
	len[0] = region - sizes[1];
	at[1] = region + sizes[0];
	len[1] = region - sizes[0];
	at[2] = header;
	len[2] = region - header;
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_PAGES, dir);
	fd = open(path, O_RDWR);
	ck_assert_int_eq(ftruncate(fd, 3 * region + sizes[2]), 0);
	for (i = 0; i < _i; i++)
		ck_assert_msg(fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, at[i], len[i]) == 0,
			      "step %d of the collapse: %s", i, strerror(errno));
	close(fd);
	check_events(dir);
	/* And it can be written out from there. */
	ck_assert_msg(spool_write_out(&meta, out, BM_COMPRESS_NONE, NULL) == 0, "%s", bm_error_message());
	check_events(out);
}
END_TEST

START_TEST(a_region_holds_what_it_was_given)
{
	int fds[NCPUS], cpu;
	uint64_t region, size;
	struct bm_cpu_data cpus[NCPUS];
	char path[400];
	struct stat st;

	need_collapsing_fs();
	ck_assert_int_eq(bm_spool_create(&sp, NCPUS, fds, &region), 0);
	for (cpu = 0; cpu < NCPUS; cpu++)
		close(fds[cpu]);
	ck_assert_msg(region, "no regions in '%s'", dir);
	snprintf(path, sizeof(path), "%s/" BM_SPOOL_PAGES, dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_size, (NCPUS + 1) * region);
	/* Sparse: nothing is allocated for the regions. */
	ck_assert_uint_lt(st.st_blocks * 512, 1 << 20);
	ck_assert_int_eq(bm_spool_locate(dir, NCPUS, TEST_PAGE_SIZE, cpus, &size), 0);
	ck_assert_uint_eq(size, region);
	for (cpu = 0; cpu < NCPUS; cpu++) {
		ck_assert_int_eq(cpus[cpu].fd, -1);
		ck_assert_uint_eq(cpus[cpu].size, 0);
	}
}
END_TEST

/* A CPU's region full: the drain stops with EFBIG, and what fitted is written. */
START_TEST(a_full_region_refuses_more)
{
	char page[TEST_PAGE_SIZE] = { 1 }, batch[TEST_PAGE_SIZE];
	int pipefd[2], region = memfd_create("region", 0), i;
	bool write_failed;
	uint64_t bytes = 0;
	struct stat st;

	ck_assert_int_eq(pipe2(pipefd, O_NONBLOCK), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(write(pipefd[1], page, sizeof(page)), sizeof(page));
	ck_assert_int_eq(bm_drain_pages(pipefd[0], region, TEST_PAGE_SIZE, batch, 1,
					2 * TEST_PAGE_SIZE, &bytes, &write_failed), -1);
	ck_assert(write_failed);
	ck_assert_int_eq(errno, EFBIG);
	ck_assert_uint_eq(bytes, 2 * TEST_PAGE_SIZE);
	ck_assert_int_eq(fstat(region, &st), 0);
	ck_assert_int_eq(st.st_size, 2 * TEST_PAGE_SIZE);
	close(pipefd[0]);
	close(pipefd[1]);
	close(region);
}
END_TEST

/* Where holes would be written out, each CPU has a file; read and copied the same. */
START_TEST(a_spool_of_one_file_per_cpu_reads_and_writes_out)
{
	char path[400];
	int fd, cpu;

	write_meta();
	for (cpu = 0; cpu < NCPUS; cpu++) {
		snprintf(path, sizeof(path), "%s/", dir);
		bm_spool_pages_name(path + strlen(path), sizeof(path) - strlen(path), cpu, 0);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		write_pages(fd, cpu);
		/* A page a crash cut short is left out. */
		ck_assert_int_eq(write(fd, "partial", 7), 7);
		close(fd);
	}
	check_events(dir);
	ck_assert_msg(spool_write_out(&meta, out, BM_COMPRESS_NONE, NULL) == 0, "%s", bm_error_message());
	check_events(out);
}
END_TEST

/* A file @name in @d holding @text. */
static void put_file(const char *d, const char *name, const char *text)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static bool has_file(const char *d, const char *name)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	return lstat(path, &st) == 0;
}

/* Reopening @dir: refused, the message holding @why. */
static void refused(const char *why)
{
	struct bm_spool again;

	ck_assert_int_eq(bm_spool_open(&again, dir), -1);
	ck_assert_msg(strstr(bm_error_message(), why), "'%s' says nothing of '%s'",
		      bm_error_message(), why);
}

/* A spool's name swapped for a link: removing it empties the spool it was, nothing else. */
START_TEST(removing_a_spool_follows_no_link)
{
	char other[300], moved[300], cmd[320];

	snprintf(other, sizeof(other), "%s.other", dir);
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	put_file(other, "pages", "not a spool's");
	put_file(other, "theirs", "not a spool's");
	put_file(dir, "pages", "the spool's");
	ck_assert_int_eq(rename(dir, moved), 0);
	ck_assert_int_eq(symlink(other, dir), 0);

	refused("is a symbolic link");
	bm_spool_remove(&sp);
	ck_assert(has_file(other, "pages") && has_file(other, "theirs"));
	ck_assert(!has_file(moved, "pages"));
	ck_assert_int_eq(unlink(dir), 0);
	ck_assert_int_eq(rmdir(moved), 0);
	ck_assert_int_eq(system(strcat(strcpy(cmd, "rm -r "), other)), 0);
	ck_assert_int_eq(mkdir(dir, 0700), 0);	/* for teardown */
	ck_assert_int_eq(bm_spool_open(&sp, dir), 0);
}
END_TEST

/* What blkmap does not make is refused, and says why. */
START_TEST(a_spool_not_as_blkmap_makes_it_is_refused)
{
	char path[600];

	ck_assert_int_eq(chmod(dir, 0755), 0);
	refused("mode 0755, not 0700");
	ck_assert_int_eq(chmod(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/pages", dir);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	refused("pages' is a symbolic link");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	refused("pages' is not a regular file");
	ck_assert_int_eq(rmdir(path), 0);
	put_file(dir, "meta.dat", "");
	snprintf(path, sizeof(path), "%s/meta.dat", dir);
	ck_assert_int_eq(link(path, out), 0);
	refused("has another name");
	ck_assert_int_eq(unlink(out), 0);
}
END_TEST

Suite *suite_spool(void)
{
	Suite *s = suite_create("spool");
	TCase *tc = tcase_create("spool");
	TCase *collapsing = tcase_create("spool on a file system that collapses ranges");

	/* In TMPDIR, whatever its file system. */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, a_spool_reads_as_its_recording);
	tcase_add_test(tc, written_out_in_place_or_copied_the_bytes_are_the_same);
	tcase_add_test(tc, a_full_region_refuses_more);
	tcase_add_test(tc, a_spool_of_one_file_per_cpu_reads_and_writes_out);
	tcase_add_test(tc, removing_a_spool_follows_no_link);
	tcase_add_test(tc, a_spool_not_as_blkmap_makes_it_is_refused);
	suite_add_tcase(s, tc);

	tcase_add_unchecked_fixture(collapsing, setup_collapsing_fs, teardown_collapsing_fs);
	tcase_add_checked_fixture(collapsing, setup, teardown);
	tcase_set_timeout(collapsing, 30);
	tcase_add_test(collapsing, written_out_in_place_or_copied_the_bytes_are_the_same);
	tcase_add_loop_test(collapsing, a_collapse_cut_short_leaves_a_readable_spool, 0, 4);
	tcase_add_test(collapsing, a_region_holds_what_it_was_given);
	suite_add_tcase(s, collapsing);
	return s;
}
