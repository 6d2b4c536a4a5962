// SPDX-License-Identifier: GPL-2.0-only
/* blkmap record: options, then the record pipeline, then a summary. */
#include <argp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/record/record.h"
#include "blkmap/util/error.h"

#include "cmd.h"

static char doc[] =
	"Record block I/O into FILE (default blkmap.dat) until COMMAND exits, the "
	"duration passes, or SIGINT, SIGTERM or SIGHUP arrives. The recording uses "
	"its own tracefs instance and clock mono, and holds the device map: a "
	"statedump of every disk at start and end, and every disk or partition "
	"added or removed in between.\v"
	"With a COMMAND, blkmap exits with its status. A signal is passed on to the "
	"command and recording goes on until it exits; a second signal stops at once. "
	"With -d and a COMMAND, the command gets SIGTERM when the time is up. "
	"SIGUSR1 adds a statedump.\n"
	"\n"
	"Flight recorder: with --ring=SIZE only the newest SIZE of events are kept "
	"(SIZE / CPUs a CPU), however long the recording runs, while every map record "
	"is kept whole: the file written at the stop holds the last window of events "
	"and the map of every disk that existed during it. 'blkmap snapshot' (or "
	"SIGUSR2) writes the window so far into FILE.1.dat, FILE.2.dat... and "
	"recording goes on; so does --snapshot-on when an I/O is slow.\n"
	"\n"
	"Sources: module (blkmap's kernel module, when loaded: statedump, adds and "
	"removals, exact), kprobe (probes on the functions that add and remove disks and "
	"partitions, and a statedump through part_stat_read_all: exact), tracepoint "
	"(writeback_bdi_register: exact time of disk adds), uevent (every add and "
	"remove, bounded), sysfs (statedump). Default: all this kernel offers.";

enum { OPT_RING = 0x100, OPT_SNAPSHOT_ON, OPT_POST, OPT_SNAPSHOT_LIMIT, OPT_EVENTS, OPT_USER };

static struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "Write the recording to FILE (default blkmap.dat)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 0 },
	{ "buffer", 'b', "KIB", 0, "Ring buffer size per CPU in KiB (default 4096)", 0 },
	{ "subbuf-size", 'S', "KIB", 0,
	  "Size of the ring buffer's sub-buffers (pages) in KiB, a power of two "
	  "(Linux 6.8 or later; default: the kernel's, 4 on most machines)", 0 },
	{ "compress", 'z', "ALGORITHM", OPTION_ARG_OPTIONAL,
	  "Write a trace.dat version 7 file, its pages compressed with ALGORITHM: zstd "
	  "(the default) or zlib", 0 },
	{ "ring", OPT_RING, "SIZE", 0,
	  "Flight recorder: keep only the newest SIZE of events (a number with K, M or G; "
	  "all CPUs together) and the whole map", 0 },
	{ "snapshot-on", OPT_SNAPSHOT_ON, "latency>DURATION[,disk=NAME]", 0,
	  "With --ring: write a snapshot when an I/O takes longer than DURATION (20ms, "
	  "500us, 1s): D2C for requests, Q2C for bios of bio-based devices", 0 },
	{ "post", OPT_POST, "SECONDS", 0,
	  "Write a triggered snapshot SECONDS after the slow I/O is seen (default 1)", 0 },
	{ "snapshot-limit", OPT_SNAPSHOT_LIMIT, "N", 0,
	  "Write at most N triggered snapshots a minute (default 4)", 0 },
	{ "event", 'e', "SYSTEM:EVENT", 0,
	  "Also record this event, or every event of SYSTEM (repeatable)", 0 },
	{ "events", OPT_EVENTS, "PROFILE", 0,
	  "The block events to record: default, or phases (also merges and plugs, for "
	  "report --phases; they cost more)", 0 },
	{ "sources", 's', "LIST", 0,
	  "Map sources to use, comma-separated: module, kprobe, tracepoint, uevent, sysfs, "
	  "all", 0 },
	{ "user", OPT_USER, "USER", 0,
	  "Run COMMAND as USER (a name or a uid), with USER's groups, HOME, USER and "
	  "LOGNAME; blkmap records as root", 0 },
	{ "quiet", 'q', NULL, 0, "Print only errors", 0 },
	{ 0 }
};

struct args {
	struct bm_record_opts opts;
	struct bm_trigger_spec trigger;
	bool post_given, limit_given;
	const char *events[64];
	bool quiet;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	char *end;

	switch (key) {
	case 'o':
		a->opts.output = arg;
		break;
	case 'd':
		a->opts.duration = strtod(arg, &end);
		if (*end || a->opts.duration <= 0)
			argp_error(state, "-d takes a positive number of seconds, not '%s'", arg);
		break;
	case 'b': {
		unsigned long kib = strtoul(arg, &end, 10);

		if (*end || kib < 4 || kib > (1UL << 22))
			argp_error(state, "-b takes KiB per CPU (4 to 4194304), not '%s'", arg);
		a->opts.buffer_kib = kib;
		break;
	}
	case 'S': {
		unsigned long kib = strtoul(arg, &end, 10);

		if (*end || kib < 1 || kib > 1024 || (kib & (kib - 1)))
			argp_error(state, "--subbuf-size takes a power of two of KiB (1 to 1024), "
				   "not '%s'", arg);
		a->opts.subbuf_kib = kib;
		break;
	}
	case 'z': {
		int c = bm_compression_of(arg ? arg : "zstd");

		if (c <= BM_COMPRESS_NONE)
			argp_error(state, "--compress takes zstd or zlib, not '%s'", arg);
		a->opts.compression = c;
		break;
	}
	case OPT_RING:
		if (parse_size(arg, &a->opts.ring_bytes) < 0)
			argp_error(state, "--ring takes a size such as 64M (K, M or G), not '%s'",
				   arg);
		break;
	case OPT_SNAPSHOT_ON:
		if (bm_trigger_parse(arg, &a->trigger) < 0)
			argp_error(state, "--snapshot-on: %s", bm_error_message());
		a->opts.trigger = &a->trigger;
		break;
	case OPT_POST:
		a->opts.post_s = strtod(arg, &end);
		if (*end || a->opts.post_s < 0 || a->opts.post_s > 3600)
			argp_error(state, "--post takes seconds (0 to 3600), not '%s'", arg);
		a->post_given = true;
		break;
	case OPT_SNAPSHOT_LIMIT: {
		unsigned long n = strtoul(arg, &end, 10);

		if (*end || n < 1 || n > 60)
			argp_error(state, "--snapshot-limit takes snapshots a minute (1 to 60), "
				   "not '%s'", arg);
		a->opts.snapshots_per_minute = n;
		a->limit_given = true;
		break;
	}
	case ARGP_KEY_END:
		if (a->opts.trigger && !a->opts.ring_bytes)
			argp_error(state, "--snapshot-on needs a flight recording (--ring=SIZE)");
		if ((a->post_given || a->limit_given) && !a->opts.trigger)
			argp_error(state, "--post and --snapshot-limit go with --snapshot-on");
		if (a->opts.user && !a->opts.argv)
			argp_error(state, "--user runs a COMMAND: give one after --");
		break;
	case 'e':
		if (a->opts.nevents == (int)(sizeof(a->events) / sizeof(a->events[0])))
			argp_error(state, "too many -e options");
		a->events[a->opts.nevents++] = arg;
		break;
	case OPT_EVENTS:
		if (strcmp(arg, "default") && strcmp(arg, "phases"))
			argp_error(state, "--events takes default or phases, not '%s'", arg);
		a->opts.phase_events = !strcmp(arg, "phases");
		break;
	case 's': {
		int all = bm_source_parse(arg, &a->opts.sources);

		if (all < 0)
			argp_error(state, "--sources: %s", bm_error_message());
		a->opts.sources_named = !all;
		break;
	}
	case OPT_USER: {
		struct passwd *pw = getpwnam(arg);
		unsigned long uid = strtoul(arg, &end, 10);

		if (!pw && !*end && *arg)
			pw = getpwuid(uid);
		if (!pw)
			argp_error(state, "--user: no user '%s' (see getent passwd)", arg);
		a->opts.user = strdup(pw->pw_name);
		a->opts.user_uid = pw->pw_uid;
		a->opts.user_gid = pw->pw_gid;
		a->opts.user_home = strdup(pw->pw_dir);
		if (!a->opts.user || !a->opts.user_home)
			argp_error(state, "--user: out of memory");
		break;
	}
	case 'q':
		a->quiet = true;
		break;
	case ARGP_KEY_ARG:
		a->opts.argv = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static bool quiet;

static void notify(const char *line)
{
	if (!quiet)
		say("%s", line);
}

static void summary(const struct bm_record_opts *o, const struct bm_record_result *r)
{
	char lost[512] = "";
	size_t n = 0;
	int cpu;

	for (cpu = 0; cpu < r->ncpus && cpu < 64 && n < sizeof(lost) - 32; cpu++)
		n += snprintf(lost + n, sizeof(lost) - n, "%scpu%d %llu", cpu ? ", " : "",
			      cpu, (unsigned long long)r->lost_per_cpu[cpu]);
	if (o->ring_bytes) {
		say("read %llu events; wrote the last window into %s (%.1f KiB); let %.1f MiB "
		    "of older events go and kept %.1f KiB of map records from them; lost %llu "
		    "(%s)", (unsigned long long)r->events, o->output, r->file_bytes / 1024.0,
		    r->ring_dropped / 1048576.0, r->ring_kept / 1024.0,
		    (unsigned long long)r->lost, lost);
		return;
	}
	say("recorded %llu events into %s (%.1f KiB, %.1f bytes/event); lost %llu (%s)",
	    (unsigned long long)r->events, o->output, r->file_bytes / 1024.0,
	    r->events ? (double)r->file_bytes / r->events : 0.0,
	    (unsigned long long)r->lost, lost);
}

int cmd_record(int argc, char **argv)
{
	struct argp argp = { .options = options, .parser = parse,
			     .args_doc = "[-- COMMAND [ARG...]]", .doc = doc };
	struct bm_record_result res;
	struct args a = { 0 };
	int ret;

	a.opts.output = "blkmap.dat";
	a.opts.sources = BM_SRC_ALL;
	a.opts.events = a.events;
	a.opts.post_s = 1;
	a.opts.snapshots_per_minute = 4;
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	quiet = a.quiet;
	a.opts.notify = notify;
	a.opts.warn = say_warning;

	if (bm_record(&a.opts, &res) < 0) {
		fail(NULL);
		ret = res.command_status == 127 ? 127 : 1;
	} else {
		if (!quiet)
			summary(&a.opts, &res);
		ret = res.has_command ? res.command_status : 0;
	}
	free((char *)a.opts.user);
	free((char *)a.opts.user_home);
	return ret;
}
