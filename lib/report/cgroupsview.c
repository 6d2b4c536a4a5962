// SPDX-License-Identifier: GPL-2.0-only
/*
 * --cgroups: which cgroup did each incarnation's I/O, from the analysis'
 * rows (analyse/cgroups.c); how a cgroup is shown, and --cgroup=PATH.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/map/map.h"
#include "blkmap/report/cgroupsview.h"
#include "blkmap/report/schema.h"
#include "blkmap/report/summaries.h"

/* Container ids are 64 hex digits, pod UIDs 32 with - or _ between: cut at 12. */
#define ID_MIN		32
#define ID_SHOWN	12

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* How long the id at @p is (hex digits, and - or _ in a pod's UID); 0 if it is not one. */
static size_t id_len(const char *p, bool pod)
{
	size_t n = 0, digits = 0;

	if (!is_hex(p[0]))
		return 0;
	for (; p[n]; n++) {
		bool hex = is_hex(p[n]);

		if (!hex && !(pod && (p[n] == '-' || p[n] == '_')))
			break;
		digits += hex;
	}
	return digits >= ID_MIN ? n : 0;
}

const char *bm_cgroup_shown(const char *path, char *buf, size_t size)
{
	size_t i = 0, len = 0;

	if (!size)
		return buf;
	while (path[i] && len + 1 < size) {
		/* "pod" as a word of its own: kubepods-besteffort-podUID, /podUID */
		bool pod = i >= 4 && !strncmp(path + i - 3, "pod", 3) &&
			   (path[i - 4] == '/' || path[i - 4] == '-');
		bool start = !i || path[i - 1] == '/' || path[i - 1] == '-' || pod;
		size_t n = start ? id_len(path + i, pod) : 0;

		if (n) {
			size_t keep = ID_SHOWN < size - 1 - len ? ID_SHOWN : size - 1 - len;

			memcpy(buf + len, path + i, keep);
			len += keep;
			i += n;
			continue;
		}
		buf[len++] = path[i++];
	}
	buf[len] = '\0';
	return buf;
}

/* Is @path @want, or below it (@want "/" holds every path)? */
static bool below(const char *want, size_t n, const char *path)
{
	while (n > 1 && want[n - 1] == '/')
		n--;
	if (n == 1 && want[0] == '/')
		return true;
	return !strncmp(path, want, n) && (!path[n] || path[n] == '/');
}

bool bm_cgroup_wanted(const char *want, const struct bm_cgroup *cg)
{
	const char *hash;
	char shown[4096];
	size_t n;

	if (!want)
		return true;
	if (!cg)
		return false;
	bm_cgroup_shown(cg->path, shown, sizeof(shown));
	hash = strrchr(want, '#');
	if (hash && hash[1]) {
		char *end;
		unsigned long nth = strtoul(hash + 1, &end, 10);

		n = hash - want;
		return !*end && nth == cg->incarnation &&
		       ((strlen(cg->path) == n && !strncmp(cg->path, want, n)) ||
			(strlen(shown) == n && !strncmp(shown, want, n)));
	}
	n = strlen(want);
	return below(want, n, cg->path) || below(want, n, shown);
}

static const char *basis_name(enum bm_cgroup_basis basis)
{
	switch (basis) {
	case BM_CG_EXACT:
		return "task";
	case BM_CG_WRITEBACK:
		return "writeback";
	case BM_CG_BOTH:
		return "task+writeback";
	case BM_CG_GUESS:
		return "guess";
	default:
		return "unknown";
	}
}

const char *bm_cgroup_key(const struct bm_cgroup *cg, char *buf, size_t size)
{
	char shown[4000];

	if (!cg)
		return "?";
	snprintf(buf, size, "%s#%u", bm_cgroup_shown(cg->path, shown, sizeof(shown)),
		 cg->incarnation);
	return buf;
}

void bm_row_cgroup(struct bm_row *r, const struct bm_cgroup *cg, enum bm_cgroup_basis basis)
{
	char buf[4096];

	if (cg && basis != BM_CG_UNKNOWN) {
		bm_row_str(r, "cgroup", bm_cgroup_shown(cg->path, buf, sizeof(buf)));
		bm_row_str(r, "cgroup_incarnation", bm_cgroup_key(cg, buf, sizeof(buf)));
	}
	bm_row_str(r, "cgroup_basis", basis_name(basis));
}

static const struct bm_cgroup *known(const struct bm_cgroup_row *c)
{
	return c->cgroup.id ? &c->cgroup : NULL;
}

/* A latency's count, mean and 99th percentile in us (null without any). */
static void latency_keys(struct bm_row *r, const char *which, const struct bm_hist *h)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_count", which);
	bm_row_u64(r, key, h->count);
	if (!h->count)
		return;
	snprintf(key, sizeof(key), "%s_avg_us", which);
	bm_row_num(r, key, (double)h->sum / h->count / 1e3);
	snprintf(key, sizeof(key), "%s_p99_us", which);
	bm_row_num(r, key, bm_hist_percentile(h, 99) / 1e3);
}

static void cgroup_row(struct bm_row *r, const struct bm_cgroup_row *c, uint64_t since,
		       uint64_t until)
{
	bm_row_cgroup(r, known(c), c->basis);
	if (c->disk->span && c->disk->span->dm[0])
		bm_row_str(r, "dm", c->disk->span->dm);
	bm_row_span(r, c->disk->span, c->disk->dev);
	bm_row_u64(r, "reads", c->reads);
	bm_row_u64(r, "writes", c->writes);
	bm_row_u64(r, "read_bytes", c->read_bytes);
	bm_row_u64(r, "write_bytes", c->write_bytes);
	latency_keys(r, "q2c", &c->q2c);
	latency_keys(r, "d2c", &c->d2c);
	bm_row_u64(r, "since_ns", since);
	bm_row_u64(r, "until_ns", until);
	bm_row_end(r);
}

/* A latency in text: mean and 99th percentile in us, "-" without any. */
static void latency_text(FILE *out, const struct bm_hist *h)
{
	if (!h->count)
		fprintf(out, " %10s %10s", "-", "-");
	else
		fprintf(out, " %10.1f %10.1f", (double)h->sum / h->count / 1e3,
			bm_hist_percentile(h, 99) / 1e3);
}

static int widen(int width, const char *text)
{
	int n = (int)strlen(text);

	return n > width ? n : width;
}

int bm_view_cgroups(FILE *out, enum bm_output_format format, const struct bm_analysis *a,
		    bool header, const char *want, uint64_t since, uint64_t until)
{
	const struct bm_cgroup_row *rows;
	size_t i, n = bm_analysis_cgroup_rows(a, &rows);
	int name = 8, key = 10, cg = 12;
	struct bm_row *row = NULL;
	char buf[4096];

	if (format != BM_FORMAT_TEXT) {
		row = malloc(sizeof(*row));
		if (!row)
			return -1;
		bm_row_start(row, out, format, bm_schema_find("cgroups"));
		if (format == BM_FORMAT_CSV && header)
			bm_schema_csv_header(out, row->schema);
	}
	for (i = 0; !row && i < n; i++) {
		if (!bm_cgroup_wanted(want, known(&rows[i])))
			continue;
		name = widen(name, rows[i].disk->span ? rows[i].disk->span->name : "?");
		key = widen(key, rows[i].disk->span ?
				 bm_span_key(rows[i].disk->span, buf, sizeof(buf)) : "?");
		cg = widen(cg, bm_cgroup_key(known(&rows[i]), buf, sizeof(buf)));
	}
	if (!row)
		fprintf(out, "%-*s %-*s %-*s %-14s %8s %8s %10s %10s %10s %10s %10s %10s\n", name,
			"NAME", key, "DEV#N", cg, "CGROUP#N", "BASIS", "R_BIOS", "W_BIOS",
			"READ_KB", "WRITE_KB", "Q2C_AVG_US", "Q2C_P99_US", "D2C_AVG_US",
			"D2C_P99_US");
	for (i = 0; i < n; i++) {
		const struct bm_cgroup_row *c = &rows[i];

		if (!bm_cgroup_wanted(want, known(c)))
			continue;
		if (row) {
			cgroup_row(row, c, since, until);
			continue;
		}
		fprintf(out, "%-*s ", name, c->disk->span ? c->disk->span->name : "?");
		fprintf(out, "%-*s ", key, c->disk->span ?
			bm_span_key(c->disk->span, buf, sizeof(buf)) : "?");
		fprintf(out, "%-*s %-14s %8" PRIu64 " %8" PRIu64 " %10.1f %10.1f", cg,
			bm_cgroup_key(known(c), buf, sizeof(buf)), basis_name(c->basis), c->reads,
			c->writes, c->read_bytes / 1024.0, c->write_bytes / 1024.0);
		latency_text(out, &c->q2c);
		latency_text(out, &c->d2c);
		fputc('\n', out);
	}
	free(row);
	return 0;
}
