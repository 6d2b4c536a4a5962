/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BLKMAP_SOURCES_BTF_H
#define BLKMAP_SOURCES_BTF_H

/* Struct member offsets of the running kernel, from its BTF. */
#include <stdbool.h>
#include <stddef.h>

struct btf;

/* The running kernel's BTF (/sys/kernel/btf/vmlinux), or NULL. */
struct btf *bm_btf_load(void);
void bm_btf_free(struct btf *btf);
/*
 * Byte offset of the member @path ("bd_device.kobj.name") in struct @type,
 * looking into anonymous unions and structs; -1 if there is none.
 */
long bm_btf_offset(const struct btf *btf, const char *type, const char *path);
/*
 * Parameter @index (1-based) of function @func: its name into @name, and 0
 * if it is a pointer to struct @pointee (NULL: any type). -1 otherwise.
 */
int bm_btf_param(const struct btf *btf, const char *func, int index, const char *pointee,
		 char *name, size_t size);
/*
 * The value of enumerator @name (in any enum, named or not: the kernel's
 * flag enums often are not), or -1 if @btf has none.
 */
long long bm_btf_enum_value(const struct btf *btf, const char *name);

#endif
