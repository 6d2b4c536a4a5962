// SPDX-License-Identifier: GPL-2.0-only
/* The flight recorder's latency trigger (trigger.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include "blkmap/record/trigger.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/page.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

/*
 * I/Os in flight tracked at once: a table small enough to stay in the
 * cache (192 KiB), as each event looks up a slot at random.
 */
#define SLOTS		(1u << 12)
#define RESOLVE_MS	100		/* how long a disk name's number is trusted */

#define HALVES		2	/* starts (or ends) kept a slot */

/*
 * The I/Os in flight on one device and sector: starts and ends not paired
 * yet, in arrival order (not time order: CPUs are drained apart).
 */
struct slot {
	uint64_t sector;	/* bit 63: a request's (D2C) rather than a bio's */
	uint32_t dev;
	uint8_t nstarts, nends;
	uint64_t starts[HALVES], ends[HALVES];
};

/*
 * I/O events decoded ahead, their slots prefetched before the first is
 * looked at: each is a cache miss (the pages streaming through push the
 * table out of the cache), and the misses of a batch overlap this way.
 */
#define AHEAD		64

struct ahead {
	struct bm_io io[AHEAD];
	struct slot *slot[AHEAD];
	size_t n;
};

struct bm_trigger {
	struct bm_trigger_spec spec;
	struct bm_trace *formats;
	struct bm_decoder *dec;
	struct bm_page_format page;
	int notify_fd;
	pthread_mutex_t lock;
	struct slot *slots;
	struct ahead ahead;
	uint32_t disk_dev;		/* spec.disk's number when last looked up; 0: none */
	int64_t disk_checked_ms;
	struct bm_trigger_hit hit;	/* the slowest not taken yet */
	bool has_hit;
	uint64_t hits;			/* slow I/Os seen so far */
};

#define REQUEST_BIT	(1ULL << 63)

int bm_trigger_parse(const char *text, struct bm_trigger_spec *spec)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	const char *at = text, *comma;
	char *end;
	double value;
	size_t i;

	memset(spec, 0, sizeof(*spec));
	if (strncmp(at, "latency>", 8)) {
		bm_error("'%s': a trigger is latency>DURATION[,disk=NAME]", text);
		return -1;
	}
	value = strtod(at + 8, &end);
	comma = strchr(end, ',');
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strncmp(end, units[i].unit, strlen(units[i].unit)) &&
		    end + strlen(units[i].unit) == (comma ? comma : end + strlen(end)))
			break;
	if (end == at + 8 || value <= 0 || i == sizeof(units) / sizeof(units[0])) {
		bm_error("'%s': DURATION is a number with ns, us, ms or s, such as 20ms", text);
		return -1;
	}
	spec->latency_ns = (uint64_t)(value * units[i].ns);
	if (!comma)
		return 0;
	if (strncmp(comma + 1, "disk=", 5) || !comma[6] ||
	    strlen(comma + 6) >= sizeof(spec->disk) || strchr(comma + 6, '/')) {
		bm_error("'%s': after the duration, only disk=NAME", text);
		return -1;
	}
	strcpy(spec->disk, comma + 6);
	return 0;
}

struct bm_trigger *bm_trigger_new(const struct bm_trigger_spec *spec, const char *meta_path,
				  int notify_fd)
{
	struct bm_trigger *t = calloc(1, sizeof(*t));

	if (!t || !(t->slots = calloc(SLOTS, sizeof(*t->slots)))) {
		free(t);
		bm_error_errno("cannot set up the trigger");
		return NULL;
	}
	t->spec = *spec;
	t->notify_fd = notify_fd;
	pthread_mutex_init(&t->lock, NULL);
	t->formats = bm_trace_open(meta_path);
	if (t->formats)
		t->dec = bm_decoder_new(bm_trace_tep(t->formats));
	if (!t->dec) {
		if (t->formats)
			bm_error_errno("cannot set up the trigger");
		bm_trigger_free(t);
		return NULL;
	}
	t->page = (struct bm_page_format){ .long_size = bm_trace_get_meta(t->formats)->long_size,
		.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ };
	return t;
}

/* Is @dev the disk the trigger is about (looked up by name now and then)? */
static bool watched(struct bm_trigger *t, uint32_t dev)
{
	char path[128], text[32];
	unsigned major, minor;
	int64_t now;
	FILE *f;

	if (!t->spec.disk[0])
		return true;
	now = bm_now_ms();
	if (now - t->disk_checked_ms >= RESOLVE_MS) {
		t->disk_checked_ms = now;
		t->disk_dev = 0;
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", t->spec.disk);
		f = fopen(path, "re");
		if (f && fgets(text, sizeof(text), f) && sscanf(text, "%u:%u", &major, &minor) == 2)
			t->disk_dev = BM_MKDEV(major, minor);
		if (f)
			fclose(f);
	}
	return t->disk_dev && dev == t->disk_dev;
}

/*
 * Which of @n times in @list goes with @ts: the latest not after it (for an
 * end, @after false) or the earliest not before it (for a start). That is
 * the shortest latency the events allow: a slow I/O may be paired wrongly
 * and missed, a fast one is never made slow. -1 if none.
 */
static int partner(const uint64_t *list, int n, uint64_t ts, bool after)
{
	int i, best = -1;

	for (i = 0; i < n; i++) {
		if (after ? list[i] < ts : list[i] > ts)
			continue;
		if (best < 0 || (after ? list[i] < list[best] : list[i] > list[best]))
			best = i;
	}
	return best;
}

/* Keep @ts in @list of *@n, dropping the oldest when full. */
static void keep(uint64_t *list, uint8_t *n, uint64_t ts)
{
	int i, oldest = 0;

	if (*n < HALVES) {
		list[(*n)++] = ts;
		return;
	}
	for (i = 1; i < HALVES; i++)
		if (list[i] < list[oldest])
			oldest = i;
	list[oldest] = ts;
}

static bool is_request(const struct bm_io *io)
{
	return io->kind == BM_EV_RQ_ISSUE || io->kind == BM_EV_RQ_COMPLETE ||
	       io->kind == BM_EV_RQ_REQUEUE;
}

static uint64_t key_of(const struct bm_io *io)
{
	return io->sector | (is_request(io) ? REQUEST_BIT : 0);
}

static struct slot *slot_of(struct bm_trigger *t, const struct bm_io *io)
{
	uint64_t h = (key_of(io) ^ ((uint64_t)io->dev << 32) ^ io->dev) * 0x9e3779b97f4a7c15ULL;

	return &t->slots[h >> 52 & (SLOTS - 1)];
}

/* A requeue: the issue before it, kept as a start, is not the request's. */
static void requeued(const struct bm_io *io, struct slot *s)
{
	int k;

	if (s->dev != io->dev || s->sector != key_of(io))
		return;
	k = partner(s->starts, s->nstarts, io->ts, false);
	if (k >= 0)
		s->starts[k] = s->starts[--s->nstarts];
}

/* @io, whose slot is @s. */
static void note_io(struct bm_trigger *t, const struct bm_io *io, struct slot *s)
{
	bool request = is_request(io);
	bool start = io->kind == BM_EV_RQ_ISSUE || io->kind == BM_EV_BIO_QUEUE;
	uint64_t key = key_of(io), latency, end;
	uint64_t *other = start ? s->ends : s->starts;
	uint8_t *nother = start ? &s->nends : &s->nstarts;
	int k;

	if (io->kind == BM_EV_RQ_REQUEUE) {
		requeued(io, s);
		return;
	}
	if (s->dev != io->dev || s->sector != key)
		*s = (struct slot){ .dev = io->dev, .sector = key };	/* another I/O's slot */
	k = partner(other, *nother, io->ts, start);
	if (k < 0) {
		if (start)
			keep(s->starts, &s->nstarts, io->ts);
		else
			keep(s->ends, &s->nends, io->ts);
		return;
	}
	latency = start ? other[k] - io->ts : io->ts - other[k];
	end = start ? other[k] : io->ts;
	other[k] = other[--*nother];
	if (latency <= t->spec.latency_ns || !watched(t, io->dev))
		return;
	if (!t->has_hit || latency > t->hit.latency_ns)
		t->hit = (struct bm_trigger_hit){ .dev = io->dev, .sector = io->sector,
			.latency_ns = latency, .end_ts = end, .d2c = request };
	t->has_hit = true;
	t->hits++;
	eventfd_write(t->notify_fd, 1);
}

/*
 * A requeued request's issue, and the requeue, in one batch: dropped before
 * the issue can pair with a completion that another CPU's pages brought
 * first (the re-issue's).
 */
static void drop_requeued(struct ahead *a)
{
	size_t k, j;

	for (k = 0; k < a->n; k++) {
		if (a->io[k].kind != BM_EV_RQ_REQUEUE)
			continue;
		for (j = k; j-- > 0;)
			if (a->io[j].kind == BM_EV_RQ_ISSUE && a->io[j].dev == a->io[k].dev &&
			    a->io[j].sector == a->io[k].sector) {
				a->io[j].kind = BM_EV_OTHER;
				a->io[k].kind = BM_EV_OTHER;
				break;
			}
	}
}

static void note_ahead(struct bm_trigger *t)
{
	size_t k;

	drop_requeued(&t->ahead);
	for (k = 0; k < t->ahead.n; k++)
		if (t->ahead.io[k].kind != BM_EV_OTHER)
			note_io(t, &t->ahead.io[k], t->ahead.slot[k]);
	t->ahead.n = 0;
}

static void note_page(struct bm_trigger *t, const unsigned char *page)
{
	struct ahead *a = &t->ahead;
	struct bm_page_event ev;
	struct bm_page p;
	const char *why;
	int64_t missed;

	if (bm_page_load(&p, &t->page, page, &missed, &why) < 0)
		return;
	while (bm_page_next(&p, &ev, &why) == 1) {
		struct bm_rec rec = { .ts = p.ts, .data = (void *)ev.data, .size = ev.size };
		struct bm_io *io = &a->io[a->n];
		uint16_t id;

		memcpy(&id, ev.data, sizeof(id));
		rec.type = id;
		/*
		 * Requests without data (flushes, a driver's own commands) are
		 * issued at sector 0 and complete at 2^64 - 1: never a start or an
		 * end, or a real request at sector 0 would pair with one.
		 */
		if (!bm_decode_io(t->dec, &rec, io) || !io->nr_sector ||
		    (io->kind != BM_EV_RQ_ISSUE && io->kind != BM_EV_RQ_COMPLETE &&
		     io->kind != BM_EV_RQ_REQUEUE && io->kind != BM_EV_BIO_QUEUE &&
		     io->kind != BM_EV_BIO_COMPLETE))
			continue;
		a->slot[a->n] = slot_of(t, io);
		__builtin_prefetch(a->slot[a->n], 1);
		if (++a->n == AHEAD)
			note_ahead(t);
	}
}

bool bm_trigger_pages(struct bm_trigger *t, const void *pages, size_t npages, uint32_t page_size)
{
	const unsigned char *page = pages;
	uint64_t hits;
	size_t i;

	t->page.page_size = page_size;
	pthread_mutex_lock(&t->lock);
	hits = t->hits;
	for (i = 0; i < npages; i++, page += page_size)
		note_page(t, page);
	note_ahead(t);
	hits = t->hits - hits;
	pthread_mutex_unlock(&t->lock);
	return hits;
}

void bm_trigger_poke(struct bm_trigger *t)
{
	eventfd_write(t->notify_fd, 1);
}

bool bm_trigger_take(struct bm_trigger *t, struct bm_trigger_hit *hit)
{
	bool had;

	pthread_mutex_lock(&t->lock);
	had = t->has_hit;
	if (had)
		*hit = t->hit;
	t->has_hit = false;
	pthread_mutex_unlock(&t->lock);
	return had;
}

void bm_trigger_free(struct bm_trigger *t)
{
	if (!t)
		return;
	bm_decoder_free(t->dec);
	bm_trace_close(t->formats);
	pthread_mutex_destroy(&t->lock);
	free(t->slots);
	free(t);
}
