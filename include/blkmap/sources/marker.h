/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_MARKER_H
#define BLKMAP_SOURCES_MARKER_H

/*
 * blkmap's records in the trace: text markers (ftrace:print) of the form
 *
 *	blkmap:TYPE key=value key=value ...
 *
 * Values escape '%', '=', space, control and non-ASCII bytes as %XX. The
 * types and keys are a file-format contract, documented in blkmap.dat(5).
 */
#include <stdbool.h>
#include <stddef.h>

#define BM_MARKER_PREFIX	"blkmap:"
#define BM_MARKER_MAX		1000	/* kernels cap text markers near 1 KiB */
#define BM_MARKER_MAX_FIELDS	24

struct bm_marker {
	char text[BM_MARKER_MAX + 1];
	size_t len;
	bool overflow;
};

void bm_marker_begin(struct bm_marker *m, const char *type);
/* bm_marker_add(), unless the field does not fit: then the marker is left as it was. */
void bm_marker_add_if_room(struct bm_marker *m, const char *key, const char *value);
void bm_marker_add(struct bm_marker *m, const char *key, const char *value);
void bm_marker_addf(struct bm_marker *m, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * How a source writes a marker into the recording: @text, @len bytes, into
 * the trace (the session's trace_marker, in a recording).
 */
typedef int (*bm_mark_fn)(void *ctx, const char *text, size_t len);

/* Write @m through @mark; -1 with E2BIG if it overflowed BM_MARKER_MAX. */
int bm_marker_emit(const struct bm_marker *m, bm_mark_fn mark, void *ctx);

/*
 * The brackets of statedump @id: "dump-begin id= source= reason=" before
 * its devices, "dump-end id= count=" after them, @count the devices the
 * source knows it listed (the map tells a failed dump by it).
 */
int bm_mark_dump_begin(bm_mark_fn mark, void *ctx, unsigned id, const char *source,
		       const char *reason);
int bm_mark_dump_end(bm_mark_fn mark, void *ctx, unsigned id, unsigned count);

struct bm_marker_field {
	const char *key;
	const char *value;
};

struct bm_marker_parsed {
	char buf[BM_MARKER_MAX + 1];
	const char *type;
	struct bm_marker_field fields[BM_MARKER_MAX_FIELDS];
	int nfields;
};

/*
 * The uevent listener's idle marker (uevent.c): one a second, all the map
 * takes of it is its time. Is @text (@len bytes at most) one?
 */
#define BM_MARKER_IDLE		"uevent-idle"
bool bm_marker_is_idle(const char *text, size_t len);

/* Parse @text (@len bytes); -1 if it is not a blkmap marker. */
int bm_marker_parse(struct bm_marker_parsed *p, const char *text, size_t len);
/* The value of @key, or NULL. */
const char *bm_marker_get(const struct bm_marker_parsed *p, const char *key);

#endif
