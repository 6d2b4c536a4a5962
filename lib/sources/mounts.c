// SPDX-License-Identifier: GPL-2.0-only
/* Mounts of block devices from /proc/self/mountinfo, as markers (mounts.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmap/sources/mounts.h"

struct mount {
	unsigned long id;	/* the kernel's mount ID: another mount, another ID */
	unsigned major, minor;
	char path[256];
	char fstype[32];
	int seen;		/* in the latest read */
};

struct bm_mounts {
	int fd;
	FILE *f;
	struct mount *m;
	size_t n, cap;
	int round;
	bool first;
};

struct bm_mounts *bm_mounts_open(void)
{
	struct bm_mounts *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->f = fopen("/proc/self/mountinfo", "re");
	if (!t->f) {
		free(t);
		return NULL;
	}
	t->fd = fileno(t->f);
	t->first = true;
	return t;
}

void bm_mounts_close(struct bm_mounts *t)
{
	if (!t)
		return;
	fclose(t->f);
	free(t->m);
	free(t);
}

int bm_mounts_fd(const struct bm_mounts *t)
{
	return t->fd;
}

void bm_mountinfo_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * One line: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE
 * SOURCE SUPEROPTIONS. 0 if it is a block device's mount, else -1.
 */
static int parse(char *line, struct mount *m)
{
	char path[1024], *dash;
	unsigned long parent;

	if (sscanf(line, "%lu %lu %u:%u %*s %1023s", &m->id, &parent, &m->major, &m->minor,
		   path) != 5 || !m->major)
		return -1;
	bm_mountinfo_unescape(path);
	snprintf(m->path, sizeof(m->path), "%s", path);
	m->fstype[0] = '\0';
	dash = strstr(line, " - ");
	if (dash)
		sscanf(dash + 3, "%31s", m->fstype);
	return 0;
}

/* The same mount: an ID may be given again to another once this one is gone. */
static struct mount *find(struct bm_mounts *t, const struct mount *m)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->m[i].id == m->id && t->m[i].major == m->major &&
		    t->m[i].minor == m->minor && !strcmp(t->m[i].path, m->path))
			return &t->m[i];
	return NULL;
}

static int mark_one(const struct mount *m, const char *action, uint64_t after, bm_mark_fn mark,
		    void *ctx)
{
	struct bm_marker k;

	bm_marker_begin(&k, "mount");
	bm_marker_add(&k, "action", action);
	if (after)
		bm_marker_addf(&k, "after", "%llu", (unsigned long long)after);
	bm_marker_addf(&k, "dev", "%u:%u", m->major, m->minor);
	bm_marker_addf(&k, "id", "%lu", m->id);
	bm_marker_add(&k, "fs", m->fstype);
	bm_marker_add_if_room(&k, "at", m->path);
	return bm_marker_emit(&k, mark, ctx);
}

/* Read the table, adding what is new (marked), flagging what is still there. */
static int read_table(struct bm_mounts *t, uint64_t after, bm_mark_fn mark, void *ctx)
{
	char line[4096];
	struct mount m, *known;
	int count = 0;

	rewind(t->f);
	clearerr(t->f);
	while (fgets(line, sizeof(line), t->f)) {
		if (parse(line, &m) < 0)
			continue;
		known = find(t, &m);
		if (known) {
			known->seen = t->round;
			continue;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 32;
			struct mount *p = realloc(t->m, cap * sizeof(*p));

			if (!p)
				return -1;
			t->m = p;
			t->cap = cap;
		}
		m.seen = t->round;
		t->m[t->n++] = m;
		if (mark_one(&m, t->first ? "present" : "add", t->first ? 0 : after, mark, ctx) == 0)
			count++;
	}
	return ferror(t->f) ? -1 : count;
}

int bm_mounts_scan(struct bm_mounts *t, uint64_t after, bm_mark_fn mark, void *ctx)
{
	size_t i = 0;
	int count;

	t->round++;
	count = read_table(t, after, mark, ctx);
	if (count < 0)
		return -1;
	while (i < t->n) {
		if (t->m[i].seen == t->round) {
			i++;
			continue;
		}
		if (mark_one(&t->m[i], "remove", after, mark, ctx) == 0)
			count++;
		t->m[i] = t->m[--t->n];
	}
	t->first = false;
	return count;
}
