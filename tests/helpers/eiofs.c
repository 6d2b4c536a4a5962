// SPDX-License-Identifier: GPL-2.0-only
/*
 * eiofs BACKING MOUNTPOINT LIMIT: a FUSE file system passing everything
 * through to the directory BACKING, except that once LIMIT bytes have been
 * written in all, every write fails with EIO: an output device going bad
 * under a recorder.
 */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char backing[PATH_MAX];
static long long limit, written;

static void real(char *out, const char *path)
{
	snprintf(out, PATH_MAX, "%s%s", backing, path);
}

#define WRAP(call) ((call) < 0 ? -errno : 0)

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	real(p, path);
	return WRAP(lstat(p, st));
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	char p[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	real(p, path);
	dp = opendir(p);
	if (!dp)
		return -errno;
	while ((d = readdir(dp)))
		fill(buf, d->d_name, NULL, 0, 0);
	closedir(dp);
	return 0;
}

static int fs_mkdir(const char *path, mode_t mode)
{
	char p[PATH_MAX];

	real(p, path);
	return WRAP(mkdir(p, mode));
}

static int fs_rmdir(const char *path)
{
	char p[PATH_MAX];

	real(p, path);
	return WRAP(rmdir(p));
}

static int fs_unlink(const char *path)
{
	char p[PATH_MAX];

	real(p, path);
	return WRAP(unlink(p));
}

static int fs_rename(const char *from, const char *to, unsigned int flags)
{
	char a[PATH_MAX], b[PATH_MAX];

	real(a, from);
	real(b, to);
	return WRAP(rename(a, b));
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	char p[PATH_MAX];

	if (fi)
		return WRAP(ftruncate(fi->fh, size));
	real(p, path);
	return WRAP(truncate(p, size));
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	char p[PATH_MAX];
	int fd;

	real(p, path);
	fd = open(p, fi->flags, mode);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	char p[PATH_MAX];
	int fd;

	real(p, path);
	fd = open(p, fi->flags);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n = pread(fi->fh, buf, size, off);

	return n < 0 ? -errno : n;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	ssize_t n;

	if (written + (long long)size > limit)
		return -EIO;
	n = pwrite(fi->fh, buf, size, off);
	if (n > 0)
		written += n;
	return n < 0 ? -errno : n;
}

static int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	return WRAP(fsync(fi->fh));
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	close(fi->fh);
	return 0;
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = fs_getattr, .readdir = fs_readdir, .mkdir = fs_mkdir, .rmdir = fs_rmdir,
	.unlink = fs_unlink, .rename = fs_rename, .truncate = fs_truncate, .create = fs_create,
	.open = fs_open, .read = fs_read, .write = fs_write, .fsync = fs_fsync,
	.release = fs_release, .utimens = fs_utimens,
};

int main(int argc, char **argv)
{
	char *fargs[] = { argv[0], "-f", "-o", "allow_other,default_permissions", argv[2], NULL };

	if (argc != 4 || !realpath(argv[1], backing)) {
		fprintf(stderr, "usage: eiofs BACKING MOUNTPOINT LIMIT\n");
		return 64;
	}
	limit = atoll(argv[3]);
	return fuse_main(5, fargs, &ops, NULL);
}
