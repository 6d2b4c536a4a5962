// SPDX-License-Identifier: GPL-2.0-only
/* blkmap statedump: the block devices present now. */
#include <argp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/report/output.h"
#include "blkmap/sources/sysfs.h"

#include "cmd.h"

static char doc[] =
	"Print the disks and partitions present now, as a recording's statedump sees "
	"them, without recording anything: name, device number, kind, parent disk, "
	"diskseq, size in 512-byte sectors and device-mapper name. Needs no privileges.\v"
	"CSV columns: name,dev,kind,parent,diskseq,sectors,dm. JSON: one object per "
	"line with the same keys.";

static struct argp_option options[] = {
	{ "format", 'f', "FORMAT", 0, "Output format: text, csv or json", 0 },
	{ 0 }
};

struct list {
	struct bm_blockdev *devs;
	size_t n, cap;
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	enum bm_output_format *format = state->input;

	if (key != 'f')
		return ARGP_ERR_UNKNOWN;
	if (bm_output_format_parse(arg, format) < 0)
		argp_error(state, "--format takes text, csv or json, not '%s'", arg);
	return 0;
}

static int collect(void *ctx, const struct bm_blockdev *d)
{
	struct list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct bm_blockdev *devs = realloc(l->devs, cap * sizeof(*devs));

		if (!devs)
			return -1;
		l->devs = devs;
		l->cap = cap;
	}
	l->devs[l->n++] = *d;
	return 1;
}

static int by_number(const void *a, const void *b)
{
	const struct bm_blockdev *x = a, *y = b;
	unsigned xa = 0, xi = 0, ya = 0, yi = 0;

	sscanf(x->dev, "%u:%u", &xa, &xi);
	sscanf(y->dev, "%u:%u", &ya, &yi);
	return xa != ya ? (xa > ya) - (xa < ya) : (xi > yi) - (xi < yi);
}

static void print(const struct bm_blockdev *d, enum bm_output_format format)
{
	const char *kind = d->partition ? "partition" : "disk";

	switch (format) {
	case BM_FORMAT_TEXT:
		printf("%-16s %-9s %-9s %-12s %10" PRIu64 " %12" PRIu64 " %s\n", d->name, d->dev,
		       kind, d->parent[0] ? d->parent : "-", d->diskseq, d->sectors,
		       d->dm[0] ? d->dm : "-");
		break;
	case BM_FORMAT_CSV:
		bm_csv_str(stdout, d->name);
		printf(",%s,%s,", d->dev, kind);
		bm_csv_str(stdout, d->parent);
		printf(",%" PRIu64 ",%" PRIu64 ",", d->diskseq, d->sectors);
		bm_csv_str(stdout, d->dm);
		putchar('\n');
		break;
	case BM_FORMAT_JSON:
		fputs("{\"name\":", stdout);
		bm_json_str(stdout, d->name);
		printf(",\"dev\":\"%s\",\"kind\":\"%s\",\"parent\":", d->dev, kind);
		bm_json_str(stdout, d->parent);
		printf(",\"diskseq\":%" PRIu64 ",\"sectors\":%" PRIu64 ",\"dm\":", d->diskseq,
		       d->sectors);
		bm_json_str(stdout, d->dm);
		puts("}");
		break;
	}
}

int cmd_statedump(int argc, char **argv)
{
	struct argp argp = { .options = options, .parser = parse, .doc = doc };
	enum bm_output_format format = BM_FORMAT_TEXT;
	struct list l = { 0 };
	size_t i;

	argp_parse(&argp, argc, argv, 0, NULL, &format);
	if (bm_sysfs_devices("/sys", collect, &l) < 0)
		return fail(NULL);
	qsort(l.devs, l.n, sizeof(*l.devs), by_number);
	if (format == BM_FORMAT_TEXT)
		printf("%-16s %-9s %-9s %-12s %10s %12s %s\n", "NAME", "DEV", "KIND", "PARENT",
		       "DISKSEQ", "SECTORS", "DM");
	else if (format == BM_FORMAT_CSV)
		puts("name,dev,kind,parent,diskseq,sectors,dm");
	for (i = 0; i < l.n; i++)
		print(&l.devs[i], format);
	free(l.devs);
	if (fflush(stdout) != 0) {
		say("cannot write the statedump");
		return 1;
	}
	return 0;
}
