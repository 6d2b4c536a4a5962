// SPDX-License-Identifier: GPL-2.0-only
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

#define HEADER		16	/* u64 timestamp + u64 commit */
#define TYPE_EXTEND	30
#define DELTA_BITS	27

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static const char test_format[] =
	"name: seq_event\nID: 200\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int seq;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"seq=%u\", REC->seq\n";

/* The same layout under a block event's name: "seq" read as its sector. */
const char test_block_format[] =
	"name: block_bio_queue\nID: 200\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int sector;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"sector=%u\", REC->sector\n";

const char test_print_format[] =
	"name: print\nID: 5\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

void test_page_init(struct test_page *p)
{
	memset(p, 0, sizeof(*p));
}

static void put32(struct test_page *p, uint32_t v)
{
	memcpy(p->data + HEADER + p->used, &v, 4);
	p->used += 4;
}

int test_page_add(struct test_page *p, uint64_t ts, uint32_t seq)
{
	uint64_t delta;
	uint32_t payload[3] = { TEST_EVENT_ID, 4242, seq };	/* type+flags, pid, seq */

	if (!p->started) {
		memcpy(p->data, &ts, 8);
		p->last_ts = ts;
		p->started = 1;
	}
	delta = ts - p->last_ts;
	if (HEADER + p->used + 8 + 4 + sizeof(payload) > TEST_PAGE_SIZE)
		return -1;
	if (delta >> DELTA_BITS) {
		put32(p, TYPE_EXTEND | (uint32_t)(delta & ((1u << DELTA_BITS) - 1)) << 5);
		put32(p, (uint32_t)(delta >> DELTA_BITS));
		delta = 0;
	}
	put32(p, (sizeof(payload) / 4) | (uint32_t)delta << 5);
	memcpy(p->data + HEADER + p->used, payload, sizeof(payload));
	p->used += sizeof(payload);
	p->last_ts = ts;
	return 0;
}

void test_page_finish(struct test_page *p, unsigned missed)
{
	uint64_t commit = p->used;

	if (missed) {
		uint64_t count = missed;

		memcpy(p->data + HEADER + p->used, &count, 8);
		/* As the kernel does: (int)(1 << 31) added to a long sign-extends. */
		commit |= 0xffffffff80000000ULL | (1ULL << 30);
	}
	memcpy(p->data + 8, &commit, 8);
}

void test_meta_init(struct bm_trace_meta *meta, int ncpus)
{
	memset(meta, 0, sizeof(*meta));
	meta->header_page = strdup(header_page);
	meta->header_page_len = strlen(header_page);
	meta->header_event = strdup(header_event);
	meta->header_event_len = strlen(header_event);
	bm_trace_meta_add_format(meta, "test", test_format, strlen(test_format));
	meta->cmdlines = strdup("4242 tester\n");
	meta->cmdlines_len = strlen(meta->cmdlines);
	meta->clock = strdup("mono");
	meta->ncpus = ncpus;
	meta->page_size = TEST_PAGE_SIZE;
	meta->long_size = 8;
}

struct bm_cpu_data test_pages_of(int fd)
{
	struct stat st;

	if (fd < 0)
		return (struct bm_cpu_data){ .fd = -1 };
	ck_assert_int_eq(fstat(fd, &st), 0);
	return (struct bm_cpu_data){ .fd = fd, .size = st.st_size };
}

int test_spool(const struct test_page *pages, size_t n)
{
	int fd = memfd_create("spool", 0);
	size_t i;

	ck_assert_int_ge(fd, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(write(fd, pages[i].data, TEST_PAGE_SIZE), TEST_PAGE_SIZE);
	return fd;
}

enum bm_compression test_compression;

static void write_trace(const char *path, bool as_block, int ncpus,
			const struct test_event *const *events, const size_t *counts)
{
	struct bm_trace_meta meta;
	struct bm_cpu_data cpus[64];
	int fds[64], cpu, fd;

	ck_assert_int_le(ncpus, 64);
	test_meta_init(&meta, ncpus);
	if (as_block) {
		free(meta.formats[0].system);
		free(meta.formats[0].text);
		meta.nformats = 0;
		bm_trace_meta_add_format(&meta, "block", test_block_format, strlen(test_block_format));
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct test_page *pages = calloc(counts[cpu] + 1, sizeof(*pages));
		size_t i, n = 0;

		test_page_init(&pages[0]);
		for (i = 0; i < counts[cpu]; i++) {
			if (test_page_add(&pages[n], events[cpu][i].ts, events[cpu][i].seq) < 0) {
				test_page_finish(&pages[n], 0);
				test_page_init(&pages[++n]);
				ck_assert_int_eq(test_page_add(&pages[n], events[cpu][i].ts,
							       events[cpu][i].seq), 0);
			}
		}
		test_page_finish(&pages[n], 0);
		fds[cpu] = test_spool(pages, counts[cpu] ? n + 1 : 0);
		free(pages);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	for (cpu = 0; cpu < ncpus; cpu++)
		cpus[cpu] = test_pages_of(fds[cpu]);
	if (test_compression)
		ck_assert_int_eq(bm_trace_write_compressed(fd, path, &meta, cpus, test_compression), 0);
	else
		ck_assert_int_eq(bm_trace_write(fd, path, &meta, cpus), 0);
	close(fd);
	for (cpu = 0; cpu < ncpus; cpu++)
		close(fds[cpu]);
	bm_trace_meta_release(&meta);
}

void test_write_trace(const char *path, int ncpus, const struct test_event *const *events,
		      const size_t *counts)
{
	write_trace(path, false, ncpus, events, counts);
}

void test_write_block_trace(const char *path, int ncpus, const struct test_event *const *events,
			    const size_t *counts)
{
	write_trace(path, true, ncpus, events, counts);
}

void test_tmpname(char *buf, size_t size)
{
	static int counter;

	snprintf(buf, size, "%s/blkmap-unit-%d-%d.dat", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid(), counter++);
	unlink(buf);
}
