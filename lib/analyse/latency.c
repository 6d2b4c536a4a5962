// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latencies of the iostat figures (--disks, --latency, --interval, the
 * plot): each finished I/O's Q2C, from its queue, and its request's D2C,
 * from its issue, to its completion, as btt measures them. Into the
 * incarnation it completed on, by kind and operation (the await columns'
 * sums), as a log2 histogram (the percentiles) of both operations and one
 * of each (--disks' per operation tail), and into the bin of the
 * completion; a bio submitted to a partition has its Q2C there too. A
 * consumer of the tracker (consumer.h) whose state is these figures of
 * each incarnation, which nothing else writes; it keeps no memory of its own.
 */
#include "consumer.h"

/* A latency of kind @which of an I/O of @op that completed on @d at @ts. */
static void latency(struct bm_disk_stats *d, int which, int op, uint64_t ts, uint64_t v)
{
	bm_hist_add(which == BM_LAT_Q2C ? &d->q2c : &d->d2c, v);
	if (op == BM_READ || op == BM_WRITE) {
		d->lat_sum[which][op] += v;
		d->lat_n[which][op]++;
		bm_hist_add(&d->lat_op[which][op], v);
	}
	an_series_latency(d->series, which, op, ts, v);
}

void an_latency_done(void *state, const struct an_io *io)
{
	if (io->merged)		/* the request it merged into has the latencies */
		return;
	if (io->has_q && io->queued_on)
		latency(io->disk, BM_LAT_Q2C, io->op, io->c, io->c - io->q);
	if (io->request && io->has_d)
		latency(io->disk, BM_LAT_D2C, io->op, io->c, io->c - io->d);
	if (io->part && io->has_q)
		latency(io->part, BM_LAT_Q2C, io->op, io->c, io->c - io->q);
}
