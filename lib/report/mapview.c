// SPDX-License-Identifier: GPL-2.0-only
/* The map view: when each device number carried which name, in three formats. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/map/names.h"
#include "blkmap/report/mapview.h"
#include "blkmap/report/schema.h"
#include "blkmap/tracefile/decode.h"

struct map_view {
	FILE *out;
	const struct bm_map *map;
	const struct bm_map_view_opts *opts;
};

/* Could events lost in the kernel hide a change of this incarnation? */
static bool span_near_loss(const struct map_view *v, const struct bm_span *s)
{
	const struct bm_loss *losses = v->opts->losses;
	size_t i, n = v->opts->nlosses;
	uint64_t lo = s->from.known ? s->from.lo : 0;
	uint64_t hi = s->to.known ? s->to.hi : UINT64_MAX;

	for (i = 0; i < n; i++)
		if (losses[i].from <= hi && losses[i].to >= lo)
			return true;
	return false;
}

static bool span_wanted(const struct map_view *v, const struct bm_span *s)
{
	const struct bm_map_view_opts *o = v->opts;

	if (!bm_span_filter_match(o->filter, s, s->dev))
		return false;
	return (!s->from.known || s->from.lo <= o->until) && (!s->to.known || s->to.hi >= o->since);
}

const char *bm_bound_str(const struct bm_bound *b, bool is_from, char *buf, size_t size)
{
	char lo[32], hi[32], by[64];

	bm_sources_str(b->by, '+', by, sizeof(by));
	if (!b->known)
		snprintf(buf, size, is_from ? "before the recording (%s by %s)" : "still present",
			 by, bm_ts_str(b->hi, hi, sizeof(hi)));
	else if (b->lo == b->hi)
		snprintf(buf, size, "%s exact (%s)", bm_ts_str(b->hi, hi, sizeof(hi)), by);
	else
		snprintf(buf, size, "%s..%s (%s)", bm_ts_str(b->lo, lo, sizeof(lo)),
			 bm_ts_str(b->hi, hi, sizeof(hi)), by);
	return buf;
}

static void mount_text(const struct map_view *v, const struct bm_mount *m)
{
	char lo[32], hi[32], from[80] = "before the recording", to[80] = "still mounted";

	if (m->from_known)
		snprintf(from, sizeof(from), "%s..%s", bm_ts_str(m->from_lo, lo, sizeof(lo)),
			 bm_ts_str(m->from_hi, hi, sizeof(hi)));
	if (m->to_known)
		snprintf(to, sizeof(to), "unmounted %s..%s", bm_ts_str(m->to_lo, lo, sizeof(lo)),
			 bm_ts_str(m->to_hi, hi, sizeof(hi)));
	fprintf(v->out, "%-35s mounted on %s (%s) %s, %s\n", "", m->path, m->fstype[0] ?
		m->fstype : "?", from, to);
}

static void map_text(const struct map_view *v)
{
	const struct bm_conflict *conflicts;
	size_t i, n;
	unsigned k;

	fprintf(v->out, "%-10s %-16s %-9s %-7s %-48s %s\n", "DEV#N", "NAME", "KIND", "DISKSEQ",
		"FROM", "TO");
	for (i = 0; i < bm_map_count(v->map); i++) {
		const struct bm_span *s = bm_map_span(v->map, i);
		char key[40], seq[24] = "-", from[160], to[160], name[200], known[160];

		if (!span_wanted(v, s))
			continue;
		known[0] = '\0';
		if (bm_names_all())
			bm_span_known_as(s, 0, known, sizeof(known));
		snprintf(name, sizeof(name), "%s%s%s%s", s->name, known[0] ? " (" : "", known,
			 known[0] ? ")" : "");
		if (s->diskseq)
			snprintf(seq, sizeof(seq), "%" PRIu64, s->diskseq);
		fprintf(v->out, "%-10s %-16s %-9s %-7s %-48s %s%s\n",
			bm_span_key(s, key, sizeof(key)), name,
			s->kind == BM_PARTITION ? "partition" : "disk", seq,
			bm_bound_str(&s->from, true, from, sizeof(from)),
			bm_bound_str(&s->to, false, to, sizeof(to)),
			span_near_loss(v, s) ? " [events lost meanwhile]" : "");
		if (s->via[0])
			fprintf(v->out, "%-35s path via %s\n", "", s->via);
		if (s->backing[0])
			fprintf(v->out, "%-35s backing file %s\n", "", s->backing);
		for (k = 0; k < s->nmounts; k++)
			mount_text(v, &s->mounts[k]);
		if (known[0] && s->dm[0] && strcmp(known, s->dm))
			fprintf(v->out, "%-35s dm name %s\n", "", s->dm);
		for (k = 1; k < s->ndm; k++) {
			const struct bm_dm_name *r = &s->dm_names[k];
			char lo[32], hi[32];

			bm_ts_str(r->lo, lo, sizeof(lo));
			bm_ts_str(r->hi, hi, sizeof(hi));
			if (r->lo == r->hi)
				fprintf(v->out, "%-35s renamed %s at %s\n", "", r->name, hi);
			else
				fprintf(v->out, "%-35s renamed %s between %s and %s\n", "", r->name,
					lo, hi);
		}
	}
	n = bm_map_conflicts(v->map, &conflicts);
	for (i = 0; i < n; i++) {
		char ts[32];

		fprintf(v->out, "conflict at %s: %s\n", bm_ts_str(conflicts[i].ts, ts, sizeof(ts)),
			conflicts[i].text);
	}
}

/* Renames of a dm device after its first name: NAME@LO..HI;... */
static const char *renames(const struct bm_span *s, char *buf, size_t size)
{
	size_t len = 0;
	unsigned k;

	buf[0] = '\0';
	for (k = 1; k < s->ndm && len < size; k++)
		len += snprintf(buf + len, size - len, "%s%s@%" PRIu64 "..%" PRIu64, k > 1 ? ";" : "",
				s->dm_names[k].name, s->dm_names[k].lo, s->dm_names[k].hi);
	return buf;
}

/* Its mounts: PATH@LO..HI/LO..HI;... (a window left empty: outside the recording). */
static const char *mounts(const struct bm_span *s, char *buf, size_t size)
{
	size_t len = 0;
	unsigned k;

	buf[0] = '\0';
	for (k = 0; k < s->nmounts && len < size; k++) {
		const struct bm_mount *m = &s->mounts[k];

		len += snprintf(buf + len, size - len, "%s%s@", k ? ";" : "", m->path);
		if (m->from_known && len < size)
			len += snprintf(buf + len, size - len, "%" PRIu64 "..%" PRIu64, m->from_lo,
					m->from_hi);
		if (len < size)
			len += snprintf(buf + len, size - len, "/");
		if (m->to_known && len < size)
			len += snprintf(buf + len, size - len, "%" PRIu64 "..%" PRIu64, m->to_lo,
					m->to_hi);
	}
	return buf;
}

/* An LVM device's volume group, volume and layer under its first dm name. */
static void lvm_row(struct bm_row *r, const struct bm_span *s)
{
	struct bm_lvm l;

	if (!bm_span_lvm_at(s, 0, &l))
		return;
	bm_row_str(r, "vg", l.vg);
	bm_row_str(r, "lv", l.lv);
	if (l.layer[0])
		bm_row_str(r, "lv_layer", l.layer);
}

static void map_row(struct bm_row *r, const struct map_view *v, const struct bm_span *s)
{
	char dev[16], by[64], key[40], names[1024];

	bm_row_str(r, "dev", bm_dev_str(s->dev, dev, sizeof(dev)));
	bm_row_str(r, "name", s->name);
	bm_row_str(r, "kind", s->kind == BM_PARTITION ? "partition" : "disk");
	bm_row_str(r, "incarnation", bm_span_key(s, key, sizeof(key)));
	bm_row_str(r, "from_source", bm_sources_str(s->from.by, '+', by, sizeof(by)));
	if (s->from.known) {
		bm_row_u64(r, "from_ns", s->from.hi);
		bm_row_u64(r, "from_lo_ns", s->from.lo);
		bm_row_u64(r, "from_hi_ns", s->from.hi);
	}
	if (s->to.known) {
		bm_row_u64(r, "to_ns", s->to.hi);
		bm_row_str(r, "to_source", bm_sources_str(s->to.by, '+', by, sizeof(by)));
		bm_row_u64(r, "to_lo_ns", s->to.lo);
		bm_row_u64(r, "to_hi_ns", s->to.hi);
	}
	if (s->parent[0])
		bm_row_str(r, "parent", s->parent);
	if (s->diskseq)
		bm_row_u64(r, "diskseq", s->diskseq);
	if (s->dm[0])
		bm_row_str(r, "dm", s->dm);
	if (s->ndm > 1)
		bm_row_str(r, "dm_renames", renames(s, names, sizeof(names)));
	bm_row_bool(r, "events_lost", span_near_loss(v, s));
	if (s->serial[0])
		bm_row_str(r, "serial", s->serial);
	if (s->via[0])
		bm_row_str(r, "via", s->via);
	lvm_row(r, s);
	if (s->nmounts)
		bm_row_str(r, "mounts", mounts(s, names, sizeof(names)));
	if (s->dm_uuid[0])
		bm_row_str(r, "dm_uuid", s->dm_uuid);
	if (s->backing[0])
		bm_row_str(r, "backing_file", s->backing);
	if (s->wwid[0])
		bm_row_str(r, "wwid", s->wwid);
	if (s->model[0])
		bm_row_str(r, "model", s->model);
	if (s->firmware[0])
		bm_row_str(r, "firmware", s->firmware);
	bm_row_end(r);
}

static int map_rows(const struct map_view *v, enum bm_output_format format)
{
	struct bm_row *r = malloc(sizeof(*r));
	size_t i;

	if (!r)
		return -1;
	bm_row_start(r, v->out, format, bm_schema_find("map"));
	if (format == BM_FORMAT_CSV && !v->opts->no_header)
		bm_schema_csv_header(v->out, r->schema);
	for (i = 0; i < bm_map_count(v->map); i++) {
		const struct bm_span *s = bm_map_span(v->map, i);

		if (span_wanted(v, s))
			map_row(r, v, s);
	}
	free(r);
	return 0;
}

int bm_view_map(FILE *out, enum bm_output_format format, const struct bm_map *map,
		const struct bm_map_view_opts *opts)
{
	struct map_view v = { out, map, opts };

	if (format == BM_FORMAT_TEXT) {
		map_text(&v);
		return 0;
	}
	return map_rows(&v, format);
}

int bm_view_conflicts(FILE *out, enum bm_output_format format, const struct bm_map *map,
		      const struct bm_map_view_opts *opts)
{
	const struct bm_conflict *conflicts;
	size_t i, n = bm_map_conflicts(map, &conflicts);
	struct bm_row *r;

	if (format == BM_FORMAT_TEXT) {
		for (i = 0; i < n; i++) {
			char ts[32];

			fprintf(out, "conflict at %s: %s\n",
				bm_ts_str(conflicts[i].ts, ts, sizeof(ts)), conflicts[i].text);
		}
		return 0;
	}
	r = malloc(sizeof(*r));
	if (!r)
		return -1;
	bm_row_start(r, out, format, bm_schema_find("conflicts"));
	if (format == BM_FORMAT_CSV && !opts->no_header)
		bm_schema_csv_header(out, r->schema);
	for (i = 0; i < n; i++) {
		const struct bm_conflict *c = &conflicts[i];
		const struct bm_span *s = NULL;
		enum bm_label_basis basis;
		char dev[16], key[40];

		bm_row_u64(r, "ts_ns", c->ts);
		bm_row_str(r, "text", c->text);
		if (c->has_dev) {
			bm_row_str(r, "dev", bm_dev_str(c->dev, dev, sizeof(dev)));
			s = bm_map_label(map, c->dev, c->at, 0, &basis);
		}
		if (s) {
			bm_row_str(r, "incarnation", bm_span_key(s, key, sizeof(key)));
			if (s->from.known)
				bm_row_u64(r, "from_ns", s->from.hi);
			if (s->to.known)
				bm_row_u64(r, "to_ns", s->to.hi);
		}
		bm_row_end(r);
	}
	free(r);
	return 0;
}
