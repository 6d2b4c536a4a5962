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
/*
 * How the text formats print a time of the trace clock (--time): its
 * seconds ("1234.567890123"); seconds from the recording's start
 * ("+0.250000000"); or the wall clock, ISO 8601 with nanoseconds and the
 * local offset ("2026-12-01T21:03:32.123456789+01:00").
 */
enum bm_time_mode { BM_TIME_ABS, BM_TIME_REL, BM_TIME_WALL };
struct bm_timefmt {
	enum bm_time_mode mode;
	uint64_t first;			/* BM_TIME_REL: the recording's start */
	uint64_t wall_ns, mono_ns;	/* BM_TIME_WALL: the wall clock at trace time mono_ns */
};
/*
 * Set how bm_ts_str() and bm_line_ts() print times, for a report's run
 * (NULL: absolute seconds). Set before any thread formats.
 */
void bm_time_show(const struct bm_timefmt *t);
/* A time as bm_time_show() said: "1234.567890123" by default. */
const char *bm_ts_str(uint64_t ns, char *buf, size_t size);
/* @wall_ns (since the epoch) as ISO 8601 with nanoseconds and the local offset. */
const char *bm_wall_str(uint64_t wall_ns, char *buf, size_t size);
/*
 * A time as --since and --until take it, which is what the output prints:
 * the trace clock in seconds ("775.917350") or nanoseconds
 * ("775917350123ns"); from the recording's start, after it ("+2.5", "2.5s",
 * "250ms", "40us") or before it ("-0.5", as --time=rel prints); or the
 * wall clock as --time=wall prints it (see bm_wall_parse()).
 */
struct bm_time_arg {
	uint64_t ns;	/* ns of the trace clock, from the start, or since the epoch */
	bool relative;	/* from the recording's start */
	bool before;	/* relative: before the start ("-S") */
	bool wall;	/* the wall clock */
};
/* Decimal digits and one point only, at most 2^63 ns: 0, or -1 (errno EINVAL). */
int bm_time_parse(const char *arg, struct bm_time_arg *t);
/*
 * A wall-clock time as bm_wall_str() prints it: 2026-12-01T21:03:32 (two
 * digits each but the year's four), a fraction of up to 9 digits, then Z,
 * +HH:MM, -HH:MM or nothing (local time, as TZ says). Nanoseconds since
 * the epoch in @ns: 0, or -1 (errno EINVAL).
 */
int bm_wall_parse(const char *arg, uint64_t *ns);
/* Is bm_ts_str() printing absolute seconds (the fast path of bm_line_ts())? */
bool bm_time_abs(void);
/*
 * Whether the text formats show the names people know beside a kernel name
 * (--names=all, the default: "dm-3 (vg0/data on /srv)") or the kernel name
 * alone (--names=kernel). Set before any thread formats, as bm_time_show().
 */
void bm_names_show(bool all);
bool bm_names_all(void);

/* A time as bm_ts_str() prints it. */
void bm_line_ts(struct bm_line *l, uint64_t ns);
/* A CSV field, quoted as bm_csv_str() does. */
void bm_line_csv(struct bm_line *l, const char *s);
/* A JSON string literal, as bm_json_str() writes it. */
void bm_line_json(struct bm_line *l, const char *s);

#endif
