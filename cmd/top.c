// SPDX-License-Identifier: GPL-2.0-only
/*
 * blkmap top: a flight recording whose ring is reported, every interval,
 * for that interval only (report's interval view).
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blkmap/record/record.h"
#include "blkmap/report/report.h"
#include "blkmap/report/summaries.h"
#include "blkmap/util/error.h"

#include "cmd.h"

#define DEFAULT_RING	(64ULL << 20)

static char doc[] =
	"Show, every INTERVAL seconds (default 1), each disk's and partition's I/O as "
	"iostat -x does, under the name it had then: r/s, w/s, rkB/s, wkB/s, r_await and "
	"w_await (Q2C) with D2C beside them, average request size, aqu-sz, depth, "
	"utilisation, flushes, and Q2C and D2C latency (p50, p99 and max, in ms). A disk added or removed during the interval has a row of its own, "
	"marked (new), (gone) or (new+gone): one removed and another created on its number "
	"are two rows, told apart by DEV#N. On a terminal the screen is redrawn; otherwise, or with --format=csv or "
	"json, each interval adds one record per disk.\v"
	"It records as 'blkmap record --ring' does, with the same map sources, into "
	"nothing unless -o is given (the last SIZE of events and the whole map, written "
	"at the end). Stops after -n intervals, or on SIGINT, SIGTERM or SIGHUP.";

enum { OPT_RING = 0x100, OPT_SORT, OPT_DISK, OPT_EVENTS, OPT_CGROUPS, OPT_CGROUP };

static struct argp_option options[] = {
	{ "count", 'n', "COUNT", 0, "Stop after COUNT intervals", 0 },
	{ "format", 'f', "FORMAT", 0, "text, csv or json", 0 },
	{ "sort", OPT_SORT, "KEY", 0,
	  "Order of the rows: dev (the default), name, iops, bytes, util, latency (D2C p99, or "
	  "Q2C where there is none); all but dev and name the most first", 0 },
	{ "disk", OPT_DISK, "NAME", 0, "Only the disk or partition NAME (or device-mapper name)",
	  0 },
	{ "cgroups", OPT_CGROUPS, NULL, 0, "Per disk and cgroup (of cgroup v2): the I/O each "
	  "cgroup queued in the interval, as blkmap report --cgroups shows it", 0 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "With --cgroups, only the cgroup PATH and those below "
	  "it", 0 },
	{ "output", 'o', "FILE", 0, "Also write the recording to FILE at the end", 0 },
	{ "ring", OPT_RING, "SIZE", 0, "Keep the newest SIZE of events (default 64M)", 0 },
	{ "events", OPT_EVENTS, "PROFILE", 0,
	  "The block events to record, as for record: default, or phases (also merges, "
	  "for rrqm/s and wrqm/s, and plugs; they cost more)", 0 },
	{ "sources", 's', "LIST", 0,
	  "Map sources, as for record: module, kprobe, tracepoint, uevent, sysfs, all", 0 },
	{ "quiet", 'q', NULL, 0, "Print only errors on standard error", 0 },
	{ 0 }
};

struct top {
	struct bm_record_opts rec;
	struct bm_report_opts view;
	double interval;
	unsigned long count, shown;
	bool screen;		/* redraw a terminal */
	bool failed;
	bool quiet;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct top *t = state->input;
	char *end;

	switch (key) {
	case 'n':
		t->count = strtoul(arg, &end, 10);
		if (*end || !t->count || *arg == '-')
			argp_error(state, "-n takes a number of intervals, not '%s'", arg);
		break;
	case 'f':
		if (bm_output_format_parse(arg, &t->view.format) < 0)
			argp_error(state, "--format takes text, csv or json, not '%s'", arg);
		break;
	case OPT_SORT:
		if (bm_sort_parse(arg, &t->view.sort) < 0)
			argp_error(state, "--sort takes dev, name, iops, bytes, util or latency, "
				   "not '%s'", arg);
		break;
	case OPT_DISK:
		if (t->view.devices.nnames == BM_FILTER_MAX)
			argp_error(state, "at most %d --disk filters", BM_FILTER_MAX);
		t->view.devices.names[t->view.devices.nnames++] = arg;
		break;
	case OPT_CGROUPS:
		t->view.view = BM_VIEW_CGROUPS;
		break;
	case OPT_CGROUP:
		if (arg[0] != '/')
			argp_error(state, "--cgroup takes a cgroup's path from the hierarchy's root, "
				   "as /system.slice, not '%s'", arg);
		t->view.cgroup = arg;
		break;
	case 'o':
		t->rec.output = arg;
		break;
	case OPT_RING:
		if (parse_size(arg, &t->rec.ring_bytes) < 0)
			argp_error(state, "--ring takes a size such as 64M (K, M or G), not '%s'",
				   arg);
		break;
	case OPT_EVENTS:
		if (strcmp(arg, "default") && strcmp(arg, "phases"))
			argp_error(state, "--events takes default or phases, not '%s'", arg);
		t->rec.phase_events = !strcmp(arg, "phases");
		break;
	case 's': {
		int all = bm_source_parse(arg, &t->rec.sources);

		if (all < 0)
			argp_error(state, "--sources: %s", bm_error_message());
		t->rec.sources_named = !all;
		break;
	}
	case 'q':
		t->quiet = true;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0)
			argp_error(state, "one INTERVAL at most");
		t->interval = strtod(arg, &end);
		if (*end || t->interval < 0.1 || t->interval > 3600)
			argp_error(state, "INTERVAL is seconds (0.1 to 3600), not '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* One interval: the report's interval view of what the ring holds now. */
static int show(void *ctx, const char *path, uint64_t since, uint64_t until)
{
	struct top *t = ctx;
	char clock[16];
	time_t now = time(NULL);

	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
	t->view.since = (struct bm_time_arg){ .ns = since };
	t->view.until = (struct bm_time_arg){ .ns = until };
	t->view.since_set = t->view.until_set = true;	/* absolute: the interval's */
	if (t->screen)
		printf("\033[H\033[2J");
	if (t->view.format == BM_FORMAT_TEXT)
		printf("%sblkmap top  %s  interval %.1f s\n", t->screen ? "" : "\n", clock,
		       (until - since) / 1e9);
	if (bm_report(path, &t->view, stdout) < 0) {
		fail(NULL);
		t->failed = true;
		return 1;
	}
	/* CSV: the column names once; text: on every screen or block. */
	t->view.no_header = t->view.format == BM_FORMAT_CSV;
	fflush(stdout);
	return t->count && ++t->shown >= t->count;
}

static void notify(const char *line)
{
	say("%s", line);
}

int cmd_top(int argc, char **argv)
{
	struct argp argp = { .options = options, .parser = parse, .args_doc = "[INTERVAL]",
			     .doc = doc };
	struct bm_record_result res;
	struct top t = { .interval = 1 };

	t.rec.ring_bytes = DEFAULT_RING;
	t.rec.sources = BM_SRC_ALL;
	t.view.view = BM_VIEW_INTERVAL;
	t.view.live = true;
	argp_parse(&argp, argc, argv, 0, NULL, &t);
	if (t.view.cgroup && t.view.view != BM_VIEW_CGROUPS) {
		say("--cgroup keeps --cgroups' rows: give --cgroups with it");
		return 64;
	}
	if (t.view.sort && t.view.view == BM_VIEW_CGROUPS) {
		say("--sort orders the disks' rows: --cgroups' are by disk, then cgroup");
		return 64;
	}
	t.screen = t.view.format == BM_FORMAT_TEXT && isatty(STDOUT_FILENO);
	t.rec.tick_s = t.interval;
	t.rec.tick = show;
	t.rec.tick_ctx = &t;
	t.rec.notify = t.quiet ? NULL : notify;	/* the recorder's notes, before the first screen */
	t.rec.warn = notify;
	if (bm_record(&t.rec, &res) < 0)
		return fail(NULL);
	if (t.failed)
		return 1;
	if (t.rec.output)
		say("wrote the last window and the map into %s (%.1f KiB)", t.rec.output,
		    res.file_bytes / 1024.0);
	return 0;
}
