// SPDX-License-Identifier: GPL-2.0-only
/* Encoding, writing and parsing of blkmap's text markers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blkmap/sources/marker.h"
#include "blkmap/util/error.h"

static void append(struct bm_marker *m, const char *s, size_t n)
{
	if (m->overflow || m->len + n > BM_MARKER_MAX) {
		m->overflow = true;
		return;
	}
	memcpy(m->text + m->len, s, n);
	m->len += n;
	m->text[m->len] = '\0';
}

void bm_marker_begin(struct bm_marker *m, const char *type)
{
	m->len = 0;
	m->overflow = false;
	m->text[0] = '\0';
	append(m, BM_MARKER_PREFIX, strlen(BM_MARKER_PREFIX));
	append(m, type, strlen(type));
}

static bool needs_escape(unsigned char c)
{
	return c <= ' ' || c >= 0x7f || c == '%' || c == '=';
}

void bm_marker_add(struct bm_marker *m, const char *key, const char *value)
{
	const unsigned char *v;

	append(m, " ", 1);
	append(m, key, strlen(key));
	append(m, "=", 1);
	for (v = (const unsigned char *)(value ? value : ""); *v; v++) {
		char esc[4];

		if (!needs_escape(*v)) {
			append(m, (const char *)v, 1);
			continue;
		}
		snprintf(esc, sizeof(esc), "%%%02X", *v);
		append(m, esc, 3);
	}
}

void bm_marker_add_if_room(struct bm_marker *m, const char *key, const char *value)
{
	size_t len = m->len;

	if (m->overflow)
		return;
	bm_marker_add(m, key, value);
	if (m->overflow) {
		m->overflow = false;
		m->len = len;
		m->text[len] = '\0';
	}
}

void bm_marker_addf(struct bm_marker *m, const char *key, const char *fmt, ...)
{
	char value[BM_MARKER_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	bm_marker_add(m, key, value);
}

int bm_marker_emit(const struct bm_marker *m, bm_mark_fn mark, void *ctx)
{
	if (m->overflow) {
		bm_error("a marker exceeds %d bytes", BM_MARKER_MAX);
		errno = E2BIG;
		return -1;
	}
	return mark(ctx, m->text, m->len);
}

int bm_mark_dump_begin(bm_mark_fn mark, void *ctx, unsigned id, const char *source,
		       const char *reason)
{
	struct bm_marker m;

	bm_marker_begin(&m, "dump-begin");
	bm_marker_addf(&m, "id", "%u", id);
	bm_marker_add(&m, "source", source);
	bm_marker_add(&m, "reason", reason);
	return bm_marker_emit(&m, mark, ctx);
}

int bm_mark_dump_end(bm_mark_fn mark, void *ctx, unsigned id, unsigned count)
{
	struct bm_marker m;

	bm_marker_begin(&m, "dump-end");
	bm_marker_addf(&m, "id", "%u", id);
	bm_marker_addf(&m, "count", "%u", count);
	return bm_marker_emit(&m, mark, ctx);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode %XX escapes in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			*out++ = (char)(hexval(s[1]) << 4 | hexval(s[2]));
			s += 2;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

bool bm_marker_is_idle(const char *text, size_t len)
{
	static const char idle[] = BM_MARKER_PREFIX BM_MARKER_IDLE;
	size_t n = sizeof(idle) - 1;

	return len >= n && !memcmp(text, idle, n) &&
	       (len == n || text[n] == ' ' || text[n] == '\n' || text[n] == '\0');
}

int bm_marker_parse(struct bm_marker_parsed *p, const char *text, size_t len)
{
	size_t plen = strlen(BM_MARKER_PREFIX);
	char *s, *tok, *save;

	if (len < plen || memcmp(text, BM_MARKER_PREFIX, plen) != 0)
		return -1;
	text += plen;
	len -= plen;
	if (len > BM_MARKER_MAX)
		len = BM_MARKER_MAX;
	memcpy(p->buf, text, len);
	p->buf[len] = '\0';
	s = p->buf;
	p->nfields = 0;
	p->type = strtok_r(s, " \n", &save);
	if (!p->type)
		return -1;
	while ((tok = strtok_r(NULL, " \n", &save)) && p->nfields < BM_MARKER_MAX_FIELDS) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = '\0';
		unescape(eq + 1);
		p->fields[p->nfields].key = tok;
		p->fields[p->nfields].value = eq + 1;
		p->nfields++;
	}
	return 0;
}

const char *bm_marker_get(const struct bm_marker_parsed *p, const char *key)
{
	int i;

	for (i = 0; i < p->nfields; i++)
		if (strcmp(p->fields[i].key, key) == 0)
			return p->fields[i].value;
	return NULL;
}
