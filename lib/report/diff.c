// SPDX-License-Identifier: GPL-2.0-only
/*
 * blkmap diff: recordings A and B (or runs of each) side by side, a device
 * matched by what it is rather than by its number or name of the day.
 *
 * Each recording is analysed as `report --disks` analyses it (report.c's
 * pipeline, handing back its analysis); each incarnation with I/O keeps its
 * identity and its figures, the runs of one side pooled (counts and times
 * summed, latency histograms added). Pairs are then made by the strongest
 * identity both carry; every --disks figure is the disks view's own
 * (bm_disks_row_fill), compared key by key; a pair's Q2C and D2C get a
 * Mann-Whitney U test on the histograms' buckets (fine log-linear buckets,
 * within 3%: ties within a bucket, which the test's tie correction counts).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/map/map.h"
#include "blkmap/map/names.h"
#include "blkmap/report/diff.h"
#include "blkmap/report/iostat.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"
#include "blkmap/util/error.h"
#include "blkmap/util/sys.h"

/* A change whose p-value is below this is marked (text) and changed (CSV, JSON). */
#define NOISE_P		0.01

/* How a pair was made, strongest first. */
enum level { BY_PAIR, BY_SERIAL, BY_WWID, BY_LV, BY_DM, BY_BACKING, BY_MOUNT, BY_NAME, NLEVELS };
static const char *const level_names[NLEVELS] = {
	"pair", "serial", "wwid", "lv", "dm", "backing_file", "mount", "name",
};

/* The runs' spread of these figures: the spread keys' order. */
enum { SP_Q2C, SP_D2C, SP_R, SP_W, NSPREAD };
static const char *const spread_keys[NSPREAD] = { "q2c_p50_us", "d2c_p50_us", "r_s", "w_s" };

/* An incarnation of one side, its runs pooled. */
struct inc {
	char name[64], key[40], dev[16], kind[16];
	char serial[200], wwid[200], model[64], lv[288], dm[128], dm_uuid[160];
	char backing[256], mounts[512];
	bool wanted;			/* passes --disk and --dev */
	struct bm_disk_stats st;	/* pooled; no span */
	unsigned runs;
	int run;			/* the last run it was in */
	double lo[NSPREAD], hi[NSPREAD];	/* NAN: no run had it */
	struct bm_hist (*lat)[2];	/* each run's Q2C and D2C, for the runs' spread in the test */
	struct inc *pair;
	enum level by;
};

struct side {
	struct inc **v;
	size_t n, cap;
	int run;			/* the run being read */
	const struct bm_span_filter *devices;
};

static void inc_free(struct inc *x)
{
	int k, op;

	if (!x)
		return;
	bm_hist_release(&x->st.q2c);
	bm_hist_release(&x->st.d2c);
	for (unsigned i = 0; x->lat && i < x->runs; i++) {
		bm_hist_release(&x->lat[i][BM_LAT_Q2C]);
		bm_hist_release(&x->lat[i][BM_LAT_D2C]);
	}
	free(x->lat);
	for (k = 0; k < 2; k++)
		for (op = 0; op < 2; op++)
			bm_hist_release(&x->st.lat_op[k][op]);
	free(x);
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/*
 * A partition is what its disk is, and where on it: its disk's serial and
 * WWID with the partition's own part of its name (sdb1 -> "1", nvme0n1p2
 * -> "p2"), so that a disk paired by serial brings its partitions along.
 */
static void partition_identity(struct inc *x, const struct bm_span *s,
			       const struct bm_disk_stats *const *disks, size_t n)
{
	const struct bm_span *p = NULL;
	size_t i, len = strlen(s->parent);
	const char *part = s->name + (strncmp(s->name, s->parent, len) ? 0 : len);

	for (i = 0; i < n && !p; i++)
		if (disks[i]->span && disks[i]->span->kind != BM_PARTITION &&
		    !strcmp(disks[i]->span->name, s->parent))
			p = disks[i]->span;
	if (!p)
		return;
	if (p->serial[0])
		snprintf(x->serial, sizeof(x->serial), "%s-part%s", p->serial, part);
	if (p->wwid[0])
		snprintf(x->wwid, sizeof(x->wwid), "%s-part%s", p->wwid, part);
}

static void identity(struct inc *x, const struct bm_disk_stats *d,
		     const struct bm_disk_stats *const *disks, size_t n)
{
	const struct bm_span *s = d->span;
	char lv[288];

	bm_dev_str(d->dev, x->dev, sizeof(x->dev));
	if (!s)
		return;
	copy(x->name, sizeof(x->name), s->name);
	bm_span_key(s, x->key, sizeof(x->key));
	copy(x->kind, sizeof(x->kind), s->kind == BM_PARTITION ? "partition" : "disk");
	copy(x->serial, sizeof(x->serial), s->serial);
	copy(x->wwid, sizeof(x->wwid), s->wwid);
	copy(x->model, sizeof(x->model), s->model);
	copy(x->lv, sizeof(x->lv), bm_span_lv_at(s, 0, lv, sizeof(lv)));
	copy(x->dm, sizeof(x->dm), s->dm);
	copy(x->dm_uuid, sizeof(x->dm_uuid), s->dm_uuid);
	copy(x->backing, sizeof(x->backing), s->backing);
	bm_span_mounts_at(s, 0, x->mounts, sizeof(x->mounts));
	if (s->kind == BM_PARTITION && s->parent[0] && !s->serial[0] && !s->wwid[0])
		partition_identity(x, s, disks, n);
}

/* Both carry @a and @b, and they differ: not the same device. */
static bool differ(const char *a, const char *b)
{
	return a[0] && b[0] && strcmp(a, b);
}

static bool same(const char *a, const char *b)
{
	return a[0] && !strcmp(a, b);
}

/*
 * The strongest identity @a and @b share, or NLEVELS if none. What a
 * device is (serial, WWID, dm UUID, loop file), when both carry it and it
 * differs, rules the pair out whatever names they share.
 */
static enum level match_level(const struct inc *a, const struct inc *b)
{
	if (differ(a->serial, b->serial) || differ(a->wwid, b->wwid) ||
	    differ(a->dm_uuid, b->dm_uuid) || differ(a->backing, b->backing) ||
	    strcmp(a->kind, b->kind))
		return NLEVELS;
	if (same(a->serial, b->serial))
		return BY_SERIAL;
	if (same(a->wwid, b->wwid))
		return BY_WWID;
	if (same(a->lv, b->lv))
		return BY_LV;
	if (same(a->dm_uuid, b->dm_uuid) || same(a->dm, b->dm))
		return BY_DM;
	if (same(a->backing, b->backing))
		return BY_BACKING;
	if (same(a->mounts, b->mounts))
		return BY_MOUNT;
	if (same(a->name, b->name))
		return BY_NAME;
	return NLEVELS;
}

/* What a pair made by @by shares, as the identity key says it. */
static const char *identity_of(const struct inc *x, enum level by)
{
	switch (by) {
	case BY_SERIAL:
		return x->serial;
	case BY_WWID:
		return x->wwid;
	case BY_LV:
		return x->lv;
	case BY_DM:
		return x->dm_uuid[0] ? x->dm_uuid : x->dm;
	case BY_BACKING:
		return x->backing;
	case BY_MOUNT:
		return x->mounts;
	case BY_NAME:
		return x->name;
	default:
		return "";
	}
}

static void pool(struct bm_disk_stats *p, const struct bm_disk_stats *d, bool first)
{
	int k, op;

	if (first) {
		p->model = d->model;
		p->dev = d->dev;
		p->merges_known = d->merges_known;
	}
	p->merges_known = p->merges_known && d->merges_known;
	p->reads += d->reads;
	p->writes += d->writes;
	p->read_bytes += d->read_bytes;
	p->write_bytes += d->write_bytes;
	p->others += d->others;
	p->flushes += d->flushes;
	p->rmerges += d->rmerges;
	p->wmerges += d->wmerges;
	p->flush_ns += d->flush_ns;
	p->busy_ns += d->busy_ns;
	p->depth_ns += d->depth_ns;
	p->queue_ns += d->queue_ns;
	p->life_to += d->life_to - d->life_from;	/* the runs' lives, end to end from 0 */
	p->events_lost = p->events_lost || d->events_lost;
	for (k = 0; k < 2; k++)
		for (op = 0; op < 2; op++) {
			p->lat_sum[k][op] += d->lat_sum[k][op];
			p->lat_n[k][op] += d->lat_n[k][op];
		}
}

/* Pool @d's histograms into @x's, and keep this run's Q2C and D2C apart too. */
static int pool_hists(struct inc *x, const struct bm_disk_stats *d)
{
	struct bm_disk_stats *p = &x->st;
	struct bm_hist (*lat)[2] = realloc(x->lat, (x->runs + 1) * sizeof(*x->lat));
	int k, op;

	if (!lat)
		return -1;
	x->lat = lat;
	memset(lat[x->runs], 0, sizeof(lat[x->runs]));
	x->runs++;
	if (bm_hist_merge(&lat[x->runs - 1][BM_LAT_Q2C], &d->q2c) < 0 ||
	    bm_hist_merge(&lat[x->runs - 1][BM_LAT_D2C], &d->d2c) < 0)
		return -1;

	if (bm_hist_merge(&p->q2c, &d->q2c) < 0 || bm_hist_merge(&p->d2c, &d->d2c) < 0)
		return -1;
	for (k = 0; k < 2; k++)
		for (op = 0; op < 2; op++)
			if (bm_hist_merge(&p->lat_op[k][op], &d->lat_op[k][op]) < 0)
				return -1;
	return 0;
}

/* One run's figures that the spread keys range over. */
static void spread(struct inc *x, const struct bm_disk_stats *d)
{
	struct bm_iostat st;
	double v[NSPREAD];
	int i;

	bm_iostat_disk(&st, d);
	v[SP_Q2C] = st.lat_count[BM_LAT_Q2C] ? st.lat_p50_us[BM_LAT_Q2C] : NAN;
	v[SP_D2C] = st.lat_count[BM_LAT_D2C] ? st.lat_p50_us[BM_LAT_D2C] : NAN;
	v[SP_R] = st.r_s;
	v[SP_W] = st.w_s;
	for (i = 0; i < NSPREAD; i++) {
		if (!isfinite(v[i]))
			continue;
		x->lo[i] = isnan(x->lo[i]) || v[i] < x->lo[i] ? v[i] : x->lo[i];
		x->hi[i] = isnan(x->hi[i]) || v[i] > x->hi[i] ? v[i] : x->hi[i];
	}
}

/*
 * The incarnation of this side that @x is, from an earlier run: the
 * strongest identity first, each taken once a run.
 */
static struct inc *earlier(struct side *s, const struct inc *x)
{
	struct inc *best = NULL;
	enum level by = NLEVELS, l;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->v[i]->run == s->run)
			continue;
		l = match_level(s->v[i], x);
		if (l < by) {
			by = l;
			best = s->v[i];
		}
	}
	return best;
}

/* The report's analysis of one run of a side: each incarnation with I/O, pooled. */
static int take(void *ctx, const struct bm_analysis *a, const struct bm_map *map)
{
	struct side *s = ctx;
	const struct bm_disk_stats *const *disks;
	size_t i, n = bm_analysis_disks(a, &disks);
	struct inc *x = NULL, *to;

	(void)map;
	for (i = 0; i < n; i++) {
		const struct bm_disk_stats *d = disks[i];

		x = calloc(1, sizeof(*x));
		if (!x)
			goto nomem;
		identity(x, d, disks, n);
		to = earlier(s, x);
		if (!to) {
			if (bm_grow(&s->v, s->n, &s->cap, sizeof(*s->v), 16) < 0)
				goto nomem;
			for (int k = 0; k < NSPREAD; k++)
				x->lo[k] = x->hi[k] = NAN;
			s->v[s->n++] = to = x;
			x = NULL;
		}
		free(x);
		x = NULL;
		pool(&to->st, d, !to->runs);
		if (pool_hists(to, d) < 0)
			goto nomem;
		spread(to, d);
		to->run = s->run;
		to->wanted = to->wanted || !bm_span_filter_set(s->devices) ||
			     bm_span_filter_match(s->devices, d->span, d->dev);
	}
	return 0;
nomem:
	free(x);
	bm_error_errno("cannot compare the recordings");
	return -1;
}

static int read_side(struct side *s, char *const *paths, size_t n, const struct bm_diff_opts *o)
{
	struct bm_report_opts ro = o->report;
	size_t i;

	ro.view = BM_VIEW_NONE;
	ro.plot = NULL;
	ro.analysed = take;
	ro.ctx = s;
	for (i = 0; i < n; i++) {
		s->run = i + 1;
		if (o->reading)
			o->reading(paths[i]);
		if (bm_report(paths[i], &ro, stdout) < 0)
			return -1;
	}
	return 0;
}

/* --pair's NAME: a kernel name or an incarnation (MAJ:MIN#N). */
static struct inc *named(struct side *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!s->v[i]->pair && (!strcmp(s->v[i]->name, name) || !strcmp(s->v[i]->key, name)))
			return s->v[i];
	return NULL;
}

static int pair_up(struct side *a, struct side *b, const struct bm_diff_opts *o)
{
	size_t i, j;
	unsigned k;
	int l;

	for (k = 0; k < o->npairs; k++) {
		struct inc *x = named(a, o->pair_a[k]), *y = named(b, o->pair_b[k]);

		if (!x || !y) {
			bm_error("--pair=%s=%s: %s has no incarnation with I/O named '%s' (or it is "
				 "paired already)", o->pair_a[k], o->pair_b[k], x ? "B" : "A",
				 x ? o->pair_b[k] : o->pair_a[k]);
			errno = ENOENT;
			return -1;
		}
		x->pair = y;
		y->pair = x;
		x->by = y->by = BY_PAIR;
	}
	/* Level by level, so that a strong match is made before a weak one takes either. */
	for (l = BY_SERIAL; l < NLEVELS; l++)
		for (i = 0; i < a->n; i++)
			for (j = 0; j < b->n && !a->v[i]->pair; j++)
				if (!b->v[j]->pair && match_level(a->v[i], b->v[j]) == (enum level)l) {
					a->v[i]->pair = b->v[j];
					b->v[j]->pair = a->v[i];
					a->v[i]->by = b->v[j]->by = l;
				}
	return 0;
}

/* ---- the test ---- */

/* The mean of @h's midranks (@rank: each bucket's), 0 if it is empty. */
static double mean_rank(const struct bm_hist *h, const double *rank)
{
	double sum = 0;
	int i;

	if (!h->count)
		return 0;
	for (i = 0; i < BM_HIST_SIZE; i++)
		sum += h->buckets[i] * rank[i];
	return sum / h->count;
}

/*
 * The between-run mean square of the runs' mean ranks over the variance of
 * a rank (a design effect, as for clustered data): how much wider the runs
 * of each side spread than their I/Os alone would make them. 1 (no
 * widening) with fewer than three runs in all, or less spread than that.
 */
static double run_spread(const struct inc *x, const struct inc *y, int k, const double *rank,
			 double rank_var)
{
	const struct inc *side[2] = { x, y };
	double between = 0, f;
	unsigned runs = x->runs + y->runs, j;
	int s;

	if (runs < 3 || rank_var <= 0)
		return 1;
	for (s = 0; s < 2; s++) {
		double m = mean_rank(k ? &side[s]->st.d2c : &side[s]->st.q2c, rank);

		for (j = 0; j < side[s]->runs; j++) {
			const struct bm_hist *h = &side[s]->lat[j][k];
			double d = mean_rank(h, rank) - m;

			between += h->count * d * d;
		}
	}
	f = between / (runs - 2) / rank_var;
	return f > 1 ? f : 1;
}

/*
 * P(|T| >= @t) for Student's t with @df degrees of freedom (Abramowitz and
 * Stegun 26.7.3 and 26.7.4: a finite series in cos(theta) for whole @df),
 * less exact than 1e-16 by the subtraction: 0 below that.
 */
static double student_two_sided(double t, unsigned df)
{
	double theta = atan(t / sqrt(df)), c2 = cos(theta) * cos(theta), term, sum, a;
	unsigned i;

	if (df % 2) {
		for (sum = 0, term = cos(theta), i = 3; i <= df; i += 2) {
			sum += term;
			term *= c2 * (i - 1) / i;
		}
		a = 2 / M_PI * (theta + sin(theta) * sum);
	} else {
		for (sum = 0, term = 1, i = 2; i <= df; i += 2) {
			sum += term;
			term *= c2 * (i - 1) / i;
		}
		a = sin(theta) * sum;
	}
	return a < 1 ? 1 - a : 0;
}

/*
 * Mann-Whitney U of A's latencies of kind @k (BM_LAT_Q2C, BM_LAT_D2C)
 * against B's, from their histograms: a bucket's values are tied, each at
 * the bucket's mid rank. The two-sided p-value of the normal approximation
 * with the tie correction and a continuity correction of 0.5; NAN if
 * either has no value, 1 if all are tied. With several runs, its variance
 * is widened by the runs' own spread (run_spread): I/Os of one run are
 * not independent of each other, and a machine that changes from one run
 * to the next must not make a change between A and B. That widening is
 * itself estimated from the runs, with two degrees of freedom fewer than
 * runs: z is then held against Student's t with as many, not the normal
 * (which gave p < 0.01 for one workload against itself in runs of 4 and
 * 4 far more often than once in a hundred).
 */
static double mann_whitney(const struct inc *x, const struct inc *y, int k)
{
	const struct bm_hist *a = k ? &x->st.d2c : &x->st.q2c, *b = k ? &y->st.d2c : &y->st.q2c;
	double na = a->count, nb = b->count, n = na + nb, rank = 0, ra = 0, ties = 0;
	double u, mean, var, z, ss = 0, *mid;
	int i;

	if (!a->count || !b->count)
		return NAN;
	mid = malloc(BM_HIST_SIZE * sizeof(*mid));
	if (!mid)
		return NAN;
	for (i = 0; i < BM_HIST_SIZE; i++) {
		double ca = a->buckets[i], t = ca + b->buckets[i];

		mid[i] = rank + (t + 1) / 2;
		if (!t)
			continue;
		ra += ca * mid[i];
		ties += t * t * t - t;
		ss += t * (mid[i] - (n + 1) / 2) * (mid[i] - (n + 1) / 2);
		rank += t;
	}
	u = ra - na * (na + 1) / 2;
	mean = na * nb / 2;
	var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	var *= run_spread(x, y, k, mid, n > 1 ? ss / (n - 1) : 0);
	free(mid);
	if (var <= 0)
		return 1;
	z = (fabs(u - mean) - 0.5) / sqrt(var);
	if (z <= 0)
		return 1;
	return x->runs + y->runs >= 3 ? student_two_sided(z, x->runs + y->runs - 2) :
					 erfc(z / M_SQRT2);
}

/* With several runs a side, are the runs' medians of A and of B apart? One run: yes. */
static bool apart(const struct inc *x, const struct inc *y, int k)
{
	if (x->runs < 2 && y->runs < 2)
		return true;
	return x->hi[k] < y->lo[k] || y->hi[k] < x->lo[k];
}

/* ---- the rows ---- */

struct rows {
	struct bm_row *a, *b, *out;	/* A's and B's --disks rows, the diff row */
	const struct bm_schema *disks, *diff;
};

/* A --disks figure's value in row @r (of @s), if set. */
static bool value(const struct bm_row *r, int i, double *v)
{
	if (i < 0 || !r->v[i].set)
		return false;
	*v = r->schema->keys[i].type == BM_KEY_INT ? (double)r->v[i].i : r->v[i].d;
	return true;
}

static void side_keys(struct bm_row *r, const char *suffix, const struct inc *x)
{
	static const struct { const char *key; size_t at; } text[] = {
		{ "name", offsetof(struct inc, name) }, { "incarnation", offsetof(struct inc, key) },
		{ "dev", offsetof(struct inc, dev) }, { "kind", offsetof(struct inc, kind) },
		{ "serial", offsetof(struct inc, serial) }, { "wwid", offsetof(struct inc, wwid) },
		{ "model", offsetof(struct inc, model) }, { "lv", offsetof(struct inc, lv) },
		{ "dm", offsetof(struct inc, dm) }, { "dm_uuid", offsetof(struct inc, dm_uuid) },
		{ "backing_file", offsetof(struct inc, backing) },
		{ "mounts", offsetof(struct inc, mounts) },
	};
	char key[64];
	size_t i;
	int k;

	if (!x)
		return;
	for (i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		const char *v = (const char *)x + text[i].at;

		snprintf(key, sizeof(key), "%s_%s", text[i].key, suffix);
		if (v[0])
			bm_row_str(r, key, v);
	}
	snprintf(key, sizeof(key), "runs_%s", suffix);
	bm_row_u64(r, key, x->runs);
	snprintf(key, sizeof(key), "events_lost_%s", suffix);
	bm_row_bool(r, key, x->st.events_lost);
	for (k = 0; k < NSPREAD; k++) {
		snprintf(key, sizeof(key), "%s_min_%s", spread_keys[k], suffix);
		bm_row_num(r, key, x->lo[k]);
		snprintf(key, sizeof(key), "%s_max_%s", spread_keys[k], suffix);
		bm_row_num(r, key, x->hi[k]);
	}
}

/* A figure's change from @a to @b, in percent: NAN where there is none to say. */
static double change_pct(double a, double b)
{
	return a ? (b - a) / fabs(a) * 100 : NAN;
}

/* A --disks figure that the diff schema has as KEY_a, KEY_b and KEY_change_pct? */
static bool compared(const struct rows *w, const struct bm_key *k)
{
	char key[80];

	snprintf(key, sizeof(key), "%s_change_pct", k->key);
	return (k->type == BM_KEY_INT || k->type == BM_KEY_NUM) &&
	       bm_schema_index(w->diff, key) >= 0;
}

/*
 * The figures of the diff row: each key of the disks schema that the diff
 * schema compares, from A's and B's --disks rows.
 */
static void figures(struct rows *w, bool ha, bool hb)
{
	char key[80];
	size_t i;
	double va, vb;

	for (i = 0; i < w->disks->nkeys; i++) {
		const struct bm_key *k = &w->disks->keys[i];
		bool sa, sb;

		if (!compared(w, k))
			continue;
		snprintf(key, sizeof(key), "%s_a", k->key);
		sa = ha && value(w->a, i, &va);
		sb = hb && value(w->b, i, &vb);
		if (sa && k->type == BM_KEY_INT)
			bm_row_int(w->out, key, w->a->v[i].i);
		else if (sa)
			bm_row_num(w->out, key, va);
		snprintf(key, sizeof(key), "%s_b", k->key);
		if (sb && k->type == BM_KEY_INT)
			bm_row_int(w->out, key, w->b->v[i].i);
		else if (sb)
			bm_row_num(w->out, key, vb);
		snprintf(key, sizeof(key), "%s_change_pct", k->key);
		if (sa && sb)
			bm_row_num(w->out, key, change_pct(va, vb));
	}
}

/* The diff row of @x (A's, or NULL) and @y (B's, or NULL), in w->out. */
static void fill(struct rows *w, const struct inc *x, const struct inc *y)
{
	const struct inc *one = x ? x : y;

	if (x) {
		bm_row_start(w->a, NULL, BM_FORMAT_CSV, w->disks);
		bm_disks_row_fill(w->a, &x->st);
	}
	if (y) {
		bm_row_start(w->b, NULL, BM_FORMAT_CSV, w->disks);
		bm_disks_row_fill(w->b, &y->st);
	}
	bm_row_str(w->out, "side", x && y ? "both" : x ? "a" : "b");
	if (x && y) {
		double p[2] = { mann_whitney(x, y, BM_LAT_Q2C), mann_whitney(x, y, BM_LAT_D2C) };
		int k;

		bm_row_str(w->out, "match", level_names[one->by]);
		if (identity_of(x, one->by)[0])
			bm_row_str(w->out, "identity", identity_of(x, one->by));
		bm_row_num(w->out, "q2c_p_value", p[0]);
		bm_row_num(w->out, "d2c_p_value", p[1]);
		for (k = 0; k < 2; k++)
			if (!isnan(p[k]))
				bm_row_bool(w->out, k ? "d2c_changed" : "q2c_changed",
					    p[k] < NOISE_P && apart(x, y, k ? SP_D2C : SP_Q2C));
	}
	side_keys(w->out, "a", x);
	side_keys(w->out, "b", y);
	figures(w, x, y);
}

/* ---- text ---- */

/* A set key's value as the schema prints it, or "-". */
static const char *shown(const struct bm_row *r, const char *key, char *buf, size_t size)
{
	int i = bm_schema_index(r->schema, key);
	const struct bm_key *k;

	if (i < 0 || !r->v[i].set)
		return "-";
	k = &r->schema->keys[i];
	if (k->type == BM_KEY_INT)
		snprintf(buf, size, "%" PRId64, r->v[i].i);
	else if (k->type == BM_KEY_NUM)
		snprintf(buf, size, "%s%.*f", strstr(key, "_change_pct") && r->v[i].d > 0 ? "+" : "",
			 k->decimals, r->v[i].d);
	else if (k->type == BM_KEY_BOOL)
		snprintf(buf, size, "%s", r->v[i].b ? "true" : "false");
	else
		snprintf(buf, size, "%s", r->text + r->v[i].at);
	return buf;
}

/* A p-value to two significant digits (1.2e-15), or "-". */
static const char *p_str(const struct bm_row *r, const char *key, char *buf, size_t size)
{
	double p;

	if (!value(r, bm_schema_index(r->schema, key), &p))
		return "-";
	snprintf(buf, size, "%.2g", p);
	return buf;
}

/* Is @row's key set and true? */
static bool is_true(const struct bm_row *r, const char *key)
{
	int i = bm_schema_index(r->schema, key);

	return i >= 0 && r->v[i].set && r->v[i].b;
}

/* Which latency a --disks figure is of, for its mark: 0 Q2C, 1 D2C, -1 neither. */
static int latency_of(const char *key)
{
	if (strstr(key, "q2c") || strstr(key, "await"))
		return 0;
	if (strstr(key, "d2c"))
		return 1;
	return -1;
}

static void who(FILE *out, const struct inc *x)
{
	char known[600] = "";
	size_t len = 0;

	if (!x) {
		fputs("-", out);
		return;
	}
	if (x->lv[0] || x->dm[0])
		len += snprintf(known + len, sizeof(known) - len, " %s", x->lv[0] ? x->lv : x->dm);
	if (x->backing[0] && len < sizeof(known))
		len += snprintf(known + len, sizeof(known) - len, " %s", x->backing);
	if (x->mounts[0] && len < sizeof(known))
		snprintf(known + len, sizeof(known) - len, " on %s", x->mounts);
	fprintf(out, "%s %s%s%s%s", x->name[0] ? x->name : "?", x->key[0] ? x->key : x->dev,
		known[0] ? " (" : "", known[0] ? known + 1 : "", known[0] ? ")" : "");
}

static void text(FILE *out, struct rows *w, const struct inc *x, const struct inc *y)
{
	char a[64], b[64], c[64], pct[80], key[80];
	const char *va, *vb, *vc;
	bool marked = false;
	size_t i;

	fputs("A: ", out);
	who(out, x);
	fputs("\nB: ", out);
	who(out, y);
	if (x && y)
		fprintf(out, "\nmatched by %s%s%s\n", level_names[x->by],
			identity_of(x, x->by)[0] ? ": " : "", identity_of(x, x->by));
	else
		fprintf(out, "\nonly in %s\n", x ? "A" : "B");
	if (x && (x->runs > 1 || (y && y->runs > 1)))
		fprintf(out, "runs: A %u, B %u\n", x->runs, y ? y->runs : 0);
	fprintf(out, "%-20s %16s %16s %12s\n", "FIGURE", "A", "B", "CHANGE");
	for (i = 0; i < w->disks->nkeys; i++) {
		const char *k = w->disks->keys[i].key;
		int lat = latency_of(k);
		bool mark;

		if (!compared(w, &w->disks->keys[i]))
			continue;
		snprintf(key, sizeof(key), "%s_a", k);
		va = shown(w->out, key, a, sizeof(a));
		snprintf(key, sizeof(key), "%s_b", k);
		vb = shown(w->out, key, b, sizeof(b));
		if (!strcmp(va, "-") && !strcmp(vb, "-"))
			continue;
		snprintf(key, sizeof(key), "%s_change_pct", k);
		vc = shown(w->out, key, c, sizeof(c));
		mark = lat >= 0 && strcmp(vc, "-") &&
		       is_true(w->out, lat ? "d2c_changed" : "q2c_changed");
		marked = marked || mark;
		if (strcmp(vc, "-"))
			snprintf(pct, sizeof(pct), "%s%%", vc);
		fprintf(out, "%-20s %16s %16s %12s%s\n", k, va, vb, strcmp(vc, "-") ? pct : vc,
			mark ? " *" : "");
	}
	if (x && y)
		fprintf(out, "Mann-Whitney U: Q2C p = %s, D2C p = %s%s\n",
			p_str(w->out, "q2c_p_value", a, sizeof(a)),
			p_str(w->out, "d2c_p_value", b, sizeof(b)),
			marked ? "; * a latency changed beyond noise (p < 0.01)" : "");
	fputc('\n', out);
}

static int write_rows(FILE *out, const struct side *a, const struct side *b,
		      const struct bm_diff_opts *o)
{
	struct rows w = { .disks = bm_schema_find("disks"), .diff = bm_schema_find("diff") };
	size_t i;
	int ret = -1;

	w.a = malloc(sizeof(*w.a));
	w.b = malloc(sizeof(*w.b));
	w.out = malloc(sizeof(*w.out));
	if (!w.a || !w.b || !w.out) {
		bm_error_errno("cannot compare the recordings");
		goto out;
	}
	bm_row_start(w.out, out, o->format, w.diff);
	if (o->format == BM_FORMAT_CSV && !o->no_header)
		bm_schema_csv_header(out, w.diff);
	/* A's in their order, each with its pair; then B's alone. */
	for (i = 0; i < a->n + b->n; i++) {
		const struct inc *x = i < a->n ? a->v[i] : NULL;
		const struct inc *y = x ? x->pair : b->v[i - a->n];

		if (!x && y->pair)
			continue;
		if (!((x && x->wanted) || (y && y->wanted)))
			continue;
		fill(&w, x, y);
		if (o->format == BM_FORMAT_TEXT) {
			text(out, &w, x, y);
			bm_row_start(w.out, out, o->format, w.diff);
		} else {
			bm_row_end(w.out);
		}
	}
	ret = 0;
out:
	free(w.a);
	free(w.b);
	free(w.out);
	return ret;
}

static bool any_wanted(const struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i]->wanted)
			return true;
	return false;
}

static void side_free(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		inc_free(s->v[i]);
	free(s->v);
}

int bm_diff(char *const *a, size_t na, char *const *b, size_t nb,
	    const struct bm_diff_opts *o, FILE *out)
{
	struct side sa = { .devices = o->devices }, sb = { .devices = o->devices };
	int ret = -1;

	if (read_side(&sa, a, na, o) < 0 || read_side(&sb, b, nb, o) < 0)
		goto out;
	if (bm_span_filter_set(o->devices) && !any_wanted(&sa) && !any_wanted(&sb)) {
		bm_error("--disk and --dev name no incarnation with I/O in A or in B");
		errno = ENOENT;
		goto out;
	}
	if (pair_up(&sa, &sb, o) < 0 || write_rows(out, &sa, &sb, o) < 0)
		goto out;
	if (fflush(out) != 0 || ferror(out)) {
		bm_error_errno("cannot write the comparison");
		goto out;
	}
	ret = 0;
out:
	side_free(&sa);
	side_free(&sb);
	return ret;
}
