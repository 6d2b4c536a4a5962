// SPDX-License-Identifier: GPL-2.0-only
/* A spool directory into a trace file: a recording cut short, or a dead recorder's. */
#include "blkmap/record/recover.h"
#include "blkmap/record/registry.h"
#include "blkmap/record/spool.h"
#include "blkmap/tracefile/reader.h"

int bm_recover(const char *spool_dir, const char *output, uint64_t *bytes)
{
	struct bm_trace *t = bm_trace_open(spool_dir);
	int ret;

	if (!t)
		return -1;
	ret = bm_spool_write_out(spool_dir, bm_trace_get_meta(t), output, BM_COMPRESS_NONE, bytes);
	bm_trace_close(t);
	if (ret < 0)
		return -1;
	bm_registry_forget_spool(spool_dir);
	bm_spool_remove(spool_dir);
	return 0;
}
