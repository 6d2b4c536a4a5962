// SPDX-License-Identifier: GPL-2.0-only
/* The output formats: CSV, JSON and XML string encoding; device and time strings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blkmap/report/output.h"
#include "blkmap/tracefile/decode.h"

int bm_output_format_parse(const char *name, enum bm_output_format *format)
{
	if (!strcmp(name, "text"))
		*format = BM_FORMAT_TEXT;
	else if (!strcmp(name, "csv"))
		*format = BM_FORMAT_CSV;
	else if (!strcmp(name, "json"))
		*format = BM_FORMAT_JSON;
	else
		return -1;
	return 0;
}

/*
 * The length of the valid UTF-8 sequence at @s (1 to 4) and its code point,
 * or 0 for a byte that starts none: a stray continuation byte, a cut or
 * overlong sequence, a UTF-16 surrogate, a code point past U+10FFFF.
 */
static int utf8_char(const unsigned char *s, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	int len, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	if (*cp < min[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

void bm_csv_str(FILE *out, const char *s)
{
	struct bm_line l;

	bm_line_init(&l, out);
	bm_line_csv(&l, s);
	bm_line_write(&l);
}

void bm_json_str(FILE *out, const char *s)
{
	struct bm_line l;

	bm_line_init(&l, out);
	bm_line_json(&l, s);
	bm_line_write(&l);
}

void bm_xml_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	int len;

	while (p && *p) {
		len = utf8_char(p, &cp);
		if (!len || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') ||
		    cp == 0xfffe || cp == 0xffff)
			fputs("&#xfffd;", out);
		else if (cp == '<')
			fputs("&lt;", out);
		else if (cp == '>')
			fputs("&gt;", out);
		else if (cp == '&')
			fputs("&amp;", out);
		else if (cp == '\'')
			fputs("&apos;", out);
		else if (cp == '"')
			fputs("&quot;", out);
		else
			fwrite(p, 1, len, out);
		p += len ? len : 1;
	}
}

const char *bm_dev_str(uint32_t dev, char *buf, size_t size)
{
	snprintf(buf, size, "%u:%u", BM_MAJOR(dev), BM_MINOR(dev));
	return buf;
}

/* How times print, for the report being made: one setting a run, read by every thread. */
static struct bm_timefmt time_shown;

void bm_time_show(const struct bm_timefmt *t)
{
	time_shown = t ? *t : (struct bm_timefmt){ .mode = BM_TIME_ABS };
}

static bool names_all = true;

void bm_names_show(bool all)
{
	names_all = all;
}

bool bm_names_all(void)
{
	return names_all;
}

bool bm_time_abs(void)
{
	return time_shown.mode == BM_TIME_ABS;
}

const char *bm_wall_str(uint64_t wall_ns, char *buf, size_t size)
{
	time_t sec = wall_ns / 1000000000;
	struct tm tm;
	char date[32];
	long off;

	if (!localtime_r(&sec, &tm)) {
		snprintf(buf, size, "?");
		return buf;
	}
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff / 60;
	if (!off)
		snprintf(buf, size, "%s.%09lluZ", date,
			 (unsigned long long)(wall_ns % 1000000000));
	else
		snprintf(buf, size, "%s.%09llu%c%02ld:%02ld", date,
			 (unsigned long long)(wall_ns % 1000000000), off < 0 ? '-' : '+',
			 labs(off) / 60, labs(off) % 60);
	return buf;
}

const char *bm_ts_str(uint64_t ns, char *buf, size_t size)
{
	const struct bm_timefmt *t = &time_shown;
	uint64_t d;

	switch (t->mode) {
	case BM_TIME_REL:
		d = ns >= t->first ? ns - t->first : t->first - ns;
		snprintf(buf, size, "%c%llu.%09llu", ns >= t->first ? '+' : '-',
			 (unsigned long long)(d / 1000000000), (unsigned long long)(d % 1000000000));
		return buf;
	case BM_TIME_WALL:
		return bm_wall_str(t->wall_ns + (ns - t->mono_ns), buf, size);
	default:
		snprintf(buf, size, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
			 (unsigned long long)(ns % 1000000000));
		return buf;
	}
}

/* Exactly @n decimal digits at @p, their value in @v: 0, or -1. */
static int digits_at(const char *p, int n, int *v)
{
	for (*v = 0; n--; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		*v = *v * 10 + (*p - '0');
	}
	return 0;
}

/* "YYYY-MM-DDTHH:MM:SS", each field its digits exactly, into @tm. */
static int wall_fields(const char *p, struct tm *tm)
{
	static const struct {
		int at, n, min, max;
	} f[] = { { 0, 4, 1970, 9999 }, { 5, 2, 1, 12 }, { 8, 2, 1, 31 }, { 11, 2, 0, 23 },
		  { 14, 2, 0, 59 }, { 17, 2, 0, 60 } };
	int v[6], i;

	if (p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':' || p[16] != ':')
		return -1;
	for (i = 0; i < 6; i++)
		if (digits_at(p + f[i].at, f[i].n, &v[i]) < 0 || v[i] < f[i].min ||
		    v[i] > f[i].max)
			return -1;
	*tm = (struct tm){ .tm_year = v[0] - 1900, .tm_mon = v[1] - 1, .tm_mday = v[2],
			   .tm_hour = v[3], .tm_min = v[4], .tm_sec = v[5], .tm_isdst = -1 };
	return 0;
}

int bm_wall_parse(const char *arg, uint64_t *ns)
{
	const char *p = arg + 19;
	uint64_t frac = 0;
	int digits = 0, oh, om;
	struct tm tm;
	time_t t;

	if (strnlen(arg, 19) < 19 || wall_fields(arg, &tm) < 0)
		goto bad;
	if (*p == '.' || *p == ',') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 9)
				frac = frac * 10 + (*p - '0');
		if (!digits)
			goto bad;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*p == 'Z' && !p[1]) {
		t = timegm(&tm);
	} else if ((*p == '+' || *p == '-') && !digits_at(p + 1, 2, &oh) && p[3] == ':' &&
		   !digits_at(p + 4, 2, &om) && !p[6] && oh < 24 && om < 60) {
		t = timegm(&tm) - (*p == '+' ? 1 : -1) * (oh * 3600 + om * 60);
	} else if (!*p) {
		t = mktime(&tm);
	} else {
		goto bad;
	}
	if (t < 0 || (uint64_t)t > (UINT64_C(1) << 63) / 1000000000)
		goto bad;
	*ns = (uint64_t)t * 1000000000 + frac;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int bm_time_parse(const char *arg, struct bm_time_arg *t)
{
	static const struct {
		const char *suffix;
		unsigned digits;	/* of the fraction a nanosecond is */
	} units[] = { { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }, { "", 9 } };
	const char *p = arg, *end;
	uint64_t v = 0;
	unsigned i, frac = 0, places;
	bool point = false, digits = false;

	*t = (struct bm_time_arg){ 0 };
	if (strchr(arg, 'T') && !bm_wall_parse(arg, &t->ns)) {
		t->wall = true;
		return 0;
	}
	t->relative = *p == '+' || *p == '-';
	t->before = *p == '-';
	p += t->relative;
	for (end = p; (*end >= '0' && *end <= '9') || *end == '.'; end++)
		;
	for (i = 0; i < sizeof(units) / sizeof(units[0]) && strcmp(end, units[i].suffix); i++)
		;
	if (i == sizeof(units) / sizeof(units[0]))
		goto bad;
	places = units[i].digits;
	/* A suffix other than ns says an offset; ns and bare seconds are the clock's. */
	if (units[i].suffix[0] && strcmp(units[i].suffix, "ns"))
		t->relative = true;
	for (; p < end; p++) {
		if (*p == '.') {
			if (point)
				goto bad;
			point = true;
			continue;
		}
		digits = true;
		if (point && frac == places)
			continue;	/* below a nanosecond */
		if (v > (UINT64_C(1) << 63) / 10)
			goto bad;
		v = v * 10 + (*p - '0');
		frac += point;
	}
	for (; frac < places; frac++) {
		if (v > (UINT64_C(1) << 63) / 10)
			goto bad;
		v *= 10;
	}
	if (!digits || v > UINT64_C(1) << 63)
		goto bad;
	t->ns = v;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

void bm_line_ts(struct bm_line *l, uint64_t ns)
{
	char buf[64];

	if (!bm_time_abs()) {
		bm_line_str(l, bm_ts_str(ns, buf, sizeof(buf)));
		return;
	}
	bm_line_u64(l, ns / 1000000000);
	bm_line_char(l, '.');
	bm_line_u64w(l, ns % 1000000000, 9, true);
}

/* The characters that make a CSV field quoted. */
static bool csv_special(char c)
{
	return c == ',' || c == '"' || c == '\r' || c == '\n';
}

void bm_line_csv(struct bm_line *l, const char *s)
{
	size_t n;

	if (!s)
		return;
	/* One pass over the field: names and commands are short, and rarely quoted. */
	for (n = 0; s[n] && !csv_special(s[n]); n++)
		;
	if (!s[n]) {
		bm_line_strn(l, s, n);
		return;
	}
	bm_line_char(l, '"');
	for (; *s; s++) {
		if (*s == '"')
			bm_line_char(l, '"');
		bm_line_char(l, *s);
	}
	bm_line_char(l, '"');
}

void bm_line_json(struct bm_line *l, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	int len;

	bm_line_char(l, '"');
	while (p && *p) {
		const unsigned char *run = p;

		/* Most text is printable ASCII: copied a run at a time. */
		while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			bm_line_strn(l, (const char *)run, p - run);
		if (!*p)
			break;
		len = utf8_char(p, &cp);
		if (!len) {
			bm_line_str(l, "\\ufffd");
			len = 1;
		} else if (cp == '"' || cp == '\\') {
			bm_line_char(l, '\\');
			bm_line_char(l, cp);
		} else if (cp < 0x20) {
			bm_line_str(l, "\\u00");
			bm_line_char(l, hex[cp >> 4]);
			bm_line_char(l, hex[cp & 15]);
		} else {
			bm_line_strn(l, (const char *)p, len);
		}
		p += len;
	}
	bm_line_char(l, '"');
}