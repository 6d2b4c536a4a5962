// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: any bytes as the print format of an event of a real
 * recording (FUZZ_PAGES_HEADERS), parsed by libtraceevent and checked by
 * blkmap's printer, then every record of that event printed through it,
 * as the events view prints them. The first byte picks the event; the
 * rest is what follows "print fmt: " in its format.
 *
 * The recording is read once: an input costs a parse of one format and
 * the printing of its records, thousands of inputs a second. Each record
 * ends where an inaccessible page begins: a byte read past it faults,
 * in libtraceevent's code too, which is not instrumented.
 *
 * libtraceevent's parser dies of some formats (a division by zero in a
 * __print_symbolic() value...): the reader parses a file's formats in a
 * child first and refuses the file (reader.c), so here a parse that dies
 * is abandoned, as the reader would refuse it, and the input skipped. That
 * takes ASAN_OPTIONS=allow_user_segv_handler=1.
 *
 * With FUZZ_FORMAT_SEEDS (a directory), the print formats of these events
 * in the recording and in the recordings of FUZZ_FORMAT_FROM (a list) are
 * written there first, as seeds.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/printfmt.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

#define MAX_EVENTS	8
#define MAX_RECORDS	64	/* of an event: enough to cover its kinds of records */

struct record {
	void *data;
	int size;
};

/* An event of the recording: its format up to "print fmt: ", and some of its records. */
static struct event {
	const char *system;
	char *head;
	size_t head_len;
	int id;
	struct record recs[MAX_RECORDS];
	int nrecs;
} events[MAX_EVENTS];
static int nevents;
static int long_size;
static struct trace_seq seq;
/* The parsers abandoned when they died: kept, so that they are no leak. */
static struct tep_handle *abandoned[4096];
static int nabandoned;
static sigjmp_buf parse_env;

static void parse_died(int sig)
{
	siglongjmp(parse_env, sig);
}

/* tep_parse_event(), or -2 if the parser died of @text. */
static int parse_guarded(struct tep_handle *tep, const char *text, size_t len, const char *system)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction died = { .sa_handler = parse_died }, saved[5];
	volatile int r = -2;
	size_t i;

	sigemptyset(&died.sa_mask);
	for (i = 0; i < 5; i++)
		sigaction(fatal[i], &died, &saved[i]);
	if (!sigsetjmp(parse_env, 1))
		r = tep_parse_event(tep, text, len, system);
	for (i = 0; i < 5; i++)
		sigaction(fatal[i], &saved[i], NULL);
	return r;
}

static struct event *event_of(int id)
{
	for (int i = 0; i < nevents; i++)
		if (events[i].id == id)
			return &events[i];
	return NULL;
}

/* @size bytes of @data, the last of them just before a page that cannot be read. */
static void *guarded(const void *data, int size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t room = ((size_t)size + page - 1) / page * page;
	char *map = mmap(NULL, room + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	if (map == MAP_FAILED || mprotect(map + room, page, PROT_NONE) < 0) {
		perror("fuzz_format: mmap");
		exit(1);
	}
	memcpy(map + room - size, data, size);
	return map + room - size;
}

/* The print formats of the kept events in @file, as seeds in @dir. */
static void write_seeds(const char *dir, const char *file)
{
	struct bm_trace *t = bm_trace_open(file);
	const struct bm_trace_meta *m = t ? bm_trace_get_meta(t) : NULL;
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	for (size_t i = 0; m && i < m->nformats; i++) {
		const char *fmt = strstr(m->formats[i].text, "print fmt: ");

		for (int k = 0; fmt && k < nevents; k++) {
			char path[4096];
			unsigned char first = k;
			size_t len;
			FILE *f;

			if (strncmp(m->formats[i].text, events[k].head, strcspn(events[k].head, "\n")))
				continue;
			fmt += strlen("print fmt: ");
			len = strcspn(fmt, "\n");
			snprintf(path, sizeof(path), "%s/%s-%d", dir, base, events[k].id);
			f = fopen(path, "w");
			if (!f || fwrite(&first, 1, 1, f) != 1 || fwrite(fmt, 1, len, f) != len ||
			    fclose(f) != 0) {
				perror(path);
				exit(1);
			}
			break;
		}
	}
	bm_trace_close(t);
}

/* Every event with records, other than the block layer's (blkmap prints those itself). */
static void keep_events(struct bm_trace *t)
{
	const struct bm_trace_meta *m = bm_trace_get_meta(t);
	struct tep_handle *tep = bm_trace_tep(t);
	struct bm_stream *s = bm_stream_open(t);
	struct bm_rec rec;

	for (size_t i = 0; i < m->nformats && nevents < MAX_EVENTS; i++) {
		const char *fmt = strstr(m->formats[i].text, "print fmt: ");
		const char *id = strstr(m->formats[i].text, "\nID: ");

		if (!fmt || !id || !strcmp(m->formats[i].system, "block"))
			continue;
		events[nevents].system = strdup(m->formats[i].system);
		events[nevents].head_len = fmt + strlen("print fmt: ") - m->formats[i].text;
		events[nevents].head = strndup(m->formats[i].text, events[nevents].head_len);
		events[nevents].id = atoi(id + 5);
		nevents++;
	}
	while (s && bm_stream_next(s, &rec) > 0) {
		struct event *e = event_of(rec.type);

		if (!e || e->nrecs == MAX_RECORDS)
			continue;
		e->recs[e->nrecs].data = guarded(rec.data, rec.size);
		e->recs[e->nrecs++].size = rec.size;
	}
	bm_stream_close(s);
	long_size = tep_get_long_size(tep);
	for (int i = 0; i < nevents; i++)
		if (!events[i].nrecs)
			events[i--] = events[--nevents];
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("FUZZ_PAGES_HEADERS");
	struct bm_trace *t = path ? bm_trace_open(path) : NULL;

	if (!t) {
		fprintf(stderr, "fuzz_format: set FUZZ_PAGES_HEADERS to a recording (%s)\n",
			path ? bm_error_message() : "unset");
		exit(1);
	}
	keep_events(t);
	bm_trace_close(t);
	if (!nevents) {
		fprintf(stderr, "fuzz_format: %s has no events to print but the block layer's\n",
			path);
		exit(1);
	}
	if (getenv("FUZZ_FORMAT_SEEDS")) {
		char *from = strdup(getenv("FUZZ_FORMAT_FROM") ? getenv("FUZZ_FORMAT_FROM") : "");
		char *file, *save = NULL;

		write_seeds(getenv("FUZZ_FORMAT_SEEDS"), path);
		for (file = strtok_r(from, " ", &save); file; file = strtok_r(NULL, " ", &save))
			write_seeds(getenv("FUZZ_FORMAT_SEEDS"), file);
		free(from);
	}
	tep_set_loglevel(TEP_LOG_NONE);
	trace_seq_init(&seq);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event *e;
	struct tep_handle *tep;
	struct bm_printer *p;
	char *text;
	size_t len;

	if (size < 1 || memchr(data + 1, 0, size - 1) || nabandoned == 4096)
		return 0;
	e = &events[data[0] % nevents];
	len = e->head_len + size - 1;
	text = malloc(len + 2);
	tep = tep_alloc();
	if (!text || !tep)
		goto out;
	memcpy(text, e->head, e->head_len);
	memcpy(text + e->head_len, data + 1, size - 1);
	memcpy(text + len, "\n", 2);
	tep_set_long_size(tep, long_size);
	switch (parse_guarded(tep, text, len + 1, e->system)) {
	case 0:
		break;
	case -2:
		abandoned[nabandoned++] = tep;
		tep = NULL;
		/* fall through */
	default:
		goto out;
	}
	p = bm_printer_new(tep, NULL);
	for (int i = 0; p && i < e->nrecs; i++) {
		struct tep_record rec = { .data = e->recs[i].data, .size = e->recs[i].size };

		trace_seq_reset(&seq);
		bm_printer_print(p, &seq, &rec, e->id);
	}
	bm_printer_free(p);
out:
	tep_free(tep);
	free(text);
	return 0;
}
