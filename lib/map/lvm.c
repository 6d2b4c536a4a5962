// SPDX-License-Identifier: GPL-2.0-only
/*
 * LVM's names of a device-mapper device. LVM names a volume's dm device
 * VG-LV (a hyphen inside either doubled), VG-LV-LAYER for the layers it
 * stacks under a volume (an origin's -real, a snapshot's -cow, a thin
 * pool's -tpool), and gives it the UUID "LVM-" + the VG's UUID + the LV's
 * (32 characters each, no dashes) [+ "-" LAYER]. The UUID says the device
 * is LVM's; the name, as it is at a moment, which VG and LV.
 */
#include <stdio.h>
#include <string.h>

#include "blkmap/map/names.h"

#define LVM_UUID_PREFIX	"LVM-"
#define LVM_UUID_LEN	64	/* the VG's UUID and the LV's */

/*
 * libdevmapper's _unquote(): copy @in up to the first single hyphen into
 * @out, a double one as one; the rest after that hyphen.
 */
static const char *unquote(const char *in, char *out, size_t size)
{
	size_t n = 0;

	while (*in) {
		if (in[1] && in[0] == '-') {
			if (in[1] != '-')
				break;
			in++;
		}
		if (n + 1 < size)
			out[n++] = *in;
		in++;
	}
	out[n] = '\0';
	return *in ? in + 1 : in;
}

void bm_lvm_split(const char *dm_name, struct bm_lvm *out)
{
	const char *rest;

	rest = unquote(dm_name, out->vg, sizeof(out->vg));
	rest = unquote(rest, out->lv, sizeof(out->lv));
	unquote(rest, out->layer, sizeof(out->layer));
}

bool bm_lvm_uuid(const char *uuid)
{
	size_t len = strlen(uuid), p = strlen(LVM_UUID_PREFIX);

	return len >= p + LVM_UUID_LEN && !strncmp(uuid, LVM_UUID_PREFIX, p) &&
	       (len == p + LVM_UUID_LEN || uuid[p + LVM_UUID_LEN] == '-');
}

bool bm_span_lvm_at(const struct bm_span *s, uint64_t ts, struct bm_lvm *out)
{
	const char *dm = bm_span_dm_at(s, ts);

	memset(out, 0, sizeof(*out));
	if (!dm[0] || !bm_lvm_uuid(s->dm_uuid))
		return false;
	bm_lvm_split(dm, out);
	if (!out->vg[0] || !out->lv[0]) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	return true;
}

const char *bm_span_lv_at(const struct bm_span *s, uint64_t ts, char *buf, size_t size)
{
	struct bm_lvm l;

	buf[0] = '\0';
	if (bm_span_lvm_at(s, ts, &l))
		snprintf(buf, size, "%s/%s", l.vg, l.lv);
	return buf;
}

/*
 * The layers LVM stacks under a volume, by what they are to it: an
 * origin's data under its snapshot-origin mapping (-real), a snapshot's
 * exception store (-cow), a thin pool's pool target (-tpool).
 */
static const struct {
	const char *layer, *role;
} roles[] = {
	{ "real", "origin" },
	{ "cow", "snapshot" },
	{ "tpool", "thin pool" },
};

const char *bm_lvm_layer_text(const char *layer, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (strcmp(layer, roles[i].layer))
			continue;
		snprintf(buf, size, "%s layer %s", roles[i].role, layer);
		return buf;
	}
	snprintf(buf, size, "layer %s", layer);
	return buf;
}
