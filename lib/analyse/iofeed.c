// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading, decoding and naming are about two thirds of an analysis pass
 * and need no order across CPUs: lanes (tracefile/lanes.c) do them a CPU
 * at a time in worker threads, while the caller accounts what they merged.
 */
#include <stdlib.h>

#include "blkmap/analyse/iofeed.h"
#include "blkmap/tracefile/lanes.h"
#include "blkmap/util/error.h"

/*
 * Events in a lane's batch: 1024 (64 KiB), or more where few CPUs share
 * FEED_EVENTS. The accounting thread is the slower side, and it went 7 %
 * faster with batches of 4096 events on 2 CPUs (--disks, 10 million events:
 * 0.93 (0.66..1.02) times the time, 21 runs paired); their memory grows
 * with the CPUs, so many CPUs keep 1024.
 */
#define BATCH		1024
#define FEED_EVENTS	8192

struct bm_iofeed {
	struct bm_stream *stream;
	const struct bm_decoder *dec;
	const struct bm_map *map;
	uint64_t since, until;
	struct bm_lanes *lanes;
};

/* A CPU's filler keeps the names it looked up last: I/O comes in runs. */
static int fill(void *ctx, void *state, int cpu, struct bm_lane_batch *b)
{
	struct bm_label_cache *labels = state;
	struct bm_iofeed *f = ctx;
	struct bm_fed_io *io = b->items;
	struct bm_rec rec;
	int r = 1;

	while (b->n < b->cap && (r = bm_stream_next_cpu(f->stream, cpu, &rec)) > 0) {
		struct bm_fed_io *o = &io[b->n];
		enum bm_label_basis basis;

		if (rec.ts > f->until) {
			r = 0;	/* a CPU's events are in time order: nothing later is wanted */
			break;
		}
		if (rec.ts < f->since || !bm_decode_io(f->dec, &rec, &o->io))
			continue;
		o->span = bm_map_label_cached(f->map, labels, o->io.dev, o->io.ts, 0, &basis);
		o->old_span = NULL;
		if (o->io.kind == BM_EV_BIO_REMAP)
			o->old_span = bm_map_label_cached(f->map, labels, o->io.old_dev,
							  o->io.ts, o->io.dev, &basis);
		b->n++;
	}
	return r;
}

struct bm_iofeed *bm_iofeed_start(struct bm_stream *stream, const struct bm_decoder *dec,
				  const struct bm_map *map, uint64_t since, uint64_t until,
				  int jobs)
{
	struct bm_iofeed *f = calloc(1, sizeof(*f));
	int ncpus;

	if (!f) {
		bm_error_errno("cannot start reading");
		return NULL;
	}
	*f = (struct bm_iofeed){ .stream = stream, .dec = dec, .map = map, .since = since,
				 .until = until };
	ncpus = bm_stream_ncpus(stream);
	/* The caller's thread accounts: the other jobs read. */
	f->lanes = bm_lanes_start(stream, &(struct bm_lanes_def){
		.item_size = sizeof(struct bm_fed_io),
		.batch_items = ncpus > 0 && FEED_EVENTS / ncpus > BATCH ? FEED_EVENTS / ncpus : BATCH,
		.state_size = sizeof(struct bm_label_cache), .fill = fill, .ctx = f },
		jobs - 1);
	if (!f->lanes) {
		free(f);
		return NULL;
	}
	return f;
}

int bm_iofeed_next(struct bm_iofeed *f, const struct bm_fed_io **io)
{
	return bm_lanes_next(f->lanes, (const void **)io, NULL);
}

uint64_t bm_iofeed_bytes_read(const struct bm_iofeed *f)
{
	return bm_lanes_bytes_read(f->lanes);
}

void bm_iofeed_stop(struct bm_iofeed *f)
{
	if (!f)
		return;
	bm_lanes_stop(f->lanes);
	free(f);
}
