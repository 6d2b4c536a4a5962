// SPDX-License-Identifier: GPL-2.0-only
/* --slowest: the slowest I/Os, a row each, with what was in flight at their issue. */
#include <inttypes.h>
#include <stdlib.h>

#include <event-parse.h>

#include "blkmap/map/map.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"

static const char *op_name(int op)
{
	return op == BM_READ ? "read" : op == BM_WRITE ? "write" : "discard";
}

static const char *comm_of(struct tep_handle *tep, int pid)
{
	return pid ? tep_data_comm_from_pid(tep, pid) : "<idle>";
}

/* A phase from @from to @to, in us; null (CSV, JSON) or "-" (text) when a stamp is missing. */
static void phase(struct bm_row *row, FILE *out, const char *key, bool has, uint64_t from,
		  uint64_t to)
{
	bool ok = has && to >= from;

	if (row && ok)
		bm_row_num(row, key, (to - from) / 1e3);
	else if (!row && ok)
		fprintf(out, " %10.1f", (to - from) / 1e3);
	else if (!row)
		fprintf(out, " %10s", "-");
}

/* Who queued the requests in flight at its issue, most first: "fio(812):14;kworker/u4:2(61):3". */
static const char *inflight_by(const struct bm_slow_row *r, struct tep_handle *tep, char *buf,
			       size_t size)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < BM_BY_SHOWN && r->by[i].n && len < size; i++) {
		if (r->by[i].pid == BM_BY_OTHERS)
			len += snprintf(buf + len, size - len, "%sothers:%u", i ? ";" : "",
					r->by[i].n);
		else
			len += snprintf(buf + len, size - len, "%s%s(%d):%u", i ? ";" : "",
					comm_of(tep, r->by[i].pid), r->by[i].pid, r->by[i].n);
	}
	return buf;
}

static void slow_row(struct bm_row *row, const struct bm_slow_row *r, struct tep_handle *tep)
{
	char dev[16], by[256];

	bm_row_u64(row, "ts_ns", r->c);
	bm_row_span(row, r->disk->span, r->disk->dev);
	bm_row_str(row, "op", op_name(r->op));
	bm_row_u64(row, "sector", r->sector);
	bm_row_u64(row, "bytes", (uint64_t)r->sectors * 512);
	bm_row_int(row, "pid", r->pid);
	bm_row_str(row, "comm", comm_of(tep, r->pid));
	phase(row, NULL, "q2c_us", r->has_q, r->q, r->c);
	phase(row, NULL, "d2c_us", r->has_d, r->d, r->c);
	phase(row, NULL, "q2g_us", r->has_q && r->has_g, r->q, r->g);
	phase(row, NULL, "g2i_us", r->has_g && r->has_i, r->g, r->i);
	phase(row, NULL, "i2d_us", r->has_i && r->has_d, r->i, r->d);
	if (r->has_d) {
		bm_row_u64(row, "inflight", r->inflight);
		bm_row_u64(row, "inflight_bytes", r->inflight_sectors * 512);
		if (r->by[0].n)
			bm_row_str(row, "inflight_by", inflight_by(r, tep, by, sizeof(by)));
	}
	if (r->has_d && r->behind != UINT32_MAX)
		bm_row_u64(row, "queued_behind", r->behind);
	if (r->top) {
		bm_row_str(row, "top_device", r->top->span ? r->top->span->name :
			   bm_dev_str(r->top->dev, dev, sizeof(dev)));
	}
	bm_row_end(row);
}

static void slow_text(FILE *out, const struct bm_slow_row *r, struct tep_handle *tep)
{
	char by[256];

	fprintf(out, "%18" PRIu64 " %-10s %-5s %12" PRIu64 " %8" PRIu64 " %7d %-16s", r->c,
		r->disk->span ? r->disk->span->name : "?", op_name(r->op), r->sector,
		(uint64_t)r->sectors / 2, r->pid, comm_of(tep, r->pid));
	phase(NULL, out, "", r->has_q, r->q, r->c);
	phase(NULL, out, "", r->has_d, r->d, r->c);
	if (r->has_d)
		fprintf(out, " %8u %10.1f", r->inflight, r->inflight_sectors / 2.0);
	else
		fprintf(out, " %8s %10s", "-", "-");
	if (r->has_d && r->behind != UINT32_MAX)
		fprintf(out, " %8u", r->behind);
	else
		fprintf(out, " %8s", "-");
	fprintf(out, " %s%s%s\n", r->has_d && r->by[0].n ? inflight_by(r, tep, by, sizeof(by)) : "-",
		r->top ? " via " : "", r->top ? (r->top->span ? r->top->span->name : "?") : "");
}

int bm_view_slowest(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header, struct tep_handle *tep)
{
	const struct bm_slow_row *rows;
	size_t i, n = bm_analysis_slowest_rows(a, &rows);
	struct bm_row *row = NULL;

	if (format != BM_FORMAT_TEXT) {
		if (!(row = malloc(sizeof(*row))))
			return -1;
		bm_row_start(row, out, format, bm_schema_find("slowest"));
		if (format == BM_FORMAT_CSV && header)
			bm_schema_csv_header(out, row->schema);
	} else {
		fprintf(out, "%18s %-10s %-5s %12s %8s %7s %-16s %10s %10s %8s %10s %8s %s\n", "TS_NS",
			"NAME", "OP", "SECTOR", "KB", "PID", "COMM", "Q2C_US", "D2C_US",
			"INFLIGHT", "INFL_KB", "BEHIND", "INFLIGHT_BY");
	}
	for (i = 0; i < n; i++) {
		if (row)
			slow_row(row, &rows[i], tep);
		else
			slow_text(out, &rows[i], tep);
	}
	free(row);
	return 0;
}
