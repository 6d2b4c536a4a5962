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
	ck_assert_int_eq(bm_source_parse("all", &mask), 0);
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

Suite *suite_source(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("source");

	tcase_add_test(tc, source_lists_parse_into_bits);
	tcase_add_test(tc, inference_is_evidence_not_a_source);
	tcase_add_test(tc, source_names_come_most_precise_first);
	tcase_add_test(tc, a_disks_serial_is_read_as_its_bus_reports_it);
	suite_add_tcase(s, tc);
	return s;
}
