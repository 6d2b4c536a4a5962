/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_OUTPUT_H
#define BLKMAP_REPORT_OUTPUT_H

/* Formatting shared by the report views. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "blkmap/report/line.h"

enum bm_output_format { BM_FORMAT_TEXT, BM_FORMAT_CSV, BM_FORMAT_JSON };

int bm_output_format_parse(const char *name, enum bm_output_format *format);

/* A CSV field (RFC 4180 quoting when needed), without separator. */
void bm_csv_str(FILE *out, const char *s);
/*
 * A JSON string literal, quoted and escaped: control characters as \u00XX,
 * each byte that is not part of valid UTF-8 replaced by U+FFFD.
 */
void bm_json_str(FILE *out, const char *s);
/*
 * XML character data (SVG text): markup characters as entities; bytes that
 * are not valid UTF-8 and characters XML 1.0 forbids (controls but tab,
 * newline and return; U+FFFE, U+FFFF) replaced by U+FFFD.
 */
void bm_xml_str(FILE *out, const char *s);
/* "MAJ:MIN" of a kernel dev_t into @buf. */
const char *bm_dev_str(uint32_t dev, char *buf, size_t size);
/* Seconds with nanoseconds: "1234.567890123". */
const char *bm_ts_str(uint64_t ns, char *buf, size_t size);

/* A CSV field, quoted as bm_csv_str() does. */
void bm_line_csv(struct bm_line *l, const char *s);
/* A JSON string literal, as bm_json_str() writes it. */
void bm_line_json(struct bm_line *l, const char *s);

#endif
