// SPDX-License-Identifier: GPL-2.0-only
/*
 * The spool's page file made, and finished in place or copied (spool.h);
 * its layout, and where its pages are, in tracefile/spoolfile.c.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "blkmap/record/output.h"
#include "blkmap/record/spool.h"
#include "blkmap/tracefile/writer.h"
#include "blkmap/util/error.h"

/*
 * File systems known to keep holes out of the disk: regions cost nothing
 * there. Elsewhere (vfat, exfat, network file systems) a region would be
 * written out as zeros, so each CPU gets a file of its own.
 */
static bool has_holes(int dir)
{
	static const unsigned long types[] = {
		0xEF53,		/* ext2/3/4 */
		0x58465342,	/* XFS */
		0x9123683E,	/* Btrfs */
		0x01021994,	/* tmpfs */
		0xF2F52010,	/* F2FS */
		0x794C7630,	/* overlayfs, over one of these as a rule */
	};
	struct statfs sf;
	size_t i;

	if (fstatfs(dir, &sf) < 0)
		return false;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((unsigned long)sf.f_type == types[i])
			return true;
	return false;
}


/* A file of the spool, made by this recorder: never one that was there. */
static int create_file(const struct bm_spool *s, const char *name)
{
	return openat(s->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      BM_OUTPUT_MODE);
}


static int open_file(int dir, const char *name, int flags)
{
	return openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
}

static int create_cpu_files(const struct bm_spool *s, int ncpus, int *fds)
{
	char name[64];
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		bm_spool_pages_name(name, sizeof(name), cpu, 0);
		fds[cpu] = create_file(s, name);
		if (fds[cpu] < 0) {
			bm_error_errno("cannot create spool file '%s/%s'", s->path, name);
			while (cpu-- > 0) {
				close(fds[cpu]);
				bm_spool_pages_name(name, sizeof(name), cpu, 0);
				unlinkat(s->fd, name, 0);
			}
			return -1;
		}
	}
	return 0;
}


int bm_spool_create(const struct bm_spool *s, int ncpus, int *fds, uint64_t *region)
{
	uint64_t r = bm_spool_first_region(ncpus);
	int fd, cpu;

	if (!has_holes(s->fd)) {
		*region = 0;
		return create_cpu_files(s, ncpus, fds);
	}
	/* The recording's own mode: this file becomes it. */
	fd = create_file(s, BM_SPOOL_PAGES);
	if (fd < 0) {
		bm_error_errno("cannot create spool file '%s/" BM_SPOOL_PAGES "'", s->path);
		return -1;
	}
	/* The last byte first: the size the file system allows sets R. */
	while (pwrite(fd, "", 1, (ncpus + 1) * r - 1) != 1) {
		if ((errno != EFBIG && errno != EINVAL) ||
		    bm_spool_next_region(r) < BM_SPOOL_MIN_REGION) {
			bm_error_errno("cannot create spool file '%s/" BM_SPOOL_PAGES "' of %llu "
				       "MiB per CPU", s->path, (unsigned long long)(r >> 20));
			goto fail;
		}
		r = bm_spool_next_region(r);
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		fds[cpu] = open_file(s->fd, BM_SPOOL_PAGES, O_RDWR);
		if (fds[cpu] < 0 || lseek(fds[cpu], (cpu + 1) * r, SEEK_SET) < 0) {
			bm_error_errno("cannot open spool file '%s/" BM_SPOOL_PAGES "'", s->path);
			for (; cpu >= 0; cpu--)
				if (fds[cpu] >= 0)
					close(fds[cpu]);
			goto fail;
		}
	}
	close(fd);
	*region = r;
	return 0;
fail:
	close(fd);
	unlinkat(s->fd, BM_SPOOL_PAGES, 0);
	return -1;
}

/* Can this file system collapse ranges of @block bytes? Try on a scratch file. */
static bool can_collapse(const struct bm_spool *s, uint64_t block)
{
	bool ok;
	int fd;

	unlinkat(s->fd, BM_SPOOL_PROBE, 0);	/* one a crash left */
	fd = create_file(s, BM_SPOOL_PROBE);
	if (fd < 0)
		return false;
	ok = ftruncate(fd, 3 * block) == 0 &&
	     fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, block, block) == 0;
	close(fd);
	unlinkat(s->fd, BM_SPOOL_PROBE, 0);
	return ok;
}

/*
 * The plan, into a file of its own first, renamed "collapsing" once it is
 * whole on the disk: a full file system leaves no "collapsing" cut short,
 * which would make the spool unreadable.
 */
static int write_collapsing(const struct bm_spool *s, int ncpus, uint64_t region,
			    uint64_t header, const uint64_t *sizes)
{
	char tmp[64];
	FILE *f;
	int cpu, fd, ok;

	fd = bm_create_random(s->fd, BM_SPOOL_COLLAPSING ".new-", BM_OUTPUT_MODE, tmp, sizeof(tmp));
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		if (fd >= 0) {
			close(fd);
			unlinkat(s->fd, tmp, 0);
		}
		return -1;
	}
	fprintf(f, "%" PRIu64 " %" PRIu64, region, header);
	for (cpu = 0; cpu < ncpus; cpu++)
		fprintf(f, " %" PRIu64, sizes[cpu]);
	fputc('\n', f);
	ok = fflush(f) == 0 && !ferror(f);
	ok = ok && fsync(fd) == 0;
	ok = fclose(f) == 0 && ok;
	ok = ok && renameat(s->fd, tmp, s->fd, BM_SPOOL_COLLAPSING) == 0;
	if (!ok) {
		int err = errno;

		unlinkat(s->fd, tmp, 0);
		errno = err;
		return -1;
	}
	return 0;
}

/* Can @s's page file become @out by a rename? Only on one file system. */
static bool same_fs(const struct bm_spool *s, const struct bm_output *out)
{
	struct stat a, b;

	return fstat(s->fd, &a) == 0 && fstat(out->dir, &b) == 0 && a.st_dev == b.st_dev;
}

int bm_spool_finish_in_place(const struct bm_spool *s, const struct bm_trace_meta *meta,
			     const struct bm_cpu_data *cpus, uint64_t region,
			     const struct bm_output *out)
{
	int ncpus = meta->ncpus, cpu, n = 0, i, fd = -1, ret = -1;
	bool pages = false;
	uint64_t *sizes = calloc(ncpus + 1, sizeof(*sizes)), *at = calloc(ncpus + 1, sizeof(*at));
	uint64_t *len = calloc(ncpus + 1, sizeof(*len)), room, end;
	char *header = NULL;
	struct stat st;
	size_t hlen;

	if (!sizes || !at || !len)
		goto out;
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (cpus[cpu].fd >= 0 && cpus[cpu].offset != (cpu + 1) * region) {
			ret = 1;	/* not where the recorder wrote: copy */
			goto out;
		}
		sizes[cpu] = cpus[cpu].fd < 0 ? 0 : cpus[cpu].size;
		pages |= sizes[cpu] != 0;
	}
	ret = 1;
	if (!same_fs(s, out))
		goto out;
	ret = -1;
	header = bm_trace_header(meta, sizes, &hlen);
	if (!header)
		goto out;
	room = (hlen + meta->page_size - 1) / meta->page_size * meta->page_size;
	fd = open_file(s->fd, BM_SPOOL_PAGES, O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto out;
	n = bm_spool_plan(ncpus, sizes, region, room, at, len, &end);
	/* Collapses take whole blocks: anything else, or no support, is copied. */
	ret = 1;
	if (room > region || !st.st_blksize)
		goto out;
	for (i = 0; i < n; i++)
		if (at[i] % st.st_blksize || len[i] % st.st_blksize)
			goto out;
	if (n && !can_collapse(s, st.st_blksize))
		goto out;
	ret = -1;
	if (write_collapsing(s, ncpus, region, room, sizes) < 0 || ftruncate(fd, end) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, at[i], len[i]) < 0)
			goto out;
	if (pwrite(fd, header, hlen, 0) != (ssize_t)hlen ||
	    (!pages && ftruncate(fd, hlen) < 0) || fsync(fd) < 0 ||
	    renameat(s->fd, BM_SPOOL_PAGES, out->dir, out->name) < 0)
		goto out;
	unlinkat(s->fd, BM_SPOOL_COLLAPSING, 0);
	ret = 0;
out:
	if (ret < 0)
		bm_error_errno("cannot write '%s' (finishing '%s/" BM_SPOOL_PAGES "')", out->path,
			       s->path);
	if (fd >= 0)
		close(fd);
	free(header);
	free(sizes);
	free(at);
	free(len);
	return ret;
}

/* Copy the spool's pages after @meta into a new file, then rename it @out. */
static int copy_out(const struct bm_spool *s, const struct bm_trace_meta *meta,
		    const struct bm_output *out, enum bm_compression compression)
{
	struct bm_cpu_data *cpus = calloc(meta->ncpus ? meta->ncpus : 1, sizeof(*cpus));
	uint64_t region;
	int ret = -1;

	if (!cpus) {
		bm_error_errno("cannot write '%s'", out->path);
		return -1;
	}
	if (bm_spool_locate_at(s->fd, s->path, meta->ncpus, meta->page_size, cpus, &region) == 0)
		ret = bm_output_write(out, meta, cpus, compression, NULL);
	bm_spool_close_cpus(cpus, meta->ncpus);
	free(cpus);
	return ret;
}

int bm_spool_write_out(const struct bm_spool *s, const struct bm_trace_meta *meta,
		       const struct bm_output *out, enum bm_compression compression,
		       uint64_t *bytes)
{
	struct bm_cpu_data *cpus = calloc(meta->ncpus ? meta->ncpus : 1, sizeof(*cpus));
	uint64_t region;
	struct stat st;
	int r = -1;

	if (!cpus) {
		bm_error_errno("cannot write '%s'", out->path);
		return -1;
	}
	if (!compression && bm_spool_locate_at(s->fd, s->path, meta->ncpus, meta->page_size, cpus,
					       &region) == 0)
		r = region ? bm_spool_finish_in_place(s, meta, cpus, region, out) : 1;
	bm_spool_close_cpus(cpus, meta->ncpus);
	free(cpus);
	/* Not in place: copy, from wherever the pages are now. */
	if (r != 0 && copy_out(s, meta, out, compression) < 0)
		return -1;
	if (fstatat(out->dir, out->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		bm_error_errno("cannot write '%s'", out->path);
		return -1;
	}
	if (bytes)
		*bytes = st.st_size;
	return 0;
}

/*
 * Is the directory @fd as blkmap makes a spool: this user's (root's, as a
 * rule), mode 0700? If not, why not in the message, and -1.
 */
static int check_dir(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		bm_error_errno("cannot look at '%s'", path);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		bm_error("'%s' belongs to uid %u, not to uid %u as the spools blkmap makes do: "
			 "not blkmap's, left alone", path, (unsigned)st.st_uid, (unsigned)geteuid());
		return -1;
	}
	if ((st.st_mode & 07777) != 0700) {
		bm_error("'%s' has mode %04o, not 0700 as the spools blkmap makes have: not "
			 "blkmap's, left alone", path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/* What is in spool @fd: regular files of this user, one link each, as blkmap makes them. */
static int check_entries(int fd, const char *path)
{
	int copy = dup(fd), ret = 0;
	DIR *dp = copy < 0 ? NULL : fdopendir(copy);
	const char *why = NULL;
	struct dirent *d;
	struct stat st;

	if (!dp) {
		bm_error_errno("cannot read '%s'", path);
		if (copy >= 0)
			close(copy);
		return -1;
	}
	rewinddir(dp);
	while (!why && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			bm_error_errno("cannot look at '%s/%s'", path, d->d_name);
			ret = -1;
			break;
		}
		if (S_ISLNK(st.st_mode))
			why = "is a symbolic link";
		else if (!S_ISREG(st.st_mode))
			why = "is not a regular file";
		else if (st.st_uid != geteuid())
			why = "belongs to another user";
		else if (st.st_nlink != 1)
			why = "has another name (a hard link)";
		if (why) {
			bm_error("'%s/%s' %s: blkmap puts none such in a spool; '%s' is not blkmap's, "
				 "left alone", path, d->d_name, why, path);
			ret = -1;
		}
	}
	closedir(dp);
	return ret;
}

static void name_parts(const char *path, char *dir, size_t dsize, char *name, size_t nsize)
{
	char copy[PATH_MAX], *slash;
	size_t len;

	snprintf(copy, sizeof(copy), "%s", path);
	for (len = strlen(copy); len > 1 && copy[len - 1] == '/'; len--)
		copy[len - 1] = '\0';
	slash = strrchr(copy, '/');
	snprintf(name, nsize, "%s", slash ? slash + 1 : copy);
	if (!slash)
		snprintf(dir, dsize, ".");
	else if (slash == copy)
		snprintf(dir, dsize, "/");
	else
		snprintf(dir, dsize, "%.*s", (int)(slash - copy), copy);
}

int bm_spool_make(struct bm_spool *s, int parent, const char *parent_path)
{
	char prefix[64];
	struct stat st;
	int tries;

	*s = (struct bm_spool)BM_SPOOL_INIT;
	snprintf(prefix, sizeof(prefix), ".blkmap-%d-", (int)getpid());
	for (tries = 0;; tries++) {
		if (bm_random_name(s->name, sizeof(s->name), prefix, ".spool") < 0) {
			bm_error_errno("cannot name a spool directory in '%s'", parent_path);
			return -1;
		}
		snprintf(s->path, sizeof(s->path), "%s/%s", parent_path, s->name);
		if (mkdirat(parent, s->name, 0700) == 0)
			break;
		if (errno != EEXIST || tries == 100) {
			bm_error_errno("cannot create '%s'", s->path);
			return -1;
		}
	}
	s->fd = openat(parent, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	s->parent = fcntl(parent, F_DUPFD_CLOEXEC, 0);
	if (s->fd < 0 || s->parent < 0 || fstat(s->fd, &st) < 0) {
		bm_error_errno("cannot open '%s'", s->path);
		goto fail;
	}
	/* Another's directory, moved in under the name at once, is refused. */
	if (st.st_uid != geteuid())
		goto check;
	/* The umask narrows, or widens, what mkdir made. */
	if ((st.st_mode & 07777) != 0700 && fchmod(s->fd, 0700) < 0) {
		bm_error_errno("cannot make '%s' private (mode 0700)", s->path);
		goto fail;
	}
check:
	if (check_dir(s->fd, s->path) < 0)
		goto fail;
	return 0;
fail:
	bm_spool_close(s);
	return -1;
}

int bm_spool_open(struct bm_spool *s, const char *path)
{
	char dir[PATH_MAX];
	struct stat st;

	*s = (struct bm_spool)BM_SPOOL_INIT;
	snprintf(s->path, sizeof(s->path), "%s", path);
	name_parts(path, dir, sizeof(dir), s->name, sizeof(s->name));
	s->parent = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->parent < 0) {
		bm_error_errno("cannot open '%s'", dir);
		return -1;
	}
	if (fstatat(s->parent, s->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		bm_error_errno("cannot open '%s'", path);
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		bm_error("'%s' is %s, not the directory a spool is: not blkmap's, left alone", path,
			 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
		goto fail;
	}
	s->fd = openat(s->parent, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->fd < 0) {
		bm_error_errno("cannot open '%s'", path);
		goto fail;
	}
	if (check_dir(s->fd, path) < 0 || check_entries(s->fd, path) < 0)
		goto fail;
	return 0;
fail:
	bm_spool_close(s);
	return -1;
}

void bm_spool_close(struct bm_spool *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->parent >= 0)
		close(s->parent);
	s->fd = s->parent = -1;
}

bool bm_spool_is_ring(const struct bm_spool *s)
{
	return faccessat(s->fd, BM_SPOOL_RING, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

void bm_spool_remove(struct bm_spool *s)
{
	int copy = s->fd < 0 ? -1 : dup(s->fd);
	DIR *dp = copy < 0 ? NULL : fdopendir(copy);
	struct stat ours, there;
	struct dirent *d;

	if (!dp && copy >= 0)
		close(copy);
	/*
	 * Everything in it is the recorder's (pages, meta, a ring's kept
	 * pages), reached from the directory blkmap made, wherever it is now:
	 * a name unlinked is never followed.
	 */
	if (dp)
		rewinddir(dp);
	while (dp && (d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			unlinkat(s->fd, d->d_name, 0);
	if (dp)
		closedir(dp);
	/* The directory by its name only if the name is still the directory. */
	if (s->fd >= 0 && s->parent >= 0 && fstat(s->fd, &ours) == 0 &&
	    fstatat(s->parent, s->name, &there, AT_SYMLINK_NOFOLLOW) == 0 &&
	    ours.st_dev == there.st_dev && ours.st_ino == there.st_ino)
		unlinkat(s->parent, s->name, AT_REMOVEDIR);
	bm_spool_close(s);
}
