// SPDX-License-Identifier: GPL-2.0-only
/* A trace file's headers in memory: built by record, read back by report. */
#include <stdlib.h>
#include <string.h>

#include "blkmap/tracefile/meta.h"

int bm_trace_meta_add_format(struct bm_trace_meta *meta, const char *system,
			     const char *text, size_t len)
{
	struct bm_format *formats, *f;

	if (meta->nformats == meta->capformats) {	/* by doubling: a file may hold thousands */
		size_t cap = meta->capformats ? 2 * meta->capformats : 64;

		formats = realloc(meta->formats, cap * sizeof(*formats));
		if (!formats)
			return -1;
		meta->formats = formats;
		meta->capformats = cap;
	}
	formats = meta->formats;
	f = &formats[meta->nformats];
	f->system = strdup(system);
	f->text = malloc(len + 1);
	if (!f->system || !f->text) {
		free(f->system);
		free(f->text);
		return -1;
	}
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->len = len;
	meta->nformats++;
	return 0;
}

void bm_trace_meta_release(struct bm_trace_meta *meta)
{
	size_t i;

	for (i = 0; i < meta->nformats; i++) {
		free(meta->formats[i].system);
		free(meta->formats[i].text);
	}
	free(meta->formats);
	for (i = 0; meta->cpustats && i < (size_t)meta->ncpus; i++)
		free(meta->cpustats[i]);
	free(meta->cpustats);
	free(meta->header_page);
	free(meta->header_event);
	free(meta->kallsyms);
	free(meta->printk);
	free(meta->cmdlines);
	free(meta->clock);
	bm_ts_adjust_release(&meta->ts);
	memset(meta, 0, sizeof(*meta));
}

void bm_ts_adjust_release(struct bm_ts_adjust *a)
{
	int i;

	for (i = 0; i < a->ncpus; i++)
		free(a->cpu[i].s);
	free(a->cpu);
	memset(a, 0, sizeof(*a));
}

/* a * mul >> shift without losing a's upper half (the kernel's mul_u64_u32_shr). */
static uint64_t mul_shr(uint64_t a, uint32_t mul, unsigned shift)
{
	uint64_t al = (uint32_t)a, ah = a >> 32, ret = (al * mul) >> shift;

	if (ah)
		ret += (ah * mul) << (32 - shift);
	return ret;
}

/* A guest's @ts on its host's clock, between samples @lo and @hi (trace-cmd's). */
static uint64_t host_ts(const struct bm_ts_adjust *a, uint64_t ts, const struct bm_ts_sample *lo,
			const struct bm_ts_sample *hi)
{
	int64_t cor = lo->offset;

	if (a->interpolate && hi->time != lo->time) {
		__int128 delta = (__int128)hi->time - lo->time;

		/* In 128 bits: a hostile file's samples must not overflow (trace-cmd's long long) */
		cor = (int64_t)(lo->offset + (((__int128)(int64_t)ts - lo->time) *
					      ((__int128)hi->offset - lo->offset) + delta / 2) / delta);
	}
	/* In 64 bits, as trace-cmd computes it; the reader keeps fraction below 64 */
	ts = (ts * (uint64_t)lo->scaling) >> lo->fraction;
	return ts + (uint64_t)cor;	/* modulo 2^64: a negative correction subtracts */
}

static uint64_t synced(const struct bm_ts_adjust *a, int cpu, uint64_t ts)
{
	const struct bm_ts_samples *c;
	int lo, hi;

	if (cpu < 0 || cpu >= a->ncpus || !(c = &a->cpu[cpu])->n)
		return ts;
	if (c->n == 1)
		return ts + c->s[0].offset;
	if ((int64_t)ts <= c->s[0].time)
		return host_ts(a, ts, &c->s[0], &c->s[1]);
	if ((int64_t)ts >= c->s[c->n - 1].time)
		return host_ts(a, ts, &c->s[c->n - 2], &c->s[c->n - 1]);
	/* The samples around @ts */
	for (lo = 0, hi = c->n - 1; hi - lo > 1;) {
		int mid = lo + (hi - lo) / 2;

		if ((int64_t)ts < c->s[mid].time)
			hi = mid;
		else
			lo = mid;
	}
	return host_ts(a, ts, &c->s[lo], &c->s[lo + 1]);
}

uint64_t bm_ts_adjusted(const struct bm_ts_adjust *a, int cpu, uint64_t ts)
{
	if (a->ncpus)
		ts = synced(a, cpu, ts);
	if (a->mult)
		ts = mul_shr(ts, a->mult, a->shift);
	return ts + (uint64_t)a->offset;
}

uint64_t bm_cpustat_value(const char *stats, const char *key)
{
	const char *p = stats;
	size_t n = strlen(key);

	/* Keys start lines: "overrun" must not match "commit overrun". */
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}
