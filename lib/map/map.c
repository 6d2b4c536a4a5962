// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time-ranged device map. Observations arrive in timestamp order;
 * each device number keeps its incarnations (spans) in time order, the
 * last one open while the device exists.
 *
 * Bounds come from the sources and from ordering: an add happened after
 * the previous incarnation's removal began to be possible (its lower
 * bound), and after the last statedump that did not list the device; a
 * removal happened after the last moment the device was known to exist.
 *
 * This file reconciles the observations (the writing side); the lost
 * events' gaps are gaps.c, the label query and the finished map's reading
 * label.c (mapping.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/tracefile/decode.h"

#include "mapping.h"

/* A conflict at @ts; concerning incarnation @s of @d (or none: NULL) if told. */
static void conflict(struct bm_map *m, uint64_t ts, const struct devstate *d,
		     const struct bm_span *s, const char *fmt, ...)
{
	struct bm_conflict *c;
	va_list ap;

	if (m->nconflicts == m->capconflicts) {
		size_t cap = m->capconflicts ? 2 * m->capconflicts : 16;

		c = realloc(m->conflicts, cap * sizeof(*c));
		if (!c)
			return;
		m->conflicts = c;
		m->capconflicts = cap;
	}
	c = &m->conflicts[m->nconflicts++];
	c->ts = ts;
	c->has_dev = d && s;
	c->dev = d ? d->dev : 0;
	c->at = s ? max64(s->seen, s->from.hi) : 0;
	va_start(ap, fmt);
	vsnprintf(c->text, sizeof(c->text), fmt, ap);
	va_end(ap);
}

ssize_t map_find_index(const struct bm_map *m, uint32_t dev, size_t *insert_at)
{
	size_t lo = 0, hi = m->ndevs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->devs[mid].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (insert_at)
		*insert_at = lo;
	return lo < m->ndevs && m->devs[lo].dev == dev ? (ssize_t)lo : -1;
}

static struct devstate *get_dev(struct bm_map *m, uint32_t dev)
{
	size_t at;
	ssize_t i = map_find_index(m, dev, &at);

	if (i >= 0)
		return &m->devs[i];
	if (m->ndevs == m->capdevs) {
		size_t cap = m->capdevs ? 2 * m->capdevs : 64;
		struct devstate *d = realloc(m->devs, cap * sizeof(*d));

		if (!d)
			return NULL;
		m->devs = d;
		m->capdevs = cap;
	}
	memmove(&m->devs[at + 1], &m->devs[at], (m->ndevs - at) * sizeof(*m->devs));
	memset(&m->devs[at], 0, sizeof(*m->devs));
	m->devs[at].dev = dev;
	m->ndevs++;
	return &m->devs[at];
}

static struct bm_span *open_span(struct devstate *d)
{
	return d->open ? &d->spans[d->n - 1] : NULL;
}

/* Kernel-side records: a boundary they give is exact. */
#define BY_KERNEL (BM_SRC_MODULE | BM_SRC_KPROBE | BM_SRC_TRACEPOINT)

static bool same_name(const struct bm_span *s, const struct bm_obs *o)
{
	return !o->name || !o->name[0] || !strcmp(s->name, o->name);
}

/*
 * Is the add @o that of the incarnation @s? Its name, and its diskseq where
 * both know it: an add under the same name with another diskseq is another
 * disk, whose predecessor's removal was lost. Only adds are compared so: a
 * partition's removal carries its disk's diskseq as it is then (a loop
 * detach changes it first), and a dump's, a media change's (loop attach).
 */
static bool same_add(const struct bm_span *s, const struct bm_obs *o)
{
	if (s->diskseq && o->diskseq && s->diskseq != o->diskseq)
		return false;
	return same_name(s, o);
}

/*
 * Is @o, a weaker record (a uevent: at or before its time, after o->after),
 * the late word on an add (or removal) a kernel-side source saw exactly, or
 * on an incarnation already past (its diskseq says which)? Then it says
 * nothing new of the boundaries: it must not open, close or split
 * anything. The incarnation it is about, or NULL.
 */
static struct bm_span *explained(struct devstate *d, const struct bm_obs *o, bool removal)
{
	size_t i;

	if (o->exact)
		return NULL;
	/* Its diskseq names an incarnation already past: late news of it. */
	for (i = 0; o->diskseq && i < d->n; i++)
		if (d->spans[i].diskseq == o->diskseq && same_name(&d->spans[i], o) &&
		    !(d->open && i == d->n - 1))
			return &d->spans[i];
	for (i = d->n; i-- > 0;) {
		struct bm_span *s = &d->spans[i];
		const struct bm_bound *b = removal ? &s->to : &s->from;

		/*
		 * The kernel sends uevents in order: an add uevent after the
		 * remove uevent of @s is another incarnation's, whatever the
		 * name (without diskseq, before 5.15, nothing else tells).
		 */
		if (!removal && (o->by & BM_SRC_UEVENT) && s->to.known &&
		    (s->to.by & BM_SRC_UEVENT) && s->to.hi <= o->ts)
			continue;
		if (b->known && b->lo == b->hi && (b->by & BY_KERNEL) &&
		    (removal ? same_name(s, o) : same_add(s, o)) &&
		    b->lo >= o->after && b->lo <= o->ts)
			return s;
	}
	return NULL;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	if (src && src[0])
		snprintf(dst, size, "%s", src);
}

/*
 * A dm name seen by @o: the first is the incarnation's from its start; one
 * that differs from the last is a rename, at o->ts or within o->after to
 * o->ts. Past BM_DM_NAMES, the last rename stands for the later ones.
 */
static void learn_dm(struct bm_span *s, const struct bm_obs *o)
{
	struct bm_dm_name *n;

	if (!s->ndm) {
		copy_str(s->dm, sizeof(s->dm), o->dm);
		n = &s->dm_names[s->ndm++];
		n->lo = n->hi = 0;
	} else if (strcmp(s->dm_names[s->ndm - 1].name, o->dm)) {
		n = &s->dm_names[s->ndm < BM_DM_NAMES ? s->ndm++ : BM_DM_NAMES - 1];
		n->hi = o->ts;
		n->lo = o->exact || !o->after || o->after > o->ts ? o->ts : o->after;
	} else {
		return;
	}
	copy_str(n->name, sizeof(n->name), o->dm);
}

/* Fill what the span does not know yet from @o. */
static void learn(struct bm_span *s, const struct bm_obs *o)
{
	if (!s->parent[0])
		copy_str(s->parent, sizeof(s->parent), o->parent);
	if (o->dm && o->dm[0])
		learn_dm(s, o);
	if (!s->serial[0])
		copy_str(s->serial, sizeof(s->serial), o->serial);
	if (!s->via[0])
		copy_str(s->via, sizeof(s->via), o->via);
	if (!s->dm_uuid[0])
		copy_str(s->dm_uuid, sizeof(s->dm_uuid), o->dm_uuid);
	/* lo_file_name (a probe's) is what losetup set, at most 63 bytes: sysfs's path is whole. */
	if (o->backing && o->backing[0] &&
	    (!s->backing[0] || (s->backing_probed && o->by != BM_SRC_KPROBE))) {
		copy_str(s->backing, sizeof(s->backing), o->backing);
		s->backing_probed = o->by == BM_SRC_KPROBE;
	}
	if (!s->wwid[0])
		copy_str(s->wwid, sizeof(s->wwid), o->wwid);
	if (!s->model[0])
		copy_str(s->model, sizeof(s->model), o->model);
	if (!s->firmware[0])
		copy_str(s->firmware, sizeof(s->firmware), o->firmware);
	if (o->diskseq)
		s->diskseq = o->diskseq;
	if (o->empty)
		s->empty = true;
	if (o->size)
		s->size = o->size;
}

static struct bm_span *new_span(struct devstate *d, const struct bm_obs *o)
{
	struct bm_span *s;

	if (d->n == d->capspans) {
		size_t cap = d->capspans ? 2 * d->capspans : 4;

		s = realloc(d->spans, cap * sizeof(*s));
		if (!s)
			return NULL;
		d->spans = s;
		d->capspans = cap;
	}
	s = &d->spans[d->n++];
	memset(s, 0, sizeof(*s));
	s->dev = d->dev;
	s->kind = o->kind;
	if (d->nearly) {	/* the mount table was read before the dump */
		s->mounts = d->early_mounts;
		s->nmounts = s->capmounts = d->nearly;
		d->early_mounts = NULL;
		d->nearly = d->capearly = 0;
	}
	copy_str(s->name, sizeof(s->name), o->name);
	learn(s, o);
	d->open = true;
	return s;
}

/* The earliest an incarnation of @d added now can have been added. */
static uint64_t add_lower_bound(const struct bm_map *m, const struct devstate *d,
				const struct bm_obs *o, size_t previous)
{
	uint64_t lo = max64(o->after, d->absent_since);

	if (previous)
		lo = max64(lo, d->spans[previous - 1].to.lo);
	else
		lo = max64(lo, m->no_history_lo);
	return lo;
}

/*
 * Two sources bound the same change: keep what both say. A kernel-side
 * record (a point) wins over a window that disagrees with it, and a weaker
 * window changes nothing of it; a window from before the recording
 * (unknown) takes the new one, within its end. The sources named are those
 * that decided the bound: the one that gave each end of the window.
 */
static void narrow(struct bm_bound *b, const struct bm_bound *w)
{
	bool exact = b->known && b->lo == b->hi && (b->by & BY_KERNEL);
	bool w_exact = w->lo == w->hi && (w->by & BY_KERNEL);

	if (!b->known) {
		b->lo = w->lo;
		b->hi = min64(b->hi, w->hi);
		if (w_exact)
			b->hi = w->hi;
		b->by |= w->by;
	} else if (w_exact) {
		b->by = exact && b->lo == w->lo ? b->by | w->by : w->by;
		b->lo = b->hi = w->lo;
	} else if (!exact) {
		uint64_t lo = max64(b->lo, w->lo), hi = min64(b->hi, w->hi);

		if (lo <= hi) {
			b->by = ((lo == b->lo || hi == b->hi) ? b->by : 0) |
				((lo == w->lo || hi == w->hi) ? w->by : 0);
			b->lo = lo;
			b->hi = hi;
		}
	}
	if (b->lo > b->hi)
		b->lo = b->hi;
	b->known = true;
}

static void close_span(struct bm_span *s, uint64_t lo, uint64_t hi, unsigned by)
{
	if (s->removed_before && s->removed_before < hi)
		hi = s->removed_before;
	s->to.known = true;
	s->to.hi = hi;
	s->to.lo = min64(max64(max64(lo, s->seen), s->from.known ? s->from.lo : 0), hi);
	s->to.by = by;
}

/* Take a pending exact registration as the add time of a disk, if it fits. */
static bool take_registration(struct devstate *d, const struct bm_obs *o, uint64_t lo,
			      struct bm_bound *from)
{
	if (o->kind != BM_DISK || !d->registered || d->registered < lo ||
	    d->registered > o->ts)
		return false;
	from->known = true;
	from->lo = from->hi = d->registered;
	from->by |= BM_SRC_TRACEPOINT;
	d->registered = 0;
	return true;
}

static void displace(struct bm_map *m, struct devstate *d, const struct bm_obs *o,
		     const char *how)
{
	struct bm_span *s = open_span(d);

	if (s->diskseq && o->diskseq && s->diskseq != o->diskseq)
		conflict(m, o->ts, d, s,
			 "%u:%u: %s '%s' (diskseq %llu) while '%s' (diskseq %llu) was present, "
			 "whose removal was not seen", BM_MAJOR(d->dev), BM_MINOR(d->dev), how,
			 o->name ? o->name : "?", (unsigned long long)o->diskseq, s->name,
			 (unsigned long long)s->diskseq);
	else
		conflict(m, o->ts, d, s,
			 "%u:%u: %s '%s' while '%s' was present, whose removal was not seen",
			 BM_MAJOR(d->dev), BM_MINOR(d->dev), how, o->name ? o->name : "?", s->name);
	close_span(s, s->seen, o->ts, BM_SRC_INFERENCE);
	d->open = false;
}

/*
 * diskseq only grows: a disk's late add (a uevent: its kernel records were
 * lost) with a lower diskseq than an incarnation already known happened
 * before that one was added. It goes in before it, whole: added and removed
 * between its neighbours. True if @o was such an add. Not for partitions:
 * theirs is their disk's, which may have been added long before.
 */
static bool insert_older(struct devstate *d, const struct bm_obs *o)
{
	bool was_open = d->open;
	struct bm_span *s, *next, added;
	size_t j;

	if (o->exact || o->kind != BM_DISK || !o->diskseq)
		return false;
	for (j = 0; j < d->n; j++)
		if (d->spans[j].diskseq > o->diskseq)
			break;
	if (j == d->n || !new_span(d, o))
		return false;
	/* new_span() appended it and marked the device open: move it to j. */
	added = d->spans[d->n - 1];
	memmove(&d->spans[j + 1], &d->spans[j], (d->n - 1 - j) * sizeof(added));
	d->spans[j] = added;
	d->open = was_open;
	s = &d->spans[j];
	next = &d->spans[j + 1];
	s->from.known = s->to.known = true;
	s->from.lo = j ? d->spans[j - 1].to.lo : o->after;
	s->from.hi = min64(o->ts, next->from.hi);
	s->from.by = o->by;
	s->to.lo = s->from.lo;
	s->to.hi = next->from.hi;
	s->to.by = BM_SRC_INFERENCE;
	s->seen = s->from.lo;
	return true;
}

static void observe_add(struct bm_map *m, struct devstate *d, const struct bm_obs *o)
{
	struct bm_span *s = open_span(d), *known = explained(d, o, false);
	uint64_t lo;

	if (known) {	/* what the kernel-side record did not say: its serial, dm name */
		learn(known, o);
		return;
	}
	if (insert_older(d, o))
		return;
	if (s && same_add(s, o)) {
		/* Seen already (a statedump, another source): narrow its add. */
		struct bm_bound w = { .known = true, .by = o->by };

		learn(s, o);
		if (o->exact) {
			w.lo = w.hi = o->ts;
		} else if (!take_registration(d, o, add_lower_bound(m, d, o, d->n - 1), &w)) {
			w.lo = add_lower_bound(m, d, o, d->n - 1);
			w.hi = o->ts;
		}
		narrow(&s->from, &w);
		s->seen = max64(s->seen, s->from.lo);
		return;
	}
	if (s)
		displace(m, d, o, "added");
	lo = add_lower_bound(m, d, o, d->n);
	s = new_span(d, o);
	if (!s)
		return;
	s->from.known = true;
	s->from.by = o->by;
	if (o->exact) {
		s->from.lo = s->from.hi = o->ts;
	} else if (!take_registration(d, o, lo, &s->from)) {
		s->from.lo = lo;
		s->from.hi = o->ts;
	}
	s->seen = s->from.lo;
}

/*
 * Late news of a past state of a disk (diskseq only grows): what it says
 * (a loop attachment's backing file) belongs to the incarnation that had
 * that diskseq, if there is one; never to the current one.
 */
static void learn_past(struct devstate *d, const struct bm_obs *o)
{
	size_t i;

	for (i = d->n; o->diskseq && i-- > 0;)
		if (d->spans[i].diskseq == o->diskseq) {
			learn(&d->spans[i], o);
			return;
		}
}

/*
 * A disk whose diskseq grew without a removal: a loop device attached to
 * another file, a medium changed. The map model's identity rule makes it
 * another incarnation (a different diskseq is a different disk), from the
 * change on; diskseq only grows, so a lower one is late news of the past.
 */
static bool reseq(const struct bm_span *s, const struct bm_obs *o)
{
	if (s->kind != BM_DISK || o->kind != BM_DISK || !o->diskseq)
		return false;
	if (s->diskseq)
		return o->diskseq > s->diskseq;
	/*
	 * After a probed detach, whose new diskseq the probe cannot read: a
	 * greater one that a weaker source reads is the detached disk's own,
	 * and only a probed attach (exact) starts another attachment.
	 */
	return s->seq_after && o->type == BM_OBS_CHANGE && o->exact && o->diskseq > s->seq_after;
}

/* Is @o late news of an incarnation before @s (a lower diskseq)? */
static bool older(const struct bm_span *s, const struct bm_obs *o)
{
	if (!o->diskseq)
		return false;
	return s->diskseq ? o->diskseq < s->diskseq : s->seq_after && o->diskseq <= s->seq_after;
}

static void observe_reseq(struct devstate *d, struct bm_span *s, const struct bm_obs *o)
{
	struct bm_obs next = *o;
	uint64_t lo = o->ts;

	/*
	 * A probed attach over an attachment with a file that was never
	 * detached (the probes see every detach) is LOOP_CHANGE_FD, which
	 * leaves lo_file_name as it was: the probe names the previous file.
	 * The new one's comes from sysfs (a statedump).
	 */
	if (o->by == BM_SRC_KPROBE && s->diskseq && s->backing[0])
		next.backing = NULL;

	if (!o->exact)
		lo = min64(max64(max64(o->after, s->seen), s->from.known ? s->from.hi : 0), o->ts);
	close_span(s, lo, o->ts, o->by);
	d->open = false;
	s = new_span(d, &next);
	if (!s)
		return;
	s->from = (struct bm_bound){ .known = true, .lo = lo, .hi = o->ts, .by = o->by };
	s->seen = lo;
	s->reseq = true;
}

/*
 * A loop device's detach, seen by its probe (exact, at the return of
 * __loop_clr_fd): the attachment of diskseq o->diskseq ends, and the
 * device, still there, has no medium from then on, with a diskseq the
 * probe could not read (greater than the attachment's).
 */
static void observe_detach(struct devstate *d, const struct bm_obs *o)
{
	struct bm_span *s = open_span(d);
	struct bm_obs empty = *o;

	if (!s || !same_name(s, o) || s->kind != BM_DISK || older(s, o) ||
	    (!s->diskseq && s->seq_after))	/* detached already */
		return;
	close_span(s, o->exact ? o->ts : o->after, o->ts, o->by);
	d->open = false;
	empty.diskseq = 0;
	empty.backing = NULL;
	s = new_span(d, &empty);
	if (!s)
		return;
	s->from = d->spans[d->n - 2].to;	/* the attachment's end */
	s->seen = o->ts;
	s->reseq = true;
	s->seq_after = o->diskseq ? o->diskseq : 1;
	s->empty = true;
}

static void observe_remove(struct bm_map *m, struct devstate *d, const struct bm_obs *o)
{
	struct bm_span *s = open_span(d);
	uint64_t lo;

	if (explained(d, o, true))
		return;
	if (s && !same_name(s, o))
		displace(m, d, o, "removal of");
	s = open_span(d);
	if (s) {
		/*
		 * A registration after this incarnation's add belongs to the
		 * next one: this one was gone by then.
		 */
		if (d->registered && d->registered > s->from.hi &&
		    (!s->from.known || (s->from.by & ~BM_SRC_SYSFS)))
			s->removed_before = d->registered;
		close_span(s, o->exact ? o->ts : o->after, o->ts, o->by);
		if (o->exact)
			s->to.lo = s->to.hi = o->ts;
		d->open = false;
		return;
	}
	if (d->n && same_name(&d->spans[d->n - 1], o)) {
		/* Its removal was seen already (another source, a statedump). */
		struct bm_bound w = { .known = true, .by = o->by, .hi = o->ts,
				      .lo = o->exact ? o->ts : o->after };

		s = &d->spans[d->n - 1];
		narrow(&s->to, &w);
		return;
	}
	/* Removal of a device never seen: it existed until then. */
	lo = add_lower_bound(m, d, o, d->n);
	s = new_span(d, o);
	if (!s)
		return;
	s->from.known = lo != 0;
	s->from.lo = lo;
	s->from.hi = o->ts;
	s->from.by = BM_SRC_INFERENCE;
	close_span(s, o->exact ? o->ts : lo, o->ts, o->by);
	d->open = false;
}

/* Is @via ("nvme1 tcp traddr=...") a path through controller @ctrl ("nvme1")? */
static bool via_controller(const char *via, const char *ctrl)
{
	size_t n = strlen(ctrl);

	return n && !strncmp(via, ctrl, n) && (via[n] == ' ' || !via[n]);
}

static struct ctrl_add *find_ctrl(const struct bm_map *m, const char *via)
{
	size_t i;

	for (i = 0; via && i < m->nctrls; i++)
		if (via_controller(via, m->ctrls[i].name))
			return &m->ctrls[i];
	return NULL;
}

static void observe_ctrl_add(struct bm_map *m, const struct bm_obs *o)
{
	struct ctrl_add *c = NULL;
	size_t i;

	for (i = 0; i < m->nctrls; i++)
		if (!strcmp(m->ctrls[i].name, o->name))
			c = &m->ctrls[i];
	if (!c) {
		if (m->nctrls == m->capctrls) {
			size_t cap = m->capctrls ? 2 * m->capctrls : 8;
			struct ctrl_add *more = realloc(m->ctrls, cap * sizeof(*more));

			if (!more)
				return;
			m->ctrls = more;
			m->capctrls = cap;
		}
		c = &m->ctrls[m->nctrls++];
		copy_str(c->name, sizeof(c->name), o->name);
	}
	c->ts = o->ts;
	c->after = o->after;
}

/*
 * An NVMe controller went away: the paths through it (hidden disks, no
 * uevents of their own) were removed before it, so before its uevent.
 */
static void observe_ctrl_remove(struct bm_map *m, const struct bm_obs *o)
{
	size_t i;

	for (i = 0; i < m->ndevs; i++) {
		struct devstate *d = &m->devs[i];
		struct bm_span *s = open_span(d);

		/*
		 * A path that began after the listener's look before this
		 * removal can be one a controller re-added under the same name
		 * (its kernel-side add stamped before this late marker).
		 */
		if (!s || !via_controller(s->via, o->name) ||
		    (s->from.known && o->after && s->from.lo > o->after))
			continue;
		close_span(s, 0, o->ts, o->by);
		d->open = false;
	}
}

/*
 * An NVMe path disk (it names its controller) whose diskseq grew: a path
 * has no medium to change, so it went away with its controller and came
 * back as another disk on the same number, unseen between the two dumps.
 */
static bool path_reseq(const struct bm_span *s, const struct bm_obs *o)
{
	return (s->via[0] || (o->via && o->via[0])) && reseq(s, o);
}

static void observe_present(struct bm_map *m, struct devstate *d, const struct bm_obs *o)
{
	struct bm_span *s = open_span(d);
	struct ctrl_add *ctrl;
	uint64_t lo;

	m->dump_listed++;	/* a device listed twice counts twice: never too few */
	d->listed_in = m->dump_seq;
	if (s && same_name(s, o) && path_reseq(s, o)) {
		struct bm_obs dumped = *o;

		dumped.exact = false;
		dumped.after = 0;
		observe_reseq(d, s, &dumped);
		return;
	}
	if (s && same_name(s, o)) {
		struct bm_obs dumped = *o;

		/*
		 * A greater diskseq that no change announced (a loop detach counts
		 * one after its uevent): the dump cannot say when, so no new
		 * incarnation; the one the change opened keeps its own.
		 */
		if (older(s, o))
			learn_past(d, o);
		/* Its labels of another diskseq (a backing file) are another attachment's. */
		if (reseq(s, o) || older(s, o)) {
			dumped.diskseq = 0;
			dumped.backing = NULL;
		}
		/*
		 * A dm name a dump lists held by then, not from then: a rename
		 * it is the first to show happened after the last name was.
		 */
		dumped.exact = false;
		dumped.after = s->ndm ? s->dm_names[s->ndm - 1].hi : 0;
		if (!dumped.after)	/* the first name: from the start, 1 if that is unknown */
			dumped.after = s->from.known && s->from.lo ? s->from.lo : 1;
		learn(s, &dumped);
		s->seen = max64(s->seen, o->exact ? o->ts : min64(m->dump_begin, o->ts));
		if (s->from.hi > o->ts)
			s->from.hi = max64(o->ts, s->from.lo);
		return;
	}
	if (s)
		displace(m, d, o, "statedump lists");
	lo = add_lower_bound(m, d, o, d->n);
	/* An NVMe path came after its controller's add, if that came after its number's last. */
	ctrl = find_ctrl(m, o->via);
	if (ctrl && (!d->n || ctrl->ts >= d->spans[d->n - 1].to.lo))
		lo = min64(max64(lo, ctrl->after), o->ts);
	s = new_span(d, o);
	if (!s)
		return;
	if (!take_registration(d, o, lo, &s->from)) {
		s->from.known = lo != 0;	/* else: may predate the recording */
		s->from.lo = lo;
		s->from.hi = o->ts;
		s->from.by = o->by;
	}
	s->seen = max64(s->from.lo, o->exact ? o->ts : min64(m->dump_begin, o->ts));
}

/*
 * A dump that listed fewer devices than it says it saw, or a kernel-side
 * one that listed none while devices are known to exist (the probe missed:
 * the function inlined, the filter wrong), failed: absence in it proves
 * nothing.
 */
static bool dump_failed(struct bm_map *m, const struct bm_obs *o)
{
	char by[64];
	size_t i;

	if (o->listed && m->dump_listed < o->listed) {
		bm_sources_str(m->dump_by, '+', by, sizeof(by));
		conflict(m, o->ts, NULL, NULL, "the %s statedump listed %u of the %u devices it "
			 "saw: it is ignored", by, m->dump_listed, o->listed);
		return true;
	}
	if (o->listed || m->dump_listed || !(m->dump_by & BY_KERNEL))
		return false;
	bm_sources_str(m->dump_by, '+', by, sizeof(by));
	for (i = 0; i < m->ndevs; i++) {
		if (m->devs[i].open) {
			conflict(m, o->ts, &m->devs[i], open_span(&m->devs[i]),
				 "the %s statedump listed no device while %u:%u ('%s') "
				 "was present: it is ignored", by, BM_MAJOR(m->devs[i].dev),
				 BM_MINOR(m->devs[i].dev), open_span(&m->devs[i])->name);
			return true;
		}
	}
	return false;
}

static void observe_dump_end(struct bm_map *m, const struct bm_obs *o)
{
	size_t i;

	if (dump_failed(m, o))
		return;
	for (i = 0; i < m->ndevs; i++) {
		struct devstate *d = &m->devs[i];
		struct bm_span *s = open_span(d);

		if (d->listed_in == m->dump_seq)
			continue;
		/* /proc/diskstats, read by the kprobe dump, skips empty partitions. */
		if (m->dump_by == BM_SRC_KPROBE && s && s->kind == BM_PARTITION)
			continue;
		d->absent_since = m->dump_begin;
		/*
		 * Not listed: removed before the dump looked, unless it may
		 * have been added after the dump began.
		 */
		if (s && s->from.hi < m->dump_begin) {
			close_span(s, s->seen, o->ts, m->dump_by ? m->dump_by : BM_SRC_SYSFS);
			d->open = false;
		}
	}
	m->no_history_lo = m->dump_begin;
}

/* Append the mount @o made (or found made: MOUNTED) to @list. */
static void add_mount(struct bm_mount **list, unsigned *n, unsigned *cap,
		      const struct bm_obs *o)
{
	struct bm_mount *mt;

	if (*n == *cap) {
		unsigned more = *cap ? 2 * *cap : 2;

		mt = realloc(*list, more * sizeof(*mt));
		if (!mt)
			return;
		*list = mt;
		*cap = more;
	}
	mt = &(*list)[(*n)++];
	memset(mt, 0, sizeof(*mt));
	copy_str(mt->path, sizeof(mt->path), o->mount);
	copy_str(mt->fstype, sizeof(mt->fstype), o->fstype);
	mt->from_known = o->type == BM_OBS_MOUNT;
	mt->from_hi = o->ts;
	mt->from_lo = o->type == BM_OBS_MOUNT ? min64(o->after, o->ts) : 0;
}

/* A mount or unmount of a file system on @d's open incarnation (or its last). */
static void observe_mount(struct devstate *d, const struct bm_obs *o)
{
	struct bm_span *s = d->n ? &d->spans[d->n - 1] : NULL;
	struct bm_mount *mt;
	unsigned i;
	size_t k;

	if (!o->mount || !o->mount[0])
		return;
	if (!s && o->type == BM_OBS_MOUNTED) {
		add_mount(&d->early_mounts, &d->nearly, &d->capearly, o);
		return;
	}
	if (!s)
		return;
	if (o->type == BM_OBS_UMOUNT) {
		for (k = d->n; k-- > 0;) {
			for (i = d->spans[k].nmounts; i-- > 0;) {
				mt = &d->spans[k].mounts[i];
				if (mt->to_known || strcmp(mt->path, o->mount))
					continue;
				mt->to_known = true;
				mt->to_hi = o->ts;
				mt->to_lo = min64(max64(o->after, mt->from_hi), o->ts);
				return;
			}
		}
		return;
	}
	add_mount(&s->mounts, &s->nmounts, &s->capmounts, o);
}

void bm_map_observe(struct bm_map *m, const struct bm_obs *o)
{
	struct devstate *d = NULL;
	struct bm_span *s;

	if (o->type == BM_OBS_CTRL_ADD || o->type == BM_OBS_CTRL_REMOVE) {
		if (o->type == BM_OBS_CTRL_ADD)
			observe_ctrl_add(m, o);
		else
			observe_ctrl_remove(m, o);
		return;
	}
	if (o->type != BM_OBS_DUMP_BEGIN && o->type != BM_OBS_DUMP_END) {
		d = get_dev(m, o->dev);
		if (!d)
			return;
	}
	switch (o->type) {
	case BM_OBS_ADD:
		observe_add(m, d, o);
		break;
	case BM_OBS_REMOVE:
		observe_remove(m, d, o);
		break;
	case BM_OBS_CHANGE:
		s = open_span(d);
		if (s && same_name(s, o) && (reseq(s, o) || (o->attach && s->kind == BM_DISK))) {
			observe_reseq(d, s, o);
		} else if (s && same_name(s, o) && older(s, o)) {
			learn_past(d, o);
		} else if (s && same_name(s, o)) {
			learn(s, o);
		} else {
			observe_add(m, d, o);
		}
		break;
	case BM_OBS_PRESENT:
		observe_present(m, d, o);
		break;
	case BM_OBS_DUMP_BEGIN:
		m->dump_seq++;
		m->dump_begin = o->ts;
		m->dump_by = o->by;
		m->dump_listed = 0;
		break;
	case BM_OBS_DUMP_END:
		observe_dump_end(m, o);
		break;
	case BM_OBS_MOUNT:
	case BM_OBS_UMOUNT:
	case BM_OBS_MOUNTED:
		observe_mount(d, o);
		break;
	case BM_OBS_DETACH:
		observe_detach(d, o);
		break;
	case BM_OBS_REGISTER:
		if (BM_MAJOR(o->dev) != 0)	/* 0: not a block device's bdi */
			d->registered = o->ts;
		break;
	case BM_OBS_CTRL_ADD:
	case BM_OBS_CTRL_REMOVE:
		break;
	}
}

static int compare_spans(const void *a, const void *b)
{
	const struct bm_span *x = *(const struct bm_span *const *)a;
	const struct bm_span *y = *(const struct bm_span *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x < y ? -1 : x > y;	/* spans of one device are in time order */
}

void bm_map_finish(struct bm_map *m, uint64_t first, uint64_t last)
{
	size_t i, j, n = 0;

	for (i = 0; i < m->ndevs; i++)
		n += m->devs[i].n;
	free(m->sorted);
	m->nsorted = 0;
	m->sorted = calloc(n ? n : 1, sizeof(*m->sorted));
	if (!m->sorted)
		return;
	for (i = 0; i < m->ndevs; i++) {
		for (j = 0; j < m->devs[i].n; j++) {
			struct bm_span *s = &m->devs[i].spans[j];

			/* "Since the recording began" is the first timestamp. */
			if (s->from.known && s->from.lo < first)
				s->from.lo = min64(first, s->from.hi);
			s->nth = j + 1;
			m->sorted[m->nsorted++] = s;
		}
	}
	(void)last;
	qsort(m->sorted, m->nsorted, sizeof(*m->sorted), compare_spans);
	map_merge_gaps(m);
}

struct bm_map *bm_map_new(void)
{
	return calloc(1, sizeof(struct bm_map));
}

void bm_map_free(struct bm_map *m)
{
	size_t i, j;

	if (!m)
		return;
	for (i = 0; i < m->ndevs; i++) {
		for (j = 0; j < m->devs[i].n; j++)
			free(m->devs[i].spans[j].mounts);
		free(m->devs[i].early_mounts);
		free(m->devs[i].spans);
	}
	free(m->devs);
	free(m->ctrls);
	free(m->conflicts);
	free(m->sorted);
	free(m->gaps);
	free(m);
}
