/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_MAP_CGROUPS_H
#define BLKMAP_MAP_CGROUPS_H

/*
 * The second map: which cgroup (of cgroup v2) each task was in, and when
 * (cgroups.c). It is built as the device map is: from a statedump (every
 * cgroup's id and path, every task's cgroup, at the start) and from the
 * kernel's changes, in time order: a cgroup made, removed or renamed; a
 * task attached or transferred; a child forked into its parent's cgroup;
 * a task's exit, after which its pid, if seen again, is another task's.
 *
 * A cgroup is its id, the kernfs inode number the kernel's events carry:
 * one removed and made again on the same path has another id, and is the
 * path's next incarnation ("/web#2"). Answers carry how they were
 * obtained: exact (the task's cgroup has been known since its last
 * change), a guess (events were lost since, so a change may have been
 * missed), or unknown (the task was never seen).
 *
 * Memory grows with the tasks, their moves and the cgroups of a recording,
 * never with the number of I/O events.
 */
#include <stdbool.h>
#include <stdint.h>

struct bm_cgroups;

enum bm_cgroup_basis {
	BM_CG_UNKNOWN,
	BM_CG_EXACT,
	BM_CG_GUESS,
	BM_CG_WRITEBACK,	/* bm_cgroups_charged(): the cgroup a flusher wrote back for */
	BM_CG_BOTH,		/* of several I/Os: some exact, some written back */
};

/* The basis of I/Os of bases @a and @b together: a guess if either is. */
static inline enum bm_cgroup_basis bm_cgroup_basis_merge(enum bm_cgroup_basis a,
							 enum bm_cgroup_basis b)
{
	if (a == b || b == BM_CG_UNKNOWN)
		return a;
	if (a == BM_CG_UNKNOWN)
		return b;
	return a == BM_CG_GUESS || b == BM_CG_GUESS ? BM_CG_GUESS : BM_CG_BOTH;
}

struct bm_cgroup {
	uint64_t id;
	const char *path;	/* the path at the time asked about */
	unsigned incarnation;	/* of the cgroups that had this id's first path: 1, 2... */
	uint64_t from, to;	/* made (0: before the recording), removed (UINT64_MAX: not) */
};

struct bm_cgroups *bm_cgroups_new(void);
void bm_cgroups_free(struct bm_cgroups *cg);

/*
 * Observations, in time order. A cgroup seen in a statedump or made
 * (bm_cgroups_made), removed, renamed; a task seen in a statedump or
 * moved (bm_cgroups_moved, which also makes a cgroup it names and does
 * not know), forked, gone. -1 only when out of memory.
 */
int bm_cgroups_made(struct bm_cgroups *cg, uint64_t ts, uint64_t id, const char *path);
void bm_cgroups_removed(struct bm_cgroups *cg, uint64_t ts, uint64_t id);
int bm_cgroups_renamed(struct bm_cgroups *cg, uint64_t ts, uint64_t id, const char *path);
int bm_cgroups_moved(struct bm_cgroups *cg, uint64_t ts, int pid, uint64_t id,
		     const char *path);
/*
 * A task a statedump saw in cgroup @id: as bm_cgroups_moved(), unless the
 * kernel's events already told where it is (they come first: the dump
 * read its files after the events were on).
 */
int bm_cgroups_seen(struct bm_cgroups *cg, uint64_t ts, int pid, uint64_t id,
		    const char *path);
int bm_cgroups_forked(struct bm_cgroups *cg, uint64_t ts, int parent, int child);
void bm_cgroups_exited(struct bm_cgroups *cg, uint64_t ts, int pid);
/*
 * Task @pid writes an inode back for cgroup @id from @ts on (the
 * writeback_single_inode_start event, whose cgroup_ino is the cgroup the
 * kernel charges that writeback to), until bm_cgroups_written() at its end.
 * An id not known is left out: -1 only when out of memory.
 */
int bm_cgroups_writing(struct bm_cgroups *cg, uint64_t ts, int pid, uint64_t id);
void bm_cgroups_written(struct bm_cgroups *cg, uint64_t ts, int pid);
/* Events may have been lost from @from to @to: what changed then is not known. */
void bm_cgroups_lost(struct bm_cgroups *cg, uint64_t from, uint64_t to);

/*
 * The cgroup task @pid was in at @ts, into *@out (valid until the next
 * observation); its basis. BM_CG_UNKNOWN leaves *@out untouched.
 */
enum bm_cgroup_basis bm_cgroups_of(const struct bm_cgroups *cg, int pid, uint64_t ts,
				   struct bm_cgroup *out);
/*
 * The cgroup the kernel charges a bio @pid queued at @ts to: a write while
 * it writes an inode back, the cgroup it writes back for (BM_CG_WRITEBACK;
 * a guess if events were lost since that began: the pages' bios carry the
 * writeback's cgroup); else its own (bm_cgroups_of), as for the metadata
 * a file system reads meanwhile.
 */
enum bm_cgroup_basis bm_cgroups_charged(const struct bm_cgroups *cg, int pid, uint64_t ts,
					bool write, struct bm_cgroup *out);
/* The cgroup of id @id as it was at @ts; 0 if the id is not known. */
int bm_cgroups_by_id(const struct bm_cgroups *cg, uint64_t id, uint64_t ts,
		     struct bm_cgroup *out);

#endif
