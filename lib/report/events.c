// SPDX-License-Identifier: GPL-2.0-only
/* The events view: text as trace-cmd lays it out; CSV and JSON from one list of columns. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "blkmap/map/names.h"
#include "blkmap/report/events.h"
#include "blkmap/report/mapview.h"
#include "blkmap/report/cgroupsview.h"
#include "blkmap/report/schema.h"
#include "blkmap/tracefile/printfmt.h"

struct bm_events_view {
	FILE *out;
	enum bm_output_format format;
	bool explain;
	struct tep_handle *tep;
	const struct bm_decoder *dec;
	struct bm_printer *printer;
	struct trace_seq seq;
	struct bm_line line;
	int comm_pid;		/* the last pid looked up, and its command */
	const char *comm;
	const struct bm_cgroups *cgroups;	/* NULL: no cgroup key */
	unsigned char order[64];	/* the schema's order of the columns (enum column) */
};

static const char *comm_of(struct bm_events_view *v, int pid)
{
	if (pid == 0)
		return "<idle>";
	if (!v->comm || pid != v->comm_pid) {
		v->comm = tep_data_comm_from_pid(v->tep, pid);
		v->comm_pid = pid;
	}
	return v->comm;
}

/* Details of a non-block event, as the kernel's print format (or a plugin) has them. */
static const char *details(struct bm_events_view *v, const struct bm_rec *rec,
			   const struct bm_event *ev)
{
	struct tep_record trec = { .ts = rec->ts, .cpu = rec->cpu, .data = rec->data,
				   .size = rec->size };

	trace_seq_reset(&v->seq);
	/* Its format checked first: libtraceevent follows a hostile one past the record. */
	bm_printer_print(v->printer, &v->seq, &trec, rec->type);
	/* A marker's text ends with its newline: trace-cmd leaves it out, as here. */
	while (v->seq.len && v->seq.buffer[v->seq.len - 1] == '\n')
		v->seq.len--;
	trace_seq_terminate(&v->seq);
	return v->seq.buffer;
}

/* ---- text ---- */

static void explain_text(struct bm_events_view *v, const struct bm_span *s,
			 enum bm_label_basis basis)
{
	char from[160], to[160];

	if (!s) {
		fputs(" [unknown: no incarnation fits]", v->out);
		return;
	}
	fprintf(v->out, " [%s: %s from %s to %s]", bm_label_basis_name(basis), s->name,
		bm_bound_str(&s->from, true, from, sizeof(from)),
		bm_bound_str(&s->to, false, to, sizeof(to)));
}

/* " (vg0/data)", " (a.img)", " (dm name)" after a kernel name; nothing for others. */
static void known_as(struct bm_line *o, const struct bm_span *s, uint64_t ts)
{
	char buf[288];

	if (!s || (!s->ndm && !s->backing[0] && !s->nmounts && !s->via[0]) || !bm_names_all())
		return;
	if (!bm_span_known_as(s, ts, buf, sizeof(buf))[0])
		return;
	bm_line_str(o, " (");
	bm_line_str(o, buf);
	bm_line_char(o, ')');
}

static void event_text(struct bm_events_view *v, const struct bm_rec *rec,
		       const struct bm_event *ev, const struct bm_labelled *l)
{
	struct bm_line *o = &v->line;
	size_t at;

	/* A block event's line fits whole: the columns below are counted from @at. */
	bm_line_room(o, 1024);
	bm_line_ts(o, ev->ts);
	bm_line_str(o, " [");
	bm_line_u64w(o, ev->cpu, 3, true);
	bm_line_str(o, "] ");
	bm_line_pad(o, comm_of(v, ev->pid), 16, true);
	bm_line_char(o, '-');
	at = o->n;
	bm_line_i64(o, ev->pid);
	while (o->n - at < 7)
		bm_line_char(o, ' ');
	bm_line_char(o, ' ');
	bm_line_pad(o, ev->name, 18, false);
	bm_line_char(o, ' ');
	if (!bm_names_dev(ev->kind)) {
		bm_line_str(o, details(v, rec, ev));
		bm_line_char(o, '\n');
		return;
	}
	at = o->n;
	bm_line_dev(o, ev->dev);
	while (o->n - at < 8)
		bm_line_char(o, ' ');
	bm_line_char(o, ' ');
	at = o->n;
	bm_line_str(o, l->span ? l->span->name : "?");
	known_as(o, l->span, ev->ts);
	while (o->n - at < 10)
		bm_line_char(o, ' ');
	bm_line_char(o, ' ');
	bm_line_pad(o, ev->rwbs, 4, false);
	bm_line_char(o, ' ');
	bm_line_u64(o, ev->sector);
	bm_line_str(o, " + ");
	bm_line_u64(o, ev->nr_sector);
	if (ev->kind == BM_EV_BIO_REMAP) {
		bm_line_str(o, " <- ");
		bm_line_dev(o, ev->old_dev);
		bm_line_char(o, ' ');
		bm_line_str(o, l->old_span ? l->old_span->name : "?");
		known_as(o, l->old_span, ev->ts);
		bm_line_char(o, ' ');
		bm_line_u64(o, ev->old_sector);
	} else if (ev->kind == BM_EV_BIO_SPLIT) {
		bm_line_str(o, " / ");
		bm_line_u64(o, ev->old_sector);
	} else if (ev->kind == BM_EV_RQ_ISSUE || ev->kind == BM_EV_RQ_INSERT) {
		bm_line_str(o, " (");
		bm_line_u64(o, ev->bytes);
		bm_line_str(o, " bytes)");
	} else if (ev->kind == BM_EV_RQ_COMPLETE || ev->kind == BM_EV_BIO_COMPLETE) {
		bm_line_str(o, " [");
		bm_line_i64(o, ev->error);
		bm_line_char(o, ']');
	}
	if (v->explain) {
		bm_line_write(o);
		explain_text(v, l->span, l->basis);
		if (ev->kind == BM_EV_BIO_REMAP)
			explain_text(v, l->old_span, l->old_basis);
	} else if (l->basis == BM_LABEL_GUESS || l->old_basis == BM_LABEL_GUESS) {
		bm_line_str(o, " (name guessed; see --explain)");
	}
	bm_line_char(o, '\n');
}

/* ---- CSV and JSON ---- */

/* A record's fields: one list for both formats, each of which orders them its own way. */
enum column {
	C_TS, C_CPU, C_PID, C_COMM, C_EVENT, C_DETAILS,
	C_DEV, C_NAME, C_BASIS, C_RWBS, C_SECTOR, C_NR_SECTOR, C_BYTES, C_ERROR,
	C_OLD_DEV, C_OLD_NAME, C_OLD_BASIS, C_OLD_SECTOR, C_DM, C_OLD_DM,
	C_INCARNATION, C_OLD_INCARNATION, C_FROM_NS, C_TO_NS, C_LV, C_OLD_LV, C_LV_LAYER, C_OLD_LV_LAYER, C_BACKING,
	C_OLD_BACKING, C_MOUNT, C_OLD_MOUNT, C_CGROUP, C_FORMAT_VERSION,
	NCOLUMNS
};

/*
 * V_WORD: one of blkmap's own words, which no format needs to quote or
 * escape; V_SPAN: an incarnation's key.
 */
enum value_type { V_U64, V_I64, V_TEXT, V_WORD, V_DEV, V_SPAN };

/* Each key also as JSON writes it, after a comma: its length is known. */
#define COLUMN(key, type) { key, ",\"" key "\":", sizeof(",\"" key "\":") - 1, type }

static const struct {
	const char *key;
	const char *json;
	size_t json_len;
	enum value_type type;
} columns[NCOLUMNS] = {
	[C_TS] = COLUMN("ts_ns", V_U64),
	[C_CPU] = COLUMN("cpu", V_I64),
	[C_PID] = COLUMN("pid", V_I64),
	[C_COMM] = COLUMN("comm", V_TEXT),
	[C_EVENT] = COLUMN("event", V_TEXT),
	[C_DETAILS] = COLUMN("details", V_TEXT),
	[C_DEV] = COLUMN("dev", V_DEV),
	[C_NAME] = COLUMN("name", V_TEXT),
	[C_BASIS] = COLUMN("name_basis", V_WORD),
	[C_RWBS] = COLUMN("rwbs", V_TEXT),
	[C_SECTOR] = COLUMN("sector", V_U64),
	[C_NR_SECTOR] = COLUMN("nr_sector", V_U64),
	[C_BYTES] = COLUMN("bytes", V_U64),
	[C_ERROR] = COLUMN("error", V_I64),
	[C_OLD_DEV] = COLUMN("old_dev", V_DEV),
	[C_OLD_NAME] = COLUMN("old_name", V_TEXT),
	[C_OLD_BASIS] = COLUMN("old_name_basis", V_WORD),
	[C_OLD_SECTOR] = COLUMN("old_sector", V_U64),
	[C_DM] = COLUMN("dm", V_TEXT),
	[C_OLD_DM] = COLUMN("old_dm", V_TEXT),
	[C_INCARNATION] = COLUMN("incarnation", V_SPAN),
	[C_OLD_INCARNATION] = COLUMN("old_incarnation", V_SPAN),
	[C_FROM_NS] = COLUMN("from_ns", V_U64),
	[C_TO_NS] = COLUMN("to_ns", V_U64),
	[C_LV] = COLUMN("lv", V_TEXT),
	[C_OLD_LV] = COLUMN("old_lv", V_TEXT),
	[C_LV_LAYER] = COLUMN("lv_layer", V_TEXT),
	[C_OLD_LV_LAYER] = COLUMN("old_lv_layer", V_TEXT),
	[C_BACKING] = COLUMN("backing_file", V_TEXT),
	[C_OLD_BACKING] = COLUMN("old_backing_file", V_TEXT),
	[C_MOUNT] = COLUMN("mount", V_TEXT),
	[C_OLD_MOUNT] = COLUMN("old_mount", V_TEXT),
	[C_CGROUP] = COLUMN("cgroup", V_TEXT),
	[C_FORMAT_VERSION] = COLUMN("format_version", V_U64),
};

/*
 * The order of the schema's "events" table into @order: every key on every
 * line, CSV and JSON alike. -1 if the table names a key this file does not
 * fill, or leaves one out.
 */
static int column_order(unsigned char *order)
{
	const struct bm_schema *sc = bm_schema_find("events");
	size_t i, c;

	_Static_assert(NCOLUMNS <= 64, "a view's order holds 64 columns");
	if (sc->nkeys != NCOLUMNS)
		return -1;
	for (i = 0; i < sc->nkeys; i++) {
		for (c = 0; c < NCOLUMNS && strcmp(columns[c].key, sc->keys[i].key); c++)
			;
		if (c == NCOLUMNS)
			return -1;
		order[i] = c;
	}
	return 0;
}

struct record {
	uint64_t present;	/* a bit a column */
	union {
		uint64_t u;
		int64_t i;
		const char *s;
		uint32_t dev;
		const struct bm_span *span;
	} value[NCOLUMNS];
	char lv[2][288];	/* what C_LV and C_OLD_LV point to */
	char layer[2][32];	/* C_LV_LAYER, C_OLD_LV_LAYER */
	char mount[2][256];	/* C_MOUNT, C_OLD_MOUNT */
	char cgroup[1024];	/* C_CGROUP */
};

#define SET(r, col, member, v) ((r)->present |= 1ULL << (col), (r)->value[col].member = (v))

static const char *name_of(const struct bm_span *s)
{
	return s ? s->name : "";
}

/* The LVM volume @s was at @ts, and its layer, into columns @lv and @layer. */
static void set_lv(struct record *r, const struct bm_span *s, uint64_t ts, int i,
		   enum column lv, enum column layer)
{
	struct bm_lvm l;

	if (!bm_span_lvm_at(s, ts, &l))
		return;
	snprintf(r->lv[i], sizeof(r->lv[i]), "%s/%s", l.vg, l.lv);
	SET(r, lv, s, r->lv[i]);
	if (!l.layer[0])
		return;
	snprintf(r->layer[i], sizeof(r->layer[i]), "%s", l.layer);
	SET(r, layer, s, r->layer[i]);
}

/* @ev as a record: what it does not have stays absent. */
static void fill(struct bm_events_view *v, const struct bm_rec *rec, const struct bm_event *ev,
		 const struct bm_labelled *l, struct record *r)
{
	struct bm_cgroup cg;

	r->present = 0;
	SET(r, C_FORMAT_VERSION, u, BM_REPORT_FORMAT);
	SET(r, C_TS, u, ev->ts);
	SET(r, C_CPU, i, ev->cpu);
	SET(r, C_PID, i, ev->pid);
	SET(r, C_COMM, s, comm_of(v, ev->pid));
	SET(r, C_EVENT, s, ev->name);
	if (v->cgroups && bm_cgroups_of(v->cgroups, ev->pid, ev->ts, &cg) != BM_CG_UNKNOWN)
		SET(r, C_CGROUP, s, bm_cgroup_shown(cg.path, r->cgroup, sizeof(r->cgroup)));
	if (!bm_names_dev(ev->kind)) {
		SET(r, C_DETAILS, s, details(v, rec, ev));
		return;
	}
	SET(r, C_DEV, dev, ev->dev);
	SET(r, C_NAME, s, name_of(l->span));
	if (l->span) {
		SET(r, C_INCARNATION, span, l->span);
		if (l->span->from.known)
			SET(r, C_FROM_NS, u, l->span->from.hi);
		if (l->span->to.known)
			SET(r, C_TO_NS, u, l->span->to.hi);
	}
	if (l->span && l->span->ndm)
		SET(r, C_DM, s, bm_span_dm_at(l->span, ev->ts));
	if (l->span && l->span->dm_uuid[0])
		set_lv(r, l->span, ev->ts, 0, C_LV, C_LV_LAYER);
	if (l->span && l->span->backing[0])
		SET(r, C_BACKING, s, l->span->backing);
	if (l->span && l->span->nmounts &&
	    bm_span_mounts_at(l->span, ev->ts, r->mount[0], sizeof(r->mount[0]))[0])
		SET(r, C_MOUNT, s, r->mount[0]);
	SET(r, C_BASIS, s, bm_label_basis_name(l->basis));
	SET(r, C_RWBS, s, ev->rwbs);
	SET(r, C_SECTOR, u, ev->sector);
	SET(r, C_NR_SECTOR, u, ev->nr_sector);
	if (ev->kind == BM_EV_RQ_ISSUE || ev->kind == BM_EV_RQ_INSERT)
		SET(r, C_BYTES, u, ev->bytes);
	if (ev->kind == BM_EV_RQ_COMPLETE || ev->kind == BM_EV_BIO_COMPLETE)
		SET(r, C_ERROR, i, ev->error);
	if (ev->kind == BM_EV_BIO_REMAP) {
		SET(r, C_OLD_DEV, dev, ev->old_dev);
		SET(r, C_OLD_NAME, s, name_of(l->old_span));
		if (l->old_span)
			SET(r, C_OLD_INCARNATION, span, l->old_span);
		if (l->old_span && l->old_span->ndm)
			SET(r, C_OLD_DM, s, bm_span_dm_at(l->old_span, ev->ts));
		if (l->old_span && l->old_span->dm_uuid[0])
			set_lv(r, l->old_span, ev->ts, 1, C_OLD_LV, C_OLD_LV_LAYER);
		if (l->old_span && l->old_span->backing[0])
			SET(r, C_OLD_BACKING, s, l->old_span->backing);
		if (l->old_span && l->old_span->nmounts &&
		    bm_span_mounts_at(l->old_span, ev->ts, r->mount[1], sizeof(r->mount[1]))[0])
			SET(r, C_OLD_MOUNT, s, r->mount[1]);
		SET(r, C_OLD_BASIS, s, bm_label_basis_name(l->old_basis));
		SET(r, C_OLD_SECTOR, u, ev->old_sector);
	}
}

/*
 * Column @c's value; JSON quotes what is not a number, CSV only text that
 * needs it. Inlined into each format's loop, where @json is a constant.
 */
static inline __attribute__((always_inline)) void
put_value(struct bm_line *o, const struct record *r, enum column c, bool json)
{
	enum value_type type = columns[c].type;
	bool quoted = json && (type == V_WORD || type == V_DEV || type == V_SPAN);

	/* Past int64 (a completion's sector 2^64 - 1 when it has none): absent. */
	if (!(r->present & (1ULL << c)) || (type == V_U64 && r->value[c].u > INT64_MAX)) {
		if (json)
			bm_line_str(o, "null");
		return;
	}
	if (quoted)
		bm_line_char(o, '"');
	switch (type) {
	case V_U64:
		bm_line_u64(o, r->value[c].u);
		break;
	case V_SPAN:
		bm_line_dev(o, r->value[c].span->dev);
		bm_line_char(o, '#');
		bm_line_u64(o, r->value[c].span->nth);
		break;
	case V_I64:
		bm_line_i64(o, r->value[c].i);
		break;
	case V_TEXT:
		if (json)
			bm_line_json(o, r->value[c].s);
		else
			bm_line_csv(o, r->value[c].s);
		break;
	case V_WORD:
		bm_line_str(o, r->value[c].s);
		break;
	case V_DEV:
		bm_line_dev(o, r->value[c].dev);
		break;
	}
	if (quoted)
		bm_line_char(o, '"');
}

static void event_csv(struct bm_line *o, const unsigned char *order, const struct record *r)
{
	size_t i;

	for (i = 0; i < NCOLUMNS; i++) {
		if (i)
			bm_line_char(o, ',');
		put_value(o, r, order[i], false);
	}
	bm_line_char(o, '\n');
}

static void event_json(struct bm_line *o, const unsigned char *order, const struct record *r)
{
	size_t i;

	bm_line_char(o, '{');
	for (i = 0; i < NCOLUMNS; i++) {
		enum column c = order[i];

		bm_line_strn(o, columns[c].json + !i, columns[c].json_len - !i);
		put_value(o, r, c, true);
	}
	bm_line_str(o, "}\n");
}

/* ---- the view ---- */

struct bm_events_view *bm_events_view_start(FILE *out, enum bm_output_format format,
					    bool explain, bool no_header,
					    const struct bm_decoder *dec, struct bm_printer *printer)
{
	struct bm_events_view *v = calloc(1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	if (column_order(v->order) < 0) {
		free(v);
		errno = EINVAL;
		return NULL;
	}
	v->out = out;
	v->format = format;
	v->explain = explain;
	v->dec = dec;
	v->printer = printer;
	v->tep = bm_decoder_tep(dec);
	trace_seq_init(&v->seq);
	bm_line_init(&v->line, out);
	if (format == BM_FORMAT_CSV && !no_header) {
		for (i = 0; i < NCOLUMNS; i++) {
			if (i)
				bm_line_char(&v->line, ',');
			bm_line_str(&v->line, columns[v->order[i]].key);
		}
		bm_line_char(&v->line, '\n');
		bm_line_write(&v->line);
	}
	return v;
}

struct bm_events_view *bm_events_view_lines(enum bm_output_format format,
					    const struct bm_decoder *dec, struct bm_printer *printer)
{
	struct bm_events_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (column_order(v->order) < 0) {
		free(v);
		errno = EINVAL;
		return NULL;
	}
	v->format = format;
	v->dec = dec;
	v->printer = printer;
	v->tep = bm_decoder_tep(dec);
	trace_seq_init(&v->seq);
	bm_line_init(&v->line, NULL);
	return v;
}

const char *bm_events_view_take(struct bm_events_view *v, size_t *len)
{
	*len = v->line.n;
	v->line.n = 0;
	return v->line.buf;
}

void bm_events_view_put(struct bm_events_view *v, const char *lines, size_t len)
{
	bm_line_strn(&v->line, lines, len);
}

void bm_events_view_print(struct bm_events_view *v, const struct bm_rec *rec,
			  const struct bm_event *ev, const struct bm_labelled *l)
{
	struct record r;

	if (v->format == BM_FORMAT_TEXT) {
		event_text(v, rec, ev, l);
		return;
	}
	fill(v, rec, ev, l, &r);
	if (v->format == BM_FORMAT_CSV)
		event_csv(&v->line, v->order, &r);
	else
		event_json(&v->line, v->order, &r);
}

void bm_events_view_cgroups(struct bm_events_view *v, const struct bm_cgroups *cgroups)
{
	v->cgroups = cgroups;
}

void bm_events_view_flush(struct bm_events_view *v)
{
	bm_line_write(&v->line);
}

void bm_events_view_free(struct bm_events_view *v)
{
	if (!v)
		return;
	trace_seq_destroy(&v->seq);
	free(v);
}
