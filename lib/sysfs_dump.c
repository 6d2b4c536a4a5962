// SPDX-License-Identifier: GPL-2.0-only
/*
 * Statedump from sysfs: /sys/dev/block/MAJ:MIN links to each disk's and
 * partition's directory. The dump only says a device existed at some
 * moment between the begin marker and its own marker.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/error.h"
#include "blkmap/marker.h"
#include "blkmap/sources.h"

/* First line of @dir/@file, without its newline; "" if unreadable. */
static void read_attr(const char *dir, const char *file, char *out, size_t size)
{
	char path[PATH_MAX];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(out, size, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

static bool exists(const char *dir, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

static int mark(bm_mark_fn fn, void *ctx, struct bm_marker *m)
{
	if (m->overflow) {
		bm_error("a marker exceeds %d bytes", BM_MARKER_MAX);
		errno = E2BIG;
		return -1;
	}
	return fn(ctx, m->text, m->len);
}

static int dump_one(const char *sysfs, const char *devname, unsigned id,
		    bm_mark_fn fn, void *ctx)
{
	char link[PATH_MAX], target[PATH_MAX], dir[PATH_MAX], parent_dir[PATH_MAX];
	char diskseq[32], size[32], dm[256];
	const char *name, *parent = "";
	struct bm_marker m;
	bool partition;
	char *slash;
	ssize_t n;

	snprintf(link, sizeof(link), "%s/dev/block/%s", sysfs, devname);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0 && errno == ENOENT)
		return 0;	/* removed while we looked */
	if (n < 0) {
		bm_error_errno("cannot read link '%s'", link);
		return -1;
	}
	target[n] = '\0';
	snprintf(dir, sizeof(dir), "%s/dev/block/%s", sysfs, target);
	name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	partition = exists(dir, "partition");
	if (partition) {
		snprintf(parent_dir, sizeof(parent_dir), "%s", dir);
		slash = strrchr(parent_dir, '/');
		if (slash)
			*slash = '\0';
		parent = strrchr(parent_dir, '/') ? strrchr(parent_dir, '/') + 1 : "";
		read_attr(parent_dir, "diskseq", diskseq, sizeof(diskseq));
	} else {
		read_attr(dir, "diskseq", diskseq, sizeof(diskseq));
	}
	read_attr(dir, "size", size, sizeof(size));
	read_attr(dir, "dm/name", dm, sizeof(dm));

	bm_marker_begin(&m, "dump");
	bm_marker_addf(&m, "id", "%u", id);
	bm_marker_add(&m, "dev", devname);
	bm_marker_add(&m, "name", name);
	bm_marker_add(&m, "kind", partition ? "partition" : "disk");
	bm_marker_add(&m, "parent", parent);
	bm_marker_add(&m, "diskseq", diskseq);
	bm_marker_add(&m, "size", size);
	bm_marker_add(&m, "dm", dm);
	return mark(fn, ctx, &m) < 0 ? -1 : 1;
}

int bm_sysfs_dump(const char *sysfs, unsigned id, const char *reason,
		  bm_mark_fn fn, void *ctx)
{
	char path[PATH_MAX];
	struct bm_marker m;
	struct dirent *d;
	int count = 0, r;
	DIR *dp;

	bm_marker_begin(&m, "dump-begin");
	bm_marker_addf(&m, "id", "%u", id);
	bm_marker_add(&m, "source", "sysfs");
	bm_marker_add(&m, "reason", reason);
	if (mark(fn, ctx, &m) < 0)
		return -1;

	snprintf(path, sizeof(path), "%s/dev/block", sysfs);
	dp = opendir(path);
	if (!dp) {
		bm_error_errno("cannot list '%s'", path);
		return -1;
	}
	while ((d = readdir(dp))) {
		unsigned ma, mi;

		if (sscanf(d->d_name, "%u:%u", &ma, &mi) != 2)
			continue;
		r = dump_one(sysfs, d->d_name, id, fn, ctx);
		if (r < 0) {
			closedir(dp);
			return -1;
		}
		count += r;
	}
	closedir(dp);

	bm_marker_begin(&m, "dump-end");
	bm_marker_addf(&m, "id", "%u", id);
	bm_marker_addf(&m, "count", "%d", count);
	return mark(fn, ctx, &m) < 0 ? -1 : count;
}
