// SPDX-License-Identifier: GPL-2.0-only
/* What `--disk NAME` matches, and the names text views show beside the kernel's. */
#include <stdio.h>
#include <string.h>

#include "blkmap/map/names.h"

const char *bm_span_backing_base(const struct bm_span *s)
{
	const char *slash = strrchr(s->backing, '/');

	return slash && slash[1] ? slash + 1 : s->backing;
}

const char *bm_span_known_as(const struct bm_span *s, uint64_t ts, char *buf, size_t size)
{
	buf[0] = '\0';
	if (bm_span_lv_at(s, ts, buf, size)[0])
		return buf;
	if (s->backing[0])
		snprintf(buf, size, "%s", bm_span_backing_base(s));
	else
		snprintf(buf, size, "%s", bm_span_dm_at(s, ts));
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
	unsigned i;

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
