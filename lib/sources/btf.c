// SPDX-License-Identifier: GPL-2.0-only
/* Member offsets from the kernel's BTF, through libbpf's BTF parser. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "blkmap/sources/btf.h"

struct btf *bm_btf_load(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	return btf;	/* libbpf 1.x: NULL with errno set on failure */
}

void bm_btf_free(struct btf *btf)
{
	btf__free(btf);
}

static const struct btf_type *resolve(const struct btf *btf, __u32 id)
{
	int r = btf__resolve_type(btf, id);

	return r < 0 ? NULL : btf__type_by_id(btf, r);
}

/*
 * Find member @name in struct or union @t: its offset in bytes and type
 * id. Anonymous members are searched too. 0 if found.
 */
static int find_member(const struct btf *btf, const struct btf_type *t, const char *name,
		       long *offset, __u32 *type_id)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		long here = btf_member_bit_offset(t, i) / 8;

		if (mname && !strcmp(mname, name)) {
			*offset = here;
			*type_id = m->type;
			return 0;
		}
		if (!mname || !mname[0]) {
			const struct btf_type *inner = resolve(btf, m->type);
			long inner_off;

			if (inner && (btf_is_struct(inner) || btf_is_union(inner)) &&
			    find_member(btf, inner, name, &inner_off, type_id) == 0) {
				*offset = here + inner_off;
				return 0;
			}
		}
	}
	return -1;
}

long bm_btf_offset(const struct btf *btf, const char *type, const char *path)
{
	char *copy, *part, *save = NULL;
	const struct btf_type *t;
	long total = 0;
	__s32 id;

	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	copy = strdup(path);
	if (!copy)
		return -1;
	for (part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		long off;
		__u32 member_type;

		if (!t || !(btf_is_struct(t) || btf_is_union(t)) ||
		    find_member(btf, t, part, &off, &member_type) < 0) {
			free(copy);
			return -1;
		}
		total += off;
		t = resolve(btf, member_type);
	}
	free(copy);
	return total;
}

int bm_btf_param(const struct btf *btf, const char *func, int index, const char *pointee,
		 char *name, size_t size)
{
	const struct btf_type *f, *proto, *t;
	const struct btf_param *params;
	const char *n;
	__s32 id;

	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return -1;
	f = btf__type_by_id(btf, id);
	proto = f ? btf__type_by_id(btf, f->type) : NULL;
	if (!proto || !btf_is_func_proto(proto) || index < 1 || index > btf_vlen(proto))
		return -1;
	params = btf_params(proto);
	n = btf__name_by_offset(btf, params[index - 1].name_off);
	snprintf(name, size, "%s", n ? n : "");
	if (!pointee)
		return 0;
	t = btf__type_by_id(btf, params[index - 1].type);
	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return -1;
	t = resolve(btf, t->type);
	n = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	return t && btf_is_struct(t) && n && !strcmp(n, pointee) ? 0 : -1;
}

long long bm_btf_enum_value(const struct btf *btf, const char *name)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i;

		if (!t || !btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++) {
			const char *s = btf__name_by_offset(btf, e[i].name_off);

			if (s && !strcmp(s, name))
				return e[i].val;
		}
	}
	return -1;
}
