// SPDX-License-Identifier: GPL-2.0-only
/*
 * Statedump from sysfs: /sys/dev/block/MAJ:MIN links to each disk's and
 * partition's directory. Hidden disks (an NVMe head's paths) have no dev
 * file and no such link: they are found in /sys/class/block (hidden is 1)
 * and their numbers in /proc/diskstats, so that a dump does not end them.
 * The dump only says a device existed at some moment between the begin
 * marker and its own marker.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/sources/marker.h"
#include "blkmap/sources/sysfs.h"
#include "blkmap/util/error.h"

/* First line of @dir/@file, without its newline; "" if unreadable. */
void bm_sysfs_read_line(const char *dir, const char *file, char *out, size_t size)
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

/* @text without the spaces, tabs and NULs that pad it, in place. */
static void trim(char *text, size_t len)
{
	size_t start = 0, end = len;

	while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t' || !text[end - 1] ||
			       text[end - 1] == '\n'))
		end--;
	while (start < end && (text[start] == ' ' || text[start] == '\t' || !text[start]))
		start++;
	memmove(text, text + start, end - start);
	text[end - start] = '\0';
}

void bm_sysfs_serial(const char *dir, char *out, size_t size)
{
	static const char *const text[] = { "serial", "device/serial" };
	static const char *const wwid[] = { "wwid", "device/wwid" };
	unsigned char page[260];
	char path[PATH_MAX];
	size_t i, len;
	ssize_t n;
	int fd;

	for (i = 0; i < 2; i++) {
		bm_sysfs_read_line(dir, text[i], out, size);
		trim(out, strlen(out));
		if (out[0])
			return;
	}
	/* SCSI: VPD page 0x80, 4 bytes of header (its length in bytes 2-3), then the serial. */
	snprintf(path, sizeof(path), "%s/device/vpd_pg80", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, page, sizeof(page));
		close(fd);
		if (n > 4 && page[1] == 0x80) {
			len = (size_t)page[2] << 8 | page[3];
			if (len > (size_t)n - 4)
				len = n - 4;
			if (len >= size)
				len = size - 1;
			memcpy(out, page + 4, len);
			trim(out, len);
			for (i = 0; out[i]; i++)	/* printable only */
				if ((unsigned char)out[i] < ' ' || (unsigned char)out[i] >= 0x7f)
					out[i] = '?';
			if (out[0])
				return;
		}
	}
	for (i = 0; i < 2; i++) {
		bm_sysfs_read_line(dir, wwid[i], out, size);
		trim(out, strlen(out));
		if (out[0])
			return;
	}
}

void bm_sysfs_dm_name(const char *dir, char *out, size_t size)
{
	bm_sysfs_read_line(dir, "dm/name", out, size);
}

/* The first of @files in @dir that has a value, trimmed. */
static void read_first(const char *dir, const char *const *files, size_t n, char *out,
		       size_t size)
{
	size_t i;

	for (i = 0; i < n; i++) {
		bm_sysfs_read_line(dir, files[i], out, size);
		trim(out, strlen(out));
		if (out[0])
			return;
	}
}

void bm_sysfs_labels(const char *dir, bool partition, uint64_t diskseq, struct bm_blockdev *d)
{
	static const char *const wwid[] = { "wwid", "device/wwid" };
	static const char *const model[] = { "device/model" };
	static const char *const firmware[] = { "device/firmware_rev", "device/rev" };
	char value[32];

	bm_sysfs_dm_name(dir, d->dm, sizeof(d->dm));
	bm_sysfs_read_line(dir, "dm/uuid", d->dm_uuid, sizeof(d->dm_uuid));
	if (partition)
		return;
	bm_sysfs_serial(dir, d->serial, sizeof(d->serial));
	read_first(dir, wwid, 2, d->wwid, sizeof(d->wwid));
	read_first(dir, model, 1, d->model, sizeof(d->model));
	read_first(dir, firmware, 2, d->firmware, sizeof(d->firmware));
	bm_sysfs_read_line(dir, "loop/backing_file", d->backing, sizeof(d->backing));
	if (d->backing[0] && diskseq) {
		/* diskseq only grows: unchanged now, the file was this attachment's. */
		bm_sysfs_read_line(dir, "diskseq", value, sizeof(value));
		if (strtoull(value, NULL, 10) != diskseq)
			d->backing[0] = '\0';
	}
}

void bm_sysfs_mark_labels(struct bm_marker *m, const struct bm_blockdev *d)
{
	bm_marker_add(m, "dm", d->dm);
	bm_marker_add(m, "serial", d->serial);
	if (d->dm_uuid[0])
		bm_marker_add_if_room(m, "dm_uuid", d->dm_uuid);
	if (d->wwid[0])
		bm_marker_add_if_room(m, "wwid", d->wwid);
	if (d->model[0])
		bm_marker_add_if_room(m, "model", d->model);
	if (d->firmware[0])
		bm_marker_add_if_room(m, "firmware", d->firmware);
	if (d->backing[0])
		bm_marker_add_if_room(m, "backing", d->backing);
}

static bool exists(const char *dir, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

/* Fill @d from /sys/dev/block/@devname; 0 if it went away meanwhile. */
static int read_device(const char *sysfs, const char *devname, struct bm_blockdev *d)
{
	char link[PATH_MAX], target[PATH_MAX], dir[PATH_MAX], parent_dir[PATH_MAX];
	char value[64];
	const char *name;
	char *slash;
	ssize_t n;

	memset(d, 0, sizeof(*d));
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
	snprintf(d->dev, sizeof(d->dev), "%s", devname);
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->partition = exists(dir, "partition");
	if (d->partition) {
		snprintf(parent_dir, sizeof(parent_dir), "%s", dir);
		slash = strrchr(parent_dir, '/');
		if (slash)
			*slash = '\0';
		snprintf(d->parent, sizeof(d->parent), "%s",
			 strrchr(parent_dir, '/') ? strrchr(parent_dir, '/') + 1 : "");
		bm_sysfs_read_line(parent_dir, "diskseq", value, sizeof(value));
	} else {
		bm_sysfs_read_line(dir, "diskseq", value, sizeof(value));
	}
	d->diskseq = strtoull(value, NULL, 10);
	bm_sysfs_read_line(dir, "size", value, sizeof(value));
	d->sectors = strtoull(value, NULL, 10);
	bm_sysfs_labels(dir, d->partition, d->partition ? 0 : d->diskseq, d);
	return 1;
}

/* The number /proc/diskstats gives the device @name, as "MAJ:MIN" in @out; false if none. */
static bool diskstats_dev(const char *name, char *out, size_t size)
{
	char line[512], found[64];
	unsigned ma, mi;
	bool ok = false;
	FILE *f = fopen("/proc/diskstats", "re");

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %u %63s", &ma, &mi, found) == 3 && !strcmp(found, name)) {
			snprintf(out, size, "%u:%u", ma, mi);
			ok = true;
		}
	fclose(f);
	return ok;
}

/*
 * The controller a hidden disk in @dir (an NVMe path, nvmeXcYnZ) belongs
 * to, as "NAME TRANSPORT ADDRESS" (nvme1 tcp traddr=10.0.0.2,trsvcid=4420;
 * nvme0 pcie 0000:00:04.0), from its parent in sysfs; empty if none.
 */
static void controller(const char *dir, char *out, size_t size)
{
	char path[PATH_MAX], real[PATH_MAX], transport[32], address[96];
	const char *name;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/device", dir);
	if (!realpath(path, real) || !(name = strrchr(real, '/')))
		return;
	bm_sysfs_read_line(real, "transport", transport, sizeof(transport));
	bm_sysfs_read_line(real, "address", address, sizeof(address));
	if (transport[0])
		snprintf(out, size, "%s %s%s%s", name + 1, transport, address[0] ? " " : "", address);
}

/* The hidden disks of @sysfs/class/block, each to @fn; their count, or -1. */
static int hidden_devices(const char *sysfs, bm_blockdev_fn fn, void *ctx)
{
	char path[PATH_MAX], dir[PATH_MAX], value[64];
	struct bm_blockdev d;
	struct dirent *e;
	int count = 0, r;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/class/block", sysfs);
	dp = opendir(path);
	if (!dp)
		return 0;	/* older kernels: no hidden disks to miss */
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", path, e->d_name);
		bm_sysfs_read_line(dir, "hidden", value, sizeof(value));
		if (strcmp(value, "1") || exists(dir, "dev"))
			continue;
		memset(&d, 0, sizeof(d));
		if (!diskstats_dev(e->d_name, d.dev, sizeof(d.dev)))
			continue;	/* gone meanwhile */
		snprintf(d.name, sizeof(d.name), "%s", e->d_name);
		bm_sysfs_read_line(dir, "diskseq", value, sizeof(value));
		d.diskseq = strtoull(value, NULL, 10);
		bm_sysfs_read_line(dir, "size", value, sizeof(value));
		d.sectors = strtoull(value, NULL, 10);
		bm_sysfs_labels(dir, false, 0, &d);
		controller(dir, d.via, sizeof(d.via));
		r = fn(ctx, &d);
		if (r < 0) {
			closedir(dp);
			return -1;
		}
		count += r > 0;
	}
	closedir(dp);
	return count;
}

int bm_sysfs_devices(const char *sysfs, bm_blockdev_fn fn, void *ctx)
{
	struct bm_blockdev d;
	char path[PATH_MAX];
	struct dirent *e;
	int count = 0, r;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/dev/block", sysfs);
	dp = opendir(path);
	if (!dp) {
		bm_error_errno("cannot list '%s'", path);
		return -1;
	}
	while ((e = readdir(dp))) {
		unsigned ma, mi;

		if (sscanf(e->d_name, "%u:%u", &ma, &mi) != 2)
			continue;
		r = read_device(sysfs, e->d_name, &d);
		if (r > 0)
			r = fn(ctx, &d);
		if (r < 0) {
			closedir(dp);
			return -1;
		}
		count += r > 0;
	}
	closedir(dp);
	r = hidden_devices(sysfs, fn, ctx);
	return r < 0 ? -1 : count + r;
}

struct dump_ctx {
	unsigned id;
	bm_mark_fn mark;
	void *ctx;
};

static int dump_one(void *arg, const struct bm_blockdev *d)
{
	struct dump_ctx *c = arg;
	struct bm_marker m;

	bm_marker_begin(&m, "dump");
	bm_marker_addf(&m, "id", "%u", c->id);
	bm_marker_add(&m, "dev", d->dev);
	bm_marker_add(&m, "name", d->name);
	bm_marker_add(&m, "kind", d->partition ? "partition" : "disk");
	bm_marker_add(&m, "parent", d->parent);
	if (d->diskseq)
		bm_marker_addf(&m, "diskseq", "%llu", (unsigned long long)d->diskseq);
	else
		bm_marker_add(&m, "diskseq", "");
	bm_marker_addf(&m, "size", "%llu", (unsigned long long)d->sectors);
	if (d->via[0])
		bm_marker_add(&m, "via", d->via);
	bm_sysfs_mark_labels(&m, d);
	return bm_marker_emit(&m, c->mark, c->ctx) < 0 ? -1 : 1;
}

int bm_sysfs_dump(const char *sysfs, unsigned id, const char *reason,
		  bm_mark_fn fn, void *ctx)
{
	struct dump_ctx c = { id, fn, ctx };
	int count;

	if (bm_mark_dump_begin(fn, ctx, id, "sysfs", reason) < 0)
		return -1;
	count = bm_sysfs_devices(sysfs, dump_one, &c);
	if (count < 0)
		return -1;
	return bm_mark_dump_end(fn, ctx, id, count) < 0 ? -1 : count;
}
