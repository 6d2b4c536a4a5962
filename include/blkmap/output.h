/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_OUTPUT_H
#define BLKMAP_OUTPUT_H

/* Formatting shared by the report views. */
#include <stdint.h>
#include <stdio.h>

enum bm_output_format { BM_FORMAT_TEXT, BM_FORMAT_CSV, BM_FORMAT_JSON };

int bm_output_format_parse(const char *name, enum bm_output_format *format);

/* A CSV field (RFC 4180 quoting when needed), without separator. */
void bm_csv_str(FILE *out, const char *s);
/* A JSON string literal, quoted and escaped. */
void bm_json_str(FILE *out, const char *s);
/* "MAJ:MIN" of a kernel dev_t into @buf. */
const char *bm_dev_str(uint32_t dev, char *buf, size_t size);
/* Seconds with nanoseconds: "1234.567890123". */
const char *bm_ts_str(uint64_t ns, char *buf, size_t size);

#endif
