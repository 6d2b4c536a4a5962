/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_RECORD_CAPTURING_H
#define BLKMAP_RECORD_CAPTURING_H

/*
 * What the capture's files share (not a public header): the capture, each
 * CPU's reader and where its pages go.
 *   capture.c  the threads, the choice of path, the API
 *   sink.c     where drained pages go; the read(2) path
 *   spliced.c  the splice(2) path: pipes, the writer thread, O_DIRECT
 *   mapped.c   the mapped ring buffer (6.10+), and a page's rest
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkmap/record/capture.h"

struct rb_meta;

#define BATCH_PAGES	64	/* pages gathered before one write(2) */
#define BATCH_BYTES	(1 << 20)	/* a pipe's, and so a write's at most, on the splice path */
/*
 * Batches that may wait for the disk, per CPU, on the splice path: what
 * PIPE_BUDGET allows, between 4 and MAX_PIPES (cap_pipe_all()).
 */
#define MAX_PIPES	16
#define PIPE_BUDGET	(32 << 20)

/* One CPU's mapped ring buffer and the sub-buffer in hand. */
struct mapped {
	volatile struct rb_meta *meta;
	size_t meta_len;
	const char *data;	/* the sub-buffers */
	size_t data_len;
	int64_t id;		/* the reader sub-buffer in hand, or -1 */
	uint32_t seen;		/* its data bytes at the last look */
	uint32_t sent;		/* its data bytes already put */
	unsigned looks;		/* looks since it was handed over */
};

struct cpu_reader {
	struct bm_capture *capture;
	int cpu;
	int pipe_fd;		/* trace_pipe_raw */
	struct mapped map;	/* its ring buffer, when mapped */
	int pipes[MAX_PIPES][2];	/* between trace_pipe_raw and the spool, used in turn */
	unsigned npipes;	/* of them, opened */
	size_t batch;		/* bytes a pipe takes before the writer does */
	size_t fill;		/* bytes in the reader's pipe, pipes[handed % npipes] */
	uint64_t piped;		/* bytes put into pipes (the reader's) */
	pthread_mutex_t lock;	/* guards the six below */
	pthread_cond_t filled;	/* for the writer: a pipe handed over, or the reader done */
	pthread_cond_t moved;	/* for the reader: a pipe written, or the writer failed */
	unsigned handed;	/* pipes handed to the writer */
	unsigned emptied;	/* of those, written */
	size_t sizes[MAX_PIPES];	/* bytes in each pipe handed over */
	bool closing;		/* the reader is done */
	int write_errno;	/* why the writer stopped */
	char write_error[512];	/* its words, set before write_errno */
	pthread_t writer;
	bool writer_started;
	int flush_fd;		/* eventfd: drain now */
	atomic_uint flushed;	/* drains done on request */
	_Atomic uint64_t drained_ns;	/* CLOCK_MONOTONIC when the last drain began */
	uint64_t all_ns;	/* when the last drain that took everything began */
	unsigned flush_wanted;	/* the count bm_capture_flush() waits for */
	int spool_fd;		/* the spool's page file, at this CPU's region */
	pthread_t thread;
	bool started;
	uint64_t bytes;		/* in the spool */
	char error[512];
};

struct bm_capture {
	int ncpus;
	uint32_t page_size;
	char spool_path[4096];	/* the spool directory, for messages */
	uint64_t region;	/* bytes each CPU may spool */
	int stop_fd;		/* eventfd: readable once stopping */
	int notify_fd;
	enum { BY_READ, BY_SPLICE, BY_MAP } by;	/* the path */
	bool direct;		/* the spool is written past the page cache */
	uint64_t partial_ns;	/* take partly filled pages this often (splice: once written) */
	char path[160];		/* the path, in words */
	atomic_bool failed;
	struct bm_ring *ring;	/* a flight recording's, or NULL */
	_Atomic(struct bm_trigger *) trigger;	/* looks at pages as they come */
	_Atomic uint64_t others_read_ns;	/* when a ring going round last had them read */
	struct cpu_reader *cpus;
};

/* Where drained pages go: a spool region, a CPU's writer, or a ring. */
struct sink {
	int fd;
	uint64_t room, *bytes;
	struct cpu_reader *writer;	/* through its pipe */
	struct bm_ring *ring;
	struct bm_trigger *trigger;
	struct bm_capture *capture;
	int cpu;
};

/* sink.c */
/* Put @len bytes of whole pages where @s says; -1 with errno. */
int cap_put(struct sink *s, const char *pages, size_t len, uint32_t page_size);
/*
 * The read(2) path: pages from @pipe_fd into @s, @batch_pages at a time,
 * until it has none; *@write_failed says whether @s failed.
 */
int cap_drain_into(int pipe_fd, struct sink *s, uint32_t page_size, char *batch,
		   size_t batch_pages, bool *write_failed);

/* spliced.c */
/* Wait until the writer has written all but @left of the pipes handed to it; -1 once it failed. */
int cap_wait_writer(struct cpu_reader *r, unsigned left);
/* Has the writer failed (and said why)? */
bool cap_writer_failed(struct cpu_reader *r);
/* Has the writer written all it was handed? */
bool cap_writer_idle(struct cpu_reader *r);
/* The reader's pipe goes to the writer. */
void cap_hand_over(struct cpu_reader *r);
/* Copy pages into the pipes, a batch a pipe at most. */
int cap_to_writer(struct cpu_reader *r, const char *pages, size_t len);
/* Move whole pages from trace_pipe_raw into the pipes, while there is room in the spool. */
int cap_splice_drain(struct cpu_reader *r, bool *write_failed);
/* The writer thread of a CPU: each pipe handed over into the spool. */
void *cap_writer_main(void *arg);
void cap_close_pipes(struct cpu_reader *r);
void cap_close_all_pipes(struct bm_capture *c);
/* Pipes of a batch for every CPU, as many each, or none (c->path says why). */
bool cap_pipe_all(struct bm_capture *c);
/* Every CPU's spool written past the page cache, or none. */
bool cap_direct_all(struct bm_capture *c);

/* mapped.c */
/* Take the mapped buffer's pages into @s; the writer's page only with @all. */
int cap_map_drain(struct cpu_reader *r, struct sink *s, char *batch, bool all,
		  bool *write_failed);
void cap_unmap_cpu(struct mapped *m);
/* Map every CPU's buffer, or none (c->path says why). */
bool cap_map_all(struct bm_capture *c);

#endif
