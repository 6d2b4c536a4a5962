// SPDX-License-Identifier: GPL-2.0-only
/* blkmap markers and map tracepoints turned into map observations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map.h"
#include "blkmap/mapfeed.h"
#include "blkmap/marker.h"

int bm_parse_dev(const char *text, uint32_t *dev)
{
	unsigned ma, mi;
	char end;

	if (!text || sscanf(text, "%u:%u%c", &ma, &mi, &end) != 2 || ma >= 4096 ||
	    mi >= (1u << 20))
		return -1;
	*dev = BM_MKDEV(ma, mi);
	return 0;
}

void bm_feeder_init(struct bm_feeder *f, struct bm_map *map)
{
	memset(f, 0, sizeof(*f));
	f->map = map;
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
	o->kind = kind && !strcmp(kind, "partition") ? BM_PARTITION : BM_DISK;
	o->diskseq = number(p, "diskseq");
	o->size = number(p, "size");
	return o->name && o->name[0] ? 0 : -1;
}

static void feed_uevent(struct bm_feeder *f, const struct bm_marker_parsed *p,
			struct bm_obs *o)
{
	const char *action = bm_marker_get(p, "action");
	const char *fresh = bm_marker_get(p, "fresh");

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
	o->by = BM_BY_UEVENT;
	/* Sent after the listener's previous marker: a lower bound. */
	if (fresh && !strcmp(fresh, "1") && f->have_listener)
		o->after = f->listener_ts;
	bm_map_observe(f->map, o);
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
		o.by = BM_BY_SYSFS;
		bm_map_observe(f->map, &o);
	} else if (!strcmp(p.type, "dump-begin")) {
		o.type = BM_OBS_DUMP_BEGIN;
		bm_map_observe(f->map, &o);
	} else if (!strcmp(p.type, "dump-end")) {
		o.type = BM_OBS_DUMP_END;
		bm_map_observe(f->map, &o);
	} else if (!strcmp(p.type, "record-begin")) {
		v = bm_marker_get(&p, "sources");
		snprintf(f->sources, sizeof(f->sources), "%s", v ? v : "");
	}
	if (!strcmp(p.type, "uevent") || !strcmp(p.type, "uevent-listen") ||
	    !strcmp(p.type, "uevent-idle")) {
		f->listener_ts = ev->ts;
		f->have_listener = true;
	}
}

void bm_feed(struct bm_feeder *f, const struct bm_event *ev)
{
	struct bm_obs o = { .ts = ev->ts, .exact = true, .by = BM_BY_TRACEPOINT };
	char name[40];

	if (ev->kind == BM_EV_PRINT && ev->text) {
		feed_marker(f, ev);
	} else if (ev->kind == BM_EV_BDI_REGISTER && ev->text) {
		snprintf(name, sizeof(name), "%.*s", ev->text_len, ev->text);
		if (bm_parse_dev(name, &o.dev) == 0) {
			o.type = BM_OBS_REGISTER;
			bm_map_observe(f->map, &o);
		}
	}
}
