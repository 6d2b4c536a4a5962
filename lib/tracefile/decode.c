// SPDX-License-Identifier: GPL-2.0-only
/* Field offsets per event id, resolved once; records read directly. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "blkmap/tracefile/decode.h"

struct field {
	int offset, size;	/* size 0: the event lacks the field */
	bool dynamic;		/* __data_loc: a u32 locating the data */
};

struct layout {
	enum bm_kind kind;
	const char *name, *system;
	struct field pid, dev, old_dev, sector, old_sector, nr_sector, bytes, error;
	struct field rwbs, text;
	struct field major, minor, kname, kdisk, kdm, kfile, kuuid, kuuidp, partno, seq;	/* probe events */
	struct field op, sectors;				/* module events */
	struct field cg_root, cg_id, cg_pid, cg_child;		/* the cgroup map's events */
	/*
	 * A block event whose I/O fields have the kernel's usual sizes, all
	 * in its first io_end bytes: decoded without a check a field.
	 */
	bool io_usual;
	int io_end;
};

struct bm_decoder {
	struct tep_handle *tep;
	bool swap;		/* the file's byte order is not ours */
	int nids;
	/*
	 * Event ids are sparse (kprobes and synthetic events come after
	 * every tracepoint): an index per id into the layouts of the events
	 * the file has, layouts[0] being that of unknown events.
	 */
	uint32_t *by_id;
	struct layout *layouts;
};

static const struct {
	const char *system, *name;
	enum bm_kind kind;
} known[] = {
	{ "block", "block_rq_insert", BM_EV_RQ_INSERT },
	{ "block", "block_rq_issue", BM_EV_RQ_ISSUE },
	{ "block", "block_rq_complete", BM_EV_RQ_COMPLETE },
	{ "block", "block_rq_requeue", BM_EV_RQ_REQUEUE },
	{ "block", "block_bio_queue", BM_EV_BIO_QUEUE },
	{ "block", "block_bio_complete", BM_EV_BIO_COMPLETE },
	{ "block", "block_bio_remap", BM_EV_BIO_REMAP },
	{ "block", "block_getrq", BM_EV_RQ_GETRQ },
	{ "block", "block_split", BM_EV_BIO_SPLIT },
	{ "block", "block_bio_backmerge", BM_EV_BIO_BACKMERGE },
	{ "block", "block_bio_frontmerge", BM_EV_BIO_FRONTMERGE },
	{ "block", "block_rq_merge", BM_EV_RQ_MERGE },
	{ "block", "block_plug", BM_EV_PLUG },
	{ "block", "block_unplug", BM_EV_UNPLUG },
	{ "ftrace", "print", BM_EV_PRINT },
	{ "writeback", "writeback_bdi_register", BM_EV_BDI_REGISTER },
	{ "cgroup", "cgroup_attach_task", BM_EV_CG_MOVE },
	{ "cgroup", "cgroup_transfer_tasks", BM_EV_CG_MOVE },
	{ "cgroup", "cgroup_mkdir", BM_EV_CG_MKDIR },
	{ "cgroup", "cgroup_rmdir", BM_EV_CG_RMDIR },
	{ "cgroup", "cgroup_rename", BM_EV_CG_RENAME },
	{ "writeback", "writeback_single_inode_start", BM_EV_WB_START },
	{ "writeback", "writeback_single_inode", BM_EV_WB_END },
	{ "sched", "sched_process_fork", BM_EV_FORK },
	{ "sched", "sched_process_exit", BM_EV_EXIT },
	{ "synthetic", "blkmap_dev", BM_EV_M_DEV },
};

static const struct {
	const char *name;
	enum bm_kind kind;
} probe_events[] = {
	{ "bdev_add", BM_EV_K_ADD },
	{ "disk_hidden", BM_EV_K_ADD },
	{ "disk_add", BM_EV_K_ADD },
	{ "part_add", BM_EV_K_ADD },
	{ "disk_del", BM_EV_K_DISK_DEL },
	{ "disk_gone", BM_EV_K_DISK_GONE },
	{ "part_del", BM_EV_K_PART_DEL },
	{ "part_gone", BM_EV_K_PART_GONE },
	{ "dump", BM_EV_K_DUMP },
	{ "dm_name", BM_EV_K_DM_NAME },
	{ "loop_on", BM_EV_K_LOOP_ON },
	{ "loop_off", BM_EV_K_LOOP_OFF },
	{ "loop_gone", BM_EV_K_LOOP_GONE },
};

static struct field find(struct tep_event *e, const char *name)
{
	struct tep_format_field *f = tep_find_any_field(e, name);
	struct field r = { 0, 0, false };

	if (!f)
		return r;
	r.offset = f->offset;
	r.size = f->size;
	r.dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
	return r;
}

static bool sized(struct field f, int size, int *end)
{
	if (f.dynamic || f.size != size)
		return false;
	if (f.offset + f.size > *end)
		*end = f.offset + f.size;
	return true;
}

static void usual_io_layout(struct layout *l)
{
	int end = 0;

	l->io_usual = sized(l->pid, 4, &end) && sized(l->dev, 4, &end) &&
		      sized(l->sector, 8, &end) && sized(l->nr_sector, 4, &end) &&
		      (!l->old_dev.size || sized(l->old_dev, 4, &end)) &&
		      (!l->old_sector.size || sized(l->old_sector, 8, &end)) &&
		      l->rwbs.size >= 2 && !l->rwbs.dynamic && sized(l->rwbs, l->rwbs.size, &end);
	l->io_end = end;
}

static void resolve(struct layout *l, struct tep_event *e)
{
	size_t i;

	l->kind = BM_EV_OTHER;
	l->name = e->name;
	l->system = e->system;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(e->system, known[i].system) && !strcmp(e->name, known[i].name))
			l->kind = known[i].kind;
	if (!strncmp(e->system, "blkmap_", 7))
		for (i = 0; i < sizeof(probe_events) / sizeof(probe_events[0]); i++)
			if (!strcmp(e->name, probe_events[i].name))
				l->kind = probe_events[i].kind;
	l->pid = find(e, "common_pid");
	l->dev = find(e, "dev");
	l->old_dev = find(e, "old_dev");
	l->sector = find(e, "sector");
	l->old_sector = find(e, l->kind == BM_EV_BIO_SPLIT ? "new_sector" : "old_sector");
	l->nr_sector = find(e, l->kind == BM_EV_UNPLUG ? "nr_rq" : "nr_sector");
	l->bytes = find(e, "bytes");
	l->error = find(e, "error");
	l->rwbs = find(e, "rwbs");
	if (l->kind >= BM_EV_K_ADD) {	/* probe and module events: absent fields stay 0 */
		bool module = l->kind == BM_EV_M_DEV;

		l->dev = find(e, module ? "dev" : "devt");
		l->seq = find(e, module ? "diskseq" : "seq");
		l->major = find(e, "major");
		l->minor = find(e, "minor");
		l->kname = find(e, "name");
		l->kdisk = find(e, "disk");
		l->kdm = find(e, "dm");
		l->kfile = find(e, "file");
		l->kuuid = find(e, "uuid");
		l->kuuidp = find(e, "uuidp");
		l->partno = find(e, "partno");
		l->op = find(e, "op");
		l->sectors = find(e, "sectors");
	}
	if (l->kind >= BM_EV_CG_MOVE && l->kind <= BM_EV_EXIT) {
		bool move = l->kind == BM_EV_CG_MOVE;
		bool wb = l->kind == BM_EV_WB_START || l->kind == BM_EV_WB_END;

		l->cg_root = find(e, move ? "dst_root" : "root");
		l->cg_id = find(e, move ? "dst_id" : wb ? "cgroup_ino" : "id");
		l->cg_pid = find(e, l->kind == BM_EV_FORK ? "parent_pid" : wb ? "common_pid" : "pid");
		l->cg_child = find(e, "child_pid");
		l->text = find(e, move ? "dst_path" : "path");
	}
	if (bm_is_block(l->kind))
		usual_io_layout(l);
	if (l->kind == BM_EV_PRINT) {
		struct tep_format_field *f = tep_find_field(e, "buf");

		l->text.offset = f ? f->offset : 0;
		l->text.size = f ? 1 : 0;
	} else if (l->kind == BM_EV_BDI_REGISTER) {
		l->text = find(e, "name");
	}
}

struct bm_decoder *bm_decoder_new(struct tep_handle *tep)
{
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct bm_decoder *d;
	int i, n = tep_get_events_count(tep), max = 0;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->tep = tep;
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	if (!events)
		n = 0;
	/* A record's type is 16 bits: an event with a larger id never occurs. */
	for (i = 0; i < n; i++)
		if (events[i]->id > max && events[i]->id <= UINT16_MAX)
			max = events[i]->id;
	d->nids = max + 1;
	d->by_id = calloc(d->nids, sizeof(*d->by_id));
	d->layouts = calloc(n + 1, sizeof(*d->layouts));
	if (!d->by_id || !d->layouts) {
		bm_decoder_free(d);
		return NULL;
	}
	d->layouts[0].kind = BM_EV_OTHER;
	d->layouts[0].name = "unknown";
	d->layouts[0].system = "unknown";
	for (i = 0; i < n; i++) {
		if (events[i]->id < 0 || events[i]->id > UINT16_MAX)
			continue;
		resolve(&d->layouts[i + 1], events[i]);
		d->by_id[events[i]->id] = i + 1;
	}
	return d;
}

void bm_decoder_free(struct bm_decoder *d)
{
	if (!d)
		return;
	free(d->by_id);
	free(d->layouts);
	free(d);
}

static const struct layout *layout_of(const struct bm_decoder *d, int type)
{
	return &d->layouts[type >= 0 && type < d->nids ? d->by_id[type] : 0];
}

/* Do @f's bytes lie in @rec: its own, and for a dynamic field, the data it points at? */
static bool field_fits(const struct bm_decoder *d, const struct tep_format_field *f,
		       const struct bm_rec *rec)
{
	uint32_t size = rec->size, loc, at, len;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
		return (uint32_t)f->offset <= size && (uint32_t)f->size <= size - f->offset;
	if ((uint32_t)f->offset > size || size - f->offset < 4)
		return false;
	memcpy(&loc, (const char *)rec->data + f->offset, 4);
	if (d->swap)
		loc = __builtin_bswap32(loc);
	at = loc & 0xffff;
	len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		at += f->offset + f->size;
	return at <= size && len <= size - at;
}

bool bm_decode_fits(const struct bm_decoder *d, const struct bm_rec *rec)
{
	struct tep_event *e = tep_find_event(d->tep, rec->type);
	const struct tep_format_field *f;

	if (!e || rec->size < 0)
		return false;
	for (f = e->format.common_fields; f; f = f->next)
		if (!field_fits(d, f, rec))
			return false;
	for (f = e->format.fields; f; f = f->next)
		if (!field_fits(d, f, rec))
			return false;
	return true;
}

struct tep_handle *bm_decoder_tep(const struct bm_decoder *d)
{
	return d->tep;
}

enum bm_kind bm_decoder_kind(const struct bm_decoder *d, int type)
{
	return layout_of(d, type)->kind;
}

static inline __attribute__((always_inline)) uint64_t
number(const struct bm_decoder *d, const struct bm_rec *rec, struct field f)
{
	const char *p = (const char *)rec->data + f.offset;

	if (!f.size || f.dynamic || f.offset + f.size > rec->size)
		return 0;
	if (d->swap)
		return f.size <= 8 ? tep_read_number(d->tep, p, f.size) : 0;
	/* The file's byte order is ours: read in place, the per-event hot path. */
	switch (f.size) {
	case 1:
		return *(const uint8_t *)p;
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	default:
		return 0;
	}
}

/*
 * The kernel's blk_fill_rwbs() writes an optional 'F' (preflush), then one
 * letter for the operation ('W', 'R', 'D' discard, "DE" secure erase, 'F'
 * flush, 'N' other), then flags ('F' FUA, 'A', 'S', 'M'): the operation is
 * the first or, after a preflush, the second letter.
 */
int bm_rwbs_op(const char *rwbs, uint32_t sectors)
{
	char op = rwbs[0];

	if (op == 'F') {
		if (!sectors)
			return -1;	/* a flush without data */
		op = rwbs[1];
	}
	return op == 'W' ? 1 : op == 'R' ? 0 : -1;
}


/*
 * A string field: a char array, or __data_loc (the u32 at the field holds
 * length << 16 | offset).
 */
static const char *string(const struct bm_decoder *d, const struct bm_rec *rec, struct field f,
			  int *len)
{
	uint32_t loc;
	int off, n;

	*len = 0;
	if (f.size && !f.dynamic) {
		if (f.offset + f.size > rec->size)
			return NULL;
		*len = strnlen((const char *)rec->data + f.offset, f.size);
		return (const char *)rec->data + f.offset;
	}
	if (!f.dynamic || f.offset + 4 > rec->size)
		return NULL;
	loc = tep_read_number(d->tep, (char *)rec->data + f.offset, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if (off + n > rec->size)
		return NULL;
	*len = strnlen((const char *)rec->data + off, n);
	return (const char *)rec->data + off;
}

/* The operation, read from the event's RWBS field without copying it. */
/* The operation and flags of @rec's RWBS field. */
static void op_of(const struct bm_rec *rec, struct field rwbs, struct bm_io *io)
{
	char letters[3] = { 0, 0, 0 };
	int n = rwbs.size < 3 ? rwbs.size : 3;

	if (n > 0 && rwbs.offset + n <= rec->size)
		memcpy(letters, (const char *)rec->data + rwbs.offset, n);
	else
		n = 0;
	io->op = bm_rwbs_op(letters, io->nr_sector);
	io->flags = bm_io_flags(io, letters, n);
}

/* Where a block event's I/O is: its kind, time, device and sector; false for other events. */
static inline bool decode_where(const struct bm_decoder *d, const struct layout *l,
				const struct bm_rec *rec, struct bm_io *io)
{
	if (!bm_is_block(l->kind))
		return false;
	io->ts = rec->ts;
	io->kind = l->kind;
	io->dev = number(d, rec, l->dev);
	io->sector = number(d, rec, l->sector);
	return true;
}

static inline uint32_t u32_at(const struct bm_rec *rec, struct field f)
{
	uint32_t v;

	memcpy(&v, (const char *)rec->data + f.offset, 4);
	return v;
}

static inline uint64_t u64_at(const struct bm_rec *rec, struct field f)
{
	uint64_t v;

	memcpy(&v, (const char *)rec->data + f.offset, 8);
	return v;
}

bool bm_decode_io(const struct bm_decoder *d, const struct bm_rec *rec, struct bm_io *io)
{
	const struct layout *l = layout_of(d, rec->type);

	if (l->io_usual && !d->swap && rec->size >= l->io_end) {
		io->ts = rec->ts;
		io->kind = l->kind;
		io->dev = u32_at(rec, l->dev);
		io->sector = u64_at(rec, l->sector);
		io->pid = (int32_t)u32_at(rec, l->pid);
		io->old_dev = l->old_dev.size ? u32_at(rec, l->old_dev) : 0;
		io->old_sector = l->old_sector.size ? u64_at(rec, l->old_sector) : 0;
		io->nr_sector = u32_at(rec, l->nr_sector);
		io->op = bm_rwbs_op((const char *)rec->data + l->rwbs.offset, io->nr_sector);
		io->flags = bm_io_flags(io, (const char *)rec->data + l->rwbs.offset, l->rwbs.size);
		return true;
	}
	if (!decode_where(d, l, rec, io))
		return false;
	io->pid = (int32_t)number(d, rec, l->pid);
	io->old_dev = number(d, rec, l->old_dev);
	io->old_sector = number(d, rec, l->old_sector);
	io->nr_sector = number(d, rec, l->nr_sector);
	io->op = -1;
	io->flags = 0;
	if (l->rwbs.size)
		op_of(rec, l->rwbs, io);
	return true;
}

void bm_decode(const struct bm_decoder *d, const struct bm_rec *rec, struct bm_event *ev)
{
	const struct layout *l = layout_of(d, rec->type);

	ev->ts = rec->ts;
	ev->cpu = rec->cpu;
	ev->kind = l->kind;
	ev->name = l->name;
	ev->system = l->system;
	ev->pid = (int)number(d, rec, l->pid);
	ev->dev = number(d, rec, l->dev);
	ev->old_dev = number(d, rec, l->old_dev);
	ev->sector = number(d, rec, l->sector);
	ev->old_sector = number(d, rec, l->old_sector);
	ev->nr_sector = number(d, rec, l->nr_sector);
	ev->bytes = number(d, rec, l->bytes);
	ev->error = (int)number(d, rec, l->error);
	ev->rwbs[0] = '\0';
	if (l->rwbs.size && l->rwbs.offset + l->rwbs.size <= rec->size) {
		int n = l->rwbs.size < (int)sizeof(ev->rwbs) - 1 ?
			l->rwbs.size : (int)sizeof(ev->rwbs) - 1;

		memcpy(ev->rwbs, (char *)rec->data + l->rwbs.offset, n);
		ev->rwbs[n] = '\0';
	}
	ev->op = ev->rwbs[0] ? bm_rwbs_op(ev->rwbs, ev->nr_sector) : -1;
	ev->text = NULL;
	ev->text_len = 0;
	memset(&ev->k, 0, sizeof(ev->k));
	memset(&ev->cg, 0, sizeof(ev->cg));
	if (l->kind >= BM_EV_CG_MOVE && l->kind <= BM_EV_EXIT) {
		ev->cg.root = (int)number(d, rec, l->cg_root);
		ev->cg.id = number(d, rec, l->cg_id);
		ev->cg.pid = (int)number(d, rec, l->cg_pid);
		ev->cg.child = (int)number(d, rec, l->cg_child);
		ev->text = string(d, rec, l->text, &ev->text_len);
		return;
	}
	if (l->kind >= BM_EV_K_ADD) {
		if (l->major.size)
			ev->dev = BM_MKDEV((uint32_t)number(d, rec, l->major) & 0xfff,
					   (uint32_t)number(d, rec, l->minor) & 0xfffff);
		ev->k.name = string(d, rec, l->kname, &ev->k.name_len);
		ev->k.disk = string(d, rec, l->kdisk, &ev->k.disk_len);
		ev->k.dm = string(d, rec, l->kdm, &ev->k.dm_len);
		ev->k.file = string(d, rec, l->kfile, &ev->k.file_len);
		/* A dm device created without a UUID has none: no pointer to read. */
		if (!l->kuuidp.size || number(d, rec, l->kuuidp))
			ev->k.uuid = string(d, rec, l->kuuid, &ev->k.uuid_len);
		ev->k.partno = number(d, rec, l->partno) & 0xff;
		ev->k.seq = number(d, rec, l->seq);
		ev->k.op = number(d, rec, l->op);
		ev->k.sectors = number(d, rec, l->sectors);
	}
	if (l->text.size && l->text.offset < rec->size) {
		const char *t = (const char *)rec->data + l->text.offset;
		int max = rec->size - l->text.offset;
		int n = strnlen(t, max);

		if (l->kind == BM_EV_BDI_REGISTER && n > l->text.size)
			n = l->text.size;
		while (n && t[n - 1] == '\n')
			n--;
		ev->text = t;
		ev->text_len = n;
	}
}
