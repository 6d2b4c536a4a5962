// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kprobe events on the block layer's add and remove paths. Every function
 * is checked in BTF (its parameter is the struct we read) and in kallsyms
 * (it exists out of line, so a probe on it fires); every offset comes from
 * BTF. Removal probes come in pairs, entry and return: the entry names the
 * device, the return is when it is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <tracefs.h>

#include "blkmap/sources/btf.h"
#include "blkmap/sources/kprobes.h"
#include "blkmap/sources/marker.h"
#include "blkmap/sources/session.h"
#include "blkmap/util/error.h"
#include "blkmap/util/kallsyms.h"

#define MAX_PROBES 14

struct probe {
	char event[32];
	char func[64];
	bool ret;
	char fetch[768];
	const char *filter;	/* in the recording's instance only */
	bool optional;		/* the source works without it */
	struct tracefs_dynevent *dyn;
	bool enabled;		/* in the recording's instance */
};

struct bm_kprobes {
	struct bm_session *session;
	char group[32];
	struct probe probes[MAX_PROBES];
	int n;
	bool have_dump;
	char dump_filter[64];
	char hidden_filter[32];
	char summary[512];
	char left_out[256];	/* optional probes that failed, and why */
};

/* How to fetch fields: through BTF-typed arguments or BTF offsets. */
struct fetcher {
	const struct btf *btf;
	bool typed;		/* the kernel takes "param->field" */
	char arg[64];		/* "bdev" or "$arg1" */
};

static bool kernel_has_btf_args(void)
{
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	bool yes = readme && strstr(readme, "<argname>[->field");

	free(readme);
	return yes;
}

struct text_symbol {
	const char *name;
	bool found;
};

static bool find_text_symbol(void *ctx, const struct bm_ksym *sym)
{
	struct text_symbol *t = ctx;

	t->found = (sym->type == 't' || sym->type == 'T') && !strcmp(sym->name, t->name);
	return !t->found;
}

/* Is @func an out-of-line function of the running kernel? */
static bool in_kallsyms(const char *func)
{
	struct text_symbol t = { func, false };

	return bm_kallsyms_scan(find_text_symbol, &t) == 0 && t.found;
}

/*
 * Append " key=EXPR" to @out: @path is a member path of struct @type, and
 * @fmt its fetch type; ":pstring" is a char * member, read as a string.
 */
static int field(struct fetcher *f, char *out, size_t size, const char *key,
		 const char *type, const char *path, const char *fmt)
{
	size_t len = strlen(out);
	long off;

	bool pointer = !strcmp(fmt, ":pstring");

	off = bm_btf_offset(f->btf, type, path);
	if (off < 0)
		return -1;
	if (f->typed)	/* BTF-typed arguments follow a char * by themselves */
		snprintf(out + len, size - len, " %s=%s->%s%s", key, f->arg, path,
			 pointer ? ":string" : fmt);
	else if (pointer)
		snprintf(out + len, size - len, " %s=+0(+%ld(%s)):string", key, off, f->arg);
	else
		snprintf(out + len, size - len, " %s=+%ld(%s)%s", key, off, f->arg, fmt);
	return 0;
}

/* " key=EXPR" for a member of the gendisk that block device @f points to. */
static int disk_field(struct fetcher *f, char *out, size_t size, const char *key,
		      const char *member, const char *fmt)
{
	size_t len = strlen(out);
	long disk = bm_btf_offset(f->btf, "block_device", "bd_disk");
	long off = bm_btf_offset(f->btf, "gendisk", member);

	if (disk < 0 || off < 0)
		return -1;
	if (f->typed)
		snprintf(out + len, size - len, " %s=%s->bd_disk->%s%s", key, f->arg, member, fmt);
	else
		snprintf(out + len, size - len, " %s=+%ld(+%ld(%s))%s", key, off, disk, f->arg, fmt);
	return 0;
}

/* The fields of a struct block_device: name, partition number, disk, diskseq. */
static int bdev_fields(struct fetcher *f, char *out, size_t size, bool with_devt)
{
	bool flags = bm_btf_offset(f->btf, "block_device", "bd_partno") < 0;

	if ((with_devt && field(f, out, size, "devt", "block_device", "bd_dev", ":u32") < 0) ||
	    field(f, out, size, "name", "block_device", "bd_device.kobj.name", ":pstring") < 0 ||
	    /* Since 6.10 the partition number is the low byte of __bd_flags. */
	    field(f, out, size, "partno", "block_device",
		  flags ? "__bd_flags.counter" : "bd_partno", flags ? ":u32" : ":u8") < 0 ||
	    disk_field(f, out, size, "disk", "disk_name", ":string") < 0)
		return -1;
	if (bm_btf_offset(f->btf, "gendisk", "diskseq") >= 0)
		return disk_field(f, out, size, "seq", "diskseq", ":u64");
	return 0;
}

/* Set up @f for parameter @index of @func, a pointer to struct @type. */
static int param(struct fetcher *f, const char *func, int index, const char *type)
{
	char name[64];

	if (bm_btf_param(f->btf, func, index, type, name, sizeof(name)) < 0 || !in_kallsyms(func))
		return -1;
	if (f->typed)
		snprintf(f->arg, sizeof(f->arg), "%s", name);
	else
		snprintf(f->arg, sizeof(f->arg), "$arg%d", index);
	return 0;
}

static struct probe *add_probe(struct bm_kprobes *k, const char *event, const char *func,
			       bool ret);

/*
 * Before 5.12 (5.10) a disk's or partition's struct device is embedded in a
 * struct hd_struct (a disk's is its gendisk's part0), which has no pointer
 * to its disk: a partition's disk is its device's parent, whose name is the
 * disk's. Into @out, for the device that is $arg1 of a function taking a
 * struct device: its type's name, dev_t, name, partition number and disk
 * (@own_disk: a disk's own name). No BTF-typed arguments before 6.5, so
 * offsets only.
 */
static int hd_device_fields(const struct btf *btf, char *out, size_t size, bool own_disk)
{
	long type = bm_btf_offset(btf, "device", "type");
	long type_name = bm_btf_offset(btf, "device_type", "name");
	long devt = bm_btf_offset(btf, "device", "devt");
	long kname = bm_btf_offset(btf, "device", "kobj.name");
	long parent = bm_btf_offset(btf, "device", "parent");
	long embed = bm_btf_offset(btf, "hd_struct", "__dev");
	long partno = bm_btf_offset(btf, "hd_struct", "partno");

	if (type < 0 || type_name < 0 || devt < 0 || kname < 0 || parent < 0 || embed < 0 ||
	    partno < 0)
		return -1;
	snprintf(out, size, "type=+0(+%ld(+%ld($arg1))):string devt=+%ld($arg1):u32 "
		 "name=+0(+%ld($arg1)):string partno=%+ld($arg1):u8 ", type_name, type, devt,
		 kname, partno - embed);
	if (own_disk)
		snprintf(out + strlen(out), size - strlen(out), "disk=+0(+%ld($arg1)):string",
			 kname);
	else
		snprintf(out + strlen(out), size - strlen(out), "disk=+0(+%ld(+%ld($arg1))):string",
			 kname, parent);
	return 0;
}

/* part_del on device_del(), where partitions are struct hd_struct (5.10). */
static int hd_partition_probe(struct bm_kprobes *k, struct fetcher *f)
{
	struct probe *p = add_probe(k, "part_del", "device_del", false);

	if (hd_device_fields(f->btf, p->fetch, sizeof(p->fetch), false) < 0) {
		k->n--;
		return -1;
	}
	p->filter = "type == \"partition\"";
	return 0;
}

/*
 * part_del on device_del(struct device *dev): every field by offset, the
 * block_device ones relative to its embedded bd_device (negative offsets).
 */
static int partition_probe(struct bm_kprobes *k, struct fetcher *f)
{
	long type = bm_btf_offset(f->btf, "device", "type");
	long type_name = bm_btf_offset(f->btf, "device_type", "name");
	long devt = bm_btf_offset(f->btf, "device", "devt");
	long kname = bm_btf_offset(f->btf, "device", "kobj.name");
	long embed = bm_btf_offset(f->btf, "block_device", "bd_device");
	long partno = bm_btf_offset(f->btf, "block_device", "bd_partno");
	long disk = bm_btf_offset(f->btf, "block_device", "bd_disk");
	long disk_name = bm_btf_offset(f->btf, "gendisk", "disk_name");
	long seq = bm_btf_offset(f->btf, "gendisk", "diskseq");
	const char *partno_type = ":u8";
	struct probe *p;

	if (embed < 0)	/* before 5.12 (5.10): the device is in a struct hd_struct */
		return hd_partition_probe(k, f);
	if (partno < 0) {	/* since 6.10: the low byte of __bd_flags */
		partno = bm_btf_offset(f->btf, "block_device", "__bd_flags.counter");
		partno_type = ":u32";
	}
	if (type < 0 || type_name < 0 || devt < 0 || kname < 0 || embed < 0 || partno < 0 ||
	    disk < 0 || disk_name < 0)
		return -1;
	p = add_probe(k, "part_del", "device_del", false);
	snprintf(p->fetch, sizeof(p->fetch),
		 "type=+0(+%ld(+%ld($arg1))):string devt=+%ld($arg1):u32 name=+0(+%ld($arg1)):string "
		 "partno=%+ld($arg1)%s disk=+%ld(%+ld($arg1)):string",
		 type_name, type, devt, kname, partno - embed, partno_type, disk_name, disk - embed);
	if (seq >= 0) {
		size_t len = strlen(p->fetch);

		snprintf(p->fetch + len, sizeof(p->fetch) - len, " seq=+%ld(%+ld($arg1)):u64",
			 seq, disk - embed);
	}
	p->filter = "type == \"partition\"";
	return 0;
}

static struct probe *add_probe(struct bm_kprobes *k, const char *event, const char *func,
			       bool ret)
{
	struct probe *p = &k->probes[k->n++];

	snprintf(p->event, sizeof(p->event), "%s", event);
	snprintf(p->func, sizeof(p->func), "%s", func);
	p->ret = ret;
	p->fetch[0] = '\0';
	p->filter = NULL;
	p->optional = false;
	p->dyn = NULL;
	p->enabled = false;
	return p;
}

/*
 * Into @buf, the fetch args naming the gendisk whose pointer is at offset
 * @at of the probed function's first argument (major, minor, name: what
 * every probe record carries); -1 if vmlinux's BTF lacks a field.
 */
static int disk_fields(const struct btf *vmlinux, long at, char *buf, size_t size)
{
	long major = bm_btf_offset(vmlinux, "gendisk", "major");
	long minor = bm_btf_offset(vmlinux, "gendisk", "first_minor");
	long name = bm_btf_offset(vmlinux, "gendisk", "disk_name");

	if (major < 0 || minor < 0 || name < 0)
		return -1;
	snprintf(buf, size, "major=+%ld(+%ld($arg1)):s32 minor=+%ld(+%ld($arg1)):s32 "
		 "name=+%ld(+%ld($arg1)):string", major, at, minor, at, name, at);
	return 0;
}

/*
 * Device-mapper names, exact: dm-ioctl calls dm_kobject_uevent(md,
 * KOBJ_CHANGE, ...) once a new device is resumed with its name, and right
 * after a rename; the name is in the hash cell behind md->interface_ptr,
 * beside the UUID (LVM's names its volume group and volume: lvm.c). The
 * UUID's pointer is recorded too: a device created without one has NULL
 * there, and a string fetched from NULL is not an empty string on every
 * kernel.
 * Both structs are dm_mod's own, so their offsets come from its BTF, and
 * the probe exists only while dm_mod is loaded: without it, the names come
 * from uevents and sysfs, as windows.
 */
static void dm_name_probe(struct bm_kprobes *k, const struct btf *vmlinux)
{
	struct btf *dm = btf__load_module_btf("dm_mod", (struct btf *)vmlinux);
	long disk, iface, name, uuid;
	char arg[64], gd[160];
	struct probe *p;

	if (!dm)
		return;
	disk = bm_btf_offset(dm, "mapped_device", "disk");
	iface = bm_btf_offset(dm, "mapped_device", "interface_ptr");
	name = bm_btf_offset(dm, "hash_cell", "name");
	uuid = bm_btf_offset(dm, "hash_cell", "uuid");
	if (disk >= 0 && iface >= 0 && name >= 0 && uuid >= 0 &&
	    disk_fields(vmlinux, disk, gd, sizeof(gd)) == 0 &&
	    bm_btf_param(dm, "dm_kobject_uevent", 1, "mapped_device", arg, sizeof(arg)) == 0 &&
	    in_kallsyms("dm_kobject_uevent")) {
		p = add_probe(k, "dm_name", "dm_kobject_uevent", false);
		snprintf(p->fetch, sizeof(p->fetch),
			 "%s action=$arg2:u32 "
			 "dm=+0(+%ld(+%ld($arg1))):string uuidp=+%ld(+%ld($arg1)):x64 "
			 "uuid=+0(+%ld(+%ld($arg1))):string",
			 gd, name, iface, uuid, iface, uuid, iface);
		p->filter = "action == 2";	/* KOBJ_CHANGE */
		p->optional = true;	/* without it, names come from uevents and sysfs */
	}
	btf__free(dm);
}

/*
 * Hidden disks (an NVMe head's paths, nvmeXcYnZ) get no bdev_add(): their
 * add is blk_register_queue(), which device_add_disk() calls for every disk
 * once its number is chosen; the filter keeps the hidden ones (the flag's
 * value from BTF: it moved between kernels). Without the probe, a path's
 * add comes from the other sources.
 */
static void hidden_probe(struct bm_kprobes *k, struct fetcher *f)
{
	long long hidden = bm_btf_enum_value(f->btf, "GENHD_FL_HIDDEN");
	struct probe *p;

	if (hidden <= 0 || hidden > 0xffff || param(f, "blk_register_queue", 1, "gendisk") < 0)
		return;
	p = add_probe(k, "disk_hidden", "blk_register_queue", false);
	if (field(f, p->fetch, sizeof(p->fetch), "major", "gendisk", "major", ":s32") < 0 ||
	    field(f, p->fetch, sizeof(p->fetch), "minor", "gendisk", "first_minor", ":s32") < 0 ||
	    field(f, p->fetch, sizeof(p->fetch), "name", "gendisk", "disk_name", ":string") < 0 ||
	    field(f, p->fetch, sizeof(p->fetch), "flags", "gendisk", "flags", ":u16") < 0) {
		k->n--;
		return;
	}
	if (bm_btf_offset(f->btf, "gendisk", "diskseq") >= 0)
		field(f, p->fetch, sizeof(p->fetch), "seq", "gendisk", "diskseq", ":u64");
	snprintf(k->hidden_filter, sizeof(k->hidden_filter), "flags & %lld", hidden);
	p->filter = k->hidden_filter;
	p->optional = true;
}

/*
 * Loop attachments, exact: a loop device bound to a file gets a new
 * diskseq (disk_force_media_change()), and so does its detach. Both the
 * configure path (LOOP_SET_FD, LOOP_CONFIGURE, LOOP_CHANGE_FD) and
 * LOOP_SET_STATUS, which is where losetup tools that bind with LOOP_SET_FD
 * set the file's name, call __loop_update_dio() once the disk has its new
 * diskseq and lo_file_name its name, before the device is bound: its entry
 * is the attach (or, with the same diskseq, the name of the attachment).
 * LOOP_CHANGE_FD alone leaves lo_file_name as it was (the map names that
 * attachment from sysfs instead).
 * The detach is __loop_clr_fd(): at its entry the attachment's diskseq,
 * at its return the device is unbound, every request of the attachment
 * done. The loop_device struct is the loop module's (its BTF); the probes
 * exist only when the module is loaded (or loop is built in) as recording
 * starts: without them, attachments come from uevents and sysfs.
 */
static void loop_probes(struct bm_kprobes *k, const struct btf *vmlinux)
{
	struct btf *own = btf__load_module_btf("loop", (struct btf *)vmlinux);
	const struct btf *btf = own ? own : vmlinux;
	long disk, file, seq;
	char arg[64], gd[160], fetch[512];
	struct probe *p;

	disk = bm_btf_offset(btf, "loop_device", "lo_disk");
	file = bm_btf_offset(btf, "loop_device", "lo_file_name");
	seq = bm_btf_offset(vmlinux, "gendisk", "diskseq");
	if (disk < 0 || file < 0 || seq < 0 || disk_fields(vmlinux, disk, gd, sizeof(gd)) < 0 ||
	    bm_btf_param(btf, "__loop_update_dio", 1, "loop_device", arg, sizeof(arg)) < 0 ||
	    bm_btf_param(btf, "__loop_clr_fd", 1, "loop_device", arg, sizeof(arg)) < 0 ||
	    !in_kallsyms("__loop_update_dio") || !in_kallsyms("__loop_clr_fd"))
		goto out;
	snprintf(fetch, sizeof(fetch),
		 "%s seq=+%ld(+%ld($arg1)):u64 file=+%ld($arg1):string", gd, seq, disk, file);
	p = add_probe(k, "loop_on", "__loop_update_dio", false);
	snprintf(p->fetch, sizeof(p->fetch), "%s", fetch);
	p->optional = true;
	p = add_probe(k, "loop_off", "__loop_clr_fd", false);
	snprintf(p->fetch, sizeof(p->fetch), "%s", fetch);
	p->optional = true;
	p = add_probe(k, "loop_gone", "__loop_clr_fd", true);
	p->optional = true;
out:
	btf__free(own);
}

/*
 * Loop attachments where the loop driver's probes cannot be had (before
 * 5.15 no diskseq, before 5.11 no BTF of modules: 5.10): the loop driver
 * sets its disk's size through bd_set_nr_sectors(), to the file's when it
 * binds the device (before it serves any request of the attachment) and to
 * 0 when it unbinds it (after every request of the attachment is done).
 * loop_on (sectors > 0) and loop_off (0) there, for loop's own major
 * (LOOP_MAJOR, uapi/linux/major.h); loop_gone at its return. No file name:
 * lo_file_name is in the loop driver's struct, without BTF; the uevent
 * listener and sysfs name the attachment.
 */
static void loop_size_probes(struct bm_kprobes *k, struct fetcher *f)
{
	long disk = bm_btf_offset(f->btf, "block_device", "bd_disk");
	char gd[160], arg[64];
	struct probe *p;
	int i;

	for (i = 0; i < k->n; i++)
		if (!strcmp(k->probes[i].event, "loop_on"))
			return;	/* the loop driver's own probes */
	if (disk < 0 || disk_fields(f->btf, disk, gd, sizeof(gd)) < 0 ||
	    bm_btf_param(f->btf, "bd_set_nr_sectors", 1, "block_device", arg, sizeof(arg)) < 0 ||
	    !in_kallsyms("bd_set_nr_sectors"))
		return;
	p = add_probe(k, "loop_on", "bd_set_nr_sectors", false);
	snprintf(p->fetch, sizeof(p->fetch), "%s sectors=$arg2:u64", gd);
	p->filter = "major == 7 && sectors != 0";
	p->optional = true;
	p = add_probe(k, "loop_off", "bd_set_nr_sectors", false);
	snprintf(p->fetch, sizeof(p->fetch), "%s sectors=$arg2:u64", gd);
	p->filter = "major == 7 && sectors == 0";
	p->optional = true;
	p = add_probe(k, "loop_gone", "bd_set_nr_sectors", true);
	p->optional = true;
}

/*
 * Before bdev_add() (5.12), every disk and partition is added by
 * device_add() of its struct device, once its dev_t is chosen and before
 * any I/O reaches it (a disk's before its partition table is read, a
 * partition's before it is in the disk's table); hidden disks too. Only the
 * block layer has device types named "disk" and "partition": a filter on
 * the type keeps them.
 */
static int hd_add_probes(struct bm_kprobes *k, struct fetcher *f)
{
	struct probe *p;

	if (param(f, "device_add", 1, "device") < 0)
		return -1;
	p = add_probe(k, "disk_add", "device_add", false);
	if (hd_device_fields(f->btf, p->fetch, sizeof(p->fetch), true) < 0) {
		k->n--;
		return -1;
	}
	p->filter = "type == \"disk\"";
	p = add_probe(k, "part_add", "device_add", false);
	hd_device_fields(f->btf, p->fetch, sizeof(p->fetch), false);
	p->filter = "type == \"partition\"";
	return 0;
}

/*
 * The statedump on part_stat_read_all(struct hd_struct *part, ...) (5.10):
 * the device embedded in the hd_struct, reached by a positive offset.
 */
static int hd_dump_fields(const struct btf *btf, char *out, size_t size)
{
	long embed = bm_btf_offset(btf, "hd_struct", "__dev");
	long devt = bm_btf_offset(btf, "device", "devt");
	long kname = bm_btf_offset(btf, "device", "kobj.name");
	long parent = bm_btf_offset(btf, "device", "parent");
	long partno = bm_btf_offset(btf, "hd_struct", "partno");

	if (embed < 0 || devt < 0 || kname < 0 || parent < 0 || partno < 0)
		return -1;
	/* A partition's disk is its parent device (only partitions use it). */
	snprintf(out, size, "devt=+%ld($arg1):u32 name=+0(+%ld($arg1)):string "
		 "partno=+%ld($arg1):u8 disk=+0(+%ld(+%ld($arg1))):string", embed + devt,
		 embed + kname, partno, kname, embed + parent);
	return 0;
}

/* The probe definitions this kernel supports; -1 if it lacks the essential ones. */
static int define(struct bm_kprobes *k, struct fetcher *f)
{
	struct probe *p;
	char devarg[64];

	/* bdev_add(struct block_device *bdev, dev_t dev), 5.12 and later */
	if (param(f, "bdev_add", 1, "block_device") == 0 &&
	    bm_btf_param(f->btf, "bdev_add", 2, NULL, devarg, sizeof(devarg)) == 0) {
		p = add_probe(k, "bdev_add", "bdev_add", false);
		snprintf(p->fetch, sizeof(p->fetch), "devt=%s:u32", f->typed ? devarg : "$arg2");
		if (bdev_fields(f, p->fetch, sizeof(p->fetch), false) < 0)
			goto no_btf;
	} else if (hd_add_probes(k, f) < 0) {
		bm_error("kprobe source: neither bdev_add() (5.12+) nor device_add() with a "
			 "struct hd_struct (5.10) is probeable on this kernel");
		return -1;
	}

	/* del_gendisk(struct gendisk *disk) */
	if (param(f, "del_gendisk", 1, "gendisk") < 0) {
		bm_error("kprobe source: del_gendisk() is not probeable on this kernel");
		return -1;
	}
	p = add_probe(k, "disk_del", "del_gendisk", false);
	if (field(f, p->fetch, sizeof(p->fetch), "major", "gendisk", "major", ":s32") < 0 ||
	    field(f, p->fetch, sizeof(p->fetch), "minor", "gendisk", "first_minor", ":s32") < 0 ||
	    field(f, p->fetch, sizeof(p->fetch), "name", "gendisk", "disk_name", ":string") < 0)
		goto no_btf;
	if (bm_btf_offset(f->btf, "gendisk", "diskseq") >= 0)
		field(f, p->fetch, sizeof(p->fetch), "seq", "gendisk", "diskseq", ":u64");
	add_probe(k, "disk_gone", "del_gendisk", true);
	hidden_probe(k, f);

	/*
	 * Partitions go through device_del() on every kernel, while their own
	 * removal functions (delete_partition, drop_partition) get inlined
	 * into some callers: Debian's 6.12 has drop_partition() out of line,
	 * yet a rescan or a loop detach never calls that copy. So probe
	 * device_del(), keep only partitions (a filter on the device type),
	 * and reach the block_device around the struct device.
	 */
	if (param(f, "device_del", 1, "device") == 0 && partition_probe(k, f) == 0)
		add_probe(k, "part_gone", "device_del", true);
	else
		bm_error("kprobe source: device_del() is not probeable; partition removals "
			 "will come from the other sources");
	/*
	 * part_stat_read_all(struct block_device *part, ...), once per device
	 * in diskstats; before 5.12 it takes a struct hd_struct.
	 */
	if (param(f, "part_stat_read_all", 1, "block_device") == 0 ||
	    param(f, "part_stat_read_all", 1, "hd_struct") == 0) {
		p = add_probe(k, "dump", "part_stat_read_all", false);
		if (bm_btf_param(f->btf, "part_stat_read_all", 1, "hd_struct", devarg,
				 sizeof(devarg)) == 0) {
			if (hd_dump_fields(f->btf, p->fetch, sizeof(p->fetch)) < 0)
				goto no_btf;
		} else if (bdev_fields(f, p->fetch, sizeof(p->fetch), true) < 0) {
			goto no_btf;
		}
		/* part_stat_read_all() also runs for other readers of stats. */
		snprintf(k->dump_filter, sizeof(k->dump_filter), "common_pid == %d", (int)getpid());
		p->filter = k->dump_filter;
		k->have_dump = true;
	}
	dm_name_probe(k, f->btf);
	loop_probes(k, f->btf);
	loop_size_probes(k, f);
	return 0;
no_btf:
	bm_error("kprobe source: this kernel's BTF lacks a block_device or gendisk member "
		 "blkmap reads; not guessing offsets");
	return -1;
}

/*
 * Remove @p from the kernel. A probe enabled anywhere cannot be removed
 * (EBUSY): with @in_instance, it is first disabled in the recording's
 * instance, which is the only one that enabled it.
 */
static void remove_probe(struct bm_kprobes *k, struct probe *p, bool in_instance)
{
	if (!p->dyn)
		return;
	if (p->enabled && in_instance)
		bm_session_disable(k->session, k->group, p->event);
	p->enabled = false;
	if (tracefs_dynevent_destroy(p->dyn, false) < 0)
		bm_error_errno("kprobe source: cannot remove probe %s/%s; remove it with "
			       "'echo -:%s/%s >> %s/kprobe_events'", k->group, p->event, k->group,
			       p->event, tracefs_tracing_dir());
	tracefs_dynevent_free(p->dyn);
	p->dyn = NULL;
}

static void remove_probes(struct bm_kprobes *k, bool in_instance)
{
	int i;

	for (i = k->n - 1; i >= 0; i--)
		remove_probe(k, &k->probes[i], in_instance);
}

/*
 * Failures to inject, for the tests (tests/vm/scenarios/kprobe-faults.sh):
 * BLKMAP_FAULT_KPROBE names a probe whose creation fails as if the kernel
 * refused it.
 */
static bool injected_fault(const struct probe *p)
{
	const char *name = getenv("BLKMAP_FAULT_KPROBE");

	if (!name || strcmp(name, p->event))
		return false;
	errno = EINVAL;
	return true;
}

/* Create @p and enable it in the instance; on failure nothing of it is left. */
static int create(struct bm_kprobes *k, struct probe *p)
{
	char spec[128];
	int saved;

	if (injected_fault(p)) {
		bm_error_errno("kprobe source: cannot create probe %s on %s() (a fault injected "
			       "by BLKMAP_FAULT_KPROBE)", p->event, p->func);
		return -1;
	}
	p->dyn = p->ret ? tracefs_kretprobe_alloc(k->group, p->event, p->func, p->fetch, 0) :
			  tracefs_kprobe_alloc(k->group, p->event, p->func, p->fetch);
	if (!p->dyn || tracefs_dynevent_create(p->dyn) < 0) {
		char *log;

		saved = errno;
		log = tracefs_error_last(NULL);
		errno = saved;
		bm_error_errno("kprobe source: cannot create probe %s on %s()%s%s", p->event,
			       p->func, log ? ": " : "", log ? log : "");
		free(log);
		if (p->dyn)
			tracefs_dynevent_free(p->dyn);
		p->dyn = NULL;
		return -1;
	}
	snprintf(spec, sizeof(spec), "%s:%s", k->group, p->event);
	if (p->filter && tracefs_event_file_write(bm_session_instance(k->session), k->group,
						  p->event, "filter", p->filter) < 0) {
		bm_error_errno("kprobe source: cannot set the filter of %s", p->event);
		remove_probe(k, p, true);
		return -1;
	}
	if (bm_session_enable(k->session, spec) < 0) {
		p->enabled = true;	/* perhaps it was, before what failed: disable it to be sure */
		remove_probe(k, p, true);
		return -1;
	}
	p->enabled = true;
	return 0;
}

/* Is the function of probe @i probed at entry by an earlier one (two filters on it)? */
static bool probed_before(const struct bm_kprobes *k, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (k->probes[j].dyn && !k->probes[j].ret &&
		    !strcmp(k->probes[j].func, k->probes[i].func))
			return true;
	return false;
}

struct bm_kprobes *bm_kprobes_arm(struct bm_session *session)
{
	struct fetcher f = { 0 };
	struct bm_kprobes *k;
	size_t len;
	int i;

	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		bm_error("kprobe source: not available on this kernel (no kprobe_events in "
			 "tracefs: CONFIG_KPROBE_EVENTS is off)");
		return NULL;
	}
	f.btf = bm_btf_load();
	if (!f.btf) {
		bm_error("kprobe source: this kernel has no BTF (/sys/kernel/btf/vmlinux), and "
			 "blkmap does not guess struct offsets");
		return NULL;
	}
	f.typed = kernel_has_btf_args();
	k = calloc(1, sizeof(*k));
	if (!k) {
		bm_btf_free((struct btf *)f.btf);
		return NULL;
	}
	k->session = session;
	snprintf(k->group, sizeof(k->group), "blkmap_%d", (int)getpid());
	if (define(k, &f) < 0)
		goto fail;
	for (i = 0; i < k->n; i++)
		if (create(k, &k->probes[i]) < 0) {
			if (!k->probes[i].optional)
				goto fail;
			/* What it records comes from the other sources. */
			snprintf(k->left_out, sizeof(k->left_out), "; without %s (%s)",
				 k->probes[i].event, bm_error_message());
		}

	len = snprintf(k->summary, sizeof(k->summary), "%s on", f.typed ?
		       "BTF-typed arguments" : "offsets from BTF");
	for (i = 0; i < k->n; i++)
		if (k->probes[i].dyn && !k->probes[i].ret && !probed_before(k, i) &&
		    len < sizeof(k->summary))
			len += snprintf(k->summary + len, sizeof(k->summary) - len, "%s %s()",
					i ? "," : "", k->probes[i].func);
	if (len < sizeof(k->summary))
		snprintf(k->summary + len, sizeof(k->summary) - len, "%s", k->left_out);
	bm_btf_free((struct btf *)f.btf);
	return k;
fail:
	bm_btf_free((struct btf *)f.btf);
	remove_probes(k, true);
	free(k);
	return NULL;
}

int bm_kprobes_dump(struct bm_kprobes *k, unsigned id, const char *reason, bm_mark_fn mark,
		    void *ctx)
{
	char buf[8192];
	unsigned lines = 0;
	ssize_t n, i;
	int fd;

	if (!k->have_dump)
		return 0;
	if (bm_mark_dump_begin(mark, ctx, id, "kprobe", reason) < 0)
		return -1;
	fd = open("/proc/diskstats", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		bm_error_errno("cannot read /proc/diskstats");
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	/* A line a device: the probe must have seen as many, or the dump failed. */
	return bm_mark_dump_end(mark, ctx, id, lines);
}

const char *bm_kprobes_summary(const struct bm_kprobes *k)
{
	return k->summary;
}

void bm_kprobes_remove(struct bm_kprobes *k)
{
	if (!k)
		return;
	remove_probes(k, false);	/* after the instance, which took its events with it */
	free(k);
}
