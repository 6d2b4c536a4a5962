/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_EVENTS_H
#define BLKMAP_REPORT_EVENTS_H

/*
 * The events view (events.c): every event in time order, each block event
 * with the name its device had at that moment; as text laid out like
 * trace-cmd's, CSV with a header row, or JSON Lines.
 */
#include <stdbool.h>
#include <stdio.h>

#include "blkmap/map/map.h"
#include "blkmap/report/output.h"
#include "blkmap/tracefile/decode.h"

/* The names of a block event's device and, for a remap, of its source. */
struct bm_labelled {
	const struct bm_span *span, *old_span;	/* NULL: no incarnation fits */
	enum bm_label_basis basis, old_basis;
};

struct bm_events_view;

struct bm_printer;

/*
 * A view writing to @out; a CSV one has written its header row unless
 * @no_header. Other events' details are printed through @printer
 * (printfmt.h). NULL: no memory.
 */
struct bm_events_view *bm_events_view_start(FILE *out, enum bm_output_format format,
					    bool explain, bool no_header,
					    const struct bm_decoder *dec, struct bm_printer *printer);
/* One event; its line may stay in the view's buffer until the next flush. */
void bm_events_view_print(struct bm_events_view *v, const struct bm_rec *rec,
			  const struct bm_event *ev, const struct bm_labelled *l);
/*
 * A view that only formats, for a worker thread: bm_events_view_take()
 * hands over each block event's line (a block event's lines never fill
 * the view's buffer: without --explain they are short). Comm lookups from
 * several threads are safe once the caller's thread made the first.
 */
struct bm_events_view *bm_events_view_lines(enum bm_output_format format,
					    const struct bm_decoder *dec, struct bm_printer *printer);
const char *bm_events_view_take(struct bm_events_view *v, size_t *len);
/* Lines formatted elsewhere, as they are. */
void bm_events_view_put(struct bm_events_view *v, const char *lines, size_t len);
/* Give each event its process's cgroup then, from @cgroups (CSV and JSON's cgroup key). */
struct bm_cgroups;
void bm_events_view_cgroups(struct bm_events_view *v, const struct bm_cgroups *cgroups);
/* Write out the lines the view holds. */
void bm_events_view_flush(struct bm_events_view *v);
void bm_events_view_free(struct bm_events_view *v);

#endif
