// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/scopeidx.h"

#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct scope_range {
	uint64_t lo, hi;
};

struct scope_node {
	Dwarf_Off off;		/* the DIE, in the CU's Dwarf */
	int parent;		/* the enclosing node, or -1 (a child of the CU) */
	int func_parent;	/* the enclosing subprogram or inlined instance, or -1 */
	int func;		/* itself or the nearest enclosing one of them, or -1 */
	int end;		/* one past the last node of its subtree */
	int first_range, nr_ranges;
	int tag;
};

/* a range of a child of the CU, sorted by lo */
struct scope_top {
	uint64_t lo, hi;
	uint64_t max_hi;	/* the highest hi up to this one */
	int node;
};

struct scopeidx {
	struct scope_node *n;
	int nr, cap;
	struct scope_range *r;
	int nr_r, cap_r;
	struct scope_top *top;
	int nr_top;
};

bool scopeidx__descends(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

static bool is_func(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* Adds DIE as a node under PARENT when it has address ranges; its index or -1. */
static int add_node(struct scopeidx *x, Dwarf_Die *die, int tag, int parent)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int first = x->nr_r, k;
	struct scope_node *nd;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (x->nr_r == x->cap_r) {
			x->cap_r = x->cap_r ? 2 * x->cap_r : 256;
			x->r = xrealloc(x->r, x->cap_r * sizeof(*x->r));
		}
		x->r[x->nr_r].lo = lo;
		x->r[x->nr_r++].hi = hi;
	}
	if (x->nr_r == first)
		return -1;	/* no address: dwarf_getscopes prunes it */
	if (x->nr == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 256;
		x->n = xrealloc(x->n, x->cap * sizeof(*x->n));
	}
	k = x->nr++;
	nd = &x->n[k];
	nd->off = dwarf_dieoffset(die);
	nd->parent = parent;
	nd->func_parent = parent < 0 ? -1 : x->n[parent].func;
	nd->func = is_func(tag) ? k : nd->func_parent;
	nd->end = k + 1;
	nd->first_range = first;
	nd->nr_ranges = x->nr_r - first;
	nd->tag = tag;
	return k;
}

#define SCOPE_DEPTH 256

/* Depth-first over the CU as dwarf_getscopes visits it; false on an imported unit. */
static bool walk(struct scopeidx *x, Dwarf_Die *cu)
{
	Dwarf_Die stack[SCOPE_DEPTH];
	int node[SCOPE_DEPTH];
	int depth = 0;

	if (dwarf_child(cu, &stack[0]) != 0)
		return true;
	node[0] = -1;	/* the node the DIEs at this depth are children of */
	for (;;) {
		Dwarf_Die *d = &stack[depth];
		int tag = dwarf_tag(d), k;

		if (tag == DW_TAG_imported_unit)
			return false;
		k = add_node(x, d, tag, node[depth]);
		if (k >= 0 && scopeidx__descends(tag) && dwarf_haschildren(d) > 0 &&
		    depth + 1 < SCOPE_DEPTH && dwarf_child(d, &stack[depth + 1]) == 0) {
			node[++depth] = k;
			continue;
		}
		/* next sibling, climbing out of finished subtrees */
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0) {
			if (depth == 0)
				return true;
			x->n[node[depth]].end = x->nr;
			depth--;
		}
	}
}

static int cmp_top(const void *a, const void *b)
{
	const struct scope_top *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->node - y->node;
}

struct scopeidx *scopeidx__build(Dwarf_Die *cu)
{
	struct scopeidx *x = xcalloc(1, sizeof(*x));
	int t = 0;

	if (!walk(x, cu)) {
		scopeidx__free(x);
		return NULL;
	}
	for (int i = 0; i < x->nr; i++)
		if (x->n[i].parent < 0)
			t += x->n[i].nr_ranges;
	x->top = xcalloc(t ? t : 1, sizeof(*x->top));
	for (int i = 0; i < x->nr; i++) {
		if (x->n[i].parent >= 0)
			continue;
		for (int j = 0; j < x->n[i].nr_ranges; j++) {
			const struct scope_range *r = &x->r[x->n[i].first_range + j];

			x->top[x->nr_top].lo = r->lo;
			x->top[x->nr_top].hi = r->hi;
			x->top[x->nr_top++].node = i;
		}
	}
	qsort(x->top, x->nr_top, sizeof(*x->top), cmp_top);
	for (int i = 0; i < x->nr_top; i++) {
		uint64_t prev = i ? x->top[i - 1].max_hi : 0;

		x->top[i].max_hi = x->top[i].hi > prev ? x->top[i].hi : prev;
	}
	return x;
}

void scopeidx__free(struct scopeidx *x)
{
	if (!x)
		return;
	free(x->n);
	free(x->r);
	free(x->top);
	free(x);
}

static bool contains(const struct scopeidx *x, int k, uint64_t pc)
{
	const struct scope_node *nd = &x->n[k];

	for (int j = 0; j < nd->nr_ranges; j++) {
		const struct scope_range *r = &x->r[nd->first_range + j];

		if (pc >= r->lo && pc < r->hi)
			return true;
	}
	return false;
}

int scopeidx__innermost(const struct scopeidx *x, uint64_t pc)
{
	int lo = 0, hi = x->nr_top, k = -1;

	while (lo < hi) {	/* the first top range starting after pc */
		int mid = (lo + hi) / 2;

		if (x->top[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* of the CU's children containing pc, the first in DIE order */
	for (int i = lo; i-- > 0 && x->top[i].max_hi > pc;)
		if (pc < x->top[i].hi && (k < 0 || x->top[i].node < k))
			k = x->top[i].node;
	if (k < 0)
		return -1;
	/* down the tree: at each level the first child containing pc */
	for (int j = k + 1, end = x->n[k].end; j < end;) {
		if (contains(x, j, pc)) {
			k = j;
			end = x->n[j].end;
			j++;
		} else {
			j = x->n[j].end;
		}
	}
	return x->n[k].func;
}

int scopeidx__outer(const struct scopeidx *x, int node)
{
	return node >= 0 && node < x->nr ? x->n[node].func_parent : -1;
}

int scopeidx__tag(const struct scopeidx *x, int node)
{
	return node >= 0 && node < x->nr ? x->n[node].tag : 0;
}

int scopeidx__die(const struct scopeidx *x, Dwarf *dw, int node, Dwarf_Die *die)
{
	if (node < 0 || node >= x->nr || !dwarf_offdie(dw, x->n[node].off, die))
		return -ENOENT;
	return 0;
}

int scopeidx__count(const struct scopeidx *x)
{
	return x->nr;
}
