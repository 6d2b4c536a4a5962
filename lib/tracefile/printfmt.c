// SPDX-License-Identifier: GPL-2.0-only
/*
 * Print formats checked before libtraceevent prints through them (see
 * printfmt.h). The walk below follows what libtraceevent 1.7 does with a
 * parsed format (event-parse.c: parse_args() pairs the conversions of
 * print_fmt.format with print_fmt.args; print_str_arg(), eval_num_arg()
 * and print_arg_pointer() read the record): one walk serves the check of
 * the format alone (no record: what depends on one is only noted) and the
 * check of each record.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "blkmap/tracefile/printfmt.h"

/* A record's data is at most this long: the ring buffer's largest event. */
#define MAX_RECORD	65536
/* Widths and precisions above this are no kernel's: vsnprintf would pad for seconds. */
#define MAX_WIDTH	1024
/* What one record's details may take, of text (a hex dump of a whole record is 192 KiB). */
#define MAX_OUTPUT	(1u << 20)
/* Bytes of an array a field is printed with, when printed by its fields. */
#define MAX_FIELD_BYTES	256

struct verdict {
	struct tep_event *event;
	char *why;		/* never printed by its format, and why; NULL: it may be */
	bool per_record;	/* lengths or strings that depend on the record */
	bool stack;		/* ftrace:kernel_stack, printed by a plugin's handler */
	bool raw;		/* printed by its fields anyway (TEP_EVENT_FL_PRINTRAW) */
	int warned;
};

struct bm_printer {
	struct tep_handle *tep;
	bm_tell_fn warn;
	int nids;
	int *by_id;		/* event id -> index in verdicts + 1 */
	struct verdict *verdicts;
	int nverdicts;
};

/* One walk of an event's print arguments: of its format alone (data NULL), or of a record. */
struct walk {
	struct tep_event *e;
	const unsigned char *data;
	uint32_t size;
	bool per_record;	/* the format alone: something depends on a record */
	uint64_t output;	/* characters the details take at most */
	char why[200];
};

static int refuse(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->why[0]) {
		va_start(ap, fmt);
		vsnprintf(w->why, sizeof(w->why), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static struct tep_format_field *field_named(struct walk *w, struct tep_format_field *f,
					    const char *name)
{
	return f ? f : name ? tep_find_any_field(w->e, name) : NULL;
}

static uint64_t read_number(struct walk *w, uint32_t at, int size)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return 0;	/* what tep_read_number() makes of other sizes */
	if ((uint64_t)at + size > w->size)
		return 0;
	return tep_read_number(w->e->tep, w->data + at, size);
}

/*
 * Where a dynamic field's data is, and its length, as libtraceevent's
 * dynamic_offset_field() finds them: 0 when the word or the data lies
 * outside the record, a __rel_loc's offset from the field's end.
 */
static void dynamic_data(struct walk *w, const struct tep_format_field *f, uint64_t *at,
			 uint64_t *len)
{
	uint32_t o, l;
	uint64_t v;

	*at = *len = 0;
	if ((int64_t)f->offset + f->size > w->size)
		return;
	v = read_number(w, f->offset, f->size);
	/* In unsigned ints, as libtraceevent: a 2-byte word's length is the rest, even below 0. */
	o = v & 0xffff;
	l = f->size == 2 ? w->size - o : (v >> 16) & 0xffff;
	*at = o > w->size ? 0 : o;
	*len = (uint32_t)(o + l) > w->size ? 0 : l;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*at += (uint32_t)(f->offset + f->size);
}

/* What a cast to @type leaves of @v: libtraceevent's eval_type_str() only masks. */
static uint64_t cast(uint64_t v, const char *type)
{
	static const struct {
		const char *type;
		uint64_t mask;
	} masks[] = {
		{ "u8", 0xff }, { "s8", 0xff }, { "char", 0xff }, { "unsigned char", 0xff },
		{ "u16", 0xffff }, { "s16", 0xffff }, { "short", 0xffff },
		{ "unsigned short", 0xffff }, { "u32", 0xffffffff }, { "s32", 0xffffffff },
		{ "int", 0xffffffff }, { "unsigned int", 0xffffffff },
	};
	size_t i;

	for (i = 0; type && i < sizeof(masks) / sizeof(masks[0]); i++)
		if (!strcmp(type, masks[i].type))
			return v & masks[i].mask;
	return v;
}

static int num(struct walk *w, struct tep_print_arg *a, uint64_t *v, bool *known);
static int str(struct walk *w, struct tep_print_arg *a);

/* A ? b : c: @a's right must be the ':' libtraceevent takes it for. */
static struct tep_print_arg *branches(struct walk *w, struct tep_print_arg *a)
{
	struct tep_print_arg *r = a->op.right;

	if (!a->op.left || !r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":") ||
	    !r->op.left || !r->op.right) {
		refuse(w, "a '?' has no ':'");
		return NULL;
	}
	return r;
}

/* An array's element, a[i]: within the record, as eval_num_arg() reads it. */
static int element(struct walk *w, struct tep_print_arg *a, uint64_t *v, bool *known)
{
	struct tep_print_arg *l = a->op.left, *type = NULL;
	struct tep_format_field *f;
	uint64_t index, base, at, alen;
	uint32_t size = w->e->tep ? tep_get_long_size(w->e->tep) : 8;
	bool k;

	if (!l || !a->op.right || num(w, a->op.right, &index, &k) < 0)
		return refuse(w, "an array index is malformed");
	while (l && l->type == TEP_PRINT_TYPE) {
		type = type ? type : l;
		l = l->typecast.item;
	}
	if (!l)
		return refuse(w, "an array index is malformed");
	if (l->type == TEP_PRINT_DYNAMIC_ARRAY) {
		f = l->dynarray.field;
		if (!f)
			return refuse(w, "an array index names no field");
		if (!w->data) {
			w->per_record = true;
			*known = false;
			return 0;
		}
		if (!k)
			return refuse(w, "an array index is not a number it can read");
		dynamic_data(w, f, &base, &alen);
		if (f->elementsize)
			size = f->elementsize;
		at = (uint32_t)(base + index);
	} else if (l->type == TEP_PRINT_FIELD) {
		f = field_named(w, l->field.field, l->field.name);
		if (!f) {
			*v = 0;		/* libtraceevent warns, and reads nothing */
			*known = true;
			return 0;
		}
		size = f->elementsize;
		if (!k && w->data)
			return refuse(w, "an array index is not a number it can read");
		if (!k) {
			w->per_record = true;
			*known = false;
			return 0;
		}
		at = (uint32_t)(f->offset + index * f->elementsize);
	} else {
		*v = 0;		/* "all bets off": an ordinary operator, of two numbers */
		return num(w, a->op.left, &base, known) < 0 ? -1 : 0;
	}
	if (!w->data) {
		/* The index is a number: only the record's size is unknown. */
		w->per_record = true;
		*known = false;
		return 0;
	}
	/* libtraceevent compares as int: an offset past 2^31 would pass its check. */
	if (at + size > w->size && at + size <= (uint64_t)INT32_MAX)
		*v = 0;
	else if (at + size > w->size)
		return refuse(w, "an array index reaches offset %llu of a %u-byte record",
			      (unsigned long long)at, w->size);
	else
		*v = read_number(w, at, size);
	if (type)
		*v = cast(*v, type->typecast.type);
	*known = true;
	return 0;
}

static int operator(struct walk *w, struct tep_print_arg *a, uint64_t *v, bool *known)
{
	const char *op = a->op.op;
	uint64_t l = 0, r = 0;
	bool kl = true, kr = true;

	if (!op)
		return refuse(w, "an operator is malformed");
	if (!strcmp(op, "["))
		return element(w, a, v, known);
	if (!strcmp(op, "?")) {
		struct tep_print_arg *b = branches(w, a);
		uint64_t x, y;
		bool kx, ky;

		if (!b || num(w, a->op.left, &l, &kl) < 0 || num(w, b->op.left, &x, &kx) < 0 ||
		    num(w, b->op.right, &y, &ky) < 0)
			return -1;
		*v = l ? x : y;
		*known = kl && (l ? kx : ky);
		return 0;
	}
	if (!a->op.left || !a->op.right)
		return refuse(w, "the operator '%s' lacks an operand", op);
	if (num(w, a->op.left, &l, &kl) < 0 || num(w, a->op.right, &r, &kr) < 0)
		return -1;
	*known = kl && kr;
	if ((op[0] == '/' || op[0] == '%') && kr && !r)
		return refuse(w, "it divides by zero");
	if ((op[0] == '/' || op[0] == '%') && !kr) {
		/* A symbol libtraceevent looks up may be 0 too. */
		if (w->data)
			return refuse(w, "it divides by a number it cannot read");
		w->per_record = true;
		*known = false;
		return 0;
	}
	/*
	 * C leaves a shift by the width or more undefined: libtraceevent gets
	 * what the machine makes of it (x86: the count modulo 64), not 0.
	 */
	if ((op[0] == '<' || op[0] == '>') && op[1] == op[0]) {
		if (kr && r >= 64)
			return refuse(w, "it shifts by %llu bits, more than a number has",
				      (unsigned long long)r);
		if (!kr)
			w->per_record = true;	/* by what a record holds: checked on each */
	}
	switch (op[0]) {
	case '+': *v = l + r; break;
	case '-': *v = l - r; break;
	case '*': *v = l * r; break;
	case '/': *v = l / r; break;
	case '%': *v = l % r; break;
	case '&': *v = op[1] ? l && r : l & r; break;
	case '|': *v = op[1] ? l || r : l | r; break;
	case '~': *v = ~r; break;
	case '!': *v = op[1] == '=' ? l != r : !r; break;
	case '=': *v = l == r; break;
	case '<': *v = op[1] == '<' ? (r < 64 ? l << r : 0) : op[1] == '=' ? l <= r : l < r; break;
	case '>': *v = op[1] == '>' ? (r < 64 ? l >> r : 0) : op[1] == '=' ? l >= r : l > r; break;
	default: *v = 0; break;
	}
	return 0;
}

/* A function registered by a plugin: each argument is read as a number or a string. */
static int function(struct walk *w, struct tep_print_arg *a)
{
	struct tep_print_arg *arg;
	uint64_t v;
	bool k;

	for (arg = a->func.args; arg; arg = arg->next)
		if (num(w, arg, &v, &k) < 0 || str(w, arg) < 0)
			return -1;
	w->output += 4096;
	return 0;
}

/*
 * What eval_num_arg() makes of @a: *@known false if that depends on a
 * record not at hand. -1 if libtraceevent cannot evaluate it safely.
 */
static int num(struct walk *w, struct tep_print_arg *a, uint64_t *v, bool *known)
{
	struct tep_format_field *f;
	uint64_t at, len;
	char *end;

	*v = 0;
	*known = true;
	if (!a)
		return refuse(w, "an argument is missing");
	switch (a->type) {
	case TEP_PRINT_ATOM:
		if (!a->atom.atom)
			return refuse(w, "an argument is malformed");
		*v = strtoull(a->atom.atom, &end, 0);
		/* A symbol's value (an enum's name), which libtraceevent looks up. */
		*known = *end == '\0' && end != a->atom.atom;
		return 0;
	case TEP_PRINT_FIELD:
		f = field_named(w, a->field.field, a->field.name);
		if (!f)
			return 0;
		/* Unknown without a record: whoever needs the value (a length) checks each. */
		if (!w->data) {
			*known = false;
			return 0;
		}
		*v = read_number(w, f->offset, f->size);
		return 0;
	case TEP_PRINT_TYPE:
		if (num(w, a->typecast.item, v, known) < 0)
			return -1;
		*v = cast(*v, a->typecast.type);
		return 0;
	case TEP_PRINT_OP:
		return operator(w, a, v, known);
	case TEP_PRINT_FUNC:
		*known = false;
		return function(w, a);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
	case TEP_PRINT_DYNAMIC_ARRAY:
		if (!a->dynarray.field)
			return refuse(w, "a dynamic array names no field");
		if (!w->data) {
			*known = false;
			return 0;
		}
		dynamic_data(w, a->dynarray.field, &at, &len);
		*v = a->type == TEP_PRINT_DYNAMIC_ARRAY_LEN ? len : at;
		*known = a->type == TEP_PRINT_DYNAMIC_ARRAY_LEN;
		return 0;
	default:
		return 0;	/* strings, flags, arrays: 0 as numbers */
	}
}

/* A length (of hex, of an array) that must be known on a record, and bounded. */
static int length(struct walk *w, struct tep_print_arg *a, const char *what, uint64_t *v,
		  bool *known)
{
	if (num(w, a, v, known) < 0)
		return -1;
	if (!*known && w->data)
		return refuse(w, "its %s length is not a number it can read", what);
	if (*known && (uint32_t)*v > MAX_RECORD)
		return refuse(w, "its %s reads %u bytes, more than a record holds", what,
			      (uint32_t)*v);
	if (!*known)
		w->per_record = true;
	return 0;
}

/*
 * Where the data of a __print_hex() or __print_array() starts: a field, or
 * a dynamic array. 1 if libtraceevent reads nothing (a field not found).
 */
static int start(struct walk *w, struct tep_print_arg *a, const char *what, uint64_t *at)
{
	struct tep_format_field *f;
	uint64_t len;

	if (a && a->type == TEP_PRINT_DYNAMIC_ARRAY) {
		if (!a->dynarray.field)
			return refuse(w, "its %s names no field", what);
		if (w->data)
			dynamic_data(w, a->dynarray.field, at, &len);
		return 0;
	}
	if (!a || a->type != TEP_PRINT_FIELD)
		return refuse(w, "its %s takes no field", what);
	f = field_named(w, a->field.field, a->field.name);
	if (!f)
		return 1;
	*at = f->offset;
	return 0;
}

/* __print_hex(), __print_hex_str(), __print_array(): bytes within the record. */
static int dump(struct walk *w, struct tep_print_arg *field, struct tep_print_arg *count,
		struct tep_print_arg *el_size, const char *what, unsigned per_item)
{
	uint64_t at = 0, n = 0, el = 1;
	bool kn, ke = true;
	int r = start(w, field, what, &at);

	if (r)
		return r < 0 ? -1 : 0;
	if (length(w, count, what, &n, &kn) < 0 || (el_size && num(w, el_size, &el, &ke) < 0))
		return -1;
	if (el_size && !ke && w->data)
		return refuse(w, "its %s element size is not a number it can read", what);
	if (el_size && !ke)
		w->per_record = true;
	el = (int)el == 1 || (int)el == 2 || (int)el == 4 || (int)el == 8 ? (uint64_t)(int)el : 1;
	n = (uint32_t)n;
	if (kn && ke && n * el > MAX_RECORD)
		return refuse(w, "its %s reads %llu bytes, more than a record holds", what,
			      (unsigned long long)(n * el));
	if (!w->data) {
		/* Even a constant length: what the record holds is the record's. */
		w->per_record = true;
		w->output += kn ? n * per_item : (uint64_t)MAX_RECORD * per_item;
		return 0;
	}
	if (at + n * el > w->size)
		return refuse(w, "its %s reads %llu bytes at offset %llu of a %u-byte record", what,
			      (unsigned long long)(n * el), (unsigned long long)at, w->size);
	w->output += n * per_item;
	return 0;
}

/* __get_str(): its bytes end within the record (libtraceevent reads to a NUL). */
static int string(struct walk *w, struct tep_print_arg *a)
{
	struct tep_format_field *f = field_named(w, a->string.field, a->string.string);
	uint64_t at, len;

	if (!f)
		return 0;	/* nothing is printed */
	if (!w->data) {
		w->per_record = true;
		w->output += MAX_RECORD;
		return 0;
	}
	dynamic_data(w, f, &at, &len);
	if (!len)
		return 0;
	if (at >= w->size || !memchr(w->data + at, 0, w->size - at))
		return refuse(w, "its __get_str(%s) runs past the end of the record", f->name);
	w->output += w->size - at;
	return 0;
}

/* __get_bitmask(), __get_cpumask(). */
static int mask(struct walk *w, struct tep_print_arg *a)
{
	struct tep_format_field *f = field_named(w, a->bitmask.field, a->bitmask.bitmask);
	uint64_t at, len;

	if (!f) {
		/* libtraceevent reads a cpumask's field without looking. */
		if (a->type == TEP_PRINT_CPUMASK)
			return refuse(w, "its __get_cpumask() names no field");
		return 0;
	}
	if (!w->data) {
		w->per_record = true;
		w->output += (uint64_t)MAX_RECORD * 3;
		return 0;
	}
	dynamic_data(w, f, &at, &len);
	if (at + len > w->size)
		return refuse(w, "its __get_bitmask(%s) runs past the end of the record", f->name);
	/* An empty cpumask makes libtraceevent size its text from -1 bits. */
	if (a->type == TEP_PRINT_CPUMASK && (!len || len > 8192))
		return refuse(w, "its __get_cpumask(%s) is %llu bytes long", f->name,
			      (unsigned long long)len);
	w->output += a->type == TEP_PRINT_CPUMASK ? len * 8 * 7 : len * 3;
	return 0;
}

static uint64_t flag_text(const struct tep_print_flag_sym *f, const char *delim, bool all)
{
	uint64_t n = 24, longest = 0;

	for (; f; f = f->next) {
		uint64_t l = (f->str ? strlen(f->str) : 0) + (delim ? strlen(delim) : 0);

		n += l;
		longest = l > longest ? l : longest;
	}
	return all ? n : longest + 24;
}

/* What print_str_arg() does with @a. */
static int str(struct walk *w, struct tep_print_arg *a)
{
	struct tep_format_field *f;
	uint64_t v;
	bool k;

	if (!a)
		return refuse(w, "an argument is missing");
	switch (a->type) {
	case TEP_PRINT_ATOM:
	case TEP_PRINT_BSTRING:
		w->output += a->atom.atom ? strlen(a->atom.atom) : 0;
		return 0;
	case TEP_PRINT_FIELD:
		f = field_named(w, a->field.field, a->field.name);
		if (f)
			w->output += f->size ? (uint64_t)f->size : w->data ? w->size : MAX_RECORD;
		return 0;
	case TEP_PRINT_FLAGS:
		w->output += flag_text(a->flags.flags, a->flags.delim, true);
		return num(w, a->flags.field, &v, &k);
	case TEP_PRINT_SYMBOL:
		w->output += flag_text(a->symbol.symbols, NULL, false);
		return num(w, a->symbol.field, &v, &k);
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		return dump(w, a->hex.field, a->hex.size, NULL,
			    a->type == TEP_PRINT_HEX ? "__print_hex()" : "__print_hex_str()", 3);
	case TEP_PRINT_INT_ARRAY:
		return dump(w, a->int_array.field, a->int_array.count, a->int_array.el_size,
			    "__print_array()", 21);
	case TEP_PRINT_STRING:
		return string(w, a);
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
		return mask(w, a);
	case TEP_PRINT_OP: {
		struct tep_print_arg *b;

		if (!a->op.op || a->op.op[0] != '?')
			return 0;	/* only a ?: prints */
		b = branches(w, a);
		if (!b || num(w, a->op.left, &v, &k) < 0)
			return -1;
		if (w->data && k)
			return str(w, v ? b->op.left : b->op.right);
		return str(w, b->op.left) < 0 || str(w, b->op.right) < 0 ? -1 : 0;
	}
	case TEP_PRINT_FUNC:
		return function(w, a);
	default:
		return 0;
	}
}

/* print_arg_pointer(): %p and the letter after it. */
static int pointer(struct walk *w, char letter, const char *rest, struct tep_print_arg *a)
{
	struct tep_print_arg *item = a;
	struct tep_format_field *f;
	uint64_t v, at, len;
	bool k;

	if (a->type == TEP_PRINT_BSTRING)
		return str(w, a);
	w->output += 256;
	switch (letter) {
	case 'F': case 'f': case 'S': case 's':
		return num(w, a, &v, &k);
	case 'M': case 'm': case 'I': case 'i': case 'U': case 'h':
		break;
	default:
		return num(w, a, &v, &k);
	}
	if (a->type == TEP_PRINT_FUNC)
		return function(w, a);
	if (letter == 'h') {
		w->output += 3 * (uint64_t)MAX_RECORD;
		return a->type == TEP_PRINT_DYNAMIC_ARRAY && !a->dynarray.field ?
		       refuse(w, "a %%ph names no field") : 0;
	}
	while (item->type == TEP_PRINT_TYPE && item->typecast.item)
		item = item->typecast.item;
	/* %pIS reads a sockaddr's family before it looks at the field's size. */
	if ((letter == 'I' || letter == 'i') && rest[0] == 'S') {
		if (item->type == TEP_PRINT_DYNAMIC_ARRAY) {
			if (!item->dynarray.field)
				return refuse(w, "a %%pIS names no field");
			if (!w->data) {
				w->per_record = true;
				return 0;
			}
			dynamic_data(w, item->dynarray.field, &at, &len);
		} else if (item->type == TEP_PRINT_FIELD &&
			   (f = field_named(w, item->field.field, item->field.name))) {
			if (!w->data) {
				w->per_record |= f->size < 2;
				return 0;
			}
			at = f->offset;
		} else {
			return 0;
		}
		if (at + 2 > w->size)
			return refuse(w, "its %%pIS reads past the end of the record");
	}
	return 0;
}

/* A conversion's width or precision, when written in the format: bounded. */
static int digits(struct walk *w, const char *p, const char *end)
{
	unsigned long n = 0;

	for (; p < end; p++) {
		if (!isdigit((unsigned char)*p)) {
			n = 0;
			continue;
		}
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > MAX_WIDTH)
			return refuse(w, "a width or precision is above %d", MAX_WIDTH);
	}
	return 0;
}

/* A width or precision given as an argument ("%*s"): between 0 and MAX_WIDTH. */
static int star(struct walk *w, struct tep_print_arg *a, bool bounded)
{
	uint64_t v;
	bool k;

	if (num(w, a, &v, &k) < 0)
		return -1;
	if (!bounded)
		return 0;	/* a pointer's: libtraceevent bounds it by its array */
	if (!k && w->data)
		return refuse(w, "a '*' width or precision is not a number it can read");
	if (!k) {
		w->per_record = true;
		w->output += MAX_WIDTH;
		return 0;
	}
	/* A negative one makes libtraceevent call printf without it. */
	if ((int)v < 0 || (int)v > MAX_WIDTH)
		return refuse(w, "a '*' width or precision of %d is not between 0 and %d", (int)v,
			      MAX_WIDTH);
	w->output += (int)v;
	return 0;
}

/*
 * One conversion, from the '%' at @p, as parse_arg_format() takes it:
 * its argument, and the '*' one before it. Returns where it ends.
 */
static const char *conversion(struct walk *w, const char *p, struct tep_print_arg **args)
{
	const char *start = p++;
	struct tep_print_arg *len_arg = NULL, *a;

	for (; *p; p++) {
		switch (*p) {
		case '#': case 'h': case 'l': case 'L': case 'z': case 'Z': case '.': case '-':
		case '0' ... '9':
			continue;
		case '*':
			if (!*args || len_arg) {
				refuse(w, "a '*' has no argument");
				return NULL;
			}
			len_arg = *args;
			*args = (*args)->next;
			continue;
		case 'p': case 'd': case 'u': case 'i': case 'x': case 'X': case 'o': case 's':
			break;
		default:
			w->output += 3;		/* ">%c<" */
			return p + 1;
		}
		break;
	}
	if (!*p)
		return p;
	a = *args;
	if (!a) {
		refuse(w, "a conversion has no argument");
		return NULL;
	}
	*args = a->next;
	if (digits(w, start, p) < 0 || (len_arg && star(w, len_arg, *p != 'p') < 0))
		return NULL;
	w->output += MAX_WIDTH;	/* the widths and precisions written out, at most */
	switch (*p) {
	case 'p':
		if (pointer(w, p[1], p[1] ? p + 2 : p + 1, a) < 0)
			return NULL;
		break;
	case 's':
		if (str(w, a) < 0)
			return NULL;
		break;
	default: {
		uint64_t v;
		bool k;

		w->output += 24;
		if (num(w, a, &v, &k) < 0)
			return NULL;
	}
	}
	return p + 1;
}

/* The whole print format of @w->e: 0 if libtraceevent may print it (or this record). */
static int walk_format(struct walk *w)
{
	const char *p = w->e->print_fmt.format;
	struct tep_print_arg *args = w->e->print_fmt.args;

	if (!p)
		return refuse(w, "it has no print format");
	while (*p) {
		if (p[0] == '\\' && p[1]) {
			p += 2;
			w->output++;
		} else if (p[0] == '%' && p[1] == '%') {
			p += 2;
			w->output++;
		} else if (p[0] == '%') {
			p = conversion(w, p, &args);
			if (!p)
				return -1;
		} else {
			p++;
			w->output++;
		}
	}
	if (w->output > MAX_OUTPUT) {
		if (!w->data) {
			w->per_record = true;	/* the record's own sizes may tell less */
			return 0;
		}
		return refuse(w, "it would print %llu characters of a %u-byte record",
			      (unsigned long long)w->output, w->size);
	}
	return 0;
}

/* Does every field of @e lie within the record of @size bytes, with its dynamic data? */
static bool fields_fit(struct tep_event *e, const unsigned char *data, uint32_t size)
{
	struct tep_format_field *lists[2] = { e->format.common_fields, e->format.fields }, *f;
	struct walk w = { .e = e, .data = data, .size = size };
	uint64_t at, loc;
	int k;

	for (k = 0; k < 2; k++)
		for (f = lists[k]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + f->size > size)
				return false;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			/* The reader keeps only 4-byte (offset, length) words of dynamic fields. */
			loc = read_number(&w, f->offset, f->size);
			at = loc & 0xffff;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				at += (uint64_t)f->offset + f->size;
			if (at + (loc >> 16 & 0xffff) > size)
				return false;
		}
	return true;
}

static bool is_kernel_stack(const struct tep_event *e)
{
	return e->system && e->name && !strcmp(e->system, "ftrace") &&
	       !strcmp(e->name, "kernel_stack");
}

static void check_event(struct verdict *v, struct tep_event *e)
{
	struct walk w = { .e = e };

	v->event = e;
	v->stack = is_kernel_stack(e) && e->handler;
	v->raw = e->flags & TEP_EVENT_FL_PRINTRAW;
	if (e->flags & TEP_EVENT_FL_FAILED)
		refuse(&w, "libtraceevent did not parse it");
	else if (!(e->flags & TEP_EVENT_FL_ISBPRINT))
		walk_format(&w);
	if (w.why[0]) {
		v->why = strdup(w.why);
		if (!v->why)
			v->why = "";
	}
	v->per_record = w.per_record;
}

struct bm_printer *bm_printer_new(struct tep_handle *tep, bm_tell_fn warn)
{
	struct bm_printer *p = calloc(1, sizeof(*p));
	struct tep_event **events = tep ? tep_list_events(tep, TEP_EVENT_SORT_ID) : NULL;
	int i, n = events ? tep_get_events_count(tep) : 0;

	if (!p)
		return NULL;
	p->tep = tep;
	p->warn = warn;
	for (i = 0; i < n; i++)
		if (events[i]->id >= p->nids && events[i]->id <= 65535)
			p->nids = events[i]->id + 1;
	p->by_id = calloc(p->nids ? p->nids : 1, sizeof(*p->by_id));
	p->verdicts = calloc(n ? n : 1, sizeof(*p->verdicts));
	if (!p->by_id || !p->verdicts) {
		bm_printer_free(p);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (events[i]->id < 0 || events[i]->id > 65535 || p->by_id[events[i]->id])
			continue;
		check_event(&p->verdicts[p->nverdicts], events[i]);
		p->by_id[events[i]->id] = ++p->nverdicts;
	}
	return p;
}

void bm_printer_free(struct bm_printer *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nverdicts; i++)
		if (p->verdicts[i].why && p->verdicts[i].why[0])
			free(p->verdicts[i].why);
	free(p->verdicts);
	free(p->by_id);
	free(p);
}

static struct verdict *verdict_of(const struct bm_printer *p, int id)
{
	return id >= 0 && id < p->nids && p->by_id[id] ? &p->verdicts[p->by_id[id] - 1] : NULL;
}

bool bm_printing_learns(struct tep_handle *tep)
{
	static const char *const only_print[] = { "function", "kernel_stack", "raw_data",
						  "func_repeats" };
	int i, n = tep_get_events_count(tep);
	size_t j;

	for (i = 0; i < n; i++) {
		const struct tep_event *e = tep_get_event(tep, i);

		if (!e || !e->handler)
			continue;
		for (j = 0; j < sizeof(only_print) / sizeof(only_print[0]); j++)
			if (!strcmp(e->system, "ftrace") && !strcmp(e->name, only_print[j]))
				break;
		if (j == sizeof(only_print) / sizeof(only_print[0]))
			return true;
	}
	return false;
}

const char *bm_printer_refusal(const struct bm_printer *p, int id)
{
	const struct verdict *v = verdict_of(p, id);

	return v ? v->why : NULL;
}

/* An array field's bytes: its text if it is one, else hex. */
static void print_bytes(struct trace_seq *s, const struct tep_format_field *f,
			const unsigned char *b, uint64_t len)
{
	uint64_t i, n = len > MAX_FIELD_BYTES ? MAX_FIELD_BYTES : len;
	const unsigned char *nul = memchr(b, 0, len);

	if ((f->flags & TEP_FIELD_IS_STRING) && nul) {
		for (i = 0; b + i < nul && (isprint(b[i]) || isspace(b[i])); i++)
			;
		if (b + i == nul) {
			trace_seq_printf(s, "%.*s", (int)(i > MAX_FIELD_BYTES ? MAX_FIELD_BYTES : i), b);
			return;
		}
	}
	trace_seq_puts(s, "ARRAY[");
	for (i = 0; i < n; i++)
		trace_seq_printf(s, i ? ", %02x" : "%02x", b[i]);
	trace_seq_puts(s, n < len ? ", ...]" : "]");
}

/* "name=value" for each of @e's own fields: nothing read past @size. */
static void print_fields(struct trace_seq *s, struct tep_event *e, const unsigned char *data,
			 uint32_t size)
{
	struct walk w = { .e = e, .data = data, .size = size };
	struct tep_format_field *f;
	uint64_t at, len, v;

	for (f = e->format.fields; f; f = f->next) {
		trace_seq_printf(s, "%s%s=", f == e->format.fields ? "" : " ", f->name);
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			dynamic_data(&w, f, &at, &len);
			print_bytes(s, f, data + at, at + len <= size ? len : 0);
		} else if ((f->flags & TEP_FIELD_IS_ARRAY) || !f->size || f->size > 8 ||
			   (f->size & (f->size - 1))) {
			len = f->size ? (uint64_t)f->size : size - (uint64_t)f->offset;
			print_bytes(s, f, data + f->offset, len);
		} else {
			v = read_number(&w, f->offset, f->size);
			if (f->flags & TEP_FIELD_IS_SIGNED) {
				int shift = 64 - 8 * f->size;

				trace_seq_printf(s, "%lld", (long long)(v << shift) >> shift);
			} else {
				trace_seq_printf(s, (f->flags & (TEP_FIELD_IS_POINTER | TEP_FIELD_IS_LONG)) ?
						 "0x%llx" : "%llu", (unsigned long long)v);
			}
		}
	}
}

static void warn_once(struct bm_printer *p, struct verdict *v, const char *why)
{
	if (!p->warn || __atomic_exchange_n(&v->warned, 1, __ATOMIC_RELAXED))
		return;
	bm_tell(p->warn, "%s:%s events are printed by their fields alone: their print format "
		"is not safe to follow (%s)", v->event->system, v->event->name, why);
}

/* A kernel stack as the function plugin prints it: whole words of the record only. */
static void print_stack(struct trace_seq *s, struct verdict *v, struct tep_record *rec)
{
	struct tep_format_field *f = tep_find_any_field(v->event, "caller");
	int word = tep_get_long_size(v->event->tep);
	struct tep_record whole = *rec;

	if (!f || f->offset < 0 || f->offset > rec->size || word <= 0) {
		trace_seq_puts(s, "(record shorter than its format says)");
		return;
	}
	whole.size = f->offset + (rec->size - f->offset) / word * word;
	tep_print_event(v->event->tep, s, &whole, "%s", TEP_PRINT_INFO);
}

void bm_printer_print(struct bm_printer *p, struct trace_seq *s, struct tep_record *rec,
		      int type)
{
	struct verdict *v = verdict_of(p, type);
	struct walk w;

	if (!v || rec->size < 0) {
		trace_seq_puts(s, "(record shorter than its format says)");
		return;
	}
	if (v->stack && !v->why) {
		print_stack(s, v, rec);
		return;
	}
	if (!fields_fit(v->event, rec->data, rec->size)) {
		trace_seq_puts(s, "(record shorter than its format says)");
		return;
	}
	if (v->why || v->raw) {
		if (v->why)
			warn_once(p, v, v->why);
		print_fields(s, v->event, rec->data, rec->size);
		return;
	}
	if (v->per_record) {
		w = (struct walk){ .e = v->event, .data = rec->data, .size = rec->size };
		if (walk_format(&w) < 0) {
			warn_once(p, v, w.why);
			print_fields(s, v->event, rec->data, rec->size);
			return;
		}
	}
	tep_print_event(p->tep, s, rec, "%s", TEP_PRINT_INFO);
}
