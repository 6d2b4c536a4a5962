// SPDX-License-Identifier: GPL-2.0-only
/* blkmap: dispatch to a subcommand. */
#include <argp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/tracefile/format.h"
#include "blkmap/util/error.h"

#include "cmd.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "record block I/O and the device map into a file" },
	{ "report", cmd_report, "print a recording's events and device map" },
	{ "diff", cmd_diff, "compare two recordings, each device with the same device in the other" },
	{ "recover", cmd_recover, "write out what a recorder left in its spool" },
	{ "reset", cmd_reset, "remove what dead recorders left behind" },
	{ "snapshot", cmd_snapshot, "have a flight recorder write its window so far" },
	{ "top", cmd_top, "per disk, live: iostat's figures under the names of the moment" },
	{ "statedump", cmd_statedump, "list the disks and partitions present now" },
};

void say(const char *fmt, ...)
{
	va_list ap;

	fputs("blkmap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void say_warning(const char *line)
{
	say("warning: %s", line);
}

int fail(const char *what)
{
	if (what)
		say("%s: %s", what, bm_error_message());
	else
		say("%s", bm_error_message());
	return 1;
}

/* "64M": bytes, with K, M, G (or KiB, MiB, GiB) for powers of 1024. */
int parse_size(const char *arg, uint64_t *bytes)
{
	static const char units[] = "KMG";
	const char *unit;
	char *end;
	unsigned long long n = strtoull(arg, &end, 10);
	int shift = 0;

	if (end == arg || *arg == '-')
		return -1;
	if (*end && (unit = strchr(units, *end))) {
		shift = 10 * (unit - units + 1);
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	}
	if (*end || !n || n > (UINT64_MAX >> shift))
		return -1;
	*bytes = (uint64_t)n << shift;
	return 0;
}

static void print_version(FILE *f, struct argp_state *state)
{
	fprintf(f, "blkmap %s (writes trace.dat version %d; reads versions 6 and 7)\n",
		BLKMAP_VERSION, BM_TRACE_FILE_VERSION);
}

void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;

static char doc[] =
	"Record block I/O with ftrace and report it under the disk names that were "
	"valid at each event, even while disks come and go.\v"
	"Commands:\n"
	"  record    record block I/O and the device map into a file\n"
	"  report    print a recording's events and device map\n"
	"  diff      compare two recordings, each device with the same device in the other\n"
	"  recover   write out what a recorder left in its spool\n"
	"  reset     remove what dead recorders left behind\n"
	"  snapshot  have a flight recorder write its window so far\n"
	"  statedump list the disks and partitions present now\n"
	"  top       per disk, live: iostat's figures under the names of the moment\n"
	"\n"
	"'blkmap COMMAND --help' describes each command.";

static int command_index;

static error_t parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_ARG:
		command_index = state->next - 1;
		state->next = state->argc;	/* the rest belongs to the command */
		return 0;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "no command given");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int main(int argc, char **argv)
{
	struct argp argp = { .parser = parse, .args_doc = "COMMAND [ARG...]", .doc = doc };
	char name[64];
	size_t i;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[command_index], commands[i].name))
			continue;
		snprintf(name, sizeof(name), "blkmap %s", commands[i].name);
		argv[command_index] = name;
		return commands[i].run(argc - command_index, argv + command_index);
	}
	fprintf(stderr, "blkmap: '%s' is not a command; see 'blkmap --help'\n",
		argv[command_index]);
	return EXIT_USAGE;
}
