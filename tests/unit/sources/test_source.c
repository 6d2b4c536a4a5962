// SPDX-License-Identifier: GPL-2.0-only
/* Map sources: record's --sources and the evidence of a boundary, one enum. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmap/sources/source.h"
#include "blkmap/sources/sysfs.h"
#include "blkmap/util/error.h"

#include "helpers.h"

START_TEST(source_lists_parse_into_bits)
{
	unsigned mask;

	ck_assert_int_eq(bm_source_parse("sysfs,uevent", &mask), 0);
	ck_assert_uint_eq(mask, BM_SRC_SYSFS | BM_SRC_UEVENT);
	ck_assert_int_eq(bm_source_parse("all", &mask), 1);	/* "all" said so */
	ck_assert_uint_eq(mask, BM_SRC_ALL);
	/* Every source named is not "all": each must then be had. */
	ck_assert_int_eq(bm_source_parse("module,kprobe,tracepoint,uevent,sysfs", &mask), 0);
	ck_assert_uint_eq(mask, BM_SRC_ALL);
	ck_assert(!(BM_SRC_ALL & BM_SRC_INFERENCE));
}
END_TEST

START_TEST(inference_is_evidence_not_a_source)
{
	unsigned mask = 0;

	errno = 0;
	ck_assert_int_eq(bm_source_parse("kprobe,inferred", &mask), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(strstr(bm_error_message(), "'inferred'"));
	ck_assert_int_eq(bm_source_parse("sysfs,", &mask), 0);
	ck_assert_int_eq(bm_source_parse("disk", &mask), -1);
}
END_TEST

START_TEST(source_names_come_most_precise_first)
{
	char buf[64];

	ck_assert_str_eq(bm_sources_str(BM_SRC_SYSFS | BM_SRC_INFERENCE | BM_SRC_KPROBE, '+',
					buf, sizeof(buf)), "kprobe+sysfs+inferred");
	ck_assert_str_eq(bm_sources_str(BM_SRC_ALL, ',', buf, sizeof(buf)),
			 "module,kprobe,tracepoint,uevent,sysfs");
	ck_assert_str_eq(bm_sources_str(0, '+', buf, sizeof(buf)), "");
	/* Cut, never overrun. */
	ck_assert_str_eq(bm_sources_str(BM_SRC_ALL, ',', buf, 10), "module,kp");
}
END_TEST

/* A fake sysfs directory of a disk: @files are "path", "content" pairs (@sizes bytes). */
static void fake_disk(char *dir, size_t size, const char *const *files, const size_t *sizes,
		      int n)
{
	char path[512];
	FILE *f;
	int i;

	snprintf(dir, size, "%s/blkmap-sysfs-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/device", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[2 * i]);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(files[2 * i + 1], 1, sizes[i], f), sizes[i]);
		fclose(f);
	}
}

static void remove_disk(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * A disk's identity: virtio's serial, NVMe's padded one, SCSI's VPD page
 * 0x80 (its header skipped, its padding and bytes past its length not),
 * the WWID when there is no serial, nothing for a loop device.
 */
START_TEST(a_disks_serial_is_read_as_its_bus_reports_it)
{
	static const char vpd[] = "\0\x80\0\x06  s1  junk";
	static const struct {
		const char *files[4];
		size_t sizes[2];
		int n;
		const char *want;
	} disks[] = {
		{ { "serial", "virtio-one\n" }, { 11 }, 1, "virtio-one" },
		{ { "device/serial", "nvme-two            \n" }, { 21 }, 1, "nvme-two" },
		{ { "device/vpd_pg80", vpd, "device/wwid", "t10.QEMU s1\n" }, { sizeof(vpd) - 1, 12 }, 2, "s1" },
		{ { "wwid", "eui.0025388b71b1a0f1\n" }, { 21 }, 1, "eui.0025388b71b1a0f1" },
		{ { "size", "2048\n" }, { 5 }, 1, "" },
	};
	char dir[256], serial[64];
	size_t i;

	for (i = 0; i < sizeof(disks) / sizeof(disks[0]); i++) {
		fake_disk(dir, sizeof(dir), disks[i].files, disks[i].sizes, disks[i].n);
		bm_sysfs_serial(dir, serial, sizeof(serial));
		ck_assert_str_eq(serial, disks[i].want);
		remove_disk(dir);
	}
}
END_TEST

/*
 * The labels beside a name: an NVMe namespace's WWID, model and firmware
 * (its controller's, under device/), trimmed; a loop device's backing file
 * kept only while the disk still has the diskseq the caller names (another
 * means another attachment's file); a dm device's UUID.
 */
START_TEST(labels_are_read_and_a_backing_file_only_for_its_diskseq)
{
	static const char *const nvme[] = {
		"wwid", "eui.0025388b71b1a0f1\n", "device/model", "Samsung SSD 980          \n",
		"device/firmware_rev", "3B4QFXO7\n",
	};
	static const size_t nvme_sizes[] = { 21, 26, 9 };
	static const char *const loop[] = { "diskseq", "52\n", "size", "32768\n" };
	static const size_t loop_sizes[] = { 3, 6 };
	struct bm_blockdev d;
	char dir[256], path[512];
	FILE *f;

	fake_disk(dir, sizeof(dir), nvme, nvme_sizes, 3);
	memset(&d, 0, sizeof(d));
	bm_sysfs_labels(dir, false, 0, &d);
	ck_assert_str_eq(d.wwid, "eui.0025388b71b1a0f1");
	ck_assert_str_eq(d.model, "Samsung SSD 980");
	ck_assert_str_eq(d.firmware, "3B4QFXO7");
	ck_assert_str_eq(d.backing, "");
	remove_disk(dir);

	fake_disk(dir, sizeof(dir), loop, loop_sizes, 2);
	snprintf(path, sizeof(path), "%s/loop", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/loop/backing_file", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("/var/lib/snapd/snaps/core22_1380.snap\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/dm", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/dm/uuid", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("LVM-x\n", f);
	fclose(f);
	memset(&d, 0, sizeof(d));
	bm_sysfs_labels(dir, false, 52, &d);
	ck_assert_str_eq(d.backing, "/var/lib/snapd/snaps/core22_1380.snap");
	ck_assert_str_eq(d.dm_uuid, "LVM-x");
	memset(&d, 0, sizeof(d));
	bm_sysfs_labels(dir, false, 51, &d);
	ck_assert_str_eq(d.backing, "");
	memset(&d, 0, sizeof(d));
	bm_sysfs_labels(dir, true, 52, &d);	/* a partition has none of its own */
	ck_assert_str_eq(d.backing, "");
	remove_disk(dir);
}
END_TEST

Suite *suite_source(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("source");

	tcase_add_test(tc, source_lists_parse_into_bits);
	tcase_add_test(tc, inference_is_evidence_not_a_source);
	tcase_add_test(tc, source_names_come_most_precise_first);
	tcase_add_test(tc, a_disks_serial_is_read_as_its_bus_reports_it);
	tcase_add_test(tc, labels_are_read_and_a_backing_file_only_for_its_diskseq);
	suite_add_tcase(s, tc);
	return s;
}
