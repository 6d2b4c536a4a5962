// SPDX-License-Identifier: GPL-2.0-only
/* A spool directory into a trace file: a recording cut short, or a dead recorder's. */
#include "blkmap/record/output.h"
#include "blkmap/record/recover.h"
#include "blkmap/record/registry.h"
#include "blkmap/record/spool.h"
#include "blkmap/tracefile/reader.h"
#include "blkmap/util/error.h"

int bm_recover_spool(struct bm_spool *spool, const char *output, uint64_t *bytes)
{
	struct bm_output out;
	struct bm_trace *t;
	int ret;

	if (bm_output_open(&out, output) < 0)
		return -1;
	if (bm_output_exists(&out)) {
		bm_error("'%s' exists; name another file", output);
		bm_output_close(&out);
		return -1;
	}
	t = bm_trace_open_at(spool->fd, spool->path);
	if (!t) {
		bm_output_close(&out);
		return -1;
	}
	/* Beside the spool, renamed at the end: a failure leaves the spool as it was. */
	ret = bm_spool_write_out(spool, bm_trace_get_meta(t), &out, BM_COMPRESS_NONE, bytes);
	bm_trace_close(t);
	bm_output_close(&out);
	if (ret < 0)
		return -1;
	bm_registry_forget_spool(spool->path);
	bm_spool_remove(spool);
	return 0;
}

int bm_recover(const char *spool_dir, const char *output, uint64_t *bytes)
{
	struct bm_spool spool;
	int ret;

	if (bm_spool_open(&spool, spool_dir) < 0)
		return -1;
	ret = bm_recover_spool(&spool, output, bytes);
	if (ret < 0)
		bm_spool_close(&spool);
	return ret;
}
