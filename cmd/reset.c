// SPDX-License-Identifier: GPL-2.0-only
/* blkmap reset: reclaim what dead recorders left. */
#include <argp.h>
#include <stdio.h>

#include "blkmap/record/reclaim.h"
#include "blkmap/sources/session.h"

#include "cmd.h"

static char doc[] =
	"Remove what blkmap recorders killed by SIGKILL or a crash left behind: their "
	"tracefs instances, their probe groups, the module's attachment to them. What "
	"they had spooled is written out first, into the file they were recording to "
	"(or FILE.recovered-PID if it exists). Running recorders, and everything "
	"that is not blkmap's, are left alone: a spool that is not as blkmap makes it (a "
	"symbolic link, another user's, not mode 0700, holding anything but regular "
	"files) is refused, with the reason, and left as it is.\v"
	"blkmap record does the same when it starts.";

static void notify(const char *line)
{
	say("%s", line);
}

int cmd_reset(int argc, char **argv)
{
	struct argp argp = { .doc = doc };
	int n;

	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (bm_session_check_access() < 0)
		return fail(NULL);
	n = bm_reclaim(notify);
	if (n < 0)
		return fail(NULL);
	if (n == 0)
		say("nothing to reset");
	return 0;
}
