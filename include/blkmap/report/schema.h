/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_REPORT_SCHEMA_H
#define BLKMAP_REPORT_SCHEMA_H

/*
 * The report's schema (schema.c): per view one table of keys, each with
 * its type, unit and meaning, from which the CSV header, the JSON keys
 * and `blkmap report --schema` all come. A view gains a column by gaining
 * a row in its table (and a value in the code that fills its rows); CSV
 * and JSON then both carry it, on every line.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blkmap/report/output.h"

/* The version of the keys and their meanings: the last key of every row. */
#define BM_REPORT_FORMAT	1

enum bm_key_type {
	BM_KEY_INT,	/* an integer within int64 */
	BM_KEY_NUM,	/* a number with a fraction */
	BM_KEY_STR,	/* text */
	BM_KEY_BOOL,	/* true or false */
};

struct bm_key {
	const char *key;
	enum bm_key_type type;
	const char *unit;	/* "" for none */
	const char *meaning;
	int decimals;		/* BM_KEY_NUM: digits after the point; below 0, significant digits */
};

struct bm_schema {
	const char *view;	/* as --schema=VIEW names it */
	const struct bm_key *keys;
	size_t nkeys;
};

/* Every view's table, in the order --schema prints them. */
size_t bm_schemas(const struct bm_schema *const **list);
/* The table of @view, or NULL. */
const struct bm_schema *bm_schema_find(const char *view);
/* The index of @key in @s, or -1. */
int bm_schema_index(const struct bm_schema *s, const char *key);
const char *bm_key_type_name(enum bm_key_type type);
/*
 * The schema as JSON Lines, one line a key: view, key, type, unit,
 * meaning, format_version. Every view when @view is NULL; -1 if there is
 * no view of that name.
 */
int bm_schema_print(FILE *out, const char *view);
/* The CSV header row of @s. */
void bm_schema_csv_header(FILE *out, const struct bm_schema *s);

/*
 * A row of a view: its values set by key in any order, written in the
 * table's order, null in JSON and empty in CSV where not set. Setting a
 * key the table does not have, or with another type, is a bug: it aborts.
 */
#define BM_ROW_KEYS	256
struct bm_row {
	FILE *out;
	enum bm_output_format format;
	const struct bm_schema *schema;
	struct {
		bool set;
		union {
			int64_t i;
			double d;
			bool b;
			size_t at;	/* of text, in text[] */
		};
	} v[BM_ROW_KEYS];
	char text[8192];
	size_t ntext;
};

/* A row of @s to write to @out (CSV or JSON); format_version is set. */
void bm_row_start(struct bm_row *r, FILE *out, enum bm_output_format format,
		  const struct bm_schema *s);
void bm_row_int(struct bm_row *r, const char *key, int64_t v);
/* Past int64 (2^64 - 1 sectors: none), left unset. */
void bm_row_u64(struct bm_row *r, const char *key, uint64_t v);
/* Not finite: left unset. */
void bm_row_num(struct bm_row *r, const char *key, double v);
void bm_row_str(struct bm_row *r, const char *key, const char *s);
void bm_row_bool(struct bm_row *r, const char *key, bool v);
/* Write the row out; the row is then empty again (format_version set). */
void bm_row_end(struct bm_row *r);

#endif
