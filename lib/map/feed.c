// SPDX-License-Identifier: GPL-2.0-only
/* blkmap markers and map tracepoints turned into map observations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/cgroups.h"
#include "blkmap/map/feed.h"
#include "blkmap/map/map.h"
#include "blkmap/sources/marker.h"

/* Decimal digits up to @stop, below @limit: the number, or -1. */
static long decimal(const char **p, char stop, long limit)
{
	long v = 0;

	if (**p < '0' || **p > '9')
		return -1;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		if ((v = v * 10 + (**p - '0')) >= limit)
			return -1;	/* before it can wrap */
	return **p == stop ? v : -1;
}

int bm_parse_dev(const char *text, uint32_t *dev)
{
	long ma, mi;

	if (!text || (ma = decimal(&text, ':', 4096)) < 0)
		return -1;
	text++;
	if ((mi = decimal(&text, '\0', 1L << 20)) < 0)
		return -1;
	*dev = BM_MKDEV((unsigned)ma, (unsigned)mi);
	return 0;
}

void bm_feeder_init(struct bm_feeder *f, struct bm_map *map, struct bm_cgroups *cgroups)
{
	memset(f, 0, sizeof(*f));
	f->map = map;
	f->cgroups = cgroups;
}

static uint64_t number(const struct bm_marker_parsed *p, const char *key)
{
	const char *v = bm_marker_get(p, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* Fill the device fields shared by dump and uevent markers. */
static int device_fields(const struct bm_marker_parsed *p, struct bm_obs *o)
{
	const char *kind = bm_marker_get(p, "kind");

	if (bm_parse_dev(bm_marker_get(p, "dev"), &o->dev) < 0)
		return -1;
	o->name = bm_marker_get(p, "name");
	o->parent = bm_marker_get(p, "parent");
	o->dm = bm_marker_get(p, "dm");
	o->serial = bm_marker_get(p, "serial");
	o->via = bm_marker_get(p, "via");
	o->dm_uuid = bm_marker_get(p, "dm_uuid");
	o->backing = bm_marker_get(p, "backing");
	o->wwid = bm_marker_get(p, "wwid");
	o->model = bm_marker_get(p, "model");
	o->firmware = bm_marker_get(p, "firmware");
	o->kind = kind && !strcmp(kind, "partition") ? BM_PARTITION : BM_DISK;
	o->diskseq = number(p, "diskseq");
	o->size = number(p, "size");
	return o->name && o->name[0] ? 0 : -1;
}

/*
 * A loop detach whose probe entry was seen and return not yet: its diskseq
 * (the attachment's), or 0. Its change uevents can be marked before the
 * return (the detach goes on after sending them): the return ends the
 * attachment, exactly; a diskseq they read past it is that detach's.
 */
static uint64_t detaching(const struct bm_feeder *f, uint32_t dev)
{
	int i;

	for (i = 0; i < f->npending; i++)
		if (f->pending[i].kind == BM_EV_K_LOOP_OFF && f->pending[i].dev == dev)
			return f->pending[i].diskseq;
	return 0;
}

/*
 * The listener's uevents were sent after its previous marker if fresh,
 * else after the previous uevent was sent (the kernel sends them in order).
 */
static uint64_t sent_after(struct bm_feeder *f, const struct bm_marker_parsed *p)
{
	const char *fresh = bm_marker_get(p, "fresh");

	if (fresh && !strcmp(fresh, "1") && f->have_listener)
		f->sent_after = f->listener_ts;
	return f->sent_after;
}

static void feed_uevent(struct bm_feeder *f, const struct bm_marker_parsed *p,
			struct bm_obs *o)
{
	const char *action = bm_marker_get(p, "action");
	uint64_t now, detached, after;

	if (!action || device_fields(p, o) < 0)
		return;
	if (!strcmp(action, "add"))
		o->type = BM_OBS_ADD;
	else if (!strcmp(action, "remove"))
		o->type = BM_OBS_REMOVE;
	else if (!strcmp(action, "change"))
		o->type = BM_OBS_CHANGE;
	else
		return;
	o->by = BM_SRC_UEVENT;
	/*
	 * Lower bounds bound when the uevent was sent: after the listener's
	 * previous marker if fresh, else after the previous uevent was sent
	 * (the kernel sends them in order). A change precedes its uevent in
	 * the same code path, except a disk's add: the kernel reads the
	 * partition table in between, so that bound does not hold for it.
	 */
	after = sent_after(f, p);
	if (!(o->type == BM_OBS_ADD && o->kind == BM_DISK))
		o->after = after;
	detached = o->type == BM_OBS_CHANGE && o->kind == BM_DISK ? detaching(f, o->dev) : 0;
	if (detached && o->diskseq > detached)
		return;
	bm_map_observe(f->map, o);
	/* The diskseq the disk had by the marker, if another: changed since the uevent. */
	now = number(p, "diskseq_now");
	if (o->type == BM_OBS_CHANGE && o->kind == BM_DISK && o->diskseq && now > o->diskseq &&
	    !detached) {
		struct bm_obs next = { .type = BM_OBS_CHANGE, .ts = o->ts, .after = o->after,
				       .by = o->by, .dev = o->dev, .name = o->name,
				       .kind = BM_DISK, .diskseq = now };
		const char *size = bm_marker_get(p, "size_now");

		next.empty = size && !strcmp(size, "0");

		bm_map_observe(f->map, &next);
	}
}

/*
 * An NVMe controller's uevent: its hidden path disks send none of their
 * own. Sent after the listener's previous marker if fresh, else after the
 * previous uevent.
 */
static void feed_controller(struct bm_feeder *f, const struct bm_marker_parsed *p,
			    struct bm_obs *o)
{
	const char *action = bm_marker_get(p, "action");

	o->name = bm_marker_get(p, "name");
	if (!action || !o->name || !o->name[0])
		return;
	if (!strcmp(action, "add"))
		o->type = BM_OBS_CTRL_ADD;
	else if (!strcmp(action, "remove"))
		o->type = BM_OBS_CTRL_REMOVE;
	else
		return;
	o->by = BM_SRC_UEVENT;
	o->after = sent_after(f, p);
	bm_map_observe(f->map, o);
}

/* A mount marker: its change came after its "after" (the trace clock's ns). */
static void feed_mount(struct bm_feeder *f, const struct bm_marker_parsed *p, struct bm_obs *o)
{
	const char *action = bm_marker_get(p, "action");

	if (!action || bm_parse_dev(bm_marker_get(p, "dev"), &o->dev) < 0)
		return;
	if (!strcmp(action, "add"))
		o->type = BM_OBS_MOUNT;
	else if (!strcmp(action, "remove"))
		o->type = BM_OBS_UMOUNT;
	else if (!strcmp(action, "present"))
		o->type = BM_OBS_MOUNTED;
	else
		return;
	o->by = BM_SRC_UEVENT;
	o->mount = bm_marker_get(p, "at");
	o->fstype = bm_marker_get(p, "fs");
	o->after = number(p, "after");
	bm_map_observe(f->map, o);
}

/*
 * The cgroup statedump (sources/cgroups.h): a cgroup there was there
 * before the recording; a task, where the kernel's events have not yet
 * said otherwise.
 */
static void feed_cgroup_dump(struct bm_feeder *f, const struct bm_marker_parsed *p, uint64_t ts)
{
	const char *path = bm_marker_get(p, "path"), *pids = bm_marker_get(p, "pids");
	uint64_t id = number(p, "id");
	struct bm_cgroup known;

	if (!f->cgroups || !id)
		return;
	if (!strcmp(p->type, "cgroup")) {
		if (path)
			bm_cgroups_made(f->cgroups, 0, id, path);
		return;
	}
	if (!pids)
		return;
	path = bm_cgroups_by_id(f->cgroups, id, ts, &known) ? known.path : "?";
	while (*pids) {
		char *end;
		long pid = strtol(pids, &end, 10);

		if (end == pids)
			break;
		bm_cgroups_seen(f->cgroups, ts, (int)pid, id, path);
		pids = *end == ',' ? end + 1 : end;
	}
}

/* The kernel's events of the cgroup map, of cgroup v2's hierarchy (0) alone. */
static void feed_cgroup_event(struct bm_feeder *f, const struct bm_event *ev)
{
	char path[4096];

	if (!f->cgroups)
		return;
	snprintf(path, sizeof(path), "%.*s", ev->text ? ev->text_len : 0, ev->text ? ev->text : "");
	switch (ev->kind) {
	case BM_EV_FORK:
		bm_cgroups_forked(f->cgroups, ev->ts, ev->cg.pid, ev->cg.child);
		return;
	case BM_EV_EXIT:
		bm_cgroups_exited(f->cgroups, ev->ts, ev->cg.pid);
		return;
	case BM_EV_WB_START:
		bm_cgroups_writing(f->cgroups, ev->ts, ev->cg.pid, ev->cg.id);
		return;
	case BM_EV_WB_END:
		bm_cgroups_written(f->cgroups, ev->ts, ev->cg.pid);
		return;
	default:
		break;
	}
	if (ev->cg.root || !ev->text)
		return;
	if (ev->kind == BM_EV_CG_MOVE)
		bm_cgroups_moved(f->cgroups, ev->ts, ev->cg.pid, ev->cg.id, path);
	else if (ev->kind == BM_EV_CG_MKDIR)
		bm_cgroups_made(f->cgroups, ev->ts, ev->cg.id, path);
	else if (ev->kind == BM_EV_CG_RMDIR)
		bm_cgroups_removed(f->cgroups, ev->ts, ev->cg.id);
	else if (ev->kind == BM_EV_CG_RENAME)
		bm_cgroups_renamed(f->cgroups, ev->ts, ev->cg.id, path);
}

static void feed_marker(struct bm_feeder *f, const struct bm_event *ev)
{
	struct bm_marker_parsed p;
	struct bm_obs o = { .ts = ev->ts };
	const char *v;

	if (bm_marker_parse(&p, ev->text, ev->text_len) < 0)
		return;
	f->markers++;
	if (!strcmp(p.type, "uevent")) {
		feed_uevent(f, &p, &o);
	} else if (!strcmp(p.type, "dump")) {
		if (device_fields(&p, &o) < 0)
			return;
		o.type = BM_OBS_PRESENT;
		o.by = BM_SRC_SYSFS;
		bm_map_observe(f->map, &o);
	} else if (!strcmp(p.type, "dump-begin")) {
		v = bm_marker_get(&p, "source");
		o.type = BM_OBS_DUMP_BEGIN;
		o.by = v && !strcmp(v, "kprobe") ? BM_SRC_KPROBE : BM_SRC_SYSFS;
		bm_map_observe(f->map, &o);
	} else if (!strcmp(p.type, "dump-end")) {
		o.type = BM_OBS_DUMP_END;
		o.listed = number(&p, "count");
		bm_map_observe(f->map, &o);
	} else if (!strcmp(p.type, "cgroup") || !strcmp(p.type, "cgroup-tasks")) {
		feed_cgroup_dump(f, &p, ev->ts);
	} else if (!strcmp(p.type, "mount")) {
		feed_mount(f, &p, &o);
	} else if (!strcmp(p.type, "controller")) {
		feed_controller(f, &p, &o);
	} else if (!strcmp(p.type, "window-begin")) {
		f->window_from = ev->ts;
	} else if (!strcmp(p.type, "record-begin")) {
		v = bm_marker_get(&p, "sources");
		snprintf(f->sources, sizeof(f->sources), "%s", v ? v : "");
		f->tick.ns = number(&p, "tick_ns");
		f->tick.at = number(&p, "tick_at");
		f->wall_ns = number(&p, "wall_ns");
		f->mono_ns = number(&p, "mono_ns");
	}
	if (!strcmp(p.type, "uevent") || !strcmp(p.type, "controller") ||
	    !strcmp(p.type, "uevent-listen") ||
	    !strcmp(p.type, BM_MARKER_IDLE)) {
		f->listener_ts = ev->ts;
		f->have_listener = true;
	}
}

/* Fill a probe event's device into @o; @name holds the name. */
static void probe_device(const struct bm_event *ev, struct bm_obs *o, char *name, size_t size,
			 char *disk, size_t disk_size)
{
	snprintf(name, size, "%.*s", ev->k.name_len, ev->k.name ? ev->k.name : "");
	snprintf(disk, disk_size, "%.*s", ev->k.disk_len, ev->k.disk ? ev->k.disk : "");
	o->dev = ev->dev;
	o->name = name;
	o->kind = ev->k.partno ? BM_PARTITION : BM_DISK;
	o->parent = ev->k.partno ? disk : NULL;
	o->diskseq = ev->k.seq;
}

static void remove_pending(struct bm_feeder *f, int i, uint64_t ts, bool returned)
{
	struct bm_pending_removal *p = &f->pending[i];
	struct bm_obs o = { .type = BM_OBS_REMOVE, .ts = ts, .exact = returned,
			    .after = p->ts, .by = BM_SRC_KPROBE, .dev = p->dev, .name = p->name };

	o.kind = p->kind == BM_EV_K_PART_DEL ? BM_PARTITION : BM_DISK;
	if (o.kind == BM_DISK)	/* a partition's: its disk's, changed on a loop detach */
		o.diskseq = p->diskseq;
	if (p->kind == BM_EV_K_LOOP_OFF) {	/* the attachment ends, the disk stays */
		o.type = BM_OBS_DETACH;
		o.empty = true;
	}
	bm_map_observe(f->map, &o);
	memmove(&f->pending[i], &f->pending[i + 1], (f->npending - i - 1) * sizeof(*p));
	f->npending--;
}

static void removal_entered(struct bm_feeder *f, const struct bm_event *ev)
{
	struct bm_pending_removal *p;

	if (f->npending == BM_FEEDER_PENDING)	/* returns lost: end the oldest now */
		remove_pending(f, 0, ev->ts, false);
	p = &f->pending[f->npending++];
	p->pid = ev->pid;
	p->kind = ev->kind;
	p->dev = ev->dev;
	p->ts = ev->ts;
	snprintf(p->name, sizeof(p->name), "%.*s", ev->k.name_len, ev->k.name ? ev->k.name : "");
	p->diskseq = ev->k.seq;
}

/* The removal is complete when its function returns: the device is gone. */
static void removal_returned(struct bm_feeder *f, const struct bm_event *ev)
{
	enum bm_kind entry = ev->kind == BM_EV_K_DISK_GONE ? BM_EV_K_DISK_DEL :
			     ev->kind == BM_EV_K_LOOP_GONE ? BM_EV_K_LOOP_OFF : BM_EV_K_PART_DEL;
	int i;

	for (i = f->npending - 1; i >= 0; i--) {
		if (f->pending[i].pid == ev->pid && f->pending[i].kind == entry) {
			remove_pending(f, i, ev->ts, true);
			return;
		}
	}
}

void bm_feeder_finish(struct bm_feeder *f, uint64_t last)
{
	while (f->npending)
		remove_pending(f, 0, last, false);
}

static void feed_probe(struct bm_feeder *f, const struct bm_event *ev)
{
	struct bm_obs o = { .ts = ev->ts, .exact = true, .by = BM_SRC_KPROBE };
	char name[64], disk[64], dm[128], file[256], uuid[160];

	static const enum bm_obs_type module_ops[] = {
		BM_OBS_PRESENT, BM_OBS_ADD, BM_OBS_REMOVE, BM_OBS_DUMP_BEGIN, BM_OBS_DUMP_END,
	};

	switch (ev->kind) {
	case BM_EV_M_DEV:
		if (ev->k.op >= sizeof(module_ops) / sizeof(module_ops[0]))
			return;
		o.by = BM_SRC_MODULE;
		o.type = module_ops[ev->k.op];
		probe_device(ev, &o, name, sizeof(name), disk, sizeof(disk));
		o.size = ev->k.sectors;
		if (o.type == BM_OBS_DUMP_END)	/* its sectors field: the devices listed */
			o.listed = ev->k.sectors;
		if (o.type != BM_OBS_DUMP_BEGIN && o.type != BM_OBS_DUMP_END && !name[0])
			return;
		/* A dm device's name and UUID, as dm-ioctl had them (modules since LVM names). */
		snprintf(dm, sizeof(dm), "%.*s", ev->k.dm_len, ev->k.dm ? ev->k.dm : "");
		snprintf(uuid, sizeof(uuid), "%.*s", ev->k.uuid_len, ev->k.uuid ? ev->k.uuid : "");
		o.dm = dm;
		o.dm_uuid = uuid;
		bm_map_observe(f->map, &o);
		break;
	case BM_EV_K_ADD:
	case BM_EV_K_DUMP:
		probe_device(ev, &o, name, sizeof(name), disk, sizeof(disk));
		if (!name[0])
			return;
		o.type = ev->kind == BM_EV_K_ADD ? BM_OBS_ADD : BM_OBS_PRESENT;
		bm_map_observe(f->map, &o);
		break;
	case BM_EV_K_DM_NAME:
		/* dm-ioctl names a device as it resumes it, and right after a rename. */
		probe_device(ev, &o, name, sizeof(name), disk, sizeof(disk));
		snprintf(dm, sizeof(dm), "%.*s", ev->k.dm_len, ev->k.dm ? ev->k.dm : "");
		if (!name[0] || !dm[0])
			return;
		snprintf(uuid, sizeof(uuid), "%.*s", ev->k.uuid_len, ev->k.uuid ? ev->k.uuid : "");
		o.type = BM_OBS_CHANGE;
		o.dm = dm;
		o.dm_uuid = uuid;
		bm_map_observe(f->map, &o);
		break;
	case BM_EV_K_LOOP_ON:
		/*
		 * A loop device bound to a file (a diskseq of its own), or the
		 * name of its attachment set: what the kernel keeps, lo_file_name.
		 */
		probe_device(ev, &o, name, sizeof(name), disk, sizeof(disk));
		snprintf(file, sizeof(file), "%.*s", ev->k.file_len, ev->k.file ? ev->k.file : "");
		if (!name[0])
			return;
		/*
		 * Without diskseq (5.10, bd_set_nr_sectors() to a size): the
		 * device bound to a file, always a new attachment; its file
		 * comes from the other sources.
		 */
		if (!o.diskseq && !ev->k.sectors)
			return;
		o.attach = !o.diskseq;
		o.type = BM_OBS_CHANGE;
		o.kind = BM_DISK;
		o.parent = NULL;
		o.backing = file[0] ? file : NULL;
		bm_map_observe(f->map, &o);
		break;
	case BM_EV_K_DISK_DEL:
	case BM_EV_K_PART_DEL:
	case BM_EV_K_LOOP_OFF:
		removal_entered(f, ev);
		break;
	case BM_EV_K_DISK_GONE:
	case BM_EV_K_PART_GONE:
	case BM_EV_K_LOOP_GONE:
		removal_returned(f, ev);
		break;
	default:
		break;
	}
}

void bm_feed(struct bm_feeder *f, const struct bm_event *ev)
{
	struct bm_obs o = { .ts = ev->ts, .exact = true, .by = BM_SRC_TRACEPOINT };
	char name[40];

	if (ev->kind >= BM_EV_K_ADD) {
		feed_probe(f, ev);
	} else if (ev->kind >= BM_EV_CG_MOVE && ev->kind <= BM_EV_EXIT) {
		feed_cgroup_event(f, ev);
	} else if (ev->kind == BM_EV_PRINT && ev->text) {
		feed_marker(f, ev);
	} else if (ev->kind == BM_EV_BDI_REGISTER && ev->text) {
		snprintf(name, sizeof(name), "%.*s", ev->text_len, ev->text);
		if (bm_parse_dev(name, &o.dev) == 0) {
			f->registers++;
			o.type = BM_OBS_REGISTER;
			bm_map_observe(f->map, &o);
		}
	}
}
