// SPDX-License-Identifier: GPL-2.0-only
/* CSV and JSON string encoding, device and time formatting. */
#include <string.h>

#include "blkmap/decode.h"
#include "blkmap/output.h"

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

void bm_csv_str(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

void bm_json_str(FILE *out, const char *s)
{
	putc('"', out);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}

const char *bm_dev_str(uint32_t dev, char *buf, size_t size)
{
	snprintf(buf, size, "%u:%u", BM_MAJOR(dev), BM_MINOR(dev));
	return buf;
}

const char *bm_ts_str(uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000));
	return buf;
}

void bm_line_strn(struct bm_line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->n)
		n = sizeof(l->buf) - l->n;
	memcpy(l->buf + l->n, s, n);
	l->n += n;
}

void bm_line_str(struct bm_line *l, const char *s)
{
	bm_line_strn(l, s, strlen(s));
}

void bm_line_char(struct bm_line *l, char c)
{
	if (l->n < sizeof(l->buf))
		l->buf[l->n++] = c;
}

static void spaces(struct bm_line *l, int n)
{
	while (n-- > 0)
		bm_line_char(l, ' ');
}

void bm_line_pad(struct bm_line *l, const char *s, int width, bool right)
{
	int len = strlen(s);

	if (right)
		spaces(l, width - len);
	bm_line_strn(l, s, len);
	if (!right)
		spaces(l, width - len);
}

void bm_line_u64w(struct bm_line *l, uint64_t v, int width, bool zeros)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = '0' + v % 10;
	while ((v /= 10));
	while (width-- > n)
		bm_line_char(l, zeros ? '0' : ' ');
	while (n)
		bm_line_char(l, digits[--n]);
}

void bm_line_u64(struct bm_line *l, uint64_t v)
{
	bm_line_u64w(l, v, 0, false);
}

void bm_line_i64(struct bm_line *l, int64_t v)
{
	if (v < 0) {
		bm_line_char(l, '-');
		bm_line_u64(l, -(uint64_t)v);
	} else {
		bm_line_u64(l, v);
	}
}

void bm_line_ts(struct bm_line *l, uint64_t ns)
{
	bm_line_u64(l, ns / 1000000000);
	bm_line_char(l, '.');
	bm_line_u64w(l, ns % 1000000000, 9, true);
}

void bm_line_dev(struct bm_line *l, uint32_t dev)
{
	bm_line_u64(l, BM_MAJOR(dev));
	bm_line_char(l, ':');
	bm_line_u64(l, BM_MINOR(dev));
}

void bm_line_csv(struct bm_line *l, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		bm_line_str(l, s);
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

void bm_line_write(struct bm_line *l, FILE *out)
{
	fwrite(l->buf, 1, l->n, out);
	l->n = 0;
}
