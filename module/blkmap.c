// SPDX-License-Identifier: GPL-2.0-only
/*
 * blkmap: a statedump of every disk and partition, and their adds and
 * removals, as the synthetic event "blkmap_dev" in the tracefs instance of
 * a blkmap recording, on its ring buffer's clock.
 *
 * Control: /sys/kernel/blkmap/control takes
 *	attach INSTANCE	record into INSTANCE: dump every device, then
 *			report every add and removal (one instance at a time)
 *	dump		dump every device again
 *	detach		stop; the instance can then be removed
 * /sys/kernel/blkmap/attached reads the attached instance's name.
 *
 * The block class and the disk device type are not exported: they are read
 * from a disk that is allocated and freed at load (no dev_t, no sysfs entry,
 * no uevent). The module only reads kernel state.
 *
 * The synthetic event belongs to the module, so the module cannot be
 * unloaded while a recording has it enabled; it unloads once the recording
 * lets go. That is on purpose: deleting the event (at unload) makes the
 * kernel clear the buffers of every instance the event was ever enabled in,
 * which would drop what a recording had not read yet. Those instances only:
 * measured in Debian's 6.1 and 6.12, an instance that never enabled it
 * keeps its data (tests/vm/scenarios/module-detach.sh).
 *
 * Detaching (or unloading) unregisters the class interface, which calls
 * remove_dev for every device present: those calls are not removals and
 * write nothing.
 *
 * A device-mapper device's record carries its dm name and UUID (LVM's name
 * the volume group and volume) as dm-ioctl has them then: at the add (the
 * first table load, after the create that named it) and in a statedump.
 * They are read through dm_mod's exports, taken with symbol_get() while
 * dm_mod is loaded, so the module does not load dm_mod itself. A rename
 * later is not seen here (the kprobe source sees it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/device-mapper.h>
#include <linux/dm-ioctl.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/trace_events.h>
#include <linux/version.h>

#define EVENT_NAME "blkmap_dev"

enum blkmap_op {
	OP_DUMP = 0,		/* present, seen by a statedump */
	OP_ADD = 1,
	OP_REMOVE = 2,
	OP_DUMP_BEGIN = 3,
	OP_DUMP_END = 4,	/* sectors: how many devices the dump listed */
};

static struct synth_field_desc fields[] = {
	{ .type = "u32", .name = "op" },
	{ .type = "u32", .name = "dev" },		/* dev_t, kernel encoding */
	{ .type = "char[32]", .name = "name" },
	{ .type = "u32", .name = "partno" },
	{ .type = "char[32]", .name = "disk" },
	{ .type = "u64", .name = "diskseq" },
	{ .type = "u64", .name = "sectors" },
	{ .type = "char[128]", .name = "dm" },		/* DM_NAME_LEN */
	{ .type = "char[132]", .name = "uuid" },	/* DM_UUID_LEN, rounded up */
};

/* Struct class became const in the driver core's interfaces in 6.4. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
static const struct class *block_class_p;
#else
static struct class *block_class_p;
#endif
static const struct device_type *disk_type_p;
static struct kobject *blkmap_kobj;

static DEFINE_MUTEX(lock);		/* attach state */
static struct trace_event_file *event_file;
static char attached[64];
/*
 * The task registering or unregistering the class interface: the callbacks
 * it gets are the walk over the devices present (a statedump on register,
 * nothing on unregister), not devices coming or going. Another task's
 * callbacks meanwhile are real adds and removals.
 */
static struct task_struct *walker;
static u64 walked;			/* devices the walk listed */

static u32 partno_of(struct block_device *bdev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return bdev_partno(bdev);
#else
	return bdev->bd_partno;
#endif
}

/* A dump's begin or end; @count: the devices it listed, at the end. */
static void emit_mark(enum blkmap_op op, u64 count)
{
	static const char none[32];

	synth_event_trace(event_file, ARRAY_SIZE(fields), (u64)op, 0ULL, (u64)(long)none, 0ULL,
			  (u64)(long)none, 0ULL, count, (u64)(long)none, (u64)(long)none);
}

/*
 * The dm name and UUID of disk @devt into @name and @uuid, if it is a
 * device-mapper device that dm-ioctl knows (both "" otherwise).
 */
static void dm_names(dev_t devt, char *name, char *uuid)
{
	struct mapped_device *(*get_md)(dev_t dev) = symbol_get(dm_get_md);
	int (*copy)(struct mapped_device *md, char *name, char *uuid) =
		symbol_get(dm_copy_name_and_uuid);
	void (*put)(struct mapped_device *md) = symbol_get(dm_put);
	struct mapped_device *md;

	name[0] = uuid[0] = '\0';
	if (get_md && copy && put && devt) {
		md = get_md(devt);	/* NULL if not dm's */
		if (md) {
			if (copy(md, name, uuid))
				name[0] = uuid[0] = '\0';
			put(md);
		}
	}
	if (get_md)
		symbol_put(dm_get_md);
	if (copy)
		symbol_put(dm_copy_name_and_uuid);
	if (put)
		symbol_put(dm_put);
}

/*
 * The number a device's I/O carries. A hidden disk (an NVMe head's path)
 * has no devt, yet its I/O carries its bdev's number, which device_add_disk()
 * gives it only after the device is added (the class interface's add_dev);
 * by then the gendisk holds it already. Other devices are added with their
 * devt, before their bdev has one.
 */
static dev_t dev_of(struct device *dev, struct block_device *bdev)
{
	if (dev->devt)
		return dev->devt;
	if (bdev->bd_dev || dev->type != disk_type_p)
		return bdev->bd_dev;
	return MKDEV(bdev->bd_disk->major, bdev->bd_disk->first_minor);
}

static void emit(enum blkmap_op op, struct device *dev)
{
	char dm[DM_NAME_LEN], uuid[DM_UUID_LEN];
	struct block_device *bdev;
	struct gendisk *disk;

	bdev = dev_to_bdev(dev);
	disk = bdev->bd_disk;
	if (op != OP_REMOVE && dev->type == disk_type_p)
		dm_names(dev->devt, dm, uuid);
	else
		dm[0] = uuid[0] = '\0';
	synth_event_trace(event_file, ARRAY_SIZE(fields), (u64)op, (u64)dev_of(dev, bdev),
			  (u64)(long)dev_name(dev),
			  (u64)(dev->type == disk_type_p ? 0 : partno_of(bdev)),
			  (u64)(long)disk->disk_name, (u64)disk->diskseq,
			  (u64)bdev_nr_sectors(bdev), (u64)(long)dm, (u64)(long)uuid);
}

/* Class interface callbacks: under the class's lock, in process context. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static int add_dev(struct device *dev)
#else
static int add_dev(struct device *dev, struct class_interface *intf)
#endif
{
	if (current == READ_ONCE(walker)) {
		emit(OP_DUMP, dev);
		walked++;
	} else {
		emit(OP_ADD, dev);
	}
	return 0;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static void remove_dev(struct device *dev)
#else
static void remove_dev(struct device *dev, struct class_interface *intf)
#endif
{
	if (current != READ_ONCE(walker))
		emit(OP_REMOVE, dev);
}

static struct class_interface interface = {
	.add_dev = add_dev,
	.remove_dev = remove_dev,
};

static void dump(void)
{
	struct class_dev_iter iter;
	struct device *dev;
	u64 n = 0;

	emit_mark(OP_DUMP_BEGIN, 0);
	class_dev_iter_init(&iter, block_class_p, NULL, NULL);
	while ((dev = class_dev_iter_next(&iter))) {
		emit(OP_DUMP, dev);
		n++;
	}
	class_dev_iter_exit(&iter);
	emit_mark(OP_DUMP_END, n);
}

static void detach(void)
{
	if (!event_file)
		return;
	WRITE_ONCE(walker, current);
	class_interface_unregister(&interface);
	WRITE_ONCE(walker, NULL);
	trace_array_set_clr_event(event_file->tr, "synthetic", EVENT_NAME, false);
	trace_put_event_file(event_file);
	event_file = NULL;
	attached[0] = '\0';
}

static int attach(const char *instance)
{
	struct trace_event_file *file;
	int ret;

	if (event_file)
		return -EBUSY;
	if (!instance[0] || strlen(instance) >= sizeof(attached))
		return -EINVAL;
	file = trace_get_event_file(instance, "synthetic", EVENT_NAME);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = trace_array_set_clr_event(file->tr, "synthetic", EVENT_NAME, true);
	if (ret) {
		trace_put_event_file(file);
		return ret;
	}
	event_file = file;
	strscpy(attached, instance, sizeof(attached));

	/* Registering calls add_dev for every device present: a statedump. */
	emit_mark(OP_DUMP_BEGIN, 0);
	walked = 0;
	WRITE_ONCE(walker, current);
	ret = class_interface_register(&interface);
	WRITE_ONCE(walker, NULL);
	emit_mark(OP_DUMP_END, walked);
	if (ret) {
		trace_array_set_clr_event(file->tr, "synthetic", EVENT_NAME, false);
		trace_put_event_file(file);
		event_file = NULL;
		attached[0] = '\0';
	}
	return ret;
}

static ssize_t control_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	char cmd[96];
	int ret = 0;

	if (count >= sizeof(cmd))
		return -EINVAL;
	memcpy(cmd, buf, count);
	cmd[count] = '\0';
	strim(cmd);

	mutex_lock(&lock);
	if (!strncmp(cmd, "attach ", 7))
		ret = attach(strim(cmd + 7));
	else if (!strcmp(cmd, "dump"))
		ret = event_file ? (dump(), 0) : -ENOTCONN;
	else if (!strcmp(cmd, "detach"))
		detach();
	else
		ret = -EINVAL;
	mutex_unlock(&lock);
	return ret ? ret : count;
}

static ssize_t attached_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t n;

	mutex_lock(&lock);
	n = sysfs_emit(buf, "%s\n", attached);
	mutex_unlock(&lock);
	return n;
}

static struct kobj_attribute control_attr = __ATTR_WO(control);
static struct kobj_attribute attached_attr = __ATTR_RO(attached);

static struct attribute *attrs[] = {
	&control_attr.attr,
	&attached_attr.attr,
	NULL,
};

static const struct attribute_group group = {
	.attrs = attrs,
};

/* The block class and disk type, from a disk that never goes live. */
static int find_block_class(void)
{
	struct gendisk *disk;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	disk = blk_alloc_disk(NULL, NUMA_NO_NODE);
#else
	disk = blk_alloc_disk(NUMA_NO_NODE);
#endif
	if (IS_ERR_OR_NULL(disk))
		return disk ? PTR_ERR(disk) : -ENOMEM;
	block_class_p = disk_to_dev(disk)->class;
	disk_type_p = disk_to_dev(disk)->type;
	put_disk(disk);
	return block_class_p && disk_type_p ? 0 : -ENODEV;
}

static int __init blkmap_init(void)
{
	int ret;

	ret = find_block_class();
	if (ret) {
		pr_err("cannot find the block class (%d)\n", ret);
		return ret;
	}
	interface.class = block_class_p;
	ret = synth_event_create(EVENT_NAME, fields, ARRAY_SIZE(fields), THIS_MODULE);
	if (ret) {
		pr_err("cannot create synthetic event " EVENT_NAME " (%d)\n", ret);
		return ret;
	}
	blkmap_kobj = kobject_create_and_add("blkmap", kernel_kobj);
	if (!blkmap_kobj) {
		ret = -ENOMEM;
		goto out_event;
	}
	ret = sysfs_create_group(blkmap_kobj, &group);
	if (ret)
		goto out_kobj;
	return 0;

out_kobj:
	kobject_put(blkmap_kobj);
out_event:
	synth_event_delete(EVENT_NAME);
	return ret;
}

static void __exit blkmap_exit(void)
{
	int ret;

	sysfs_remove_group(blkmap_kobj, &group);
	kobject_put(blkmap_kobj);
	mutex_lock(&lock);
	detach();
	mutex_unlock(&lock);
	/* Clears the buffers of the instances the event was ever enabled in. */
	ret = synth_event_delete(EVENT_NAME);
	if (ret)
		pr_err("cannot delete synthetic event " EVENT_NAME " (%d): it stays defined "
		       "until reboot, and the module cannot be loaded again before\n", ret);
}

module_init(blkmap_init);
module_exit(blkmap_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Block device statedump and hotplug events for blkmap recordings");
