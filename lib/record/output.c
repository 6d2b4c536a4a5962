// SPDX-License-Identifier: GPL-2.0-only
/* Recordings written beside their output, then renamed (output.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/record/output.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

int bm_output_open(struct bm_output *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;

	o->dir = -1;
	snprintf(o->path, sizeof(o->path), "%s", path);
	if (strlen(path) >= sizeof(o->path) - 64) {
		bm_error("output path '%s' is too long", path);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (slash == path)
		strcpy(dir, "/");
	snprintf(o->name, sizeof(o->name), "%s", slash ? slash + 1 : path);
	if (!o->name[0] || !strcmp(o->name, ".") || !strcmp(o->name, "..") ||
	    (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		bm_error("cannot write '%s': it is a directory", path);
		return -1;
	}
	/* The directory as the user named it; from now on, this one. */
	o->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dir < 0) {
		bm_error_errno("cannot write '%s' (opening '%s')", path, dir);
		return -1;
	}
	return 0;
}

void bm_output_close(struct bm_output *o)
{
	if (o->dir >= 0)
		close(o->dir);
	o->dir = -1;
}

bool bm_output_exists(const struct bm_output *o)
{
	struct stat st;

	return fstatat(o->dir, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int bm_random_name(char *name, size_t size, const char *prefix, const char *suffix)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	unsigned char bytes[12];
	char rand[sizeof(bytes) + 1];
	size_t i;

	if (getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes))
		return -1;
	for (i = 0; i < sizeof(bytes); i++)
		rand[i] = digits[bytes[i] % 36];
	rand[i] = '\0';
	if ((size_t)snprintf(name, size, "%s%s%s", prefix, rand, suffix) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int bm_create_random(int dir, const char *prefix, int mode, char *name, size_t size)
{
	int tries, fd;

	for (tries = 0; tries < 100; tries++) {
		if (bm_random_name(name, size, prefix, "") < 0)
			return -1;
		fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int bm_output_write(const struct bm_output *o, const struct bm_trace_meta *meta,
		    const struct bm_cpu_data *cpus, enum bm_compression compression,
		    uint64_t *bytes)
{
	char prefix[NAME_MAX + 1], tmp[NAME_MAX + 1];
	struct stat st;
	int fd, ret = -1;

	snprintf(prefix, sizeof(prefix), ".%.200s.tmp-", o->name);
	fd = bm_create_random(o->dir, prefix, BM_OUTPUT_MODE, tmp, sizeof(tmp));
	if (fd < 0) {
		bm_error_errno("cannot create a file beside '%s'", o->path);
		return -1;
	}
	if ((compression ? bm_trace_write_compressed(fd, o->path, meta, cpus, compression) :
			   bm_trace_write(fd, o->path, meta, cpus)) < 0)
		goto out;
	if (fsync(fd) < 0 || fstat(fd, &st) < 0 || renameat(o->dir, tmp, o->dir, o->name) < 0) {
		bm_error_errno("cannot write '%s'", o->path);
		goto out;
	}
	if (bytes)
		*bytes = st.st_size;
	ret = 0;
out:
	close(fd);
	if (ret < 0)
		unlinkat(o->dir, tmp, 0);
	return ret;
}
