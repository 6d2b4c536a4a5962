/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_TRACEFILE_DECODE_H
#define BLKMAP_TRACEFILE_DECODE_H

/*
 * Decoding of the events blkmap reads: field offsets are resolved once per
 * event id from the file's formats, then read directly from each record.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blkmap/tracefile/merge.h"

struct tep_handle;

enum bm_kind {
	BM_EV_OTHER,
	BM_EV_RQ_INSERT,
	BM_EV_RQ_ISSUE,
	BM_EV_RQ_COMPLETE,
	BM_EV_RQ_REQUEUE,
	BM_EV_BIO_QUEUE,
	BM_EV_BIO_COMPLETE,
	BM_EV_BIO_REMAP,
	BM_EV_RQ_GETRQ,		/* block_getrq: a request made for a bio, the kernel's start of it */
	BM_EV_BIO_SPLIT,	/* block_split: new_sector in bm_io's old_sector */
	BM_EV_BIO_BACKMERGE,	/* block_bio_backmerge: a bio merged at a request's end */
	BM_EV_BIO_FRONTMERGE,	/* block_bio_frontmerge: a bio merged at a request's start */
	BM_EV_RQ_MERGE,		/* block_rq_merge: a request merged into another */
	/* No device: the task's plug (block_plug); its flush, nr_rq in nr_sector (block_unplug) */
	BM_EV_PLUG,
	BM_EV_UNPLUG,
	BM_EV_PRINT,		/* ftrace:print, blkmap's markers among them */
	BM_EV_BDI_REGISTER,	/* writeback:writeback_bdi_register */
	/* The cgroup map's (sources/cgroups.h): map records, kept by a flight recording */
	BM_EV_CG_MOVE,		/* cgroup:cgroup_attach_task, cgroup_transfer_tasks */
	BM_EV_CG_MKDIR,
	BM_EV_CG_RMDIR,
	BM_EV_CG_RENAME,
	BM_EV_WB_START,		/* writeback:writeback_single_inode_start: a flusher's inode, its cgroup */
	BM_EV_WB_END,		/* writeback:writeback_single_inode: its end */
	BM_EV_FORK,		/* sched:sched_process_fork */
	BM_EV_EXIT,		/* sched:sched_process_exit */
	/* blkmap's probe events, system "blkmap_PID" (see kprobes.h) */
	BM_EV_K_ADD,
	BM_EV_K_DISK_DEL,
	BM_EV_K_DISK_GONE,
	BM_EV_K_PART_DEL,
	BM_EV_K_PART_GONE,
	BM_EV_K_DUMP,
	BM_EV_K_DM_NAME,	/* a dm device's name, at resume or rename */
	BM_EV_K_LOOP_ON,	/* a loop device bound to a file, or its status set */
	BM_EV_K_LOOP_OFF,	/* a loop device's detach entered */
	BM_EV_K_LOOP_GONE,	/* a loop device's detach returned */
	BM_EV_M_DEV,		/* synthetic:blkmap_dev, from blkmap's module */
	BM_EV_NKINDS
};

/* An I/O event of the block layer (not a print, nor a map record). */
static inline bool bm_is_block(enum bm_kind kind)
{
	return kind >= BM_EV_RQ_INSERT && kind <= BM_EV_UNPLUG;
}

/* A block event that names a device (plugs do not: they are a task's). */
static inline bool bm_names_dev(enum bm_kind kind)
{
	return kind >= BM_EV_RQ_INSERT && kind <= BM_EV_RQ_MERGE;
}

/* Kernel dev_t encoding used by tracepoints: 12-bit major, 20-bit minor. */
#define BM_MAJOR(dev)		((unsigned)((dev) >> 20))
#define BM_MINOR(dev)		((unsigned)((dev) & 0xfffff))
#define BM_MKDEV(ma, mi)	((uint32_t)(((ma) << 20) | (mi)))

struct bm_event {
	uint64_t ts;
	int cpu;
	int pid;
	enum bm_kind kind;
	const char *name;	/* event name, e.g. "block_rq_issue" */
	const char *system;
	/* block events; absent fields are 0 or empty */
	uint32_t dev, old_dev;
	uint64_t sector, old_sector;
	uint32_t nr_sector, bytes;
	int error;
	char rwbs[12];
	int op;			/* from rwbs: 0 read, 1 write, -1 neither (flush, discard) */
	/*
	 * print: the text, without its trailing newline; bdi: the bdi name;
	 * the cgroup events: the cgroup's path
	 */
	const char *text;
	int text_len;
	/* probe and module events: the device's name, its disk's, partno... */
	struct {
		const char *name, *disk, *dm, *file, *uuid;	/* file: a loop device's; uuid: dm_name's */
		int name_len, disk_len, dm_len, file_len, uuid_len;
		uint32_t partno;
		uint64_t seq;
		uint32_t op;		/* module: what happened (kmodule.h) */
		uint64_t sectors;
	} k;
	/*
	 * The cgroup map's events: the hierarchy and cgroup id (its path in
	 * text), the task moved or gone (a fork's parent) and a fork's child.
	 */
	struct {
		uint64_t id;
		int root;
		int pid, child;
	} cg;
};

/*
 * What the analyses read of a block event, and nothing else: decoding only
 * these fields is what keeps an analysis pass close to the speed of reading.
 */
struct bm_io {
	uint64_t ts;
	uint64_t sector;
	uint64_t old_sector;	/* a remap's: where the bio was on old_dev; a split's new_sector */
	uint32_t dev, old_dev;	/* old_dev: a remap's source */
	uint32_t nr_sector;
	int32_t pid;
	int8_t kind;		/* enum bm_kind, a block event's */
	int8_t op;		/* as bm_event's */
	uint8_t flags;		/* BM_IO_*, a queued bio's (block_bio_queue) */
};

/*
 * A write with data and REQ_PREFLUSH or REQ_FUA ('F' before or after the W
 * in RWBS): on a disk with a write cache it goes through the kernel's flush
 * sequence, which completes it once more, with no data, at its sector.
 */
#define BM_IO_FLUSH_SEQ	0x1
/*
 * No data, and RWBS starts with 'F': the kernel's flush request ("FF"), or
 * an empty write with PREFLUSH ("FWS", as a bio and as a new request).
 */
#define BM_IO_FLUSH	0x2

struct bm_decoder;

struct bm_decoder *bm_decoder_new(struct tep_handle *tep);
void bm_decoder_free(struct bm_decoder *d);
/* The kind of event id @type, without decoding anything. */
enum bm_kind bm_decoder_kind(const struct bm_decoder *d, int type);
/* The parser it decodes with. */
struct tep_handle *bm_decoder_tep(const struct bm_decoder *d);
/*
 * What RWBS flags do: 0 read, 1 write, -1 neither (a discard, a flush
 * without data). Reads the first two characters at most.
 */
int bm_rwbs_op(const char *rwbs, uint32_t sectors);
/* BM_IO_* flags of the first @len characters of @rwbs (3 are read at most). */
static inline uint8_t bm_rwbs_flags(const char *rwbs, int len)
{
	bool preflush = len > 0 && rwbs[0] == 'F';
	int at = preflush;	/* the operation's letter */

	if (at >= len || rwbs[at] != 'W')
		return 0;
	return preflush || (at + 1 < len && rwbs[at + 1] == 'F') ? BM_IO_FLUSH_SEQ : 0;
}
/* The BM_IO_* flags the analysis needs of @io (kind, op, nr_sector known), from @rwbs. */
static inline uint8_t bm_io_flags(const struct bm_io *io, const char *rwbs, int len)
{
	if (!io->nr_sector)
		return len > 0 && rwbs[0] == 'F' ? BM_IO_FLUSH : 0;
	/* Of data, only a queued bio's matter (the analysis' flush sequences). */
	return io->kind == BM_EV_BIO_QUEUE && io->op == 1 ? bm_rwbs_flags(rwbs, len) : 0;
}
/* Decode @rec into @ev; text points into @rec's data. */
void bm_decode(const struct bm_decoder *d, const struct bm_rec *rec, struct bm_event *ev);
/* Decode a block event's I/O fields; false, and nothing decoded, for other events. */
/*
 * Does @rec hold every field its format says it has (and the data its
 * dynamic fields point at)? libtraceevent prints a record without asking:
 * one a damaged format overruns must not reach it.
 */
bool bm_decode_fits(const struct bm_decoder *d, const struct bm_rec *rec);
bool bm_decode_io(const struct bm_decoder *d, const struct bm_rec *rec, struct bm_io *io);

#endif
