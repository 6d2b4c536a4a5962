// SPDX-License-Identifier: GPL-2.0-only
/*
 * What `--disk NAME` matches (and so a filter of names and numbers,
 * bm_span_filter_match()), and the names text views show beside the kernel's.
 */
#include <stdio.h>
#include <string.h>

#include "blkmap/map/names.h"

const char *bm_span_backing_base(const struct bm_span *s)
{
	const char *slash = strrchr(s->backing, '/');

	return slash && slash[1] ? slash + 1 : s->backing;
}

static bool mount_possible(const struct bm_mount *m, uint64_t ts)
{
	return !ts || ((!m->from_known || m->from_lo <= ts) && (!m->to_known || ts <= m->to_hi));
}

bool bm_span_mounted_at(const struct bm_span *s, const char *path, uint64_t ts)
{
	unsigned i;

	for (i = 0; i < s->nmounts; i++)
		if (!strcmp(s->mounts[i].path, path) && mount_possible(&s->mounts[i], ts))
			return true;
	return false;
}

const char *bm_span_mounts_at(const struct bm_span *s, uint64_t ts, char *buf, size_t size)
{
	size_t len = 0;
	unsigned i, j;

	buf[0] = '\0';
	for (i = 0; i < s->nmounts && len < size; i++) {
		if (!mount_possible(&s->mounts[i], ts))
			continue;
		for (j = 0; j < i; j++)	/* mounted there again: once */
			if (!strcmp(s->mounts[j].path, s->mounts[i].path) &&
			    mount_possible(&s->mounts[j], ts))
				break;
		if (j == i)
			len += snprintf(buf + len, size - len, "%s%s", len ? ";" : "",
					s->mounts[i].path);
	}
	return buf;
}

/* An NVMe path's controller, "nvme1 tcp traddr=...", as "path via nvme1, tcp traddr=...". */
static void path_via(const char *via, char *buf, size_t size)
{
	const char *space = strchr(via, ' ');

	if (space)
		snprintf(buf, size, "path via %.*s, %s", (int)(space - via), via, space + 1);
	else
		snprintf(buf, size, "path via %s", via);
}

/* ", origin layer real" after the volume in @buf, if @s is one of its layers. */
static void lv_layer(const struct bm_span *s, uint64_t ts, char *buf, size_t size)
{
	struct bm_lvm l;
	char text[64];
	size_t len = strlen(buf);

	if (bm_span_lvm_at(s, ts, &l) && l.layer[0])
		snprintf(buf + len, size - len, ", %s",
			 bm_lvm_layer_text(l.layer, text, sizeof(text)));
}

const char *bm_span_known_as(const struct bm_span *s, uint64_t ts, char *buf, size_t size)
{
	char mounts[256];
	size_t len;

	buf[0] = '\0';
	if (s->via[0]) {
		path_via(s->via, buf, size);
	} else if (bm_span_lv_at(s, ts, buf, size)[0]) {
		lv_layer(s, ts, buf, size);
	} else {
		if (s->backing[0])
			snprintf(buf, size, "%s", bm_span_backing_base(s));
		else
			snprintf(buf, size, "%s", bm_span_dm_at(s, ts));
	}
	if (!s->nmounts || !bm_span_mounts_at(s, ts, mounts, sizeof(mounts))[0])
		return buf;
	len = strlen(buf);
	snprintf(buf + len, size - len, "%son %s", len ? " " : "", mounts);
	return buf;
}

/* Is @name one of the LVM volume's names with the dm name @dm: vg/lv, /dev/vg/lv? */
static bool lv_named(const struct bm_span *s, const char *dm, const char *name)
{
	struct bm_lvm l;
	size_t vg;

	if (!bm_lvm_uuid(s->dm_uuid))
		return false;
	bm_lvm_split(dm, &l);
	if (l.layer[0] || !l.vg[0] || !l.lv[0])
		return false;	/* a layer is part of its volume, not the volume */
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	vg = strlen(l.vg);
	return !strncmp(name, l.vg, vg) && name[vg] == '/' && !strcmp(name + vg + 1, l.lv);
}

bool bm_span_named(const struct bm_span *s, const char *name)
{
	return bm_span_named_at(s, name, 0);
}

bool bm_span_named_at(const struct bm_span *s, const char *name, uint64_t ts)
{
	unsigned i;

	if (s->nmounts && bm_span_mounted_at(s, name, ts))
		return true;

	if (!strcmp(s->name, name))
		return true;
	if (!strncmp(name, "/dev/", 5) && !strcmp(s->name, name + 5))
		return true;
	if (s->backing[0] && !strcmp(s->backing, name))
		return true;
	for (i = 0; i < s->ndm; i++) {
		const char *dm = s->dm_names[i].name;

		if (!strcmp(dm, name) || lv_named(s, dm, name))
			return true;
		if (!strncmp(name, "/dev/mapper/", 12) && !strcmp(dm, name + 12))
			return true;
	}
	return false;
}

bool bm_span_filter_match(const struct bm_span_filter *f, const struct bm_span *s, uint32_t dev)
{
	return bm_span_filter_match_at(f, s, dev, 0);
}

bool bm_span_filter_match_at(const struct bm_span_filter *f, const struct bm_span *s,
			     uint32_t dev, uint64_t ts)
{
	bool ok = !f || !f->nnames;
	unsigned i;

	for (i = 0; s && !ok && i < f->nnames; i++)
		ok = bm_span_named_at(s, f->names[i], ts);
	if (!ok || !f || !f->ndevs)
		return ok;
	for (i = 0; i < f->ndevs; i++)
		if (f->devs[i] == dev)
			return true;
	return false;
}
