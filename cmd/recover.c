// SPDX-License-Identifier: GPL-2.0-only
/* blkmap recover: a recording from the spool a recorder left. */
#include <argp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/record/recover.h"
#include "blkmap/util/error.h"

#include "cmd.h"

static char doc[] =
	"Write the recording a recorder had spooled in SPOOL (a directory "
	".blkmap-PID-RANDOM.spool next to its output) into FILE, then remove the spool. "
	"A spool that is not as blkmap makes it (a symbolic link, another user's, not "
	"mode 0700, holding anything but regular files) is refused and left alone. FILE "
	"is written beside itself and renamed at the end: if that fails, the spool is as "
	"it was. 'blkmap report SPOOL' reads a spool as it is.";

static struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "Write the recording to FILE (default blkmap.dat)", 0 },
	{ 0 }
};

struct args {
	const char *spool, *output;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;

	switch (key) {
	case 'o':
		a->output = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->spool)
			argp_error(state, "one spool at a time");
		a->spool = arg;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "which spool? (a .blkmap-PID-RANDOM.spool directory)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_recover(int argc, char **argv)
{
	struct argp argp = { .options = options, .parser = parse, .args_doc = "SPOOL",
			     .doc = doc };
	struct args a = { .output = "blkmap.dat" };
	uint64_t bytes = 0;
	struct stat st;

	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (lstat(a.output, &st) == 0) {
		say("'%s' exists; name another file with -o", a.output);
		return 1;
	}
	if (bm_recover(a.spool, a.output, &bytes) < 0)
		return fail(NULL);
	say("recovered '%s' into '%s' (%.1f KiB)", a.spool, a.output, bytes / 1024.0);
	return 0;
}
