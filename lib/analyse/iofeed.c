// SPDX-License-Identifier: GPL-2.0-only
/*
 * A reader thread and its consumer share a ring of batches. Reading and
 * decoding are about half of an analysis pass, labelling and accounting
 * the other half: on two cores they overlap. The batches are few and
 * small, so memory stays bounded whatever the file's size.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "blkmap/analyse/iofeed.h"
#include "blkmap/util/error.h"

#define BATCH	2048		/* events: 64 KiB of bm_io */
#define NBATCH	4

struct batch {
	struct bm_io io[BATCH];
	size_t n;
	uint64_t bytes_read;
};

struct bm_iofeed {
	struct bm_stream *stream;
	const struct bm_decoder *dec;
	uint64_t since, until;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct batch batches[NBATCH];
	/* Batches filled by the reader and released by the consumer, ever. */
	unsigned long filled, released;
	bool holding;		/* the consumer holds batch "released" */
	bool done, failed, stop;
	char message[1024];	/* the reader's error; bm_error is per thread */
};

/* Fill @b; 1 if the stream goes on, 0 at its end, -1 on error. */
static int fill(struct bm_iofeed *f, struct batch *b)
{
	struct bm_rec rec;
	int r = 1;

	b->n = 0;
	while (b->n < BATCH && (r = bm_stream_next(f->stream, &rec)) > 0) {
		if (rec.ts > f->until) {
			r = 0;	/* the stream is in time order: nothing later is wanted */
			break;
		}
		if (rec.ts >= f->since && bm_decode_io(f->dec, &rec, &b->io[b->n]))
			b->n++;
	}
	b->bytes_read = bm_stream_bytes_read(f->stream);
	return r;
}

static void *reader(void *arg)
{
	struct bm_iofeed *f = arg;
	int r;

	do {
		struct batch *b;

		pthread_mutex_lock(&f->lock);
		while (f->filled - f->released == NBATCH && !f->stop)
			pthread_cond_wait(&f->changed, &f->lock);
		if (f->stop) {
			pthread_mutex_unlock(&f->lock);
			return NULL;
		}
		b = &f->batches[f->filled % NBATCH];
		pthread_mutex_unlock(&f->lock);

		r = fill(f, b);

		pthread_mutex_lock(&f->lock);
		if (b->n)
			f->filled++;
		if (r <= 0) {
			f->done = true;
			f->failed = r < 0;
			if (r < 0)
				snprintf(f->message, sizeof(f->message), "%s", bm_error_message());
		}
		pthread_cond_broadcast(&f->changed);
		pthread_mutex_unlock(&f->lock);
	} while (r > 0);
	return NULL;
}

struct bm_iofeed *bm_iofeed_start(struct bm_stream *stream, const struct bm_decoder *dec,
				  uint64_t since, uint64_t until)
{
	struct bm_iofeed *f;
	int err;

	if (bm_stream_rewind(stream) < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f) {
		bm_error_errno("cannot start reading");
		return NULL;
	}
	f->stream = stream;
	f->dec = dec;
	f->since = since;
	f->until = until;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->changed, NULL);
	err = pthread_create(&f->thread, NULL, reader, f);
	if (err) {
		errno = err;
		bm_error_errno("cannot start a reader thread");
		pthread_cond_destroy(&f->changed);
		pthread_mutex_destroy(&f->lock);
		free(f);
		return NULL;
	}
	return f;
}

ssize_t bm_iofeed_next(struct bm_iofeed *f, const struct bm_io **ios, uint64_t *bytes_read)
{
	struct batch *b;

	pthread_mutex_lock(&f->lock);
	if (f->holding) {
		f->released++;
		f->holding = false;
		pthread_cond_broadcast(&f->changed);
	}
	while (f->released == f->filled && !f->done)
		pthread_cond_wait(&f->changed, &f->lock);
	if (f->released == f->filled) {
		bool failed = f->failed;

		pthread_mutex_unlock(&f->lock);
		if (failed) {
			bm_error("%s", f->message);
			return -1;
		}
		return 0;
	}
	b = &f->batches[f->released % NBATCH];
	f->holding = true;
	pthread_mutex_unlock(&f->lock);
	*ios = b->io;
	*bytes_read = b->bytes_read;
	return b->n;
}

void bm_iofeed_stop(struct bm_iofeed *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_cond_destroy(&f->changed);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
