// SPDX-License-Identifier: GPL-2.0-only
/* blkmap report: options, then the report pipeline. */
#include <argp.h>
#include <stdio.h>
#include <string.h>

#include "blkmap/report.h"
#include "cmd.h"

static char doc[] =
	"Print the events of a recording (default blkmap.dat) in time order, each block "
	"event with the name its device had at that moment; or, with --map, when each "
	"device number carried which name.\v"
	"Formats: text (default); csv with a header row; json as JSON Lines, one object "
	"per line. The columns are listed in blkmap-report(1).\n"
	"\n"
	"Name basis: 'only' when one incarnation of the device number can have existed "
	"at that time, 'parent' when the partition's disk picked one of several, "
	"'guess' when several could and the nearest was taken, 'unknown' when none fits.";

enum { OPT_MAP = 256, OPT_EXPLAIN };

static struct argp_option options[] = {
	{ "format", 'f', "FORMAT", 0, "Output format: text, csv or json", 0 },
	{ "map", OPT_MAP, NULL, 0, "Show the device map instead of the events", 0 },
	{ "explain", OPT_EXPLAIN, NULL, 0,
	  "Say how each name was obtained and when it was valid (text)", 0 },
	{ 0 }
};

struct args {
	struct bm_report_opts opts;
	const char *file;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'f':
		if (bm_output_format_parse(arg, &a->opts.format) < 0)
			argp_error(state, "--format takes text, csv or json, not '%s'", arg);
		break;
	case OPT_MAP:
		a->opts.view = BM_VIEW_MAP;
		break;
	case OPT_EXPLAIN:
		a->opts.explain = true;
		break;
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

static void warn(const char *line)
{
	say("warning: %s", line);
}

int cmd_report(int argc, char **argv)
{
	struct argp argp = { .options = options, .parser = parse, .args_doc = "[FILE]",
			     .doc = doc };
	struct args a = { .file = NULL };

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.file)
		a.file = "blkmap.dat";
	a.opts.warn = warn;
	if (bm_report(a.file, &a.opts, stdout) < 0)
		return fail(NULL);
	return 0;
}
