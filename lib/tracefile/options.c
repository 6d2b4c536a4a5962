// SPDX-License-Identifier: GPL-2.0-only
/*
 * The options a trace file keeps (reading.h): the trace clock, each CPU's
 * statistics, and how trace-cmd adjusts timestamps (DATE, OFFSET,
 * TSC2NSEC, TIME_SHIFT); version 6's options list. Version 7 finds the
 * same options in its options sections (sections.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkmap/tracefile/format.h"

#include "reading.h"

/* Keep CPU @cpu's statistics; @ncpus cpustats exist. */
void rd_keep_cpustat(struct bm_trace *t, const char *data)
{
	const char *nl = strchr(data, '\n');
	int cpu;

	if (t->meta.cpustats && sscanf(data, "CPU: %d", &cpu) == 1 && cpu >= 0 &&
	    cpu < t->meta.ncpus && !t->meta.cpustats[cpu])
		t->meta.cpustats[cpu] = strdup(nl ? nl + 1 : "");
}

void rd_keep_clock(struct bm_trace *t, const char *data)
{
	const char *open = strchr(data, '['), *close = open ? strchr(open, ']') : NULL;

	if (open && close && !t->meta.clock)
		t->meta.clock = strndup(open + 1, close - open - 1);
}

static int by_sample_time(const void *x, const void *y)
{
	const struct bm_ts_sample *a = x, *b = y;

	return (a->time > b->time) - (a->time < b->time);
}

/*
 * TIME_SHIFT (a guest's trace, recorded with its host's): a trace id (8
 * bytes), flags (4), a CPU count (4), then per CPU a sample count (4) and
 * that many times, offsets and scalings (8 bytes each); then, if there is
 * room, per CPU that many fraction bits (8 each). Samples sorted by time,
 * one a time, as trace-cmd keeps them.
 */
static int keep_time_shift(struct bm_trace *t, const char *p, uint32_t len)
{
	struct bm_ts_adjust *a = &t->meta.ts;
	const char *end = p + len;
	uint32_t ncpus, i;
	int k, j, f;

	if (len < 16 || a->cpu)
		return 0;	/* trace-cmd keeps the first */
	a->interpolate = rd_file_u32(t, p + 8) & 1;
	ncpus = rd_file_u32(t, p + 12);
	p += 16;
	if (ncpus > MAX_CPUS)
		return -1;
	a->cpu = calloc(ncpus ? ncpus : 1, sizeof(*a->cpu));
	if (!a->cpu)
		return -1;
	a->ncpus = ncpus;
	for (i = 0; i < ncpus; i++) {
		struct bm_ts_samples *c = &a->cpu[i];
		uint32_t n;

		if (end - p < 4 || (n = rd_file_u32(t, p)) > (uint32_t)((end - p - 4) / 24))
			return -1;
		p += 4;
		c->s = calloc(n ? n : 1, sizeof(*c->s));
		if (!c->s)
			return -1;
		c->n = n;
		for (f = 0; f < 3; f++)
			for (k = 0; k < c->n; k++, p += 8) {
				int64_t v = (int64_t)rd_file_u64(t, p);

				if (f == 0)
					c->s[k].time = v;
				else if (f == 1)
					c->s[k].offset = v;
				else
					c->s[k].scaling = v;
			}
	}
	for (i = 0; i < ncpus && end - p >= 8 * (ptrdiff_t)a->cpu[i].n; i++)
		for (k = 0; k < a->cpu[i].n; k++, p += 8)
			a->cpu[i].s[k].fraction = (int64_t)rd_file_u64(t, p);
	for (i = 0; i < ncpus; i++) {
		struct bm_ts_samples *c = &a->cpu[i];

		for (k = 0; k < c->n; k++)
			if (c->s[k].fraction < 0 || c->s[k].fraction > 63)
				return -1;
		qsort(c->s, c->n, sizeof(*c->s), by_sample_time);
		for (k = 0, j = 0; k < c->n; k++)
			if (!k || c->s[k].time != c->s[k - 1].time)
				c->s[j++] = c->s[k];
		c->n = j;
	}
	return 0;
}

/*
 * The options that say how trace-cmd turns the timestamps into what it
 * prints: DATE (microseconds, as "0x..."), OFFSET (ns), TSC2NSEC
 * (multiplier, shift: cycles to ns), TIME_SHIFT. A malformed one is left
 * out, as trace-cmd leaves it.
 */
void rd_keep_time_option(struct bm_trace *t, uint16_t id, const char *data, uint32_t len)
{
	struct bm_ts_adjust *a = &t->meta.ts;
	char text[32];
	int i;

	if (id == BM_OPTION_DATE || id == BM_OPTION_OFFSET) {
		long long v, sum;

		snprintf(text, sizeof(text), "%.*s", (int)(len < sizeof(text) ? len : sizeof(text) - 1),
			 data);
		v = strtoll(text, NULL, 0);
		if (__builtin_mul_overflow(v, id == BM_OPTION_DATE ? 1000 : 1, &v) ||
		    __builtin_add_overflow((long long)a->offset, v, &sum))
			return;	/* no clock is that far off */
		a->offset = sum;
	} else if (id == BM_OPTION_TSC2NSEC && len >= 16) {
		uint32_t shift = rd_file_u32(t, data + 4);

		if (shift > 32)
			return;
		a->mult = rd_file_u32(t, data);
		a->shift = shift;
	} else if (id == BM_OPTION_TIME_SHIFT && keep_time_shift(t, data, len) < 0) {
		/* Malformed: left out, the other options kept. */
		for (i = 0; i < a->ncpus; i++)
			free(a->cpu[i].s);
		free(a->cpu);
		a->cpu = NULL;
		a->ncpus = 0;
	} else if (id != BM_OPTION_TIME_SHIFT) {
		return;
	}
	a->any = a->offset || a->mult || a->ncpus;
}

/* Version 6: the options between the CPU count and the flyrecord. */
int rd_read_options(struct bm_trace *t)
{
	char peek[10];
	uint64_t at = t->pos;

	if (rd_get(t, peek, sizeof(peek), "options or flyrecord") < 0)
		return -1;
	if (memcmp(peek, "options  ", 10) != 0) {
		t->pos = at;
		return 0;
	}
	for (;;) {
		uint16_t id;
		uint32_t len;
		char *data;

		if (rd_get_u16(t, &id, "option id") < 0)
			return -1;
		if (id == BM_OPTION_DONE)
			return 0;
		if (rd_get_u32(t, &len, "option size") < 0)
			return -1;
		data = rd_get_block(t, len, "option");
		if (!data)
			return -1;
		if (id == BM_OPTION_TRACECLOCK)
			rd_keep_clock(t, data);
		else if (id == BM_OPTION_CPUSTAT)
			rd_keep_cpustat(t, data);
		else
			rd_keep_time_option(t, id, data, len);
		free(data);
	}
}
