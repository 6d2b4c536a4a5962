/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_MERGE_H
#define BLKMAP_TRACEFILE_MERGE_H

/*
 * The events of a trace file, one CPU stream per CPU merged into one stream
 * in timestamp order (ties go to the lower CPU, and keep their order within
 * a CPU). Memory stays bounded: each CPU reads its pages in small chunks.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct bm_trace;

struct bm_rec {
	uint64_t ts;		/* ring-buffer clock, ns for "mono" */
	int cpu;
	int type;		/* event id, as in the file's formats */
	void *data;		/* the event's payload, common fields first */
	int size;
};

struct bm_stream;

struct bm_stream *bm_stream_open(struct bm_trace *trace);
void bm_stream_close(struct bm_stream *stream);
/* 1: @rec holds the next event; 0: no more events; -1: the file is damaged. */
int bm_stream_next(struct bm_stream *stream, struct bm_rec *rec);
/* @rec->data stays valid until the next call. */
/*
 * The same events CPU by CPU, in no global order: for a pass that keeps few
 * of them and sorts those. Do not mix with bm_stream_next() before a rewind.
 */
int bm_stream_next_unordered(struct bm_stream *stream, struct bm_rec *rec);
/*
 * One CPU's events in its order, for readers that merge later: after a
 * rewind, distinct threads may each read distinct CPUs this way. Do not
 * mix with the calls above before a rewind.
 */
int bm_stream_next_cpu(struct bm_stream *stream, int cpu, struct bm_rec *rec);
int bm_stream_ncpus(const struct bm_stream *stream);
/* Right after a rewind: has @cpu any event? */
bool bm_stream_cpu_has_events(const struct bm_stream *stream, int cpu);
/* Start again from the first event. */
int bm_stream_rewind(struct bm_stream *stream);
/*
 * Events the kernel reported lost on @cpu in the pages read so far, and
 * whether some loss had no count (the ring buffer could not store it).
 */
uint64_t bm_stream_missed(const struct bm_stream *stream, int cpu, int *uncounted);
/* Where the kernel lost events: between two pages of one CPU. */
struct bm_loss {
	int cpu;
	uint64_t from, to;	/* the last event before, the first after */
	uint64_t count;		/* 0 if the kernel could not count them */
	/*
	 * Not the kernel's: a damaged page (or v7 chunk) at this file offset,
	 * and what is wrong with it, whose events are left out; 0 and NULL
	 * for events the kernel lost.
	 */
	uint64_t damaged_at;
	const char *damage;
	/*
	 * Not the kernel's either: the file was cut short of this many bytes
	 * of the CPU's pages; the loss runs from its last event kept (from)
	 * to the end of the recording (to: UINT64_MAX).
	 */
	uint64_t cut;
};
/*
 * The losses seen in the pages read since the last rewind, CPU by CPU, in
 * order; valid until the next call. -1 if out of memory.
 */
ssize_t bm_stream_losses(struct bm_stream *stream, const struct bm_loss **list);

/* Bytes of page data read so far, for progress display. */
uint64_t bm_stream_bytes_read(const struct bm_stream *stream);

#endif
