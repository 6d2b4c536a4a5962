/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TEST_HELPERS_H
#define BLKMAP_TEST_HELPERS_H

/* Ring-buffer pages and trace files built in memory, for the unit tests. */
#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "blkmap/tracefile/writer.h"

#define TEST_PAGE_SIZE	4096
#define TEST_EVENT_ID	200	/* "test:seq_event" with a u32 "seq" field */

struct test_page {
	unsigned char data[TEST_PAGE_SIZE];
	size_t used;		/* bytes of events after the header */
	uint64_t last_ts;
	int started;
};

void test_page_init(struct test_page *p);
/* Append an event with a u32 @seq at @ts; -1 when the page is full. */
int test_page_add(struct test_page *p, uint64_t ts, uint32_t seq);
/* Set the commit field (and the missed-events flag if @missed). */
void test_page_finish(struct test_page *p, unsigned missed);

/*
 * Formats: "block:block_bio_queue" as id TEST_EVENT_ID (a u32 "sector"
 * at 8), and the kernel's "ftrace:print" as id 5.
 */
extern const char test_block_format[], test_print_format[];

/* A meta with the host-format header_page and the test event's format. */
void test_meta_init(struct bm_trace_meta *meta, int ncpus);

/* An anonymous file holding @n pages. */
int test_spool(const struct test_page *pages, size_t n);
/* The pages of @fd (all of it; -1 for none), for bm_trace_write(). */
struct bm_cpu_data test_pages_of(int fd);

/* Not BM_COMPRESS_NONE: the test_write_*trace() write version 7 files, so compressed. */
extern enum bm_compression test_compression;

/* Write a trace file with @events[cpu] = list of (ts, seq) into @path. */
struct test_event {
	uint64_t ts;
	uint32_t seq;
};
void test_write_trace(const char *path, int ncpus, const struct test_event *const *events,
		      const size_t *counts);
/* The same, the events named block:block_bio_queue with @seq as their sector. */
void test_write_block_trace(const char *path, int ncpus, const struct test_event *const *events,
			    const size_t *counts);

/* A fresh temporary file name (the file does not exist). */
void test_tmpname(char *buf, size_t size);

Suite *suite_tracefile(void);
Suite *suite_merge(void);
Suite *suite_page(void);
Suite *suite_spool(void);
Suite *suite_spool_read(void);
Suite *suite_printfmt(void);
Suite *suite_ring(void);
Suite *suite_trigger(void);
Suite *suite_marker(void);
Suite *suite_map(void);
Suite *suite_cgroups(void);
Suite *suite_analyse(void);
Suite *suite_stacks(void);
Suite *suite_phases(void);
Suite *suite_capture(void);
Suite *suite_output(void);
Suite *suite_events(void);
Suite *suite_source(void);
Suite *suite_util(void);
Suite *suite_compress(void);
Suite *suite_report(void);
Suite *suite_schema(void);
Suite *suite_cgroupsview(void);
Suite *suite_plot(void);

#endif
