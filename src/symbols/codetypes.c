// SPDX-License-Identifier: GPL-2.0-only
/* Struct types a function works on, from its DWARF scopes (see codetypes.h). */
#include "symbols/codetypes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "base/util.h"
#include "symbols/scopeidx.h"
#include "symbols/symbolizer.h"

#define CACHE_SIZE 64

/*
 * The scopes of a unit's aggregate types, from one walk of the unit: the
 * qualified name of a type otherwise takes a dwarf_getscopes_die() walk from
 * the unit's start, milliseconds a type in an amalgamated CU (sqlite3.c).
 */
struct type_scopes {
	struct type_scopes *next;
	const void *unit;	/* the Dwarf_CU of the DIEs */
	struct {
		Dwarf_Off off;	/* an aggregate type's DIE */
		size_t prefix;	/* in names: "ns::Outer::" or "" */
	} *e;
	size_t n, cap;
	char *names;
	size_t len, cap_names;
};

/* A top-level subprogram by its DW_AT_name (sorted by name, then by offset). */
struct func_ent {
	const char *name;	/* in the Dwarf's string section */
	Dwarf_Off off;
};

/* The struct types a unit's file-scope variables lead to (add_globals), in order. */
struct unit_globals {
	struct unit_globals *next;
	Dwarf_Off cu_off;
	char (*qname)[128];
	int n;
};

struct codetypes {
	int fd;
	Dwarf *dw;
	struct type_scopes *scopes;
	struct func_ent *funcs;	/* built on the first lookup */
	size_t nr_funcs;
	bool funcs_built;
	struct unit_globals *globals;
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
	while (ct->scopes) {
		struct type_scopes *t = ct->scopes;

		ct->scopes = t->next;
		free(t->e);
		free(t->names);
		free(t);
	}
	while (ct->globals) {
		struct unit_globals *g = ct->globals;

		ct->globals = g->next;
		free(g->qname);
		free(g);
	}
	free(ct->funcs);
	dwarf_end(ct->dw);
	close(ct->fd);
	free(ct);
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* Adds the prefix PARENT (in names) followed by ADD:: (nothing when ADD is ""); its offset. */
static size_t scopes_name(struct type_scopes *t, size_t parent, const char *add)
{
	size_t at = t->len, pl = t->names ? strlen(t->names + parent) : 0;
	size_t l = pl + strlen(add) + 3;

	if (at + l > t->cap_names) {
		t->cap_names = (at + l) * 2;
		t->names = xrealloc(t->names, t->cap_names);
	}
	if (pl)
		memmove(t->names + at, t->names + parent, pl);
	t->len = at + pl + (size_t)sprintf(t->names + at + pl, "%s%s", add, *add ? "::" : "") + 1;
	return at;
}

#define SCOPES_DEPTH 64

/* Every aggregate type of UNIT the scope walk reaches, with the scopes it is in. */
static void scopes_walk(struct type_scopes *t, Dwarf_Die *unit)
{
	Dwarf_Die stack[SCOPES_DEPTH];
	size_t prefix[SCOPES_DEPTH];
	int depth = 0;

	prefix[0] = scopes_name(t, 0, "");	/* "" at 0 */
	if (dwarf_child(unit, &stack[0]) != 0)
		return;
	for (;;) {
		Dwarf_Die *d = &stack[depth];
		int tag = dwarf_tag(d);

		if (is_aggregate(tag)) {
			if (t->n == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 64;
				t->e = xrealloc(t->e, t->cap * sizeof(*t->e));
			}
			t->e[t->n].off = dwarf_dieoffset(d);
			t->e[t->n++].prefix = prefix[depth];
		}
		if (scopeidx__descends(tag) && dwarf_haschildren(d) > 0 && depth + 1 < SCOPES_DEPTH &&
		    dwarf_child(d, &stack[depth + 1]) == 0) {
			const char *sn = dwarf_diename(d);

			prefix[depth + 1] = sn && (tag == DW_TAG_namespace || is_aggregate(tag)) ?
						    scopes_name(t, prefix[depth], sn) : prefix[depth];
			depth++;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0)
			if (depth-- == 0)
				return;
	}
}

/* The scopes of DIE's unit, walked on first use. */
static const struct type_scopes *unit_scopes(struct codetypes *ct, Dwarf_Die *die)
{
	struct type_scopes *t;
	Dwarf_Die unit;

	for (t = ct->scopes; t; t = t->next)
		if (t->unit == die->cu)
			return t;
	if (!dwarf_diecu(die, &unit, NULL, NULL))
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->unit = die->cu;
	scopes_walk(t, &unit);
	t->next = ct->scopes;
	ct->scopes = t;
	return t;
}

/*
 * The name of aggregate type DIE as layout.h names it: qualified by the
 * namespaces and aggregates it is declared in ("app::Rec"), anonymous
 * namespaces left out.  C types have no such scopes: NAME as it is.
 */
static void qualified_name(struct codetypes *ct, Dwarf_Die *die, const char *name, char *out,
			   size_t len)
{
	const struct type_scopes *t = unit_scopes(ct, die);
	Dwarf_Off off = dwarf_dieoffset(die);
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->e[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a type the walk does not reach has no scopes, as for dwarf_getscopes_die */
	snprintf(out, len, "%s%s", t && lo < t->n && t->e[lo].off == off ?
		 t->names + t->e[lo].prefix : "", name);
}

/* Adds struct NAME (qualified) to OUT, or marks it a parameter's; false when full. */
static bool add_name(struct func_types *out, const char *qname, bool param, bool member,
		     bool value)
{
	for (int i = 0; i < out->nr; i++) {
		if (!strcmp(out->t[i].name, qname)) {
			out->t[i].param |= param;
			out->t[i].member &= member;
			out->t[i].value |= value;
			return true;
		}
	}
	if (out->nr == CODETYPES_MAX)
		return false;
	snprintf(out->t[out->nr].name, sizeof(out->t[0].name), "%s", qname);
	out->t[out->nr].param = param;
	out->t[out->nr].member = member;
	out->t[out->nr].value = value;
	out->nr++;
	return true;
}

enum { VIA_POINTER = 1, VIA_ARRAY = 2 };

/*
 * The struct DIE that the type of DIE (a variable or member) leads to
 * through pointers, arrays, typedefs and qualifiers (references too when
 * REFS); its qualified name in NAME (a typedef's for an unnamed struct).
 * *VIA: VIA_POINTER and VIA_ARRAY when those were on the way.
 */
static bool strip_to_struct(struct codetypes *ct, Dwarf_Die *die, bool refs, Dwarf_Die *out, char *name, size_t len,
			    unsigned int *via)
{
	Dwarf_Attribute a;
	const char *typedef_name = NULL;

	*via = 0;
	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
		return false;
	for (int depth = 0; depth < 16; depth++) {
		int tag = dwarf_tag(out);

		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		    tag == DW_TAG_class_type) {
			const char *n = dwarf_diename(out);

			if (!n)
				n = typedef_name;
			if (!n)
				return false;
			qualified_name(ct, out, n, name, len);
			return true;
		}
		if (tag == DW_TAG_typedef)
			typedef_name = dwarf_diename(out);
		if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		    tag == DW_TAG_rvalue_reference_type)
			*via |= VIA_POINTER;
		if (tag == DW_TAG_array_type)
			*via |= VIA_ARRAY;
		if (tag != DW_TAG_pointer_type && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_typedef &&
		    tag != DW_TAG_array_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type &&
		    !(refs && (tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type)))
			return false;
		if (!dwarf_attr_integrate(out, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
			return false;
	}
	return false;
}

/* The struct types a variable's type leads to: its own, then its pointer and array members'. */
static void add_type(struct codetypes *ct, Dwarf_Die *var, bool param, struct func_types *out)
{
	char qname[sizeof(out->t[0].name)];
	Dwarf_Die t, m;
	unsigned int via;

	if (!strip_to_struct(ct, var, true, &t, qname, sizeof(qname), &via) ||
	    !add_name(out, qname, param, false, !(via & VIA_POINTER)) ||
	    dwarf_child(&t, &m) != 0)
		return;
	do {
		Dwarf_Die mt;

		if (dwarf_tag(&m) == DW_TAG_member &&
		    strip_to_struct(ct, &m, false, &mt, qname, sizeof(qname), &via) && via)
			add_name(out, qname, false, true, false);
	} while (dwarf_siblingof(&m, &m) == 0);
}

static void walk(struct codetypes *ct, Dwarf_Die *die, struct func_types *out, int depth)
{
	Dwarf_Die child;

	if (depth > 12 || dwarf_child(die, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_formal_parameter:
			add_type(ct, &child, depth == 0, out);
			break;
		case DW_TAG_variable:
			add_type(ct, &child, false, out);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			walk(ct, &child, out, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/*
 * Calls FN on every top-level DIE of every compilation unit until it returns
 * non-zero: 0 when it returned > 0 (found), its value when < 0, -ENOENT when
 * it never stopped.
 */
static int each_top_die(struct codetypes *ct, int (*fn)(Dwarf_Die *die, void *arg), void *arg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(ct->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(ct->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int r = fn(&child, arg);

				if (r)
					return r > 0 ? 0 : r;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return -ENOENT;
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

/*
 * Whether the subprogram DIE is FUNCTION, a name as the report prints it:
 * a C function's own name, or a C++ one qualified ("ns::Class::method",
 * see symbolizer__name), whose DW_AT_name is the last part.
 */
static bool die_is_function(Dwarf_Die *die, const char *function)
{
	const char *tail = function, *p, *name, *link;
	Dwarf_Attribute at;
	char buf[128];

	for (p = function; (p = strstr(p, "::")); p += 2)
		tail = p + 2;
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
	if (!name || strcmp(name, tail))
		return false;
	if (tail == function)
		return true;
	link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!link)
		return false;
	symbolizer__name(buf, sizeof(buf), link);
	return !strcmp(buf, function);
}

struct lookup_q {
	struct codetypes *ct;
	const char *function;
	struct func_types *out;
	bool found;
	Dwarf_Off cus[4];	/* the units that define it */
	int nr_cus;
};

/* Every definition of the function (one per CU that has it): its types. */
static int lookup_fn(Dwarf_Die *die, void *arg)
{
	struct lookup_q *q = arg;

	if (dwarf_tag(die) != DW_TAG_subprogram)
		return 0;
	if (die_is_function(die, q->function)) {
		Dwarf_Die cu;

		q->found = true;
		walk(q->ct, die, q->out, 0);
		if (dwarf_diecu(die, &cu, NULL, NULL) && q->nr_cus < (int)(sizeof(q->cus) /
									  sizeof(q->cus[0])))
			q->cus[q->nr_cus++] = dwarf_dieoffset(&cu);
	}
	return 0;
}

/* The struct types the file-scope variables of unit CU lead to through a pointer or an array. */
static const struct unit_globals *unit_globals(struct codetypes *ct, Dwarf_Off cu_off)
{
	struct unit_globals *g;
	Dwarf_Die cu, child, t;
	char qname[128];
	unsigned int via;

	for (g = ct->globals; g; g = g->next)
		if (g->cu_off == cu_off)
			return g;
	g = xcalloc(1, sizeof(*g));
	g->cu_off = cu_off;
	g->next = ct->globals;
	ct->globals = g;
	if (!dwarf_offdie(ct->dw, cu_off, &cu) || dwarf_child(&cu, &child) != 0)
		return g;
	do {
		if (dwarf_tag(&child) != DW_TAG_variable ||
		    !strip_to_struct(ct, &child, false, &t, qname, sizeof(qname), &via) || !via)
			continue;
		g->qname = xrealloc(g->qname, (g->n + 1) * sizeof(*g->qname));
		memcpy(g->qname[g->n++], qname, sizeof(qname));
	} while (dwarf_siblingof(&child, &child) == 0);
	return g;
}

static void add_globals(struct codetypes *ct, Dwarf_Off cu_off, struct func_types *out)
{
	const struct unit_globals *g = unit_globals(ct, cu_off);

	for (int i = 0; i < g->n; i++) {
		int had = out->nr;

		if (!add_name(out, g->qname[i], false, false, false))
			return;
		if (out->nr > had)
			out->t[had].global = true;
	}
}

static int cmp_func_ent(const void *a, const void *b)
{
	const struct func_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int add_func_ent(Dwarf_Die *die, void *arg)
{
	struct codetypes *ct = arg;
	Dwarf_Attribute at;
	const char *name;

	if (dwarf_tag(die) != DW_TAG_subprogram ||
	    !(name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at))))
		return 0;
	if (!(ct->nr_funcs & (ct->nr_funcs + 1)))	/* 0, 1, 3, 7...: grow */
		ct->funcs = xrealloc(ct->funcs, (2 * ct->nr_funcs + 1) * sizeof(*ct->funcs));
	ct->funcs[ct->nr_funcs].name = name;
	ct->funcs[ct->nr_funcs++].off = dwarf_dieoffset(die);
	return 0;
}

/*
 * Every top-level subprogram by name, from one pass over the units: a lookup
 * used to scan them all (most of a rules evaluation on sqlite3).
 */
static void funcs_build(struct codetypes *ct)
{
	ct->funcs_built = true;
	each_top_die(ct, add_func_ent, ct);
	if (ct->nr_funcs)
		qsort(ct->funcs, ct->nr_funcs, sizeof(*ct->funcs), cmp_func_ent);
}

/*
 * The index of the first subprogram named as FUNCTION's last component
 * (after any "::"), which *TAIL points to; nr_funcs when there is none.
 */
static size_t funcs_first(struct codetypes *ct, const char *function, const char **tail)
{
	size_t lo = 0, hi;

	if (!ct->funcs_built)
		funcs_build(ct);
	*tail = function;
	for (const char *p = function; (p = strstr(p, "::")); p += 2)
		*tail = p + 2;
	hi = ct->nr_funcs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(ct->funcs[mid].name, *tail) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int lookup_uncached(struct codetypes *ct, const char *function, struct func_types *out)
{
	struct lookup_q q = { .ct = ct, .function = function, .out = out };
	const char *tail;
	size_t lo = funcs_first(ct, function, &tail);
	bool found;

	/* its definitions in the order of the units, as a scan finds them */
	for (; lo < ct->nr_funcs && !strcmp(ct->funcs[lo].name, tail); lo++) {
		Dwarf_Die die;

		if (dwarf_offdie(ct->dw, ct->funcs[lo].off, &die))
			lookup_fn(&die, &q);
	}
	found = q.found;
	/*
	 * parameters first: they name what the function is about; the types
	 * only reached through members last
	 */
	for (int i = 0; i < out->nr; i++) {
		for (int j = i + 1; j < out->nr; j++) {
			if ((out->t[j].param && !out->t[i].param) ||
			    (!out->t[j].member && out->t[i].member)) {
				__typeof__(out->t[0]) tmp = out->t[i];

				out->t[i] = out->t[j];
				out->t[j] = tmp;
			}
		}
	}
	for (int i = 0; i < q.nr_cus; i++)
		add_globals(ct, q.cus[i], out);
	return found ? 0 : -ENOENT;
}

struct func_addr_q {
	const char *function;
	unsigned long long *addr;
};

static int func_addr_fn(Dwarf_Die *die, void *arg)
{
	struct func_addr_q *q = arg;
	Dwarf_Addr lo;

	if (dwarf_tag(die) != DW_TAG_subprogram)
		return 0;
	if (!die_is_function(die, q->function) || dwarf_lowpc(die, &lo) != 0)
		return 0;
	*q->addr = lo;
	return 1;
}

int codetypes__func_addr(struct codetypes *ct, const char *function, unsigned long long *addr)
{
	struct func_addr_q q = { function, addr };

	if (!ct || !function || !*function)
		return -ENOENT;
	return each_top_die(ct, func_addr_fn, &q);
}

/*
 * The struct a variable's type is (through arrays, typedefs and qualifiers,
 * not pointers), qualified, and its size.
 */
static bool struct_of(struct codetypes *ct, Dwarf_Die *var, char *type, size_t len,
		      Dwarf_Word *elem)
{
	Dwarf_Die t;
	unsigned int via;

	/* a pointer's target is not at the variable's address */
	return strip_to_struct(ct, var, false, &t, type, len, &via) && !(via & VIA_POINTER) &&
	       dwarf_tag(&t) != DW_TAG_union_type && dwarf_aggregate_size(&t, elem) == 0 && *elem;
}

struct global_q {
	struct codetypes *ct;
	const char *symbol;		/* global_type: by name */
	unsigned long long addr;	/* global_at: by address */
	char *type;
	size_t len;
	unsigned long long *offset;
};

static int global_at_fn(Dwarf_Die *die, void *arg)
{
	struct global_q *q = arg;
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Word total, elem;
	Dwarf_Die ty;

	if (dwarf_tag(die) != DW_TAG_variable || !dwarf_attr(die, DW_AT_location, &at) ||
	    dwarf_getlocation(&at, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_addr)
		return 0;
	if (q->addr < ops[0].number)
		return 0;
	if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, &ty) ||
	    dwarf_aggregate_size(&ty, &total) != 0)
		return 0;
	if (q->addr >= ops[0].number + total)
		return 0;
	if (!struct_of(q->ct, die, q->type, q->len, &elem))
		return -ENOENT;
	*q->offset = (q->addr - ops[0].number) % elem;
	return 1;
}

int codetypes__global_at(struct codetypes *ct, unsigned long long addr, char *type, size_t len,
			 unsigned long long *offset)
{
	struct global_q q = { .ct = ct, .addr = addr, .type = type, .len = len, .offset = offset };

	if (!ct)
		return -ENOENT;
	return each_top_die(ct, global_at_fn, &q);
}

static int global_type_fn(Dwarf_Die *die, void *arg)
{
	struct global_q *q = arg;
	Dwarf_Word elem;
	const char *name;

	if (dwarf_tag(die) != DW_TAG_variable)
		return 0;
	name = dwarf_diename(die);
	return name && !strcmp(name, q->symbol) && struct_of(q->ct, die, q->type, q->len, &elem);
}

int codetypes__global_type(struct codetypes *ct, const char *symbol, char *type, size_t len)
{
	struct global_q q = { .ct = ct, .symbol = symbol, .type = type, .len = len };

	if (!ct || !symbol || !*symbol)
		return -ENOENT;
	return each_top_die(ct, global_type_fn, &q);
}

/*
 * Whether variable DIE is in DWARF register REG at PC: held there (a
 * location list entry or a plain one; *DELTA 0), or REG plus a constant
 * (DW_OP_bregN off; DW_OP_stack_value: a loop's pointer kept past the
 * object's start, *DELTA = off, the variable's value less the register's).
 */
static bool var_in_reg(Dwarf_Die *die, Dwarf_Addr pc, int reg, int64_t *delta)
{
	Dwarf_Attribute at;
	Dwarf_Op *exprs[4];
	size_t lens[4];
	int n;

	if (!dwarf_attr(die, DW_AT_location, &at))
		return false;
	n = dwarf_getlocation_addr(&at, pc, exprs, lens, 4);
	for (int i = 0; i < n; i++) {
		const Dwarf_Op *op = exprs[i];

		*delta = 0;
		if (lens[i] == 1 && op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31 &&
		    (int)(op[0].atom - DW_OP_reg0) == reg)
			return true;
		if (lens[i] == 1 && op[0].atom == DW_OP_regx && op[0].number == (Dwarf_Word)reg)
			return true;
		if (lens[i] == 2 && op[1].atom == DW_OP_stack_value &&
		    op[0].atom >= DW_OP_breg0 && op[0].atom <= DW_OP_breg31 &&
		    (int)(op[0].atom - DW_OP_breg0) == reg) {
			*delta = (int64_t)op[0].number;
			return true;
		}
	}
	return false;
}

/* A typedef or qualifier: what a pointer's target type is looked through. */
static bool see_through(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

/* The struct a pointer variable points to (one pointer, through typedefs and qualifiers). */
static bool pointee_struct(struct codetypes *ct, Dwarf_Die *var, char *type, size_t len)
{
	Dwarf_Attribute a;
	Dwarf_Die t, s;
	unsigned int via;

	if (!dwarf_attr_integrate(var, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return false;
	for (int depth = 0; depth < 8; depth++) {
		int tag = dwarf_tag(&t);

		if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		    tag == DW_TAG_rvalue_reference_type)
			return strip_to_struct(ct, &t, false, &s, type, len, &via) &&
			       !(via & VIA_POINTER);
		if (!see_through(tag))
			return false;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
			return false;
	}
	return false;
}

/*
 * Whether a pointer variable points to scalars wider than a byte or to
 * pointers (uint32_t *order, double *x, struct node **slots): an access
 * through it reads one, not a struct's member.  A byte pointer or void *
 * may be a buffer cast to a struct and is not one.
 */
static bool pointee_scalar(Dwarf_Die *var, char *type, size_t len)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	bool through = false;

	if (!dwarf_attr_integrate(var, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return false;
	for (int depth = 0; depth < 16; depth++) {
		int tag = dwarf_tag(&t);
		Dwarf_Word size;

		if (through && (tag == DW_TAG_pointer_type ||
				((tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type) &&
				 dwarf_aggregate_size(&t, &size) == 0 && size > 1))) {
			const char *name = dwarf_diename(&t);

			snprintf(type, len, "%s", tag == DW_TAG_pointer_type ? "pointer" :
						  name ? name : "scalar");
			return true;
		}
		if (tag == DW_TAG_pointer_type && !through)
			through = true;
		else if (!see_through(tag))
			return false;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
			return false;
	}
	return false;
}

/* The innermost scope's variable in REG at PC under SCOPE (blocks and inlined calls first). */
static int reg_in_scope(struct codetypes *ct, Dwarf_Die *scope, Dwarf_Addr pc, int reg,
			char *type, size_t len, int64_t *delta, int depth)
{
	Dwarf_Die child;
	int found = -ENOENT, inner;
	int64_t d;
	char scalar[128] = "";

	if (depth > 12 || dwarf_child(scope, &child) != 0)
		return -ENOENT;
	do {
		int tag = dwarf_tag(&child);

		if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
		    dwarf_haspc(&child, pc) == 1) {
			inner = reg_in_scope(ct, &child, pc, reg, type, len, delta, depth + 1);
			if (!inner)
				return 0;
			if (inner == 1 && !scalar[0])
				snprintf(scalar, sizeof(scalar), "%s", type);
		} else if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
			   found && var_in_reg(&child, pc, reg, &d)) {
			if (pointee_struct(ct, &child, type, len)) {
				*delta = d;
				found = 0;
			} else if (!scalar[0] && !pointee_scalar(&child, scalar, sizeof(scalar))) {
				scalar[0] = '\0';
			}
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	/* a struct pointer in the register anywhere in scope before a scalar one */
	if (found && scalar[0]) {
		snprintf(type, len, "%s", scalar);
		*delta = 0;
		return 1;
	}
	return found;
}

int codetypes__reg_struct(struct codetypes *ct, const char *function, unsigned long long pc,
			  int reg, char *type, size_t len, int64_t *delta)
{
	const char *tail;
	size_t lo;

	if (!ct || !function || !*function || reg < 0)
		return -ENOENT;
	for (lo = funcs_first(ct, function, &tail); lo < ct->nr_funcs && !strcmp(ct->funcs[lo].name, tail); lo++) {
		Dwarf_Die die;

		if (dwarf_offdie(ct->dw, ct->funcs[lo].off, &die) && dwarf_haspc(&die, pc) == 1)
			return reg_in_scope(ct, &die, pc, reg, type, len, delta, 0);
	}
	return -ENOENT;
}
