// SPDX-License-Identifier: GPL-2.0-only
/* The map view: when each device number carried which name, in three formats. */
#include <inttypes.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/report/mapview.h"
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

	if (o->disk && !bm_span_named(s, o->disk))
		return false;
	if (o->dev && s->dev != o->dev)
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

static void map_text(const struct map_view *v)
{
	const struct bm_conflict *conflicts;
	size_t i, n;
	unsigned k;

	fprintf(v->out, "%-9s %-16s %-9s %-48s %s\n", "DEV", "NAME", "KIND", "FROM", "TO");
	for (i = 0; i < bm_map_count(v->map); i++) {
		const struct bm_span *s = bm_map_span(v->map, i);
		char dev[16], from[160], to[160], name[200];

		if (!span_wanted(v, s))
			continue;
		snprintf(name, sizeof(name), "%s%s%s%s", s->name, s->dm[0] ? " (" : "", s->dm,
			 s->dm[0] ? ")" : "");
		fprintf(v->out, "%-9s %-16s %-9s %-48s %s%s\n",
			bm_dev_str(s->dev, dev, sizeof(dev)), name,
			s->kind == BM_PARTITION ? "partition" : "disk",
			bm_bound_str(&s->from, true, from, sizeof(from)),
			bm_bound_str(&s->to, false, to, sizeof(to)),
			span_near_loss(v, s) ? " [events lost meanwhile]" : "");
		if (s->via[0])
			fprintf(v->out, "%-26s path via %s\n", "", s->via);
		for (k = 1; k < s->ndm; k++) {
			const struct bm_dm_name *r = &s->dm_names[k];
			char lo[32], hi[32];

			bm_ts_str(r->lo, lo, sizeof(lo));
			bm_ts_str(r->hi, hi, sizeof(hi));
			if (r->lo == r->hi)
				fprintf(v->out, "%-26s renamed %s at %s\n", "", r->name, hi);
			else
				fprintf(v->out, "%-26s renamed %s between %s and %s\n", "", r->name,
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

static void csv_u64(FILE *out, bool present, uint64_t v)
{
	if (present)
		fprintf(out, "%" PRIu64, v);
}

static void map_csv(const struct map_view *v)
{
	size_t i;

	fputs("dev,name,kind,from_ns,to_ns,from_source,to_source,"
	      "from_lo_ns,from_hi_ns,to_lo_ns,to_hi_ns,parent,diskseq,dm,events_lost,serial,via\n",
	      v->out);
	for (i = 0; i < bm_map_count(v->map); i++) {
		const struct bm_span *s = bm_map_span(v->map, i);
		char dev[16], by[64];

		if (!span_wanted(v, s))
			continue;
		fprintf(v->out, "%s,", bm_dev_str(s->dev, dev, sizeof(dev)));
		bm_csv_str(v->out, s->name);
		fprintf(v->out, ",%s,", s->kind == BM_PARTITION ? "partition" : "disk");
		csv_u64(v->out, s->from.known, s->from.hi);
		putc(',', v->out);
		csv_u64(v->out, s->to.known, s->to.hi);
		fprintf(v->out, ",%s,", bm_sources_str(s->from.by, '+', by, sizeof(by)));
		fprintf(v->out, "%s,", s->to.known ? bm_sources_str(s->to.by, '+', by, sizeof(by))
						   : "");
		csv_u64(v->out, s->from.known, s->from.lo);
		putc(',', v->out);
		csv_u64(v->out, s->from.known, s->from.hi);
		putc(',', v->out);
		csv_u64(v->out, s->to.known, s->to.lo);
		putc(',', v->out);
		csv_u64(v->out, s->to.known, s->to.hi);
		putc(',', v->out);
		bm_csv_str(v->out, s->parent);
		putc(',', v->out);
		csv_u64(v->out, s->diskseq, s->diskseq);
		putc(',', v->out);
		bm_csv_str(v->out, s->dm);
		fprintf(v->out, ",%s,", span_near_loss(v, s) ? "yes" : "");
		bm_csv_str(v->out, s->serial);
		putc(',', v->out);
		bm_csv_str(v->out, s->via);
		putc('\n', v->out);
	}
}

static void json_bound(FILE *out, const char *key, const struct bm_bound *b)
{
	char by[64];

	fprintf(out, "\"%s\":", key);
	if (!b->known) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"lo_ns\":%" PRIu64 ",\"hi_ns\":%" PRIu64 ",\"source\":", b->lo, b->hi);
	bm_json_str(out, bm_sources_str(b->by, '+', by, sizeof(by)));
	putc('}', out);
}

static void map_json(const struct map_view *v)
{
	const struct bm_conflict *conflicts;
	size_t i, n;
	unsigned k;

	for (i = 0; i < bm_map_count(v->map); i++) {
		const struct bm_span *s = bm_map_span(v->map, i);
		char dev[16];

		if (!span_wanted(v, s))
			continue;
		fprintf(v->out, "{\"dev\":\"%s\",\"name\":", bm_dev_str(s->dev, dev, sizeof(dev)));
		bm_json_str(v->out, s->name);
		fprintf(v->out, ",\"kind\":\"%s\",", s->kind == BM_PARTITION ? "partition" : "disk");
		json_bound(v->out, "from", &s->from);
		putc(',', v->out);
		json_bound(v->out, "to", &s->to);
		fputs(",\"parent\":", v->out);
		bm_json_str(v->out, s->parent);
		fprintf(v->out, ",\"diskseq\":%" PRIu64 ",\"dm\":", s->diskseq);
		bm_json_str(v->out, s->dm);
		fprintf(v->out, ",\"events_lost\":%s,\"serial\":", span_near_loss(v, s) ? "true" : "false");
		bm_json_str(v->out, s->serial);
		fputs(",\"via\":", v->out);
		bm_json_str(v->out, s->via);
		fputs(",\"dm_names\":[", v->out);
		for (k = 0; k < s->ndm; k++) {
			fprintf(v->out, "%s{\"name\":", k ? "," : "");
			bm_json_str(v->out, s->dm_names[k].name);
			fprintf(v->out, ",\"from_lo_ns\":%" PRIu64 ",\"from_hi_ns\":%" PRIu64 "}",
				s->dm_names[k].lo, s->dm_names[k].hi);
		}
		fputs("]}\n", v->out);
	}
	n = bm_map_conflicts(v->map, &conflicts);
	for (i = 0; i < n; i++) {
		fprintf(v->out, "{\"conflict_ns\":%" PRIu64 ",\"text\":", conflicts[i].ts);
		bm_json_str(v->out, conflicts[i].text);
		fputs("}\n", v->out);
	}
}

void bm_view_map(FILE *out, enum bm_output_format format, const struct bm_map *map,
		 const struct bm_map_view_opts *opts)
{
	struct map_view v = { out, map, opts };

	if (format == BM_FORMAT_TEXT)
		map_text(&v);
	else if (format == BM_FORMAT_CSV)
		map_csv(&v);
	else
		map_json(&v);
}
