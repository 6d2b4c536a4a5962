// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process-to-cgroup map (cgroups.h). Each task is a list of lives (a
 * pid reused after an exit starts a new one), each life a list of stays
 * (in cgroup C from time T on), found from the pid through a hash of
 * each pid's newest life. Observations come in time order, so every list
 * is appended to and searched from its end.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/cgroups.h"

struct name {
	uint64_t from;
	char *path;
};

struct cgroup {
	uint64_t id, from, to;
	unsigned incarnation;
	struct name *names;	/* the path it had from each time on */
	size_t nnames;
};

struct stay {
	uint64_t from;
	size_t cgroup;		/* an index of cgs */
};

/* A writeback of an inode by a flusher, for a cgroup. */
struct writing {
	uint64_t from, to;	/* to: UINT64_MAX while it goes on */
	size_t cgroup;
};

struct life {
	int pid;
	uint64_t from;		/* its fork; 0: before the recording */
	uint64_t to;		/* its exit; UINT64_MAX while it lives */
	struct stay *stays;
	size_t nstays;
	struct writing *writes;	/* in time order, none overlapping */
	size_t nwrites;
	size_t prev;		/* the pid's life before, as an index + 1; 0: none */
};

struct loss {
	uint64_t from, to;
};

struct bm_cgroups {
	struct cgroup *cgs;
	size_t ncgs;
	struct life *lives;
	size_t nlives;
	size_t *slots;		/* by pid: the newest life's index + 1; 0: empty */
	int *slot_pids;
	size_t nslots;		/* a power of two, at least twice the pids */
	size_t npids;
	struct loss *losses;
	size_t nlosses;
};

/*
 * Room in @*v, of @n elements of @size, for one more: its capacity is 4,
 * or the power of two at or above @n. false when out of memory.
 */
static bool grow(void **v, size_t n, size_t size)
{
	void *grown;

	if (n && (n < 4 || (n & (n - 1))))
		return true;
	grown = realloc(*v, (n ? 2 * n : 4) * size);
	if (!grown)
		return false;
	*v = grown;
	return true;
}

#define room(array, n)	grow((void **)&(array), (n), sizeof(*(array)))

struct bm_cgroups *bm_cgroups_new(void)
{
	return calloc(1, sizeof(struct bm_cgroups));
}

void bm_cgroups_free(struct bm_cgroups *cg)
{
	size_t i, j;

	if (!cg)
		return;
	for (i = 0; i < cg->ncgs; i++) {
		for (j = 0; j < cg->cgs[i].nnames; j++)
			free(cg->cgs[i].names[j].path);
		free(cg->cgs[i].names);
	}
	for (i = 0; i < cg->nlives; i++) {
		free(cg->lives[i].stays);
		free(cg->lives[i].writes);
	}
	free(cg->cgs);
	free(cg->lives);
	free(cg->slots);
	free(cg->slot_pids);
	free(cg->losses);
	free(cg);
}

static size_t hash(int pid, size_t nslots)
{
	return ((uint32_t)pid * 2654435761u) & (nslots - 1);
}

/* The slot of @pid: its own, or the empty one it would take. */
static size_t slot_of(const struct bm_cgroups *cg, int pid)
{
	size_t s = hash(pid, cg->nslots);

	while (cg->slots[s] && cg->slot_pids[s] != pid)
		s = (s + 1) & (cg->nslots - 1);
	return s;
}

static struct life *newest(const struct bm_cgroups *cg, int pid)
{
	size_t s;

	if (!cg->nslots)
		return NULL;
	s = slot_of(cg, pid);
	return cg->slots[s] ? &cg->lives[cg->slots[s] - 1] : NULL;
}

static bool grow_slots(struct bm_cgroups *cg)
{
	size_t n = cg->nslots ? 2 * cg->nslots : 1024, old = cg->nslots, i;
	size_t *slots = calloc(n, sizeof(*slots)), *old_slots = cg->slots;
	int *pids = calloc(n, sizeof(*pids)), *old_pids = cg->slot_pids;

	if (!slots || !pids) {
		free(slots);
		free(pids);
		return false;
	}
	cg->slots = slots;
	cg->slot_pids = pids;
	cg->nslots = n;
	for (i = 0; i < old; i++) {
		size_t s;

		if (!old_slots[i])
			continue;
		s = slot_of(cg, old_pids[i]);
		slots[s] = old_slots[i];
		pids[s] = old_pids[i];
	}
	free(old_slots);
	free(old_pids);
	return true;
}

/* A new life of @pid from @from, the newest; NULL when out of memory. */
static struct life *new_life(struct bm_cgroups *cg, int pid, uint64_t from)
{
	struct life *prev = newest(cg, pid);
	size_t s;

	if (!prev && 2 * (cg->npids + 1) > cg->nslots && !grow_slots(cg))
		return NULL;
	if (!room(cg->lives, cg->nlives))
		return NULL;
	s = slot_of(cg, pid);
	cg->lives[cg->nlives] = (struct life){ .pid = pid, .from = from, .to = UINT64_MAX,
		.prev = cg->slots[s] };
	cg->npids += !cg->slots[s];
	cg->slots[s] = ++cg->nlives;
	cg->slot_pids[s] = pid;
	return &cg->lives[cg->nlives - 1];
}

static long find_cgroup(const struct bm_cgroups *cg, uint64_t id)
{
	size_t i = cg->ncgs;

	while (i-- > 0)
		if (cg->cgs[i].id == id)
			return i;
	return -1;
}

static int add_name(struct cgroup *c, uint64_t ts, const char *path)
{
	char *copy = strdup(path);

	if (!copy || !room(c->names, c->nnames)) {
		free(copy);
		return -1;
	}
	c->names[c->nnames++] = (struct name){ .from = ts, .path = copy };
	return 0;
}

/* The index of cgroup @id, made at @ts on @path if it is not known; -1 when out of memory. */
static long cgroup_of_id(struct bm_cgroups *cg, uint64_t ts, uint64_t id, const char *path)
{
	long i = find_cgroup(cg, id);
	unsigned n = 1;
	size_t k;

	if (i >= 0)
		return i;
	for (k = 0; k < cg->ncgs; k++)
		n += !strcmp(cg->cgs[k].names[0].path, path);
	if (!room(cg->cgs, cg->ncgs))
		return -1;
	cg->cgs[cg->ncgs] = (struct cgroup){ .id = id, .from = ts, .to = UINT64_MAX,
		.incarnation = n };
	if (add_name(&cg->cgs[cg->ncgs], ts, path) < 0)
		return -1;
	return cg->ncgs++;
}

int bm_cgroups_made(struct bm_cgroups *cg, uint64_t ts, uint64_t id, const char *path)
{
	return cgroup_of_id(cg, ts, id, path) < 0 ? (errno = ENOMEM, -1) : 0;
}

void bm_cgroups_removed(struct bm_cgroups *cg, uint64_t ts, uint64_t id)
{
	long i = find_cgroup(cg, id);

	if (i >= 0)
		cg->cgs[i].to = ts;
}

int bm_cgroups_renamed(struct bm_cgroups *cg, uint64_t ts, uint64_t id, const char *path)
{
	long i = find_cgroup(cg, id);

	if (i < 0)
		return bm_cgroups_made(cg, ts, id, path);
	return add_name(&cg->cgs[i], ts, path) < 0 ? (errno = ENOMEM, -1) : 0;
}

static int stay(struct life *l, uint64_t ts, size_t cgroup)
{
	if (l->nstays && l->stays[l->nstays - 1].cgroup == cgroup)
		return 0;
	if (!room(l->stays, l->nstays))
		return -1;
	l->stays[l->nstays++] = (struct stay){ .from = ts, .cgroup = cgroup };
	return 0;
}

int bm_cgroups_moved(struct bm_cgroups *cg, uint64_t ts, int pid, uint64_t id,
		     const char *path)
{
	long c = cgroup_of_id(cg, ts, id, path);
	struct life *l = newest(cg, pid);

	if (c < 0)
		return errno = ENOMEM, -1;
	/*
	 * A task not seen alive: the first of its pid was there before the
	 * recording (the statedump missed it); a later one, a fork not seen.
	 */
	if (!l || l->to != UINT64_MAX)
		l = new_life(cg, pid, l ? ts : 0);
	if (!l || stay(l, ts, c) < 0)
		return errno = ENOMEM, -1;
	return 0;
}

int bm_cgroups_seen(struct bm_cgroups *cg, uint64_t ts, int pid, uint64_t id,
		    const char *path)
{
	const struct life *l = newest(cg, pid);

	if (l && l->to == UINT64_MAX && l->nstays)
		return 0;
	return bm_cgroups_moved(cg, ts, pid, id, path);
}

/* The stay of @l at @ts, or NULL if none began by then. */
static const struct stay *stay_at(const struct life *l, uint64_t ts)
{
	size_t lo = 0, hi = l->nstays;

	while (lo < hi) {	/* the first stay beginning after @ts */
		size_t mid = (lo + hi) / 2;

		if (l->stays[mid].from <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &l->stays[lo - 1] : NULL;
}

int bm_cgroups_forked(struct bm_cgroups *cg, uint64_t ts, int parent, int child)
{
	const struct life *p = newest(cg, parent);
	const struct stay *s = p && p->to == UINT64_MAX ? stay_at(p, ts) : NULL;
	size_t c = s ? s->cgroup : 0;
	struct life *l = new_life(cg, child, ts);

	if (!l)
		return errno = ENOMEM, -1;
	/* A parent not known leaves the child not known until it moves. */
	return s && stay(l, ts, c) < 0 ? (errno = ENOMEM, -1) : 0;
}

void bm_cgroups_exited(struct bm_cgroups *cg, uint64_t ts, int pid)
{
	struct life *l = newest(cg, pid);

	if (l && l->to == UINT64_MAX)
		l->to = ts;
}

/* @pid's life now: its newest if alive, else a new one (from before the recording if first). */
static struct life *alive(struct bm_cgroups *cg, uint64_t ts, int pid)
{
	struct life *l = newest(cg, pid);

	if (l && l->to == UINT64_MAX)
		return l;
	return new_life(cg, pid, l ? ts : 0);
}

void bm_cgroups_written(struct bm_cgroups *cg, uint64_t ts, int pid)
{
	struct life *l = newest(cg, pid);

	if (l && l->nwrites && l->writes[l->nwrites - 1].to == UINT64_MAX)
		l->writes[l->nwrites - 1].to = ts;
}

int bm_cgroups_writing(struct bm_cgroups *cg, uint64_t ts, int pid, uint64_t id)
{
	long c = find_cgroup(cg, id);
	struct life *l;

	if (c < 0)
		return 0;
	bm_cgroups_written(cg, ts, pid);	/* its end was lost: it ended by now */
	l = alive(cg, ts, pid);
	if (!l || !room(l->writes, l->nwrites))
		return errno = ENOMEM, -1;
	l->writes[l->nwrites++] = (struct writing){ .from = ts, .to = UINT64_MAX, .cgroup = c };
	return 0;
}

void bm_cgroups_lost(struct bm_cgroups *cg, uint64_t from, uint64_t to)
{
	if (!room(cg->losses, cg->nlosses))
		return;		/* then a guess reads as exact: memory is gone anyway */
	cg->losses[cg->nlosses++] = (struct loss){ .from = from, .to = to };
}

static void fill(const struct bm_cgroups *cg, size_t i, uint64_t ts, struct bm_cgroup *out)
{
	const struct cgroup *c = &cg->cgs[i];
	size_t k = c->nnames;

	while (k > 1 && c->names[k - 1].from > ts)
		k--;
	*out = (struct bm_cgroup){ .id = c->id, .path = c->names[k - 1].path,
		.incarnation = c->incarnation, .from = c->from, .to = c->to };
}

/* The life of @pid that had begun by @ts and not ended, or NULL. */
static const struct life *life_at(const struct bm_cgroups *cg, int pid, uint64_t ts)
{
	const struct life *l = newest(cg, pid);

	while (l && l->prev && l->from > ts)
		l = &cg->lives[l->prev - 1];
	return l && l->from <= ts && ts <= l->to ? l : NULL;
}

/* Were events lost between @from and @to? */
static bool lost_between(const struct bm_cgroups *cg, uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 0; i < cg->nlosses; i++)
		if (cg->losses[i].to > from && cg->losses[i].from < to)
			return true;
	return false;
}

enum bm_cgroup_basis bm_cgroups_of(const struct bm_cgroups *cg, int pid, uint64_t ts,
				   struct bm_cgroup *out)
{
	const struct life *l = life_at(cg, pid, ts);
	const struct stay *s;

	if (!l || !(s = stay_at(l, ts)))
		return BM_CG_UNKNOWN;
	fill(cg, s->cgroup, ts, out);
	return lost_between(cg, s->from, ts) ? BM_CG_GUESS : BM_CG_EXACT;
}

enum bm_cgroup_basis bm_cgroups_charged(const struct bm_cgroups *cg, int pid, uint64_t ts,
					bool write, struct bm_cgroup *out)
{
	const struct life *l = write ? life_at(cg, pid, ts) : NULL;
	size_t lo = 0, hi = l ? l->nwrites : 0;

	while (lo < hi) {	/* the first writeback beginning after @ts */
		size_t mid = (lo + hi) / 2;

		if (l->writes[mid].from <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ts <= l->writes[lo - 1].to) {
		fill(cg, l->writes[lo - 1].cgroup, ts, out);
		return lost_between(cg, l->writes[lo - 1].from, ts) ? BM_CG_GUESS :
								       BM_CG_WRITEBACK;
	}
	return bm_cgroups_of(cg, pid, ts, out);
}

int bm_cgroups_by_id(const struct bm_cgroups *cg, uint64_t id, uint64_t ts,
		     struct bm_cgroup *out)
{
	long i = find_cgroup(cg, id);

	if (i < 0)
		return 0;
	fill(cg, i, ts, out);
	return 1;
}
