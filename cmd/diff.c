// SPDX-License-Identifier: GPL-2.0-only
/* blkmap diff: options, then two recordings (or two sets of runs) side by side. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/map/feed.h"
#include "blkmap/map/map.h"
#include "blkmap/report/diff.h"
#include "blkmap/report/schema.h"

#include "cmd.h"

static char doc[] =
	"Compare recording A with recording B, device by device: each incarnation of A is "
	"paired with B's by the strongest identity both carry (the serial or WWID it "
	"reports, its LVM volume, its dm UUID or name, a loop device's file, its mount "
	"points, then its kernel name), whatever number or name it had, and every figure of "
	"'blkmap report --disks' is printed for both with its change. A pair's Q2C and D2C "
	"are tested for a change beyond noise (Mann-Whitney U): text marks those with '*'. "
	"With several runs a side (A1 A2 -- B1 B2), each side's I/O is pooled and the runs' "
	"spread is given too; a change is then marked only if the runs' medians are apart "
	"as well.\v"
	"Times for --since and --until as blkmap report takes them; each applies to every "
	"recording (+2.5 is from each one's start). Formats: text (a table per pair: "
	"figure, A, B, change); csv and json with the keys --schema lists (blkmap-diff(1)).";

enum { OPT_PAIR = 256, OPT_DISK, OPT_DEV, OPT_SINCE, OPT_UNTIL, OPT_NO_HEADER, OPT_SCHEMA };

static struct argp_option options[] = {
	{ "format", 'f', "FORMAT", 0, "text, csv or json", 1 },
	{ "no-header", OPT_NO_HEADER, NULL, 0, "CSV without its header row", 1 },
	{ "schema", OPT_SCHEMA, NULL, 0,
	  "Print the keys of the CSV and JSON rows as JSON Lines, and read no recording", 1 },
	{ "quiet", 'q', NULL, 0, "Print only errors on standard error: no warnings", 1 },
	{ "pair", OPT_PAIR, "NAME_A=NAME_B", 0,
	  "Pair A's NAME_A with B's NAME_B (kernel names or incarnations, MAJ:MIN#N), "
	  "whatever their identities (again: another pair)", 2 },
	{ "disk", OPT_DISK, "NAME", 0,
	  "Only the pairs of which A's or B's incarnation was named NAME (again: or that one "
	  "too)", 2 },
	{ "dev", OPT_DEV, "MAJ:MIN", 0, "Only the pairs of which either side had the device "
	  "number MAJ:MIN (again: or that one too)", 2 },
	{ "since", OPT_SINCE, "TIME", 0, "Only from TIME on, in every recording", 2 },
	{ "until", OPT_UNTIL, "TIME", 0, "Only up to TIME, in every recording", 2 },
	{ 0 }
};

struct args {
	struct bm_diff_opts o;
	struct bm_span_filter devices;
	char *files[2][BM_FILTER_MAX];
	size_t nfiles[2];
	int side;		/* 1 after "--" */
	bool schema;
	bool quiet;
};

static void room(struct argp_state *state, unsigned n, const char *option)
{
	if (n >= BM_FILTER_MAX)
		argp_error(state, "at most %d %s", BM_FILTER_MAX, option);
}

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	char *eq;

	switch (key) {
	case 'f':
		if (bm_output_format_parse(arg, &a->o.format) < 0)
			argp_error(state, "--format takes text, csv or json, not '%s'", arg);
		break;
	case 'q':
		a->quiet = true;
		break;
	case OPT_NO_HEADER:
		a->o.no_header = true;
		break;
	case OPT_SCHEMA:
		a->schema = true;
		break;
	case OPT_PAIR:
		eq = strchr(arg, '=');
		if (!eq || eq == arg || !eq[1] || strchr(eq + 1, '='))
			argp_error(state, "--pair takes NAME_A=NAME_B, not '%s'", arg);
		room(state, a->o.npairs, "--pair");
		*eq = '\0';
		a->o.pair_a[a->o.npairs] = arg;
		a->o.pair_b[a->o.npairs++] = eq + 1;
		break;
	case OPT_DISK:
		room(state, a->devices.nnames, "--disk filters");
		a->devices.names[a->devices.nnames++] = arg;
		break;
	case OPT_DEV: {
		uint32_t dev;

		room(state, a->devices.ndevs, "--dev filters");
		if (bm_parse_dev(arg, &dev) < 0 || !dev)
			argp_error(state, "--dev takes a block device's MAJ:MIN, not '%s'", arg);
		a->devices.devs[a->devices.ndevs++] = dev;
		break;
	}
	case OPT_SINCE:
	case OPT_UNTIL: {
		bool since = key == OPT_SINCE;

		if (bm_time_parse(arg, since ? &a->o.report.since : &a->o.report.until) < 0)
			argp_error(state, "--%s takes a time as blkmap report's does (775.917350, "
				   "775917350123ns, +2.5, 250ms, 2026-12-01T21:03:32.5+01:00), "
				   "not '%s'", since ? "since" : "until", arg);
		*(since ? &a->o.report.since_set : &a->o.report.until_set) = true;
		break;
	}
	case ARGP_KEY_ARG:
		room(state, a->nfiles[a->side], "recordings a side");
		a->files[a->side][a->nfiles[a->side]++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The recording being read, whose warnings say so: A's and B's are alike. */
static const char *reading_path;

static void reading(const char *path)
{
	reading_path = path;
}

static void warn(const char *line)
{
	say("warning: '%s': %s", reading_path, line);
}

int cmd_diff(int argc, char **argv)
{
	struct argp argp = { .options = options, .parser = parse,
			     .args_doc = "A B\nA1 A2... -- B1 B2...", .doc = doc };
	struct args a = { .o.format = BM_FORMAT_TEXT };
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	char **tail;
	int i, split;

	/* "--" separates the sides: what follows it is B's, options too. */
	for (split = 1; split < argc && strcmp(argv[split], "--"); split++)
		;
	argp_parse(&argp, split, argv, 0, NULL, &a);
	if (split < argc) {
		tail = calloc(argc - split + 1, sizeof(*tail));
		if (!tail)
			return fail("cannot read the options");
		tail[0] = argv[0];
		for (i = split + 1; i < argc; i++)
			tail[i - split] = argv[i];
		a.side = 1;
		argp_parse(&argp, argc - split, tail, 0, NULL, &a);
		free(tail);
	} else if (a.nfiles[0] == 2) {	/* A B */
		a.files[1][0] = a.files[0][1];
		a.nfiles[0] = a.nfiles[1] = 1;
	}
	if (a.schema) {
		bm_schema_print(stdout, "diff");
		if (fflush(stdout) || ferror(stdout)) {
			say("cannot write the schema: %s", strerror(errno));
			return 1;
		}
		return 0;
	}
	if (!a.nfiles[0] || !a.nfiles[1] || (split == argc && a.nfiles[0] != 1)) {
		say("give two recordings, A and B, or several a side: A1 A2 -- B1 B2 (see "
		    "'blkmap diff --help')");
		return EXIT_USAGE;
	}
	a.o.devices = &a.devices;
	a.o.report.jobs = online < 1 ? 1 : online > 64 ? 64 : online;
	if (!a.quiet)
		a.o.report.warn = warn;
	a.o.reading = reading;
	if (bm_diff(a.files[0], a.nfiles[0], a.files[1], a.nfiles[1], &a.o, stdout) < 0)
		return fail(NULL);
	return 0;
}
