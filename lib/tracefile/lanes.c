// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each CPU's pages are a lane, read and turned into items (decoded I/O,
 * formatted lines) by the worker thread that owns it, into a small ring
 * of batches. The caller's thread merges the lanes' heads by (time, CPU),
 * as bm_stream_next() does, so it sees the same items in the same order
 * whatever the number of workers. A worker never waits on one lane while
 * it has another with room, so the merger, waiting on whichever lane is
 * behind, always gets it. Memory: NBATCH batches per CPU that has pages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/tracefile/lanes.h"
#include "blkmap/util/error.h"

#define NBATCH	6		/* per lane: one merged from, the others read ahead */

struct lane {
	int cpu;
	struct bm_lane_batch batches[NBATCH];
	void *state;			/* its reader's */
	/*
	 * Batches filled (by its reader) and released (by the merger), ever,
	 * and the end (after the last fill): atomics, one writer each.
	 */
	unsigned long filled, released;
	bool done;
	bool holding;			/* the merger takes from batch released % NBATCH */
};

/* A lane's next item to merge, and the end of its batch. */
struct head {
	const char *item, *end;
	const struct bm_lane_batch *batch;
	struct lane *lane;
};

struct worker {
	struct bm_lanes *lanes;
	pthread_t thread;
	int first;			/* its lanes: first, first + nworkers, ... */
};

/*
 * The threads run without a lock while there is work; one that must wait
 * says so in a counter, under the lock, and checks again before it sleeps.
 * The other side publishes its change first and looks at the counter
 * after (both sequentially consistent): one of them sees the other.
 */
struct bm_lanes {
	struct bm_stream *stream;
	struct bm_lanes_def def;
	struct lane *lanes;
	int nlanes;
	struct head *heap;		/* lanes with an event at hand, earliest first */
	int nheap;
	bool started;
	struct worker *workers;
	int nworkers;			/* 0: the merger reads the lanes itself */
	pthread_mutex_t lock;
	pthread_cond_t filled;		/* a batch was filled, or reading failed */
	pthread_cond_t released;	/* a batch was released, or stop */
	int merger_waits, workers_wait;
	bool failing, failed, stop;	/* atomics */
	char message[1024];		/* the failed worker's error: bm_error is per thread */
};

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

static void wake(struct bm_lanes *f, int *waiting, pthread_cond_t *cond)
{
	if (!__atomic_load_n(waiting, __ATOMIC_SEQ_CST))
		return;
	pthread_mutex_lock(&f->lock);
	pthread_cond_broadcast(cond);
	pthread_mutex_unlock(&f->lock);
}

/* Sleep on @cond until @ready(@arg). */
static void wait_for(struct bm_lanes *f, int *waiting, pthread_cond_t *cond,
		     bool (*ready)(void *arg), void *arg)
{
	pthread_mutex_lock(&f->lock);
	__atomic_add_fetch(waiting, 1, __ATOMIC_SEQ_CST);
	while (!ready(arg))
		pthread_cond_wait(cond, &f->lock);
	__atomic_sub_fetch(waiting, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&f->lock);
}

/* Fill the next batch of @l, which has room, and publish it. */
static void fill_next(struct bm_lanes *f, struct lane *l)
{
	struct bm_lane_batch *b = &l->batches[l->filled % NBATCH];
	int r;

	b->n = 0;
	b->nbytes = 0;
	r = f->def.fill(f->def.ctx, l->state, l->cpu, b);

	/* The first failure is told; the message is written before failed is set. */
	if (r < 0 && !__atomic_exchange_n(&f->failing, true, __ATOMIC_SEQ_CST)) {
		snprintf(f->message, sizeof(f->message), "%s", bm_error_message());
		STORE(f->failed, true);
	}
	if (b->n)
		STORE(l->filled, l->filled + 1);
	if (r <= 0)
		STORE(l->done, true);
	wake(f, &f->merger_waits, &f->filled);
}

/* The worker's lane with room that is least read ahead; NULL if none. */
static struct lane *lane_to_fill(struct worker *w)
{
	struct bm_lanes *f = w->lanes;
	struct lane *pick = NULL;
	unsigned long least = NBATCH;
	int i;

	for (i = w->first; i < f->nlanes; i += f->nworkers) {
		struct lane *l = &f->lanes[i];
		unsigned long ahead = l->filled - LOAD(l->released);

		if (!l->done && ahead < least) {
			pick = l;
			least = ahead;
		}
	}
	return pick;
}

static bool worker_finished(struct worker *w)
{
	struct bm_lanes *f = w->lanes;
	int i;

	if (LOAD(f->stop) || LOAD(f->failed))
		return true;
	for (i = w->first; i < f->nlanes; i += f->nworkers)
		if (!f->lanes[i].done)
			return false;
	return true;
}

/* Some lane of @w's half empty, so that the merger need not wake it often. */
static bool worker_can_go_on(void *arg)
{
	struct worker *w = arg;
	struct bm_lanes *f = w->lanes;
	int i;

	if (worker_finished(w))
		return true;
	for (i = w->first; i < f->nlanes; i += f->nworkers) {
		struct lane *l = &f->lanes[i];

		if (!l->done && l->filled - LOAD(l->released) <= NBATCH / 2)
			return true;
	}
	return false;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct bm_lanes *f = w->lanes;

	while (!worker_finished(w)) {
		struct lane *l = lane_to_fill(w);

		if (l)
			fill_next(f, l);
		else
			wait_for(f, &f->workers_wait, &f->released, worker_can_go_on, w);
	}
	return NULL;
}

struct lane_wait {
	struct bm_lanes *lanes;
	struct lane *lane;
};

static bool lane_can_go_on(void *arg)
{
	struct lane_wait *w = arg;

	return LOAD(w->lane->filled) > w->lane->released || LOAD(w->lane->done) ||
	       LOAD(w->lanes->failed);
}

/*
 * Release the batch the merger holds of @l, if any, and take the next
 * into @h: 1; 0 if the lane has no more; -1 if reading failed.
 */
static int next_batch(struct bm_lanes *f, struct lane *l, struct head *h)
{
	struct lane_wait w = { f, l };
	const struct bm_lane_batch *b;

	if (l->holding) {
		l->holding = false;
		STORE(l->released, l->released + 1);
		/* A worker sleeps until one of its lanes is half empty. */
		if (f->nworkers && LOAD(l->filled) - l->released == NBATCH / 2)
			wake(f, &f->workers_wait, &f->released);
	}
	while (!lane_can_go_on(&w)) {
		if (f->nworkers)
			wait_for(f, &f->merger_waits, &f->filled, lane_can_go_on, &w);
		else
			fill_next(f, l);
	}
	if (LOAD(f->failed))
		return -1;
	/* done was published after the last fill: filled is final if it is set. */
	if (LOAD(l->filled) == l->released)
		return 0;
	l->holding = true;
	b = &l->batches[l->released % NBATCH];
	h->batch = b;
	h->item = b->items;
	h->end = h->item + b->n * f->def.item_size;
	return 1;
}

ssize_t bm_lane_bytes(struct bm_lane_batch *b, size_t len)
{
	size_t at = (b->nbytes + 7) & ~(size_t)7;

	if (at + len > b->capbytes) {
		size_t cap = b->capbytes ? b->capbytes : 4096;
		char *bytes;

		while (cap < at + len)
			cap *= 2;
		bytes = realloc(b->bytes, cap);
		if (!bytes)
			return -1;
		b->bytes = bytes;
		b->capbytes = cap;
	}
	b->nbytes = at + len;
	return at;
}

static uint64_t ts_of(const char *item)
{
	uint64_t ts;

	memcpy(&ts, item, sizeof(ts));
	return ts;
}

static bool before(const struct head *x, const struct head *y)
{
	uint64_t a = ts_of(x->item), b = ts_of(y->item);

	return a < b || (a == b && x->lane->cpu < y->lane->cpu);
}

static void sift_down(struct bm_lanes *f, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct head tmp;

		if (l < f->nheap && before(&f->heap[l], &f->heap[m]))
			m = l;
		if (r < f->nheap && before(&f->heap[r], &f->heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = f->heap[i];
		f->heap[i] = f->heap[m];
		f->heap[m] = tmp;
		i = m;
	}
}

/* The first call: every lane's first batch, then the heap. */
static int start_merge(struct bm_lanes *f)
{
	int i, r;

	for (i = 0; i < f->nlanes; i++) {
		struct head *h = &f->heap[f->nheap];

		h->lane = &f->lanes[i];
		r = next_batch(f, h->lane, h);
		if (r < 0)
			return -1;
		f->nheap += r;
	}
	for (i = f->nheap / 2 - 1; i >= 0; i--)
		sift_down(f, i);
	f->started = true;
	return 0;
}

/* Past the item handed out last: its lane's next, or the lane leaves the heap. */
static int step(struct bm_lanes *f)
{
	struct head *h = &f->heap[0];

	h->item += f->def.item_size;
	if (h->item == h->end) {
		int r = next_batch(f, h->lane, h);

		if (r < 0)
			return -1;
		if (r == 0)
			*h = f->heap[--f->nheap];
	}
	if (f->nheap > 1)
		sift_down(f, 0);
	return 0;
}

int bm_lanes_next(struct bm_lanes *f, const void **item, const char **bytes)
{
	int r = !f->started ? start_merge(f) : f->nheap ? step(f) : 0;

	if (r < 0) {
		if (f->nworkers)
			bm_error("%s", f->message);
		return -1;
	}
	if (!f->nheap)
		return 0;
	*item = f->heap[0].item;
	if (bytes)
		*bytes = f->heap[0].batch->bytes;
	return 1;
}

uint64_t bm_lanes_bytes_read(const struct bm_lanes *f)
{
	return bm_stream_bytes_read(f->stream);
}

static int start_workers(struct bm_lanes *f, int n)
{
	int i, err;

	f->workers = calloc(n, sizeof(*f->workers));
	if (!f->workers) {
		bm_error_errno("cannot start reading");
		return -1;
	}
	f->nworkers = n;
	for (i = 0; i < n; i++) {
		f->workers[i] = (struct worker){ .lanes = f, .first = i };
		err = pthread_create(&f->workers[i].thread, NULL, work, &f->workers[i]);
		if (err) {
			f->nworkers = i;	/* those to stop */
			errno = err;
			bm_error_errno("cannot start a reader thread");
			return -1;
		}
	}
	return 0;
}

static int new_lane(struct bm_lanes *f, struct lane *l, int cpu)
{
	int i;

	l->cpu = cpu;
	l->state = calloc(1, f->def.state_size ? f->def.state_size : 1);
	if (!l->state)
		return -1;
	for (i = 0; i < NBATCH; i++) {
		struct bm_lane_batch *b = &l->batches[i];

		b->cap = f->def.batch_items;
		b->capbytes = f->def.batch_bytes;
		b->items = malloc(b->cap * f->def.item_size);
		b->bytes = b->capbytes ? malloc(b->capbytes) : NULL;
		if (!b->items || (b->capbytes && !b->bytes))
			return -1;
	}
	return 0;
}

struct bm_lanes *bm_lanes_start(struct bm_stream *stream, const struct bm_lanes_def *def,
				int workers)
{
	int cpu, ncpus = bm_stream_ncpus(stream);
	struct bm_lanes *f;

	if (bm_stream_rewind(stream) < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto nomem;
	f->stream = stream;
	f->def = *def;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->filled, NULL);
	pthread_cond_init(&f->released, NULL);
	f->lanes = calloc(ncpus ? ncpus : 1, sizeof(*f->lanes));
	f->heap = calloc(ncpus ? ncpus : 1, sizeof(*f->heap));
	if (!f->lanes || !f->heap)
		goto nomem;
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (!bm_stream_cpu_has_events(stream, cpu))
			continue;
		if (new_lane(f, &f->lanes[f->nlanes++], cpu) < 0)
			goto nomem;
	}
	/* One worker a lane at most. */
	if (workers > f->nlanes)
		workers = f->nlanes;
	if (workers > 0 && start_workers(f, workers) < 0)
		goto fail;
	return f;
nomem:
	bm_error_errno("cannot start reading");
fail:
	bm_lanes_stop(f);
	return NULL;
}

void bm_lanes_stop(struct bm_lanes *f)
{
	int i, j;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	STORE(f->stop, true);
	pthread_cond_broadcast(&f->released);
	pthread_mutex_unlock(&f->lock);
	for (i = 0; i < f->nworkers; i++)
		pthread_join(f->workers[i].thread, NULL);
	for (i = 0; f->lanes && i < f->nlanes; i++) {
		for (j = 0; j < NBATCH; j++) {
			free(f->lanes[i].batches[j].items);
			free(f->lanes[i].batches[j].bytes);
		}
		if (f->def.release && f->lanes[i].state)
			f->def.release(f->lanes[i].state);
		free(f->lanes[i].state);
	}
	free(f->lanes);
	free(f->heap);
	free(f->workers);
	pthread_cond_destroy(&f->released);
	pthread_cond_destroy(&f->filled);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
