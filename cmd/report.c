// SPDX-License-Identifier: GPL-2.0-only
/* blkmap report: options, then the report pipeline. */
#include <argp.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blkmap/map/feed.h"
#include "blkmap/analyse/analyse.h"
#include "blkmap/report/report.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"
#include "blkmap/tracefile/reader.h"

#include "cmd.h"

static char doc[] =
	"Print the events of a recording (default blkmap.dat) in time order, each block "
	"event with the name its device had at that moment; or, with --map, when each "
	"device number carried which name; or per disk incarnation, with --disks, "
	"--latency, --top, --stack or --slowest, what it did. FILE may also be a recorder's spool directory, "
	"or - for standard input.\v"
	"Times for --since and --until: as the report prints them, seconds (\"775.917350\") "
	"or nanoseconds (\"775917350123ns\") of the trace clock; from the start of the "
	"recording: \"+2.5\", \"2.5s\", \"250ms\", \"40us\" (as --time=rel prints); or the "
	"wall clock as --time=wall prints it: \"2026-12-01T21:03:32.5+01:00\".\n\n"
	"Formats: text (default); csv with a header row; json as JSON Lines, one object "
	"per line. CSV and JSON carry the same keys on every line, as --schema lists them "
	"(and blkmap-report(1) describes); each row about a disk has its incarnation "
	"(MAJ:MIN#N).\n"
	"\n"
	"Name basis: 'only' when one incarnation of the device number can have existed "
	"at that time, 'parent' when the partition's disk picked one of several, "
	"'guess' when several could and the nearest was taken, 'unknown' when none fits.";

enum {
	OPT_MAP = 256, OPT_CONFLICTS, OPT_NO_HEADER, OPT_EXPLAIN, OPT_DISKS, OPT_LATENCY, OPT_TOP, OPT_STACK, OPT_SINCE, OPT_UNTIL,
	OPT_DISK, OPT_DEV, OPT_PLOT, OPT_SCHEMA, OPT_PID, OPT_COMM, OPT_OP, OPT_TIME, OPT_INTERVAL,
	OPT_BINS, OPT_SORT, OPT_PHASES, OPT_NAMES, OPT_SLOWEST, OPT_CGROUPS, OPT_CGROUP,
};

/* Above this, more threads than a report can use: a typo, not a machine. */
#define MAX_JOBS	1024

static struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Views (default: the events):", 1 },
	{ "map", OPT_MAP, NULL, 0, "When each device number carried which name", 1 },
	{ "conflicts", OPT_CONFLICTS, NULL, 0,
	  "Where the map's sources disagreed (in text, --map prints them too)", 1 },
	{ "disks", OPT_DISKS, NULL, 0,
	  "Per disk and partition incarnation: I/O, rates, depth, utilisation, latency", 1 },
	{ "latency", OPT_LATENCY, NULL, 0, "Per incarnation: a log2 latency histogram", 1 },
	{ "top", OPT_TOP, NULL, 0, "Per incarnation: which processes did the I/O", 1 },
	{ "cgroups", OPT_CGROUPS, NULL, 0,
	  "Per incarnation and cgroup (of cgroup v2): the I/O each cgroup's tasks queued, as "
	  "the kernel's io.stat counts it", 1 },
	{ "stack", OPT_STACK, NULL, 0,
	  "Per incarnation: the I/O that came down from a dm or md device or a partition", 1 },
	{ "slowest", OPT_SLOWEST, "N", OPTION_ARG_OPTIONAL,
	  "The N slowest I/Os (default 10) by Q2C, each with what was in flight on its device "
	  "at its issue", 1 },
	{ "interval", OPT_INTERVAL, "DURATION", 0,
	  "The recording interval by interval (as sar -d): per incarnation and interval, "
	  "iostat's figures; DURATION as 1s, 500ms, 2.5 (seconds)", 1 },
	{ "phases", OPT_PHASES, NULL, 0,
	  "Per incarnation and operation: where the time goes, as btt splits it (Q2G, G2I, "
	  "Q2M, I2D, M2D, D2C, Q2C, Q2A), merges, plugs, seek distances, request sizes", 1 },
	{ "plot", OPT_PLOT, "FILE", 0,
	  "Also draw per disk throughput, latency (p50, p99, the slowest I/Os) and offsets over "
	  "time, and the five busiest processes' throughput, into FILE (.svg or .html)", 1 },
	{ "bins", OPT_BINS, "N", 0,
	  "The plot's time in N bins (default 400), unless --interval gives their width", 1 },
	{ NULL, 0, NULL, 0, "Output:", 2 },
	{ "format", 'f', "FORMAT", 0, "text, csv or json", 2 },
	{ "time", OPT_TIME, "CLOCK", 0, "Print times (text) as abs: seconds of the trace clock "
	  "(default); rel: from the recording's start; wall: the wall clock, ISO 8601", 2 },
	{ "names", OPT_NAMES, "WHICH", 0, "Name devices (text) as all: the kernel name and the "
	  "names people know, dm-3 (vg0/data on /srv) (default); kernel: the kernel name alone",
	  2 },
	{ "no-header", OPT_NO_HEADER, NULL, 0, "CSV without its header row", 2 },
	{ "quiet", 'q', NULL, 0, "Print only errors on standard error: no warnings, no progress",
	  2 },
	{ "schema", OPT_SCHEMA, "VIEW", OPTION_ARG_OPTIONAL,
	  "Print the keys of every view's CSV and JSON (or of VIEW: events, map, conflicts, "
	  "disks, latency, top, stack, slowest, phases, interval, cgroups, diff) as JSON Lines, and read "
	  "no recording", 2 },
	{ "sort", OPT_SORT, "KEY", 0,
	  "--disks and --interval: the order of the rows, as blkmap top's: dev (the default), "
	  "name, iops, bytes, util, latency (D2C p99, or Q2C where there is none); all but dev "
	  "and name the most first", 2 },
	{ "explain", OPT_EXPLAIN, NULL, 0,
	  "Say how each name was obtained and when it was valid (events, text)", 2 },
	{ "no-plugins", 'N', NULL, 0,
	  "Print other events by their formats alone, without libtraceevent's plugins "
	  "(as trace-cmd report -N)", 2 },
	{ NULL, 0, NULL, 0, "Filters, on every view:", 3 },
	{ "since", OPT_SINCE, "TIME", 0, "Only from TIME on", 3 },
	{ "until", OPT_UNTIL, "TIME", 0, "Only up to TIME", 3 },
	{ "disk", OPT_DISK, "NAME", 0,
	  "Only the disk or partition NAME, whenever it existed (again: or that one too)", 3 },
	{ "dev", OPT_DEV, "MAJ:MIN", 0, "Only the device number MAJ:MIN (again: or that one too)",
	  3 },
	{ "pid", OPT_PID, "PID", 0, "Only the events (or --top rows) of process PID (again: or "
	  "that one too)", 3 },
	{ "comm", OPT_COMM, "COMMAND", 0, "Only the events (or --top rows) of processes named "
	  "COMMAND (again: or that one too)", 3 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "Only the events, --top rows and --cgroups rows of "
	  "the cgroup PATH (as --cgroups prints it, from the hierarchy's root) and those below "
	  "it; PATH#N: only its Nth incarnation", 3 },
	{ "op", OPT_OP, "OP", 0, "Only the block events that are a read, write, flush or discard "
	  "(again: or that one too)", 3 },
	{ NULL, 'h', NULL, 0, "Describe the options (as --help)", -1 },
	{ NULL, 0, NULL, 0, "Speed:", 4 },
	{ "jobs", 'j', "N", 0,
	  "Read the CPUs' pages with N threads (default: one per online CPU); the output "
	  "is the same whatever N", 4 },
	{ 0 }
};

struct args {
	struct bm_report_opts opts;
	const char *file;
	bool view_set;
	bool sort_set;
	bool schema;
	bool quiet;
	const char *schema_view;	/* NULL: every view */
};

/* A filter given more often than a report keeps. */
static void room(struct argp_state *state, unsigned n, const char *option)
{
	if (n >= BM_FILTER_MAX)
		argp_error(state, "at most %d %s filters", BM_FILTER_MAX, option);
}

/* --slowest's N: a count from 1. */
static size_t slowest_count(struct argp_state *state, const char *arg)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !n || n > 1000000 || arg[0] == '-')
		argp_error(state, "--slowest: a count from 1 to 1000000, not '%s'", arg);
	return n;
}

static void set_view(struct argp_state *state, enum bm_view view)
{
	struct args *a = state->input;

	if (a->view_set && a->opts.view != view)
		argp_error(state, "one view at a time: --map, --conflicts, --disks, --interval, "
			   "--latency, --top, --stack, --slowest or --cgroups");
	a->opts.view = view;
	a->view_set = true;
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'N':
		bm_trace_plugins(false);
		break;
	case 'f':
		if (bm_output_format_parse(arg, &a->opts.format) < 0)
			argp_error(state, "--format takes text, csv or json, not '%s'", arg);
		break;
	case OPT_MAP:
		set_view(state, BM_VIEW_MAP);
		break;
	case OPT_CONFLICTS:
		set_view(state, BM_VIEW_CONFLICTS);
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case 'q':
		a->quiet = true;
		break;
	case OPT_TIME:
		if (!strcmp(arg, "abs"))
			a->opts.time = BM_TIME_ABS;
		else if (!strcmp(arg, "rel"))
			a->opts.time = BM_TIME_REL;
		else if (!strcmp(arg, "wall"))
			a->opts.time = BM_TIME_WALL;
		else
			argp_error(state, "--time takes abs, rel or wall, not '%s'", arg);
		break;
	case OPT_NAMES:
		if (!strcmp(arg, "all") || !strcmp(arg, "kernel"))
			a->opts.kernel_names = !strcmp(arg, "kernel");
		else
			argp_error(state, "--names takes kernel or all, not '%s'", arg);
		break;
	case OPT_NO_HEADER:
		a->opts.no_header = true;
		break;
	case OPT_DISKS:
		set_view(state, BM_VIEW_DISKS);
		break;
	case OPT_LATENCY:
		set_view(state, BM_VIEW_LATENCY);
		break;
	case OPT_CGROUPS:
		set_view(state, BM_VIEW_CGROUPS);
		break;
	case OPT_CGROUP:
		if (arg[0] != '/')
			argp_error(state, "--cgroup takes a cgroup's path from the hierarchy's root, "
				   "as /system.slice, not '%s'", arg);
		a->opts.cgroup = arg;
		break;
	case OPT_TOP:
		set_view(state, BM_VIEW_TOP);
		break;
	case OPT_STACK:
		set_view(state, BM_VIEW_STACK);
		break;
	case OPT_SLOWEST:
		set_view(state, BM_VIEW_SLOWEST);
		a->opts.slowest = arg ? slowest_count(state, arg) : 10;
		break;
	case OPT_PHASES:
		set_view(state, BM_VIEW_PHASES);
		break;
	case OPT_PLOT:
		a->opts.plot = arg;
		break;
	case OPT_INTERVAL: {
		struct bm_time_arg t;

		if (*arg == '+' || *arg == '-' || bm_time_parse(arg, &t) < 0 || t.wall ||
		    t.before || !t.ns)
			argp_error(state, "--interval takes a duration above 0: 1s, 500ms, 250us, "
				   "2.5 (seconds), not '%s'", arg);
		a->opts.interval_ns = t.ns;
		set_view(state, BM_VIEW_SERIES);
		break;
	}
	case OPT_BINS: {
		char *end;
		long n;

		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || end == arg || n < 1 || n > BM_SERIES_MAX_BINS)
			argp_error(state, "--bins takes a number from 1 to %d, not '%s'",
				   BM_SERIES_MAX_BINS, arg);
		a->opts.bins = n;
		break;
	}
	case OPT_SORT:
		a->sort_set = true;
		if (bm_sort_parse(arg, &a->opts.sort) < 0)
			argp_error(state, "--sort takes dev, name, iops, bytes, util or latency, not "
				   "'%s'", arg);
		break;
	case OPT_SINCE:
	case OPT_UNTIL: {
		bool since = key == OPT_SINCE;

		if (bm_time_parse(arg, since ? &a->opts.since : &a->opts.until) < 0)
			argp_error(state, "--%s takes a time of the trace clock as the report prints "
				   "it (775.917350 or 775917350123ns), one from the recording's "
				   "start (+2.5, -0.5, 2.5s, 250ms, 40us) or a wall-clock time as "
				   "--time=wall prints it (2026-12-01T21:03:32.5+01:00), not '%s'",
				   since ? "since" : "until", arg);
		*(since ? &a->opts.since_set : &a->opts.until_set) = true;
		break;
	}
	case OPT_DISK:
		room(state, a->opts.devices.nnames, "--disk");
		a->opts.devices.names[a->opts.devices.nnames++] = arg;
		break;
	case OPT_DEV: {
		uint32_t dev;

		room(state, a->opts.devices.ndevs, "--dev");
		if (bm_parse_dev(arg, &dev) < 0 || !dev)
			argp_error(state, "--dev takes a block device's MAJ:MIN (major below 4096, "
				   "minor below 1048576, not 0:0), not '%s'", arg);
		a->opts.devices.devs[a->opts.devices.ndevs++] = dev;
		break;
	}
	case OPT_PID: {
		char *end;
		long pid;

		room(state, a->opts.npids, "--pid");
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || *end || end == arg || !(*arg >= '0' && *arg <= '9') || pid > INT32_MAX)
			argp_error(state, "--pid takes a process id (0 for the idle task), not '%s'",
				   arg);
		a->opts.pids[a->opts.npids++] = pid;
		break;
	}
	case OPT_COMM:
		room(state, a->opts.ncomms, "--comm");
		if (!arg[0])
			argp_error(state, "--comm takes a command name, not ''");
		a->opts.comms[a->opts.ncomms++] = arg;
		break;
	case OPT_OP:
		if (!bm_ops_parse(arg))
			argp_error(state, "--op takes read, write, flush or discard, not '%s'", arg);
		a->opts.ops |= bm_ops_parse(arg);
		break;
	case OPT_EXPLAIN:
		a->opts.explain = true;
		break;
	case OPT_SCHEMA:
		if (arg && !bm_schema_find(arg))
			argp_error(state, "--schema takes a view: events, map, conflicts, disks, "
				   "latency, top, stack, slowest, phases, interval, cgroups or diff, not "
				   "'%s'", arg);
		a->schema = true;
		a->schema_view = arg;
		break;
	case 'j': {
		char *end;
		long n;

		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || end == arg || n < 1 || n > MAX_JOBS)
			argp_error(state, "--jobs takes a number of threads from 1 to %d, not '%s'",
				   MAX_JOBS, arg);
		a->opts.jobs = n;
		break;
	}
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "one file at a time ('%s' and '%s')", a->file, arg);
		a->file = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* On a terminal only: a line that rewrites itself, cleared at the end. */
static void progress(const char *what, int percent)
{
	fprintf(stderr, "\rblkmap: %s: %3d%%\033[K", what, percent);
	if (percent >= 100)
		fputs("\r\033[K", stderr);
}

int cmd_report(int argc, char **argv)
{
	struct argp argp = { .options = options, .parser = parse, .args_doc = "[FILE]",
			     .doc = doc };
	struct args a = { .file = NULL };

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.schema) {
		bm_schema_print(stdout, a.schema_view);
		if (fflush(stdout) || ferror(stdout)) {
			say("cannot write the schema: %s", strerror(errno));
			return 1;
		}
		return 0;
	}
	if (!a.file)
		a.file = "blkmap.dat";
	if (a.opts.bins && !a.opts.plot) {
		say("--bins is the plot's: give --plot=FILE with it");
		return 64;
	}
	if (a.opts.bins && a.opts.interval_ns) {
		say("--bins and --interval both give the plot's bins: give one");
		return 64;
	}
	if (a.sort_set && a.opts.view != BM_VIEW_DISKS && a.opts.view != BM_VIEW_SERIES) {
		say("--sort orders --disks and --interval: give one of them with it");
		return 64;
	}
	if (a.opts.plot && !a.view_set)
		a.opts.view = BM_VIEW_NONE;
	if ((a.opts.npids || a.opts.ncomms || a.opts.ops) && a.opts.view != BM_VIEW_EVENTS &&
	    !(a.opts.view == BM_VIEW_TOP && !a.opts.ops)) {
		say("--pid, --comm and --op filter the events, and --pid and --comm --top's rows: "
		    "not the other views, whose figures are the devices' whole");
		return 64;
	}
	if (a.opts.cgroup && a.opts.view != BM_VIEW_EVENTS && a.opts.view != BM_VIEW_TOP &&
	    a.opts.view != BM_VIEW_CGROUPS) {
		say("--cgroup filters the events, --top's rows and --cgroups' rows: not the other "
		    "views, whose figures are the devices' whole");
		return 64;
	}
	if (a.opts.plot && !strcmp(a.opts.plot, "-") && a.view_set) {
		say("--plot=- writes the plot to standard output: give no other view with it");
		return 64;
	}
	if (!a.opts.jobs) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		a.opts.jobs = online < 1 ? 1 : online > MAX_JOBS ? MAX_JOBS : online;
	}
	if (!a.quiet)
		a.opts.warn = say_warning;
	if (isatty(STDERR_FILENO) && !a.quiet)
		a.opts.progress = progress;
	if (bm_report(a.file, &a.opts, stdout) < 0) {
		if (a.opts.progress)
			fputs("\r\033[K", stderr);
		return fail(NULL);
	}
	if (a.opts.progress)
		fputs("\r\033[K", stderr);
	if (a.opts.plot && !a.quiet)
		say("wrote %s", a.opts.plot);
	return 0;
}
