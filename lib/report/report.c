// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report pipeline: pass 1 reads every map record into the map
 * (map/build.c); pass 2 labels the events of the window and hands them to
 * a view (events.c, mapview.c, summaries.c through the analysis).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "blkmap/analyse/analyse.h"
#include "blkmap/analyse/iofeed.h"
#include "blkmap/map/build.h"
#include "blkmap/map/cgroups.h"
#include "blkmap/map/map.h"
#include "blkmap/report/cgroupsview.h"
#include "blkmap/report/events.h"
#include "blkmap/report/mapview.h"
#include "blkmap/report/phasesview.h"
#include "blkmap/report/plot.h"
#include "blkmap/report/report.h"
#include "blkmap/report/summaries.h"
#include "blkmap/tracefile/decode.h"
#include "blkmap/tracefile/lanes.h"
#include "blkmap/tracefile/merge.h"
#include "blkmap/tracefile/printfmt.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"
#include "blkmap/util/tell.h"

struct report {
	const struct bm_report_opts *opts;
	FILE *out;
	struct bm_trace *trace;
	struct tep_handle *tep;
	struct bm_decoder *dec;
	struct bm_stream *stream;
	struct bm_map *map;
	struct bm_label_cache labels;
	struct bm_map_pass pass;	/* the first pass: the map, the span, the gaps */
	uint64_t since, until;		/* the window of interest */
	uint64_t io_since;		/* the same, for events: within a flight recording's */
	uint64_t total_bytes;		/* of pages, for progress */
	uint64_t map_progress_next;
	struct bm_analysis *analysis;
	struct bm_events_view *listing;
	struct bm_printer *printer;	/* the events' details, through checked formats */
	uint64_t listed;		/* events (or --top rows) the filters kept */
	unsigned ops_seen;		/* with --op: the operations of the window's events */
};

static void progress(struct report *r, const char *what, uint64_t done, uint64_t *next)
{
	if (!r->opts->progress || done < *next)
		return;
	r->opts->progress(what, (int)(100 * done / r->total_bytes));
	*next = done + r->total_bytes / 100;
}

static void map_progress(void *ctx, uint64_t bytes_read)
{
	struct report *r = ctx;

	progress(r, "building the map", bytes_read, &r->map_progress_next);
}

/* A recording made without blkmap's map sources (trace-cmd record's): say what it lacks. */
static void report_missing_map(struct report *r)
{
	if (r->pass.markers || !r->pass.events)
		return;
	bm_tell(r->opts->warn, "'%s' holds none of blkmap record's map records (recorded by "
		"another tool?): no statedump, no uevent, no probe, so its devices have no names "
		"(basis 'unknown'), only numbers%s", bm_trace_path(r->trace), r->pass.registers ?
		"; its writeback_bdi_register events say only when disks were added" : "");
}

/* A file cut short: what it lacks, and from when its figures are partial. */
static void report_cut(struct report *r, const struct bm_loss *l)
{
	char from[32], when[96];

	if (l->from)
		snprintf(when, sizeof(when), "its events after %s are missing",
			 bm_ts_str(l->from, from, sizeof(from)));
	else
		snprintf(when, sizeof(when), "all its events are missing");
	bm_tell(r->opts->warn, "'%s' is cut short: CPU %d lacks %llu bytes of its pages; %s, "
		"so the figures of every incarnation alive from then on are partial "
		"(marked events_lost, '*' in text); the whole pages there are were read",
		bm_trace_path(r->trace), l->cpu, (unsigned long long)l->cut, when);
}

static void report_loss(struct report *r)
{
	const struct bm_trace_meta *m = bm_trace_get_meta(r->trace);
	const struct bm_loss *losses = r->pass.losses;
	size_t i, n = r->pass.nlosses;
	int cpu, uncounted;

	for (cpu = 0; cpu < m->ncpus; cpu++) {
		uint64_t missed = bm_stream_missed(r->stream, cpu, &uncounted);
		uint64_t stats = bm_cpustat_value(m->cpustats[cpu], "overrun") +
				 bm_cpustat_value(m->cpustats[cpu], "dropped events");

		if (stats > missed)
			missed = stats;
		if (missed || uncounted)
			bm_tell(r->opts->warn, "the kernel lost %s%llu events on CPU %d while "
				"recording: counts and the device map may be incomplete",
				uncounted ? "at least " : "", (unsigned long long)missed, cpu);
	}
	for (i = 0; i < n; i++) {
		char from[32], to[32];

		char when[96];
		const struct bm_loss *l = &losses[i];

		if (!l->damaged_at)
			continue;
		if (l->cut) {
			report_cut(r, l);
			continue;
		}
		/* Every one: a damaged file is news. */
		bm_ts_str(l->from, from, sizeof(from));
		bm_ts_str(l->to, to, sizeof(to));
		if (l->from && l->to > l->from)
			snprintf(when, sizeof(when), "between %s and %s", from, to);
		else if (l->from)
			snprintf(when, sizeof(when), "after %s, to the CPU's end", from);
		else if (l->to)
			snprintf(when, sizeof(when), "before %s", to);
		else
			snprintf(when, sizeof(when), "all the CPU had");
		bm_tell(r->opts->warn, "'%s': offset %llu: damaged ring-buffer page of CPU %d (%s): "
			"its events are left out, %s", bm_trace_path(r->trace),
			(unsigned long long)l->damaged_at, l->cpu, l->damage, when);
	}
	for (i = 0, n = 0; i < r->pass.nlosses && n < 20; i++) {
		char from[32], to[32];

		if (losses[i].damaged_at)
			continue;
		n++;
		if (losses[i].from)
			bm_tell(r->opts->warn, "events lost on CPU %d between %s and %s",
				losses[i].cpu, bm_ts_str(losses[i].from, from, sizeof(from)),
				bm_ts_str(losses[i].to, to, sizeof(to)));
		else
			bm_tell(r->opts->warn, "events lost on CPU %d before %s", losses[i].cpu,
				bm_ts_str(losses[i].to, to, sizeof(to)));
	}
	for (n = 0; i < r->pass.nlosses; i++)
		n += !losses[i].damaged_at;
	if (n)
		bm_tell(r->opts->warn, "and %zu more gaps", n);
}

static void label(struct report *r, struct bm_label_cache *cache, enum bm_kind kind,
		  uint32_t dev, uint32_t old_dev, uint64_t ts, struct bm_labelled *l)
{
	memset(l, 0, sizeof(*l));
	if (!bm_names_dev(kind))
		return;
	l->span = bm_map_label_cached(r->map, cache, dev, ts, 0, &l->basis);
	if (kind == BM_EV_BIO_REMAP)
		l->old_span = bm_map_label_cached(r->map, cache, old_dev, ts, dev, &l->old_basis);
}

unsigned bm_rwbs_ops(const char *rwbs)
{
	unsigned ops = 0;

	for (; *rwbs; rwbs++)
		ops |= *rwbs == 'R' ? BM_OPS_READ : *rwbs == 'W' ? BM_OPS_WRITE :
		       *rwbs == 'F' ? BM_OPS_FLUSH : *rwbs == 'D' ? BM_OPS_DISCARD : 0;
	return ops;
}

static const char *const op_names[] = { "read", "write", "flush", "discard" };

unsigned bm_ops_parse(const char *name)
{
	unsigned i;

	for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (!strcmp(name, op_names[i]))
			return 1U << i;
	return 0;
}

const char *bm_ops_str(unsigned ops, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]) && len < size; i++)
		if (ops & (1U << i))
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "", op_names[i]);
	return buf;
}

static bool device_wanted(struct report *r, const struct bm_event *ev, const struct bm_labelled *l)
{
	const struct bm_span_filter *f = &r->opts->devices;

	if (!bm_span_filter_set(f))
		return true;
	if (!bm_names_dev(ev->kind))
		return false;
	return bm_span_filter_match_at(f, l->span, ev->dev, ev->ts) ||
	       (ev->kind == BM_EV_BIO_REMAP &&
		bm_span_filter_match_at(f, l->old_span, ev->old_dev, ev->ts));
}

static bool process_filter_set(const struct bm_report_opts *o)
{
	return o->npids || o->ncomms;
}

/* Is @pid (its command @comm, or NULL to look it up) one --pid and --comm keep? */
static bool process_wanted(const struct bm_report_opts *o, struct tep_handle *tep, int pid,
			   const char *comm)
{
	bool ok = !o->npids;
	unsigned i;

	for (i = 0; !ok && i < o->npids; i++)
		ok = o->pids[i] == pid;
	if (!ok || !o->ncomms)
		return ok;
	if (!comm)
		comm = pid ? tep_data_comm_from_pid(tep, pid) : "<idle>";
	for (i = 0; i < o->ncomms; i++)
		if (!strcmp(comm, o->comms[i]))
			return true;
	return false;
}

/* A block event's operations, noted for a message if none was wanted. */
static bool ops_wanted(struct report *r, const struct bm_event *ev)
{
	unsigned ops;

	if (!r->opts->ops)
		return true;
	if (!bm_names_dev(ev->kind))
		return false;
	ops = bm_rwbs_ops(ev->rwbs);
	__atomic_fetch_or(&r->ops_seen, ops, __ATOMIC_RELAXED);
	return ops & r->opts->ops;
}

/* Is @pid, at @ts, in a cgroup --cgroup keeps? */
static bool cgroup_wanted(const struct report *r, int pid, uint64_t ts)
{
	struct bm_cgroup cg;

	if (!r->opts->cgroup)
		return true;
	return bm_cgroups_of(r->pass.cgroups, pid, ts, &cg) != BM_CG_UNKNOWN &&
	       bm_cgroup_wanted(r->opts->cgroup, &cg);
}

static bool event_wanted(struct report *r, const struct bm_event *ev, const struct bm_labelled *l)
{
	return ops_wanted(r, ev) && cgroup_wanted(r, ev->pid, ev->ts) &&
	       (!process_filter_set(r->opts) ||
		process_wanted(r->opts, bm_decoder_tep(r->dec), ev->pid, NULL)) &&
	       device_wanted(r, ev, l);
}

/* Pass 2: every event, labelled, within the filters, to @sink. */
static int pass_events(struct report *r)
{
	uint64_t next = 0, n = 0;
	struct bm_labelled l;
	struct bm_event ev;
	struct bm_rec rec;
	int ret;

	if (bm_stream_rewind(r->stream) < 0)
		return -1;
	while ((ret = bm_stream_next(r->stream, &rec)) > 0) {
		if (!(++n & 0xfff))
			progress(r, "reading events", bm_stream_bytes_read(r->stream), &next);
		if (rec.ts < r->io_since || rec.ts > r->until)
			continue;
		bm_decode(r->dec, &rec, &ev);
		label(r, &r->labels, ev.kind, ev.dev, ev.old_dev, ev.ts, &l);
		if (!event_wanted(r, &ev, &l))
			continue;
		r->listed++;
		bm_events_view_print(r->listing, &rec, &ev, &l);
		if (ferror(r->out))
			break;
	}
	bm_events_view_flush(r->listing);	/* what was listed, even on an error */
	return ret < 0 ? -1 : 0;
}

/*
 * The listing with workers: each formats its CPUs' block events into
 * lines and hands over the other events' records as they are, for the
 * caller's thread to print through libtraceevent (which keeps state of
 * its own). The caller merges and writes.
 */
struct listed {
	uint64_t ts;
	uint32_t at, len;	/* in the batch's bytes */
	int32_t type;		/* a record's event id to print; -1: formatted lines */
	int32_t cpu;
};

#define LISTED_BATCH	512
#define LISTED_BYTES	(64 << 10)

struct lister {
	struct bm_events_view *view;	/* created by the first fill, in its thread */
	struct bm_label_cache labels;
};

static int add_listed(struct bm_lane_batch *b, const struct bm_rec *rec, int type,
		      const char *bytes, size_t len)
{
	ssize_t at = bm_lane_bytes(b, len);

	if (at < 0)
		return -1;
	memcpy(b->bytes + at, bytes, len);
	((struct listed *)b->items)[b->n++] = (struct listed){ .ts = rec->ts, .at = at,
		.len = len, .type = type, .cpu = rec->cpu };
	return 0;
}

static int fill_listed(void *ctx, void *state, int cpu, struct bm_lane_batch *b)
{
	struct report *r = ctx;
	struct lister *ls = state;
	struct bm_labelled l;
	struct bm_event ev;
	struct bm_rec rec;
	int ret = 1;

	if (!ls->view) {
		ls->view = bm_events_view_lines(r->opts->format, r->dec, r->printer);
		if (!ls->view)
			goto nomem;
		bm_events_view_cgroups(ls->view, r->pass.cgroups);
	}
	while (b->n < b->cap && b->nbytes < LISTED_BYTES &&
	       (ret = bm_stream_next_cpu(r->stream, cpu, &rec)) > 0) {
		const char *line;
		size_t len;

		if (rec.ts < r->io_since || rec.ts > r->until)
			continue;
		if (!bm_names_dev(bm_decoder_kind(r->dec, rec.type))) {
			/* A listing filtered by device or operation holds block events only. */
			if (bm_span_filter_set(&r->opts->devices) || r->opts->ops)
				continue;
			if (process_filter_set(r->opts) || r->opts->cgroup) {
				bm_decode(r->dec, &rec, &ev);
				if (!process_wanted(r->opts, bm_decoder_tep(r->dec), ev.pid, NULL) ||
				    !cgroup_wanted(r, ev.pid, ev.ts))
					continue;
			}
			if (add_listed(b, &rec, rec.type, rec.data, rec.size) < 0)
				goto nomem;
			continue;
		}
		bm_decode(r->dec, &rec, &ev);
		label(r, &ls->labels, ev.kind, ev.dev, ev.old_dev, ev.ts, &l);
		if (!event_wanted(r, &ev, &l))
			continue;
		bm_events_view_print(ls->view, &rec, &ev, &l);
		line = bm_events_view_take(ls->view, &len);
		if (add_listed(b, &rec, -1, line, len) < 0)
			goto nomem;
	}
	return ret;
nomem:
	bm_error_errno("cannot list the events of '%s'", bm_trace_path(r->trace));
	return -1;
}

static void release_lister(void *state)
{
	bm_events_view_free(((struct lister *)state)->view);
}

static int pass_events_in_lanes(struct report *r)
{
	struct bm_lanes *lanes;
	const void *item;
	const char *bytes;
	uint64_t next = 0, n = 0;
	int ret;

	/* libtraceevent sorts its comm list at the first lookup: here, before the workers'. */
	tep_data_comm_from_pid(r->tep, 1);
	lanes = bm_lanes_start(r->stream, &(struct bm_lanes_def){
		.item_size = sizeof(struct listed), .batch_items = LISTED_BATCH,
		.batch_bytes = LISTED_BYTES, .state_size = sizeof(struct lister),
		.fill = fill_listed, .release = release_lister, .ctx = r }, r->opts->jobs);
	if (!lanes)
		return -1;
	while ((ret = bm_lanes_next(lanes, &item, &bytes)) > 0) {
		const struct listed *it = item;

		if (!(++n & 0xfff))
			progress(r, "reading events", bm_lanes_bytes_read(lanes), &next);
		r->listed++;
		if (it->type < 0) {
			bm_events_view_put(r->listing, bytes + it->at, it->len);
		} else {
			struct bm_rec rec = { .ts = it->ts, .cpu = it->cpu, .type = it->type,
					      .data = (void *)(bytes + it->at), .size = it->len };
			struct bm_labelled l = { 0 };
			struct bm_event ev;

			bm_decode(r->dec, &rec, &ev);
			bm_events_view_print(r->listing, &rec, &ev, &l);
		}
		if (ferror(r->out))
			break;
	}
	bm_events_view_flush(r->listing);	/* what was listed, even on an error */
	bm_lanes_stop(lanes);
	return ret < 0 ? -1 : 0;
}

static int list_events(struct report *r)
{
	struct tep_handle *tep = bm_trace_tep_printing(r->trace);

	/* After the plugins: their handlers are what some events print through. */
	r->printer = bm_printer_new(tep, r->opts->warn);
	r->listing = r->printer ? bm_events_view_start(r->out, r->opts->format, r->opts->explain,
						       r->opts->no_header, r->dec, r->printer) : NULL;
	if (!r->listing) {
		bm_error_errno("cannot list the events of '%s'", bm_trace_path(r->trace));
		return -1;
	}
	bm_events_view_cgroups(r->listing, r->pass.cgroups);
	/*
	 * --explain writes as it goes: in one thread. So does a file with
	 * events a plugin prints while it learns commands (sched_switch's)
	 * into the table the lanes would read the block events' commands from.
	 */
	if (r->opts->jobs > 1 && !r->opts->explain && !bm_printing_learns(tep))
		return pass_events_in_lanes(r);
	return pass_events(r);
}

/*
 * Pass 2 for analyses: the block events of the window, labelled. Every
 * device: a partition's I/O completes on its disk.
 */
static int analyse_events(struct report *r)
{
	struct bm_iofeed *feed = bm_iofeed_start(r->stream, r->dec, r->map, r->io_since,
						 r->until, r->opts->jobs);
	const struct bm_fed_io *io;
	uint64_t n = 0, next = 0;
	int ret;

	if (!feed)
		return -1;
	while ((ret = bm_iofeed_next(feed, &io)) > 0) {
		if (!(++n & 0xffff))
			progress(r, "reading events", bm_iofeed_bytes_read(feed), &next);
		bm_analysis_event(r->analysis, &io->io, io->span, io->old_span);
	}
	bm_iofeed_stop(feed);
	return ret;
}

#define PLOT_BINS	400
#define PLOT_SLOWEST	10	/* the slowest I/Os the plot marks, without --slowest=N */
#define PLOT_PROCS	5	/* the busiest processes it draws */

/* The series' bins: --interval's, or the plot's (0: no series). */
static uint64_t bin_width(const struct report *r)
{
	uint64_t span = r->until > r->io_since ? r->until - r->io_since + 1 : 1;
	unsigned bins = r->opts->bins ? r->opts->bins : PLOT_BINS;

	if (r->opts->interval_ns)
		return r->opts->interval_ns;
	if (!r->opts->plot)
		return 0;
	return (span + bins - 1) / bins;
}

static int analyse(struct report *r)
{
	const char *clock;

	r->analysis = bm_analysis_new(r->io_since, r->until, bin_width(r));
	if (!r->analysis && errno == EINVAL) {
		bm_error("intervals of %.9g s cut '%s' (%.9g s) into more than %d: give a longer "
			 "--interval", r->opts->interval_ns / 1e9, bm_trace_path(r->trace),
			 (r->until - r->io_since) / 1e9, BM_SERIES_MAX_BINS);
		return -1;
	}
	if (!r->analysis) {
		bm_error_errno("cannot analyse '%s'", bm_trace_path(r->trace));
		return -1;
	}
	if (bm_analysis_gaps(r->analysis, r->pass.losses, r->pass.nlosses) < 0) {
		bm_error_errno("cannot analyse '%s'", bm_trace_path(r->trace));
		return -1;
	}
	/* Ticks are on CLOCK_MONOTONIC, blkmap's trace clock. */
	clock = bm_trace_get_meta(r->trace)->clock;
	if (clock && !strcmp(clock, "mono"))
		bm_analysis_tick(r->analysis, &r->pass.tick);
	if (r->opts->view == BM_VIEW_PHASES)
		bm_analysis_phases(r->analysis);
	if (r->opts->view == BM_VIEW_SLOWEST)
		bm_analysis_slowest(r->analysis, r->opts->slowest);
	if (r->opts->view != BM_VIEW_SLOWEST && r->opts->plot)	/* the plot marks them */
		bm_analysis_slowest(r->analysis, PLOT_SLOWEST);
	if (r->opts->plot)
		bm_analysis_proc_series(r->analysis, PLOT_PROCS);
	if (r->opts->view == BM_VIEW_TOP)
		bm_analysis_processes(r->analysis);
	if (r->opts->view == BM_VIEW_CGROUPS || r->opts->view == BM_VIEW_TOP)
		bm_analysis_cgroups(r->analysis, r->pass.cgroups);
	if (tep_find_event_by_name(r->tep, "block", "block_bio_backmerge"))
		bm_analysis_merges(r->analysis);
	if (analyse_events(r) < 0)
		return -1;
	bm_analysis_finish(r->analysis);
	bm_analysis_keep(r->analysis, &r->opts->devices);
	return 0;
}

static bool top_wanted(int pid, const char *comm, void *ctx)
{
	struct report *r = ctx;

	return process_wanted(r->opts, bm_decoder_tep(r->dec), pid, comm);
}

/*
 * --pid, --comm or --op kept nothing: a mistake, not a quiet recording.
 * Say what the recording has: its processes (the cmdlines it saved) and
 * the operations of the window's block events.
 */
static int nothing_matched(struct report *r)
{
	const struct bm_trace_meta *m = bm_trace_get_meta(r->trace);
	const struct bm_report_opts *o = r->opts;
	char procs[512] = "", ops[64], want[64];
	const char *p = m->cmdlines, *end = p ? p + m->cmdlines_len : NULL;
	size_t len = 0;

	while (p && p < end && len < sizeof(procs) - 64) {
		const char *nl = memchr(p, '\n', end - p), *sp;
		size_t n = (nl ? nl : end) - p;

		sp = memchr(p, ' ', n);
		if (sp)
			len += snprintf(procs + len, sizeof(procs) - len, "%s%.*s (%.*s)",
					len ? ", " : "", (int)(p + n - sp - 1), sp + 1, (int)(sp - p), p);
		p += n + 1;
	}
	if (p && p < end)
		snprintf(procs + len, sizeof(procs) - len, ", ...");
	if (o->cgroup && !o->ops && !process_filter_set(o)) {
		bm_error("no event of '%s' in the window is of a task in the cgroup %s or below it "
			 "(report --cgroups names the cgroups that did I/O)", bm_trace_path(r->trace),
			 o->cgroup);
		errno = ENOENT;
		return -1;
	}
	/* An operation the window has, but not in the processes named: say those. */
	if (o->ops && !(process_filter_set(o) && (r->ops_seen & o->ops)))
		bm_error("no event of '%s' in the window is a %s (its operations there: %s)",
			 bm_trace_path(r->trace), bm_ops_str(o->ops, want, sizeof(want)),
			 r->ops_seen ? bm_ops_str(r->ops_seen, ops, sizeof(ops)) : "none");
	else
		bm_error("no event of '%s' in the window is of the processes --pid and --comm name "
			 "(its processes: %s)", bm_trace_path(r->trace), procs[0] ? procs : "none saved");
	errno = ENOENT;
	return -1;
}

/*
 * --top's --pid or --comm kept no row: not an error (the table is printed,
 * empty), but a note naming the processes that did I/O in the window, each
 * once, so that a mistyped pid is seen for one.
 */
static void top_matched_nothing(struct report *r)
{
	const struct bm_top_row *rows;
	size_t i, j, n = bm_analysis_top(r->analysis, &rows), len = 0;
	char procs[512] = "";

	for (i = 0; i < n && len < sizeof(procs) - 64; i++) {
		for (j = 0; j < i && rows[j].pid != rows[i].pid; j++)
			;
		if (j < i)
			continue;
		len += snprintf(procs + len, sizeof(procs) - len, "%s%s (%d)", len ? ", " : "",
				rows[i].pid ? tep_data_comm_from_pid(r->tep, rows[i].pid) : "<idle>",
				rows[i].pid);
	}
	if (i < n)
		snprintf(procs + len, sizeof(procs) - len, ", ...");
	bm_tell(r->opts->warn, "no I/O of '%s' in the window is of the processes --pid and "
		"--comm name; the processes that did I/O: %s", bm_trace_path(r->trace),
		procs[0] ? procs : "none");
}

/* The names (or numbers) of the recording's incarnations, each once, into @buf. */
static const char *known_devices(struct report *r, bool names, char *buf, size_t size)
{
	size_t i, j, len = 0, n = bm_map_count(r->map);
	char dev[16];

	buf[0] = '\0';
	for (i = 0; i < n && len < size - 64; i++) {
		const struct bm_span *s = bm_map_span(r->map, i);
		const char *item = names ? s->name : bm_dev_str(s->dev, dev, sizeof(dev));

		for (j = 0; j < i; j++) {
			const struct bm_span *t = bm_map_span(r->map, j);

			if (names ? !strcmp(t->name, s->name) : t->dev == s->dev)
				break;
		}
		if (j == i)
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "", item);
	}
	if (i < n)
		snprintf(buf + len, size - len, ", ...");
	return buf[0] ? buf : "none";
}

/* A live view's interval (blkmap top's) is what it is, events to its end or not. */
static bool live(const struct bm_report_opts *o)
{
	return o->live || o->view == BM_VIEW_INTERVAL;
}

/*
 * A --disk or --dev that no incarnation had is a mistake, not a disk
 * without I/O: refuse it, naming what the recording holds. So are names
 * and numbers that no incarnation had at once.
 */
static int check_device_filter(struct report *r)
{
	const struct bm_span_filter *f = &r->opts->devices;
	struct bm_span_filter one = { .nnames = 1 };
	size_t i, n = bm_map_count(r->map);
	char known[512], dev[16], names[256] = "", devs[256] = "";
	size_t len;
	unsigned k;

	/* A live view's disk may come later. */
	if (!bm_span_filter_set(f) || live(r->opts))
		return 0;
	for (k = 0; k < f->nnames; k++) {
		one.names[0] = f->names[k];
		for (i = 0; i < n && !bm_span_filter_match(&one, bm_map_span(r->map, i), 0); i++)
			;
		if (i == n) {
			bm_error("no disk or partition was named '%s' during the recording '%s' "
				 "(its names: %s)", f->names[k], bm_trace_path(r->trace),
				 known_devices(r, true, known, sizeof(known)));
			goto refused;
		}
	}
	for (k = 0; k < f->ndevs; k++) {
		for (i = 0; i < n && bm_map_span(r->map, i)->dev != f->devs[k]; i++)
			;
		if (i == n) {
			bm_error("no disk or partition had device number %s during the recording "
				 "'%s' (its numbers: %s)", bm_dev_str(f->devs[k], dev, sizeof(dev)),
				 bm_trace_path(r->trace), known_devices(r, false, known, sizeof(known)));
			goto refused;
		}
	}
	for (i = 0; i < n; i++) {
		const struct bm_span *s = bm_map_span(r->map, i);

		if (bm_span_filter_match(f, s, s->dev))
			return 0;
	}
	for (k = 0, len = 0; k < f->nnames && len < sizeof(names); k++)
		len += snprintf(names + len, sizeof(names) - len, "%s'%s'", k ? " or " : "",
				f->names[k]);
	for (k = 0, len = 0; k < f->ndevs && len < sizeof(devs); k++)
		len += snprintf(devs + len, sizeof(devs) - len, "%s%s", k ? " or " : "",
				bm_dev_str(f->devs[k], dev, sizeof(dev)));
	bm_error("no incarnation in '%s' was both %s and %s: give one of --disk and --dev",
		 bm_trace_path(r->trace), names, devs);
refused:
	errno = ENOENT;
	return -1;
}

/* A time of the wall clock (ns since the epoch) on the trace clock; 0 if before it began. */
static uint64_t from_wall(const struct report *r, uint64_t wall)
{
	int64_t d = (int64_t)(wall - r->pass.wall_ns);

	return d < 0 && (uint64_t)-d > r->pass.mono_ns ? 0 : r->pass.mono_ns + d;
}

/* --since's or --until's time on the trace clock. */
static uint64_t place(const struct report *r, const struct bm_time_arg *t)
{
	uint64_t first = r->pass.first;

	if (t->wall)
		return from_wall(r, t->ns);
	if (!t->relative)
		return t->ns;
	if (t->before)	/* -S: before the start, as --time=rel prints it */
		return t->ns < first ? first - t->ns : 0;
	return first + t->ns;
}

/*
 * How text prints times (--time), and the wall clock that --time=wall and
 * wall-clock --since/--until need: refused where the recording has none.
 */
static int show_times(struct report *r)
{
	const struct bm_report_opts *o = r->opts;
	const char *clock = bm_trace_get_meta(r->trace)->clock;
	bool wall = r->pass.wall_ns && r->pass.mono_ns && clock && !strcmp(clock, "mono");

	if ((o->time == BM_TIME_WALL || (o->since_set && o->since.wall) ||
	     (o->until_set && o->until.wall)) && !wall) {
		bm_error("'%s' holds no wall-clock time (its record-begin marker has none: recorded "
			 "by an older blkmap or another tool): --time=wall and wall-clock --since and "
			 "--until cannot be placed; use --time=abs or --time=rel",
			 bm_trace_path(r->trace));
		errno = EINVAL;
		return -1;
	}
	bm_time_show(&(struct bm_timefmt){ .mode = o->time, .first = r->pass.first,
					   .wall_ns = r->pass.wall_ns, .mono_ns = r->pass.mono_ns });
	bm_names_show(!o->kernel_names);
	return 0;
}

/*
 * A flight recording's I/O is whole from its window's start on (some CPU's
 * events before it were let go), its map from the recording's start: I/O
 * is looked at from there, and a --since before it is clipped, with a
 * note. A window that ends before it is refused: its figures would be
 * invented from the CPUs whose pages reach further back (a busy disk with
 * no I/O, a depth of thousands). The map view needs no I/O.
 */
static int flight_window(struct report *r)
{
	const struct bm_report_opts *o = r->opts;
	char since[32], until[32], from[32];

	bm_ts_str(r->since, since, sizeof(since));
	bm_ts_str(r->until, until, sizeof(until));
	bm_ts_str(r->pass.window_from, from, sizeof(from));
	if (r->pass.window_from > r->until) {
		if (o->view == BM_VIEW_MAP)
			return 0;
		bm_error("the window from %s to %s ends before the I/O of '%s' begins (%s: a flight "
			 "recording's window; before it some CPU's events were let go, so no figure "
			 "there would be whole); give an --until after %s, or --map for the devices "
			 "then", since, until, bm_trace_path(r->trace), from, from);
		errno = EINVAL;
		return -1;
	}
	if (o->since_set && o->view != BM_VIEW_MAP)
		bm_tell(o->warn, "--since %s lies before the I/O '%s' holds whole (from %s, a flight "
			"recording's window: before it some CPU's events were let go): its figures "
			"start there", since, bm_trace_path(r->trace), from);
	r->io_since = r->pass.window_from;
	return 0;
}

/*
 * The window of interest, from the filters, within the recording. Events
 * are looked at within a flight recording's window of them only: before
 * it, some CPU's were let go (its map reaches further back).
 */
static int window(struct report *r)
{
	const struct bm_report_opts *o = r->opts;
	uint64_t first = r->pass.first, last = r->pass.last;
	char a[32], b[32], since[32], until[32];

	r->since = !o->since_set ? first : place(r, &o->since);
	r->until = !o->until_set ? last : place(r, &o->until);
	/* An empty window is a mistake (a time pasted from another recording): say why. */
	if (!live(o) && r->pass.events &&
	    (r->since > r->until || r->since > last || r->until < first)) {
		bm_ts_str(first, a, sizeof(a));
		bm_ts_str(last, b, sizeof(b));
		bm_ts_str(r->since, since, sizeof(since));
		bm_ts_str(r->until, until, sizeof(until));
		bm_error("the window from %s to %s holds nothing of '%s': %s; the recording runs "
			 "from %s to %s (as --time prints; +S for seconds from its start)", since,
			 until, bm_trace_path(r->trace), r->since > last || r->until < first ?
			 "it lies outside the recording" : "it ends before it starts", a, b);
		errno = EINVAL;
		return -1;
	}
	if (r->since < first)
		r->since = first;
	/* A live view's interval is what it is, events to its end or not. */
	if (r->until > last && !live(o))
		r->until = last;
	r->io_since = r->since;
	if (r->pass.window_from > r->io_since)
		return flight_window(r);
	return 0;
}

int bm_report(const char *path, const struct bm_report_opts *opts, FILE *out)
{
	struct bm_trace *trace;
	int ret;

	if (opts->plot && bm_plot_check(opts->plot, path) < 0)
		return -1;
	trace = bm_trace_open(path);
	if (!trace)
		return -1;
	ret = bm_report_trace(trace, opts, out);
	bm_trace_close(trace);
	return ret;
}

int bm_report_trace(struct bm_trace *trace, const struct bm_report_opts *opts, FILE *out)
{
	struct report r = { .opts = opts, .out = out, .trace = trace };
	const char *path = bm_trace_path(trace);
	int ret = -1, err = 0, cpu;
	ssize_t listed;

	if (opts->plot && bm_plot_check(opts->plot, path) < 0)
		return -1;
	r.tep = bm_trace_tep(r.trace);
	r.dec = bm_decoder_new(r.tep);
	if (!r.dec) {
		bm_error_errno("cannot read '%s'", path);
		goto out;
	}
	r.stream = bm_stream_open(r.trace);
	if (!r.stream)
		goto out;
	for (cpu = 0; cpu < bm_trace_get_meta(r.trace)->ncpus; cpu++)
		r.total_bytes += bm_trace_cpu(r.trace, cpu)->size;
	if (!r.total_bytes)
		r.total_bytes = 1;
	r.pass = (struct bm_map_pass){ .path = path, .progress = map_progress, .ctx = &r,
				       .jobs = opts->jobs };
	r.map = bm_map_build(r.stream, r.dec, &r.pass);
	if (!r.map || check_device_filter(&r) < 0)
		goto out;
	if (show_times(&r) < 0)
		goto out;
	report_missing_map(&r);
	report_loss(&r);
	if (window(&r) < 0)
		goto out;
	if ((opts->plot || opts->view >= BM_VIEW_DISKS) && analyse(&r) < 0)
		goto out;
	switch (opts->view) {
	case BM_VIEW_MAP:
		err = bm_view_map(out, opts->format, r.map, &(struct bm_map_view_opts){
			.filter = &opts->devices, .since = r.since, .until = r.until,
			.losses = r.pass.losses, .nlosses = r.pass.nlosses,
			.no_header = opts->no_header });
		break;
	case BM_VIEW_CONFLICTS:
		err = bm_view_conflicts(out, opts->format, r.map, &(struct bm_map_view_opts){
			.no_header = opts->no_header });
		break;
	case BM_VIEW_EVENTS:
		if (list_events(&r) < 0)
			goto out;
		if ((process_filter_set(opts) || opts->ops || opts->cgroup) && !r.listed &&
		    nothing_matched(&r) < 0)
			goto out;
		break;
	case BM_VIEW_DISKS:
		err = bm_view_disks(out, opts->format, r.analysis, !opts->no_header, opts->sort);
		break;
	case BM_VIEW_LATENCY:
		err = bm_view_latency(out, opts->format, r.analysis, !opts->no_header);
		break;
	case BM_VIEW_TOP:
		listed = bm_view_top(out, opts->format, r.analysis, !opts->no_header, r.tep, opts->cgroup,
				     process_filter_set(opts) ? top_wanted : NULL, &r);
		err = listed < 0 ? -1 : 0;
		r.listed = listed < 0 ? 0 : listed;
		if (!err && process_filter_set(opts) && !r.listed)
			top_matched_nothing(&r);
		break;
	case BM_VIEW_CGROUPS:
		err = bm_view_cgroups(out, opts->format, r.analysis, !opts->no_header, opts->cgroup,
				      r.io_since, r.until);
		break;
	case BM_VIEW_STACK:
		err = bm_view_stack(out, opts->format, r.analysis, !opts->no_header);
		break;
	case BM_VIEW_SLOWEST:
		err = bm_view_slowest(out, opts->format, r.analysis, !opts->no_header, r.tep);
		break;
	case BM_VIEW_PHASES:
		if (!tep_find_event_by_name(r.tep, "block", "block_bio_backmerge"))
			bm_tell(opts->warn, "'%s' was recorded without merges and plugs (blkmap "
				"record --events=phases): no Q2M, M2D, merges or plugs, and a merged "
				"bio has no phase between its queue and its completion", path);
		bm_view_phases(out, opts->format, r.analysis, !opts->no_header);
		break;
	case BM_VIEW_INTERVAL:
		err = bm_view_interval(out, opts->format, r.analysis, r.map,
				       &(struct bm_interval_opts){
			.since = r.io_since, .until = r.until, .header = !opts->no_header,
			.sort = opts->sort, .filter = &opts->devices });
		break;
	case BM_VIEW_SERIES:
		err = bm_view_series(out, opts->format, r.analysis, &(struct bm_series_opts){
			.since = r.io_since, .until = r.until, .header = !opts->no_header,
			.sort = opts->sort });
		break;
	case BM_VIEW_NONE:
		break;
	}
	if (err < 0) {
		bm_error_errno("cannot report '%s'", path);
		goto out;
	}
	if (opts->plot && bm_plot(opts->plot, r.analysis, &(struct bm_plot_opts){
			.first = r.io_since, .last = r.until, .tep = r.tep,
			.wall_ns = opts->time == BM_TIME_WALL ? r.pass.wall_ns : 0,
			.mono_ns = r.pass.mono_ns }) < 0)
		goto out;
	if (opts->analysed && opts->analysed(opts->ctx, r.analysis, r.map) < 0)
		goto out;
	if (fflush(out) != 0 || ferror(out)) {
		bm_error_errno("cannot write the report");
		goto out;
	}
	ret = 0;
out:
	bm_time_show(NULL);
	bm_names_show(true);
	bm_events_view_free(r.listing);
	bm_printer_free(r.printer);
	free(r.pass.losses);
	bm_cgroups_free(r.pass.cgroups);
	bm_analysis_free(r.analysis);
	bm_stream_close(r.stream);
	bm_map_free(r.map);
	bm_decoder_free(r.dec);
	return ret;
}
