// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading, decoding and labelling are about two thirds of an analysis
 * pass and need no order across CPUs: each CPU's pages are a lane, read
 * into a small ring of batches by the worker that owns it. The caller's
 * thread merges the lanes' heads by (time, CPU), as bm_stream_next()
 * does, so the analysis sees the same events in the same order whatever
 * the number of jobs. A worker never waits on one lane while it has
 * another with room, so the merger, waiting on whichever lane is behind,
 * always gets it. Memory: NBATCH batches per CPU that has pages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/iofeed.h"
#include "blkmap/util/error.h"

#define BATCH	1024		/* events: 64 KiB */
#define NBATCH	6		/* per lane: one merged from, the others read ahead */

struct batch {
	struct bm_fed_io io[BATCH];
	size_t n;
};

struct lane {
	int cpu;
	struct batch *batches;		/* NBATCH of them */
	struct bm_label_cache labels;	/* its reader's */
	/*
	 * Batches filled (by its reader) and released (by the merger), ever,
	 * and the end (after the last fill): atomics, one writer each.
	 */
	unsigned long filled, released;
	bool done;
	bool holding;			/* the merger takes from batch released % NBATCH */
};

/* A lane's next event to merge, and the end of its batch. */
struct head {
	const struct bm_fed_io *io, *end;
	struct lane *lane;
};

struct worker {
	struct bm_iofeed *feed;
	pthread_t thread;
	int first;			/* its lanes: first, first + nworkers, ... */
};

/*
 * The threads run without a lock while there is work; one that must wait
 * says so in a counter, under the lock, and checks again before it sleeps.
 * The other side publishes its change first and looks at the counter
 * after (both sequentially consistent): one of them sees the other.
 */
struct bm_iofeed {
	struct bm_stream *stream;
	const struct bm_decoder *dec;
	const struct bm_map *map;
	uint64_t since, until;
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

static void wake(struct bm_iofeed *f, int *waiting, pthread_cond_t *cond)
{
	if (!__atomic_load_n(waiting, __ATOMIC_SEQ_CST))
		return;
	pthread_mutex_lock(&f->lock);
	pthread_cond_broadcast(cond);
	pthread_mutex_unlock(&f->lock);
}

/* Sleep on @cond until @ready(@arg). */
static void wait_for(struct bm_iofeed *f, int *waiting, pthread_cond_t *cond,
		     bool (*ready)(void *arg), void *arg)
{
	pthread_mutex_lock(&f->lock);
	__atomic_add_fetch(waiting, 1, __ATOMIC_SEQ_CST);
	while (!ready(arg))
		pthread_cond_wait(cond, &f->lock);
	__atomic_sub_fetch(waiting, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&f->lock);
}

/* Fill @b from @l's CPU; 1 if the lane goes on, 0 at its end, -1 on error. */
static int fill(struct bm_iofeed *f, struct lane *l, struct batch *b)
{
	struct bm_rec rec;
	int r = 1;

	b->n = 0;
	while (b->n < BATCH && (r = bm_stream_next_cpu(f->stream, l->cpu, &rec)) > 0) {
		struct bm_fed_io *o = &b->io[b->n];
		enum bm_label_basis basis;

		if (rec.ts > f->until) {
			r = 0;	/* a CPU's events are in time order: nothing later is wanted */
			break;
		}
		if (rec.ts < f->since || !bm_decode_io(f->dec, &rec, &o->io))
			continue;
		o->span = bm_map_label_cached(f->map, &l->labels, o->io.dev, o->io.ts, 0, &basis);
		o->old_span = NULL;
		if (o->io.kind == BM_EV_BIO_REMAP)
			o->old_span = bm_map_label_cached(f->map, &l->labels, o->io.old_dev,
							  o->io.ts, o->io.dev, &basis);
		b->n++;
	}
	return r;
}

/* Fill the next batch of @l, which has room, and publish it. */
static void fill_next(struct bm_iofeed *f, struct lane *l)
{
	struct batch *b = &l->batches[l->filled % NBATCH];
	int r = fill(f, l, b);

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
	struct bm_iofeed *f = w->feed;
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
	struct bm_iofeed *f = w->feed;
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
	struct bm_iofeed *f = w->feed;
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
	struct bm_iofeed *f = w->feed;

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
	struct bm_iofeed *feed;
	struct lane *lane;
};

static bool lane_can_go_on(void *arg)
{
	struct lane_wait *w = arg;

	return LOAD(w->lane->filled) > w->lane->released || LOAD(w->lane->done) ||
	       LOAD(w->feed->failed);
}

/*
 * Release the batch the merger holds of @l, if any, and take the next:
 * 1 with its events in [*@io, *@end); 0 if the lane has no more; -1 if
 * reading failed.
 */
static int next_batch(struct bm_iofeed *f, struct lane *l, const struct bm_fed_io **io,
		      const struct bm_fed_io **end)
{
	struct lane_wait w = { f, l };
	const struct batch *b;

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
	*io = b->io;
	*end = b->io + b->n;
	return 1;
}

static bool before(const struct head *x, const struct head *y)
{
	return x->io->io.ts < y->io->io.ts ||
	       (x->io->io.ts == y->io->io.ts && x->lane->cpu < y->lane->cpu);
}

static void sift_down(struct bm_iofeed *f, int i)
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
static int start_merge(struct bm_iofeed *f)
{
	int i, r;

	for (i = 0; i < f->nlanes; i++) {
		struct head *h = &f->heap[f->nheap];

		h->lane = &f->lanes[i];
		r = next_batch(f, h->lane, &h->io, &h->end);
		if (r < 0)
			return -1;
		f->nheap += r;
	}
	for (i = f->nheap / 2 - 1; i >= 0; i--)
		sift_down(f, i);
	f->started = true;
	return 0;
}

/* Past the event handed out last: its lane's next, or the lane leaves the heap. */
static int step(struct bm_iofeed *f)
{
	struct head *h = &f->heap[0];

	if (++h->io == h->end) {
		int r = next_batch(f, h->lane, &h->io, &h->end);

		if (r < 0)
			return -1;
		if (r == 0)
			*h = f->heap[--f->nheap];
	}
	if (f->nheap > 1)
		sift_down(f, 0);
	return 0;
}

int bm_iofeed_next(struct bm_iofeed *f, const struct bm_fed_io **io)
{
	int r = !f->started ? start_merge(f) : f->nheap ? step(f) : 0;

	if (r < 0) {
		if (f->nworkers)
			bm_error("%s", f->message);
		return -1;
	}
	if (!f->nheap)
		return 0;
	*io = f->heap[0].io;
	return 1;
}

uint64_t bm_iofeed_bytes_read(const struct bm_iofeed *f)
{
	return bm_stream_bytes_read(f->stream);
}

static int start_workers(struct bm_iofeed *f, int n)
{
	int i, err;

	f->workers = calloc(n, sizeof(*f->workers));
	if (!f->workers) {
		bm_error_errno("cannot start reading");
		return -1;
	}
	f->nworkers = n;
	for (i = 0; i < n; i++) {
		f->workers[i] = (struct worker){ .feed = f, .first = i };
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

struct bm_iofeed *bm_iofeed_start(struct bm_stream *stream, const struct bm_decoder *dec,
				  const struct bm_map *map, uint64_t since, uint64_t until,
				  int jobs)
{
	int cpu, ncpus = bm_stream_ncpus(stream);
	struct bm_iofeed *f;

	if (bm_stream_rewind(stream) < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto nomem;
	f->stream = stream;
	f->dec = dec;
	f->map = map;
	f->since = since;
	f->until = until;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->filled, NULL);
	pthread_cond_init(&f->released, NULL);
	f->lanes = calloc(ncpus ? ncpus : 1, sizeof(*f->lanes));
	f->heap = calloc(ncpus ? ncpus : 1, sizeof(*f->heap));
	if (!f->lanes || !f->heap)
		goto nomem;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct lane *l = &f->lanes[f->nlanes];

		if (!bm_stream_cpu_has_events(stream, cpu))
			continue;
		l->cpu = cpu;
		l->batches = malloc(NBATCH * sizeof(*l->batches));
		if (!l->batches)
			goto nomem;
		f->nlanes++;
	}
	/* One worker a lane at most; the merger is a job too. */
	if (jobs > f->nlanes + 1)
		jobs = f->nlanes + 1;
	if (jobs > 1 && start_workers(f, jobs - 1) < 0)
		goto fail;
	return f;
nomem:
	bm_error_errno("cannot start reading");
fail:
	bm_iofeed_stop(f);
	return NULL;
}

void bm_iofeed_stop(struct bm_iofeed *f)
{
	int i;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	STORE(f->stop, true);
	pthread_cond_broadcast(&f->released);
	pthread_mutex_unlock(&f->lock);
	for (i = 0; i < f->nworkers; i++)
		pthread_join(f->workers[i].thread, NULL);
	for (i = 0; f->lanes && i < f->nlanes; i++)
		free(f->lanes[i].batches);
	free(f->lanes);
	free(f->heap);
	free(f->workers);
	pthread_cond_destroy(&f->released);
	pthread_cond_destroy(&f->filled);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
