// SPDX-License-Identifier: GPL-2.0-only
/* Struct types a function works on, from its DWARF scopes (see codetypes.h). */
#include "codetypes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#define CACHE_SIZE 64

struct codetypes {
	int fd;
	Dwarf *dw;
	/* the last functions looked up: sampled IPs repeat them */
	struct {
		char name[128];
		int ret;
		struct func_types ft;
	} cache[CACHE_SIZE];
	int nr_cache, next_cache;
};

struct codetypes *codetypes__open(const char *path)
{
	struct codetypes *ct = calloc(1, sizeof(*ct));

	if (!ct)
		return NULL;
	ct->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ct->fd < 0)
		goto err;
	ct->dw = dwarf_begin(ct->fd, DWARF_C_READ);
	if (!ct->dw) {
		errno = ENODATA;
		goto err;
	}
	return ct;
err:
	if (ct->fd >= 0) {
		int e = errno;

		close(ct->fd);
		errno = e;
	}
	free(ct);
	return NULL;
}

void codetypes__close(struct codetypes *ct)
{
	if (!ct)
		return;
	dwarf_end(ct->dw);
	close(ct->fd);
	free(ct);
}

/* Strips pointers, arrays, typedefs and qualifiers down to a struct/union/class. */
static void add_type(Dwarf_Die *var, bool param, struct func_types *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t, *cur = NULL;
	const char *typedef_name = NULL;

	if (!dwarf_attr_integrate(var, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return;
	cur = &t;
	for (int depth = 0; depth < 16; depth++) {
		int tag = dwarf_tag(cur);

		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		    tag == DW_TAG_class_type) {
			const char *name = dwarf_diename(cur);

			if (!name)
				name = typedef_name;
			if (!name)
				return;
			for (int i = 0; i < out->nr; i++) {
				if (!strcmp(out->t[i].name, name)) {
					out->t[i].param |= param;
					return;
				}
			}
			if (out->nr == CODETYPES_MAX)
				return;
			snprintf(out->t[out->nr].name, sizeof(out->t[0].name), "%s", name);
			out->t[out->nr].param = param;
			out->nr++;
			return;
		}
		if (tag == DW_TAG_typedef)
			typedef_name = dwarf_diename(cur);
		if (tag != DW_TAG_pointer_type && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_typedef &&
		    tag != DW_TAG_array_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type && tag != DW_TAG_reference_type &&
		    tag != DW_TAG_rvalue_reference_type)
			return;
		if (!dwarf_attr_integrate(cur, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
			return;
		cur = &t;
	}
}

static void walk(Dwarf_Die *die, struct func_types *out, int depth)
{
	Dwarf_Die child;

	if (depth > 12 || dwarf_child(die, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_formal_parameter:
			add_type(&child, depth == 0, out);
			break;
		case DW_TAG_variable:
			add_type(&child, false, out);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			walk(&child, out, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int lookup_uncached(struct codetypes *ct, const char *function, struct func_types *out);

int codetypes__lookup(struct codetypes *ct, const char *function, struct func_types *out)
{
	int ret, slot;

	memset(out, 0, sizeof(*out));
	if (!ct || !function || !*function)
		return -ENOENT;
	for (int i = 0; i < ct->nr_cache; i++) {
		if (!strcmp(ct->cache[i].name, function)) {
			*out = ct->cache[i].ft;
			return ct->cache[i].ret;
		}
	}
	ret = lookup_uncached(ct, function, out);
	slot = ct->nr_cache < CACHE_SIZE ? ct->nr_cache++ : ct->next_cache++ % CACHE_SIZE;
	snprintf(ct->cache[slot].name, sizeof(ct->cache[0].name), "%s", function);
	ct->cache[slot].ret = ret;
	ct->cache[slot].ft = *out;
	return ret;
}

static int lookup_uncached(struct codetypes *ct, const char *function, struct func_types *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool found = false;

	while (dwarf_nextcu(ct->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(ct->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				Dwarf_Attribute at;
				const char *name;

				if (dwarf_tag(&child) != DW_TAG_subprogram)
					continue;
				name = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &at));
				if (!name || strcmp(name, function))
					continue;
				found = true;
				walk(&child, out, 0);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	/* parameters first: they name what the function is about */
	for (int i = 0; i < out->nr; i++) {
		for (int j = i + 1; j < out->nr; j++) {
			if (out->t[j].param && !out->t[i].param) {
				__typeof__(out->t[0]) tmp = out->t[i];

				out->t[i] = out->t[j];
				out->t[j] = tmp;
			}
		}
	}
	return found ? 0 : -ENOENT;
}

int codetypes__func_addr(struct codetypes *ct, const char *function, unsigned long long *addr)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!ct || !function || !*function)
		return -ENOENT;
	while (dwarf_nextcu(ct->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(ct->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				Dwarf_Attribute at;
				Dwarf_Addr lo;
				const char *name;

				if (dwarf_tag(&child) != DW_TAG_subprogram)
					continue;
				name = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &at));
				if (name && !strcmp(name, function) && dwarf_lowpc(&child, &lo) == 0) {
					*addr = lo;
					return 0;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return -ENOENT;
}

/* The struct (through arrays, typedefs, qualifiers) a variable's type is, and its size. */
static bool struct_of(Dwarf_Die *var, char *type, size_t len, Dwarf_Word *elem)
{
	Dwarf_Attribute a;
	Dwarf_Die t, *cur = &t;
	const char *typedef_name = NULL;

	if (!dwarf_attr_integrate(var, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return false;
	for (int depth = 0; depth < 16; depth++) {
		int tag = dwarf_tag(cur);

		if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) {
			const char *name = dwarf_diename(cur);

			if (!name)
				name = typedef_name;
			if (!name || dwarf_aggregate_size(cur, elem) != 0 || !*elem)
				return false;
			snprintf(type, len, "%s", name);
			return true;
		}
		if (tag == DW_TAG_typedef)
			typedef_name = dwarf_diename(cur);
		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type && tag != DW_TAG_typedef &&
		    tag != DW_TAG_array_type && tag != DW_TAG_atomic_type)
			return false;
		if (!dwarf_attr_integrate(cur, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
			return false;
		cur = &t;
	}
	return false;
}

int codetypes__global_at(struct codetypes *ct, unsigned long long addr, char *type, size_t len,
			 unsigned long long *offset)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!ct)
		return -ENOENT;
	while (dwarf_nextcu(ct->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(ct->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				Dwarf_Attribute at;
				Dwarf_Op *ops;
				size_t nops;
				Dwarf_Word total, elem;
				Dwarf_Die ty;

				if (dwarf_tag(&child) != DW_TAG_variable ||
				    !dwarf_attr(&child, DW_AT_location, &at) ||
				    dwarf_getlocation(&at, &ops, &nops) != 0 || nops != 1 ||
				    ops[0].atom != DW_OP_addr)
					continue;
				if (addr < ops[0].number)
					continue;
				if (!dwarf_attr_integrate(&child, DW_AT_type, &at) ||
				    !dwarf_formref_die(&at, &ty) || dwarf_aggregate_size(&ty, &total) != 0)
					continue;
				if (addr >= ops[0].number + total)
					continue;
				if (!struct_of(&child, type, len, &elem))
					return -ENOENT;
				*offset = (addr - ops[0].number) % elem;
				return 0;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return -ENOENT;
}

int codetypes__global_type(struct codetypes *ct, const char *symbol, char *type, size_t len)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!ct || !symbol || !*symbol)
		return -ENOENT;
	while (dwarf_nextcu(ct->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(ct->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				Dwarf_Word elem;
				const char *name;

				if (dwarf_tag(&child) != DW_TAG_variable)
					continue;
				name = dwarf_diename(&child);
				if (name && !strcmp(name, symbol) && struct_of(&child, type, len, &elem))
					return 0;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return -ENOENT;
}
