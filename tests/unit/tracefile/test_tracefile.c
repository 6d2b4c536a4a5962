// SPDX-License-Identifier: GPL-2.0-only
/* trace.dat writer -> reader round trips, and damaged files. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

#include "helpers.h"

static char path[256];

static void setup(void)
{
	test_tmpname(path, sizeof(path));
}

static void teardown(void)
{
	unlink(path);
}

static void write_two_cpus(void)
{
	static const struct test_event cpu0[] = { { 1000, 1 }, { 3000, 3 }, { 5000, 5 } };
	static const struct test_event cpu1[] = { { 2000, 2 }, { 4000, 4 } };
	const struct test_event *events[] = { cpu0, cpu1 };
	size_t counts[] = { 3, 2 };

	test_write_trace(path, 2, events, counts);
}

START_TEST(round_trip_keeps_meta_and_events)
{
	struct bm_trace *t;
	struct bm_stream *s;
	struct bm_rec rec;
	const struct bm_trace_meta *m;
	uint32_t seq;
	int n = 0;

	write_two_cpus();
	t = bm_trace_open(path);
	ck_assert_msg(t, "open failed: %s", bm_error_message());
	m = bm_trace_get_meta(t);
	ck_assert_int_eq(m->ncpus, 2);
	ck_assert_uint_eq(m->page_size, TEST_PAGE_SIZE);
	ck_assert_str_eq(m->clock, "mono");
	ck_assert_uint_eq(m->nformats, 1);
	ck_assert_str_eq(m->formats[0].system, "test");
	ck_assert_ptr_nonnull(strstr(m->cmdlines, "tester"));
	s = bm_stream_open(t);
	ck_assert_ptr_nonnull(s);
	while (bm_stream_next(s, &rec) > 0) {
		n++;
		memcpy(&seq, (char *)rec.data + 8, 4);
		ck_assert_uint_eq(seq, n);
		ck_assert_uint_eq(rec.ts, n * 1000);
		ck_assert_int_eq(rec.cpu, (n % 2) ? 0 : 1);
		ck_assert_int_eq(rec.type, TEST_EVENT_ID);
	}
	ck_assert_int_eq(n, 5);
	bm_stream_close(s);
	bm_trace_close(t);
}
END_TEST

START_TEST(cpu_pages_are_page_aligned)
{
	struct bm_trace *t;
	int cpu;

	write_two_cpus();
	t = bm_trace_open(path);
	ck_assert_ptr_nonnull(t);
	for (cpu = 0; cpu < 2; cpu++) {
		ck_assert_uint_eq(bm_trace_cpu(t, cpu)->offset % TEST_PAGE_SIZE, 0);
		ck_assert_uint_eq(bm_trace_cpu(t, cpu)->size, TEST_PAGE_SIZE);
	}
	bm_trace_close(t);
}
END_TEST

START_TEST(missed_events_are_counted)
{
	struct bm_trace_meta meta;
	struct bm_cpu_data pages;
	struct test_page page;
	struct bm_trace *t;
	struct bm_stream *s;
	struct bm_rec rec;
	int fd, spool, uncounted = 0;

	test_meta_init(&meta, 1);
	test_page_init(&page);
	test_page_add(&page, 10, 1);
	test_page_finish(&page, 37);
	spool = test_spool(&page, 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pages = test_pages_of(spool);
	ck_assert_int_eq(bm_trace_write(fd, path, &meta, &pages), 0);
	close(fd);
	close(spool);
	bm_trace_meta_release(&meta);

	t = bm_trace_open(path);
	ck_assert_ptr_nonnull(t);
	s = bm_stream_open(t);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(bm_stream_next(s, &rec), 1);
	ck_assert_uint_eq(bm_stream_missed(s, 0, &uncounted), 37);
	ck_assert_int_eq(uncounted, 0);
	bm_stream_close(s);
	bm_trace_close(t);
}
END_TEST

/* Open and read everything; the number of events, or -1. */
static int read_all_count(const char *file)
{
	struct bm_trace *t = bm_trace_open(file);
	struct bm_stream *s;
	struct bm_rec rec;
	int r, n = 0;

	if (!t)
		return -1;
	s = bm_stream_open(t);
	if (!s) {
		bm_trace_close(t);
		return -1;
	}
	while ((r = bm_stream_next(s, &rec)) > 0)
		n++;
	bm_stream_close(s);
	bm_trace_close(t);
	return r < 0 ? -1 : n;
}

/* Open and read everything; 0 if the whole file reads. */
static int read_all(const char *file)
{
	return read_all_count(file) < 0 ? -1 : 0;
}

static void copy_prefix(const char *from, const char *to, off_t len)
{
	char *buf = malloc(len + 1);
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_eq(pread(in, buf, len, 0), len);
	ck_assert_int_eq(write(out, buf, len), len);
	close(in);
	close(out);
	free(buf);
}

/*
 * A file cut short: refused with the offset while its headers are cut,
 * read as far as its whole pages go once they are not, what each CPU
 * lacks in its data's cut and as a loss to the end of the recording.
 */
START_TEST(every_truncation_reads_its_whole_pages_or_names_an_offset)
{
	const off_t pages = TEST_PAGE_SIZE;	/* CPU 0's page; CPU 1's follows */
	char cut[256];
	off_t size, len;
	int fd, n;

	write_two_cpus();
	fd = open(path, O_RDONLY);
	size = lseek(fd, 0, SEEK_END);
	close(fd);
	ck_assert_int_eq(size, pages + 2 * TEST_PAGE_SIZE);
	test_tmpname(cut, sizeof(cut));
	for (len = 0; len < size; len += (len < 2048 ? 1 : 509)) {
		copy_prefix(path, cut, len);
		n = read_all_count(cut);
		if (n < 0) {
			ck_assert_msg(len < pages, "a file cut at %lld of %lld, in its pages, "
				      "was refused: %s", (long long)len, (long long)size,
				      bm_error_message());
			ck_assert_msg(strstr(bm_error_message(), cut) &&
				      strstr(bm_error_message(), "offset"),
				      "cut at %lld: message '%s' names no file and offset",
				      (long long)len, bm_error_message());
			continue;
		}
		/* CPU 0's page holds events 1, 3 and 5; CPU 1's 2 and 4. */
		ck_assert_int_eq(n, len >= pages + TEST_PAGE_SIZE ? 3 : 0);
	}
	unlink(cut);
}
END_TEST

START_TEST(a_cut_is_a_loss_to_the_end)
{
	const off_t pages = TEST_PAGE_SIZE;
	const struct bm_loss *losses;
	struct bm_trace *t;
	struct bm_stream *s;
	struct bm_rec rec;
	char cut[256];
	ssize_t n, i;

	write_two_cpus();
	test_tmpname(cut, sizeof(cut));
	copy_prefix(path, cut, pages + TEST_PAGE_SIZE + 529);
	t = bm_trace_open(cut);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(bm_trace_cpu(t, 0)->cut, 0);
	ck_assert_uint_eq(bm_trace_cpu(t, 1)->cut, TEST_PAGE_SIZE);
	ck_assert_uint_eq(bm_trace_cpu(t, 1)->size, 0);
	s = bm_stream_open(t);
	ck_assert_ptr_nonnull(s);
	while (bm_stream_next(s, &rec) > 0)
		;
	n = bm_stream_losses(s, &losses);
	for (i = 0; i < n && !losses[i].cut; i++)
		;
	ck_assert_msg(i < n, "the cut is no loss");
	ck_assert_int_eq(losses[i].cpu, 1);
	ck_assert_uint_eq(losses[i].cut, TEST_PAGE_SIZE);
	ck_assert_uint_eq(losses[i].from, 0);
	ck_assert_uint_eq(losses[i].to, UINT64_MAX);
	bm_stream_close(s);
	bm_trace_close(t);
	unlink(cut);
}
END_TEST

static void patch(off_t at, const void *bytes, size_t n)
{
	int fd = open(path, O_WRONLY);

	ck_assert_int_eq(pwrite(fd, bytes, n, at), (ssize_t)n);
	close(fd);
}

/*
 * A 32-bit recorder on a 64-bit kernel wrote 4 as the long size; the
 * kernel's pages have an 8-byte commit, as the header page says: pages are
 * read as the header page describes them.
 */
START_TEST(pages_are_read_with_the_header_pages_commit_size)
{
	char four = 4;
	int n;

	write_two_cpus();
	/* The long size byte follows the magic, "6\0" and the endianness byte. */
	patch(13, &four, 1);
	n = read_all_count(path);
	ck_assert_msg(n == 5, "%d events read: %s", n, n < 0 ? bm_error_message() : "");
}
END_TEST

/* Every event of @file, in order, as (ts, seq) into @out; their number. */
static size_t read_events(const char *file, struct test_event *out, size_t max)
{
	struct bm_trace *t = bm_trace_open(file);
	struct bm_stream *s;
	struct bm_rec rec;
	size_t n = 0;
	int r;

	ck_assert_msg(t, "%s", bm_error_message());
	s = bm_stream_open(t);
	ck_assert_msg(s, "%s", bm_error_message());
	while ((r = bm_stream_next(s, &rec)) > 0 && n < max) {
		out[n].ts = rec.ts;
		memcpy(&out[n++].seq, (char *)rec.data + 8, 4);
	}
	ck_assert_msg(r == 0, "%s", bm_error_message());
	bm_stream_close(s);
	bm_trace_close(t);
	return n;
}

START_TEST(compressed_version_7_files_read_as_version_6)
{
	static const enum bm_compression compressions[] = { BM_COMPRESS_ZSTD, BM_COMPRESS_ZLIB };
	enum { N = 12000 };	/* per CPU: about 50 pages, so several chunks */
	static struct test_event c0[N], c1[N], want[2 * N], got[2 * N + 1];
	const struct test_event *events[] = { c0, c1 };
	size_t counts[] = { N, N }, i, n;
	struct stat v6, v7;
	char version;
	int fd;

	for (i = 0; i < N; i++) {
		c0[i] = (struct test_event){ 1000 + 3 * i, 2 * i };
		c1[i] = (struct test_event){ 1001 + 3 * i, 2 * i + 1 };
	}
	test_compression = BM_COMPRESS_NONE;
	test_write_trace(path, 2, events, counts);
	ck_assert_uint_eq(read_events(path, want, 2 * N + 1), 2 * N);
	ck_assert_int_eq(stat(path, &v6), 0);
	for (i = 0; i < sizeof(compressions) / sizeof(compressions[0]); i++) {
		test_compression = compressions[i];
		test_write_trace(path, 2, events, counts);
		test_compression = BM_COMPRESS_NONE;
		n = read_events(path, got, 2 * N + 1);
		ck_assert_uint_eq(n, 2 * N);
		ck_assert_int_eq(memcmp(got, want, n * sizeof(*got)), 0);
		ck_assert_int_eq(stat(path, &v7), 0);
		ck_assert_int_lt(v7.st_size, v6.st_size / 4);
		fd = open(path, O_RDONLY);
		ck_assert_int_eq(pread(fd, &version, 1, 10), 1);
		close(fd);
		ck_assert_int_eq(version, '7');
	}
}
END_TEST

/*
 * A CPU's pages given as runs, some in files and some in memory (how a
 * flight recording's window is written): the file holds them in order,
 * across every run's edge, compressed or not.
 */
START_TEST(pages_given_as_runs_are_written_in_order)
{
	static const enum bm_compression compressions[] = { BM_COMPRESS_NONE, BM_COMPRESS_ZSTD };
	enum { PAGES = 40 };	/* runs of 7, 13 and 20: chunks straddle each edge */
	static struct test_page pages[PAGES];
	static struct test_event got[PAGES * 400];
	static unsigned char mem[13][TEST_PAGE_SIZE];
	struct bm_extent runs[3];
	struct bm_trace_meta meta;
	struct bm_cpu_data cpu;
	uint32_t seq = 0;
	size_t i, n;
	int first, last;

	for (i = 0; i < PAGES; i++) {
		test_page_init(&pages[i]);
		while (test_page_add(&pages[i], 1000 + seq, seq) == 0)
			seq++;
		test_page_finish(&pages[i], 0);
	}
	/* 7 pages at the start of a file, 13 in memory, 20 after a page of another file. */
	first = test_spool(pages, 7);
	last = test_spool(pages + 19, 21);
	runs[0] = (struct bm_extent){ .fd = first, .size = 7 * TEST_PAGE_SIZE };
	for (i = 0; i < 13; i++)
		memcpy(mem[i], pages[7 + i].data, TEST_PAGE_SIZE);
	runs[1] = (struct bm_extent){ .mem = mem, .fd = -1, .size = 13 * TEST_PAGE_SIZE };
	runs[2] = (struct bm_extent){ .fd = last, .offset = TEST_PAGE_SIZE,
				      .size = 20 * TEST_PAGE_SIZE };
	cpu = (struct bm_cpu_data){ .fd = -1, .extents = runs, .nextents = 3 };
	test_meta_init(&meta, 1);
	for (i = 0; i < sizeof(compressions) / sizeof(compressions[0]); i++) {
		unlink(path);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		ck_assert_int_ge(fd, 0);
		ck_assert_msg((compressions[i] ? bm_trace_write_compressed(fd, path, &meta, &cpu,
									    compressions[i]) :
				bm_trace_write(fd, path, &meta, &cpu)) == 0, "%s", bm_error_message());
		close(fd);
		n = read_events(path, got, PAGES * 400);
		ck_assert_uint_eq(n, seq);
		for (n = 0; n < seq; n++) {
			ck_assert_uint_eq(got[n].seq, n);
			ck_assert_uint_eq(got[n].ts, 1000 + n);
		}
	}
	bm_trace_meta_release(&meta);
	close(first);
	close(last);
}
END_TEST

START_TEST(bad_magic_is_not_a_trace)
{
	write_two_cpus();
	patch(0, "XX", 2);
	ck_assert_ptr_null(bm_trace_open(path));
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "not a trace file"));
}
END_TEST

START_TEST(other_versions_are_refused)
{
	write_two_cpus();
	patch(10, "8", 1);
	ck_assert_ptr_null(bm_trace_open(path));
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "version 8 is not supported"));
	/* Version 7 is read, by its own layout: this one is not of it. */
	patch(10, "7", 1);
	ck_assert_ptr_null(bm_trace_open(path));
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "offset "));
}
END_TEST

START_TEST(the_wrong_byte_order_is_refused_with_an_offset)
{
	char big = 1;

	write_two_cpus();
	/* The endianness byte follows the magic and "6\0". */
	patch(12, &big, 1);
	ck_assert_int_lt(read_all(path), 0);
	/* The first size read in that order is the header page's, at 38: absurd. */
	ck_assert_msg(strstr(bm_error_message(), "offset 38: header_page size ") &&
		      strstr(bm_error_message(), "runs past the end of the file"),
		      "unexpected message: %s", bm_error_message());
}
END_TEST

START_TEST(absurd_cpu_count_is_refused)
{
	struct bm_trace *t;
	uint32_t huge = 0x7fffffff;
	off_t at;
	char *buf;
	int fd;

	write_two_cpus();
	/* The CPU count stands right before "options  ". */
	fd = open(path, O_RDONLY);
	buf = malloc(8192);
	ck_assert_int_gt(read(fd, buf, 8192), 0);
	close(fd);
	at = (char *)memmem(buf, 8192, "options  ", 10) - buf - 4;
	free(buf);
	patch(at, &huge, 4);
	t = bm_trace_open(path);
	ck_assert_ptr_null(t);
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "absurd CPU count"));
}
END_TEST


/*
 * A block event whose field lies far out (libtraceevent keeps offsets as
 * int: 4293967304 is -1000000), or is not in decimal: the file is refused
 * as it is opened, before any record is read at that offset.
 */
START_TEST(a_field_out_of_range_is_refused)
{
	static const char *const offsets[] = { "4293967304", "0x10", "65534", "65536",
					       "99999999999999999999" };
	size_t i;

	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		char format[1024];
		struct bm_trace_meta meta;
		struct bm_trace *t;
		int fd;

		snprintf(format, sizeof(format),
			 "name: block_bio_queue\nID: 201\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			 "\tfield:dev_t dev;\toffset:%s;\tsize:4;\tsigned:0;\n"
			 "\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\n"
			 "print fmt: \"%%u\", REC->dev\n", offsets[i]);
		test_meta_init(&meta, 1);
		bm_trace_meta_add_format(&meta, "block", format, strlen(format));
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(bm_trace_write(fd, path, &meta, NULL), 0);
		close(fd);
		bm_trace_meta_release(&meta);
		t = bm_trace_open(path);
		ck_assert_msg(t == NULL, "offset %s was taken", offsets[i]);
		ck_assert_msg(strstr(bm_error_message(), "offset or size") ||
			      strstr(bm_error_message(), "largest event"),
			      "offset %s: %s", offsets[i], bm_error_message());
	}
}
END_TEST

/* CPU 1's only page, its commit past the page: its two events are left out, CPU 0's read. */
START_TEST(a_corrupt_commit_costs_its_page)
{
	struct bm_trace *t;
	uint64_t commit = 999999;

	write_two_cpus();
	t = bm_trace_open(path);
	ck_assert_ptr_nonnull(t);
	patch(bm_trace_cpu(t, 1)->offset + 8, &commit, 8);
	bm_trace_close(t);
	ck_assert_int_eq(read_all_count(path), 3);
}
END_TEST

/*
 * Read @file whole: 1 if CPU 0's page at @page was left out as damaged (and
 * CPU 1's two events read), 0 if it read.
 */
static int damaged_page(const char *file, off_t page, int seed)
{
	struct bm_trace *t = bm_trace_open(file);
	const struct bm_loss *losses;
	struct bm_stream *s;
	struct bm_rec rec;
	int r, n = 0, cpu1 = 0, damaged = 0;
	ssize_t i, nlosses;

	ck_assert_ptr_nonnull(t);
	s = bm_stream_open(t);
	ck_assert_ptr_nonnull(s);
	while ((r = bm_stream_next(s, &rec)) > 0) {
		n++;
		cpu1 += rec.cpu == 1;
	}
	ck_assert_msg(r == 0, "seed %d: %s", seed, bm_error_message());
	nlosses = bm_stream_losses(s, &losses);
	for (i = 0; i < nlosses; i++)
		if (losses[i].damaged_at) {
			ck_assert_msg(losses[i].cpu == 0 && losses[i].damaged_at == (uint64_t)page,
				      "seed %d: CPU %d at %llu", seed, losses[i].cpu,
				      (unsigned long long)losses[i].damaged_at);
			damaged++;
		}
	ck_assert_int_eq(cpu1, 2);
	ck_assert_int_le(damaged, 1);
	bm_stream_close(s);
	bm_trace_close(t);
	return damaged;
}

START_TEST(garbage_event_lengths_do_not_crash)
{
	struct bm_trace *t;
	unsigned char junk[512];
	off_t data;
	int i, seed, refused = 0;

	for (seed = 1; seed <= 200; seed++) {
		write_two_cpus();
		t = bm_trace_open(path);
		ck_assert_ptr_nonnull(t);
		data = bm_trace_cpu(t, 0)->offset + 16;
		bm_trace_close(t);
		srand(seed);
		for (i = 0; i < (int)sizeof(junk); i++)
			junk[i] = rand();
		patch(data, junk, 40 + seed % 200);
		/* Read whole, or CPU 0's damaged page left out, by its offset; CPU 1's read. */
		refused += damaged_page(path, data - 16, seed);
	}
	/* Random lengths mostly run past the page: the check must have been used. */
	ck_assert_int_gt(refused, 100);
}
END_TEST

static int forks;

static void count_fork(void)
{
	forks++;
}

/* The check that the formats do not crash the parser runs in a child: once per set. */
START_TEST(a_set_of_formats_is_checked_in_a_child_once)
{
	int i;

	write_two_cpus();
	ck_assert_int_eq(read_all(path), 0);
	pthread_atfork(count_fork, NULL, NULL);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(read_all(path), 0);
	ck_assert_int_eq(forks, 0);
}
END_TEST

static off_t file_size(const char *file)
{
	struct stat st;

	ck_assert_int_eq(stat(file, &st), 0);
	return st.st_size;
}

/* A closed file's parser state serves the next file with the same formats, and no other. */
START_TEST(a_parser_state_is_reused_only_for_the_same_headers)
{
	char other[256], *buf, *at;
	struct bm_trace *t;
	struct tep_handle *first;
	int fd;

	write_two_cpus();
	t = bm_trace_open(path);
	ck_assert_ptr_nonnull(t);
	first = bm_trace_tep(t);
	ck_assert_str_eq(tep_data_comm_from_pid(first, 4242), "tester");
	/* A mark on this state, that a state parsed anew would not have. */
	ck_assert_int_eq(tep_register_comm(first, "marked", 9999), 0);
	bm_trace_close(t);
	/* The same file again: the same state, handed back. */
	t = bm_trace_open(path);
	ck_assert_str_eq(tep_data_comm_from_pid(bm_trace_tep(t), 9999), "marked");
	bm_trace_close(t);
	/* Another process name in the cmdlines: another state. */
	test_tmpname(other, sizeof(other));
	copy_prefix(path, other, file_size(path));
	fd = open(other, O_RDWR);
	buf = malloc(file_size(other));
	ck_assert_int_eq(pread(fd, buf, file_size(other), 0), file_size(other));
	at = memmem(buf, file_size(other), "4242 tester\n", 12);
	ck_assert_ptr_nonnull(at);
	ck_assert_int_eq(pwrite(fd, "4242 tested\n", 12, at - buf), 12);
	free(buf);
	close(fd);
	t = bm_trace_open(other);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(tep_data_comm_from_pid(bm_trace_tep(t), 4242), "tested");
	ck_assert_str_ne(tep_data_comm_from_pid(bm_trace_tep(t), 9999), "marked");
	bm_trace_close(t);
	t = bm_trace_open(path);
	ck_assert_str_eq(tep_data_comm_from_pid(bm_trace_tep(t), 4242), "tester");
	bm_trace_close(t);
	unlink(other);
}
END_TEST

START_TEST(missing_file_names_it)
{
	ck_assert_ptr_null(bm_trace_open("/nonexistent/x.dat"));
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "cannot open '/nonexistent/x.dat'"));
}
END_TEST

Suite *suite_tracefile(void)
{
	Suite *s = suite_create("tracefile");
	TCase *tc = tcase_create("tracefile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, round_trip_keeps_meta_and_events);
	tcase_add_test(tc, cpu_pages_are_page_aligned);
	tcase_add_test(tc, pages_are_read_with_the_header_pages_commit_size);
	tcase_add_test(tc, missed_events_are_counted);
	tcase_add_test(tc, every_truncation_reads_its_whole_pages_or_names_an_offset);
	tcase_add_test(tc, a_cut_is_a_loss_to_the_end);
	tcase_add_test(tc, compressed_version_7_files_read_as_version_6);
	tcase_add_test(tc, pages_given_as_runs_are_written_in_order);
	tcase_add_test(tc, bad_magic_is_not_a_trace);
	tcase_add_test(tc, other_versions_are_refused);
	tcase_add_test(tc, the_wrong_byte_order_is_refused_with_an_offset);
	tcase_add_test(tc, absurd_cpu_count_is_refused);
	tcase_add_test(tc, a_field_out_of_range_is_refused);
	tcase_add_test(tc, a_corrupt_commit_costs_its_page);
	tcase_add_test(tc, garbage_event_lengths_do_not_crash);
	tcase_add_test(tc, missing_file_names_it);
	tcase_add_test(tc, a_set_of_formats_is_checked_in_a_child_once);
	tcase_add_test(tc, a_parser_state_is_reused_only_for_the_same_headers);
	suite_add_tcase(s, tc);
	return s;
}
