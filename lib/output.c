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
