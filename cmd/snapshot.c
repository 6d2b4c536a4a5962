// SPDX-License-Identifier: GPL-2.0-only
/* blkmap snapshot: have a flight recorder write its window so far. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "blkmap/record/registry.h"
#include "blkmap/util/sys.h"

#include "cmd.h"

#define WAIT_MS		30000
#define MAX_RECORDERS	64

static char doc[] =
	"Have the flight recorder PID (blkmap record --ring; the only one running if "
	"no PID is given) write the events of its ring and the whole map into a new "
	"file beside its output (FILE.1.dat, FILE.2.dat, ...), and print its name once "
	"it is written. The recording goes on. The same as sending it SIGUSR2.";

static error_t parse(int key, char *arg, struct argp_state *state)
{
	pid_t *pid = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_ARG:
		if (*pid)
			argp_error(state, "one recorder at a time");
		*pid = strtol(arg, &end, 10);
		if (*end || *pid <= 0)
			argp_error(state, "PID is a process id, not '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static bool is_flight_recorder(pid_t pid)
{
	return bm_recorder_alive(pid) && bm_registry_value(pid, "ring", NULL, 0) > 0;
}

/* The only flight recorder running, or 0 after saying why there is none. */
static pid_t only_flight_recorder(void)
{
	pid_t pids[MAX_RECORDERS], found = 0;
	char list[512] = "";
	int n = bm_registry_live(pids, MAX_RECORDERS), i, rings = 0, len = 0;

	for (i = 0; i < n && i < MAX_RECORDERS; i++) {
		if (!is_flight_recorder(pids[i]))
			continue;
		found = pids[i];
		rings++;
		if (len < (int)sizeof(list) - 16)
			len += snprintf(list + len, sizeof(list) - len, " %d", (int)pids[i]);
	}
	if (rings == 1)
		return found;
	if (!rings)
		say("no flight recorder is running (start one with 'blkmap record --ring=SIZE')");
	else
		say("%d flight recorders are running (pids%s): name one", rings, list);
	return 0;
}

int cmd_snapshot(int argc, char **argv)
{
	struct argp argp = { .parser = parse, .args_doc = "[PID]", .doc = doc };
	char path[PATH_MAX];
	pid_t pid = 0;
	int64_t deadline;
	int before, now;

	argp_parse(&argp, argc, argv, 0, NULL, &pid);
	if (!pid && !(pid = only_flight_recorder()))
		return 1;
	if (!is_flight_recorder(pid)) {
		say("%d is not a running flight recorder (blkmap record --ring=SIZE)", (int)pid);
		return 1;
	}
	before = bm_registry_value(pid, "snapshot", NULL, 0);
	if (kill(pid, SIGUSR2) < 0) {
		say("cannot signal recorder %d: %m", (int)pid);
		return 1;
	}
	deadline = bm_now_ms() + WAIT_MS;
	for (;;) {
		now = bm_registry_value(pid, "snapshot", path, sizeof(path));
		if (now > before) {
			printf("%s\n", path);
			return 0;
		}
		if (now < 0 || !bm_recorder_alive(pid)) {
			say("recorder %d ended before writing the snapshot", (int)pid);
			return 1;
		}
		if (bm_now_ms() > deadline) {
			say("recorder %d wrote no snapshot within %d s: its own messages say why",
			    (int)pid, WAIT_MS / 1000);
			return 1;
		}
		usleep(20000);
	}
}
