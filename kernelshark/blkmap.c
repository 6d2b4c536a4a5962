// SPDX-License-Identifier: GPL-2.0-only
/*
 * KernelShark plugin: each block event's info ends with the name its device
 * had at that moment, "[loop0]", or for a remap "[loop0 <- loop0p1]", from
 * the time-ranged map blkmap builds from the same file (map/build.c), as
 * `blkmap report` labels it.
 *
 * While KernelShark loads the entries, a handler on each block event labels
 * it and keeps the label under the record's offset in the file; the
 * stream's get_info is wrapped to append it.
 *
 * The wrapper prints every event's info itself, through blkmap's checked
 * printer (printfmt.h): KernelShark's own follows a hostile print format
 * past the record, as libtraceevent does.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libkshark.h>
#include <event-parse.h>
#include <libkshark-plugin.h>
#include <libkshark-tepdata.h>
#include <trace-cmd.h>
#include <trace-seq.h>

#include "blkmap/map/build.h"
#include "blkmap/map/cgroups.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/printfmt.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

static const char *const block_events[] = {
	"block/block_rq_insert", "block/block_rq_issue", "block/block_rq_complete",
	"block/block_rq_requeue", "block/block_bio_queue", "block/block_bio_complete",
	"block/block_bio_remap", "block/block_getrq", "block/block_split",
	"block/block_bio_backmerge", "block/block_bio_frontmerge", "block/block_rq_merge",
};
#define NBLOCK (sizeof(block_events) / sizeof(block_events[0]))

struct label {
	int64_t offset;			/* the record's, in the file; 0: empty slot */
	const struct bm_span *span, *old_span;
	bool remap;
};

struct plugin_ctx {
	struct bm_trace *trace;
	struct bm_map *map;
	struct bm_label_cache cache;
	int ids[NBLOCK];		/* the stream's ids of block_events, -1 if absent */
	int remap_id;
	stream_get_str_func get_info;	/* the stream's own */
	struct bm_printer *printer;	/* of the stream's parser */
	struct label *labels;		/* open addressing on offset */
	size_t size, used;
};

static void free_ctx(struct plugin_ctx *c)
{
	if (!c)
		return;
	bm_map_free(c->map);
	bm_printer_free(c->printer);
	bm_trace_close(c->trace);
	free(c->labels);
	free(c);
}

KS_DEFINE_PLUGIN_CONTEXT(struct plugin_ctx, free_ctx);

static size_t slot(const struct plugin_ctx *c, int64_t offset)
{
	return ((uint64_t)offset * 0x9E3779B97F4A7C15ULL >> 20) & (c->size - 1);
}

static struct label *find(const struct plugin_ctx *c, int64_t offset)
{
	size_t i;

	if (!c->size)
		return NULL;
	for (i = slot(c, offset); c->labels[i].offset; i = (i + 1) & (c->size - 1))
		if (c->labels[i].offset == offset)
			return &c->labels[i];
	return NULL;
}

static struct label *add(struct plugin_ctx *c, int64_t offset)
{
	size_t i;

	if (2 * (c->used + 1) > c->size) {
		struct label *old = c->labels;
		size_t oldsize = c->size, j;

		c->size = c->size ? 2 * c->size : 4096;
		c->labels = calloc(c->size, sizeof(*c->labels));
		if (!c->labels) {
			c->labels = old;
			c->size = oldsize;
			return NULL;
		}
		for (j = 0; j < oldsize; j++) {
			if (!old[j].offset)
				continue;
			for (i = slot(c, old[j].offset); c->labels[i].offset; i = (i + 1) & (c->size - 1))
				;
			c->labels[i] = old[j];
		}
		free(old);
	}
	for (i = slot(c, offset); c->labels[i].offset; i = (i + 1) & (c->size - 1))
		if (c->labels[i].offset == offset)
			return &c->labels[i];
	c->used++;
	c->labels[i].offset = offset;
	return &c->labels[i];
}

/*
 * A 4-byte field @name of @rec, read only if it lies within the record:
 * libtraceevent's own read does not look (a hostile format's offset).
 */
static bool dev_field(struct kshark_data_stream *stream, void *rec, const char *name,
		      int64_t *v)
{
	struct tep_handle *tep = kshark_get_tep(stream);
	struct tep_record *r = rec;
	struct tep_event *ev = tep ? tep_find_event_by_record(tep, r) : NULL;
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;

	if (!f || f->size != 4 || f->offset < 0 || r->size < 0 ||
	    (uint64_t)f->offset + 4 > (uint64_t)r->size)
		return false;
	return kshark_read_record_field_int(stream, rec, name, v) == 0;
}

/* While entries load: label each block event from its own dev fields. */
static void label_entry(struct kshark_data_stream *stream, void *rec, struct kshark_entry *e)
{
	struct plugin_ctx *c = __get_context(stream->stream_id);
	enum bm_label_basis basis;
	int64_t dev, old_dev;
	struct label *l;

	if (!c || !dev_field(stream, rec, "dev", &dev) || !(l = add(c, e->offset ? e->offset : -1)))
		return;
	l->span = bm_map_label_cached(c->map, &c->cache, dev, e->ts, 0, &basis);
	l->remap = e->event_id == c->remap_id && dev_field(stream, rec, "old_dev", &old_dev);
	if (l->remap)
		l->old_span = bm_map_label_cached(c->map, &c->cache, old_dev, e->ts, dev, &basis);
}

static void warn(const char *line)
{
	fprintf(stderr, "blkmap plugin: %s\n", line);
}

/* @e's info, as KernelShark prints it, through the checked printer; NULL if none. */
static char *checked_info(struct plugin_ctx *c, struct kshark_data_stream *stream,
			  const struct kshark_entry *e)
{
	struct tep_record *rec;
	struct trace_seq seq;
	char *info = NULL;

	if (e->event_id < 0)
		return c->get_info(stream, e);	/* KernelShark's own entries: lost events */
	trace_seq_init(&seq);
	pthread_mutex_lock(&stream->input_mutex);
	rec = tracecmd_read_at(kshark_get_tep_input(stream), e->offset, NULL);
	if (rec)
		bm_printer_print(c->printer, &seq, rec, e->event_id);
	tracecmd_free_record(rec);
	pthread_mutex_unlock(&stream->input_mutex);
	/* KernelShark drops the trailing newline, and shows no empty info. */
	if (seq.len && seq.buffer[seq.len - 1] == '\n')
		seq.len--;
	trace_seq_terminate(&seq);
	if (seq.len && asprintf(&info, "%s", seq.buffer) < 0)
		info = NULL;
	trace_seq_destroy(&seq);
	return info;
}

static char *get_info(struct kshark_data_stream *stream, const struct kshark_entry *e)
{
	struct plugin_ctx *c = __get_context(stream->stream_id);
	char *info = c ? checked_info(c, stream, e) : NULL, *out;
	const struct label *l = c ? find(c, e->offset ? e->offset : -1) : NULL;

	if (!info || !l)
		return info;
	if (asprintf(&out, "%s [%s%s%s]", info, l->span ? l->span->name : "?",
		     l->remap ? " <- " : "", !l->remap ? "" : l->old_span ? l->old_span->name : "?")
	    < 0)
		return info;
	free(info);
	return out;
}

/* The map of @file, as blkmap report builds it; NULL, with a message, if none. */
static struct bm_map *map_of(struct plugin_ctx *c, const char *file)
{
	struct bm_map_pass pass = { .path = file };
	struct bm_decoder *dec;
	struct bm_stream *s;
	struct bm_map *map = NULL;

	c->trace = bm_trace_open(file);
	if (!c->trace)
		return NULL;
	dec = bm_decoder_new(bm_trace_tep(c->trace));
	s = dec ? bm_stream_open(c->trace) : NULL;
	if (s)
		map = bm_map_build(s, dec, &pass);
	free(pass.losses);
	bm_cgroups_free(pass.cgroups);
	bm_stream_close(s);
	bm_decoder_free(dec);
	return map;
}

int KSHARK_PLOT_PLUGIN_INITIALIZER(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *iface = stream->interface;
	struct plugin_ctx *c;
	size_t i;
	int found = 0;

	if (!iface || iface->type != KS_GENERIC_DATA_INTERFACE || !iface->get_info)
		return 0;
	c = __init(stream->stream_id);
	if (!c)
		return 0;
	c->map = map_of(c, stream->file);
	if (!c->map) {
		fprintf(stderr, "blkmap plugin: %s\n", bm_error_message());
		__close(stream->stream_id);
		return 0;
	}
	c->printer = bm_printer_new(kshark_get_tep(stream), warn);
	if (!c->printer) {
		fprintf(stderr, "blkmap plugin: %s: out of memory\n", stream->file);
		__close(stream->stream_id);
		return 0;
	}
	c->remap_id = -1;
	for (i = 0; i < NBLOCK; i++) {
		c->ids[i] = kshark_find_event_id(stream, block_events[i]);
		if (c->ids[i] < 0)
			continue;
		kshark_register_event_handler(stream, c->ids[i], label_entry);
		found++;
		if (!strcmp(block_events[i], "block/block_bio_remap"))
			c->remap_id = c->ids[i];
	}
	if (!found) {
		__close(stream->stream_id);
		return 0;
	}
	c->get_info = iface->get_info;
	iface->get_info = get_info;
	return 1;
}

int KSHARK_PLOT_PLUGIN_DEINITIALIZER(struct kshark_data_stream *stream)
{
	struct kshark_generic_stream_interface *iface = stream->interface;
	struct plugin_ctx *c = __get_context(stream->stream_id);
	size_t i;

	if (!c)
		return 0;
	for (i = 0; i < NBLOCK; i++)
		if (c->ids[i] >= 0)
			kshark_unregister_event_handler(stream, c->ids[i], label_entry);
	if (iface && iface->get_info == get_info)
		iface->get_info = c->get_info;
	__close(stream->stream_id);
	return 1;
}
