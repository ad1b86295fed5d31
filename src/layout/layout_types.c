// SPDX-License-Identifier: GPL-2.0-only
/*
 * The facts of each type DIE: its C spelling (as "p NAME s"), size,
 * alignment, dimensions, and whether it is a pointer, an atomic or a lock.
 * Cached per DIE and unit, so shared types are walked once per unit.
 */
#include <stdio.h>
#include <string.h>

#include "layout/layout_dwarf.h"
#include "base/util.h"

static uint32_t base_align(uint64_t size, int enc)
{
	if (enc == DW_ATE_complex_float)
		size /= 2;
	if (size > 16)
		return 16;
	if (size == 0)
		return 1;
	/* Round up to a power of two (e.g. 10-byte long double on i386 is 12/4; x86-64 is 16). */
	uint32_t a = 1;

	while (a < size)
		a <<= 1;
	return a;
}

bool decl__needs_space(const char *p)
{
	size_t n = strlen(p);

	return n && p[n - 1] != '*' && p[n - 1] != '(' && p[n - 1] != '&' && p[n - 1] != ' ';
}

const char *decl__join(struct layout *l, const char *p, const char *name, const char *s)
{
	bool space = decl__needs_space(p) && ((name && *name) || *s == '[');

	return arena__cat(&l->arena, p, space ? " " : "", name, s);
}

static const char *params_spelling(struct layout *l, Dwarf_Die *fn)
{
	Dwarf_Die c;
	char buf[1024];
	size_t n = 0;
	int nr = 0;

	buf[0] = 0;
	if (dwarf_child(fn, &c) == 0) {
		do {
			const char *t;

			if (dwarf_tag(&c) == DW_TAG_formal_parameter) {
				Dwarf_Die pt;
				struct tinfo *ti = die_type(&c, &pt) ? tinfo__get(l, &pt) : NULL;

				t = ti ? decl__join(l, ti->p, NULL, ti->s) : "void *";
			} else if (dwarf_tag(&c) == DW_TAG_unspecified_parameters) {
				t = "...";
			} else {
				continue;
			}
			n += snprintf(buf + n, sizeof(buf) - n > 0 ? sizeof(buf) - n : 0, "%s%s",
				      nr++ ? ", " : "", t);
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (!nr && attr_flag(fn, DW_AT_prototyped))
		return "(void)";
	return arena__printf(&l->arena, "(%s)", buf);
}

static const char *enum_spelling(struct layout *l, Dwarf_Die *d)
{
	const char *name = die_name(l, d);
	Dwarf_Die c;
	char buf[2048];
	size_t n = 0;

	if (name)
		return arena__cat(&l->arena, kw(l, DW_TAG_enumeration_type), name, NULL, NULL);
	n += snprintf(buf, sizeof(buf), "enum {");
	if (dwarf_child(d, &c) == 0) {
		int i = 0;

		do {
			Dwarf_Attribute a;
			Dwarf_Sword sv;

			if (dwarf_tag(&c) != DW_TAG_enumerator || n >= sizeof(buf) - 64)
				continue;
			if (dwarf_attr(&c, DW_AT_const_value, &a) && dwarf_formsdata(&a, &sv) == 0)
				n += snprintf(buf + n, sizeof(buf) - n, "%s %s = %lld", i++ ? "," : "",
					      dwarf_diename(&c), (long long)sv);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	snprintf(buf + n, sizeof(buf) - n, " }");
	return arena__strdup(&l->arena, buf);
}

static bool is_lock_name(const char *n, const char **kind)
{
	static const char *const locks[] = {
		"pthread_mutex_t", "pthread_spinlock_t", "pthread_rwlock_t", "pthread_cond_t",
		"pthread_barrier_t", "sem_t", "std::mutex", "std::recursive_mutex",
		"std::timed_mutex", "std::recursive_timed_mutex", "std::shared_mutex",
		"std::shared_timed_mutex", "std::condition_variable", "mtx_t", "cnd_t",
	};

	for (size_t i = 0; i < ARRAY_SIZE(locks); i++)
		if (!strcmp(n, locks[i])) {
			*kind = locks[i];
			return true;
		}
	return false;
}

static bool is_atomic_name(const char *n, const char **kind)
{
	if (!strncmp(n, "std::atomic", 11) || !strncmp(n, "std::__atomic_base<", 19) ||
	    !strncmp(n, "atomic_", 7)) {
		*kind = n;
		return true;
	}
	return false;
}

/* data1/2/4/8 are unsigned here (255 in data1 is 255); only sdata is signed (-1 = no count). */
static int upper_bound(Dwarf_Attribute *a, Dwarf_Sword *v)
{
	Dwarf_Word w;
	unsigned int form = dwarf_whatform(a);

	if (form == DW_FORM_sdata || form == DW_FORM_implicit_const)
		return dwarf_formsdata(a, v);
	if (dwarf_formudata(a, &w))
		return -1;
	/* gcc says "no count" with an all-ones upper bound in the unsigned forms */
	if (w == (Dwarf_Word)-1)
		*v = -1;
	else
		*v = (Dwarf_Sword)w;
	return 0;
}

/* int, double, void and other types that are spelled by their name. */
static void tinfo_base(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	const char *name = dwarf_diename(d);
	uint64_t enc = 0;

	t->p = name ? name : "?";
	t->has_size = attr_udata(d, DW_AT_byte_size, &t->size);
	attr_udata(d, DW_AT_encoding, &enc);
	t->align = base_align(t->size, (int)enc);
}

/*
 * The unnamed struct or union that a pointer to or an array of TT shows
 * inline (pahole does): TT itself when spelled "struct {...}" (qualified or
 * not), what TT's own pointer or array leads to, nothing behind a typedef.
 */
static struct mstruct *anon_of(const struct tinfo *tt)
{
	if (tt->agg && strstr(tt->p, "{...}"))
		return tt->agg;
	return tt->anon;
}

/* Pointers, references and pointers to members: "T *", "T (*)[4]", "T (C::*)(...)". */
static void tinfo_pointer(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	int tag = t->tag;
	Dwarf_Die td;
	struct tinfo *tt;
	const char *op = tag == DW_TAG_pointer_type ? "*" : tag == DW_TAG_reference_type ? "&" : "&&";

	if (!attr_udata(d, DW_AT_byte_size, &t->size))
		t->size = l->addr_size;
	t->has_size = true;
	t->align = t->size ? t->size : 8;
	t->flags = MA_M_POINTER;
	if (!die_type(d, &td)) {
		t->p = arena__cat(&l->arena, "void ", op, NULL, NULL);
		return;
	}
	/*
	 * A pointer to a named type is spelled by the name alone, and the
	 * pointee is not read: reading it would walk a cycle of pointers
	 * (typedef Term -> struct Term { Clause *pWC; } -> struct Clause
	 * { Term aStatic[8]; }) and reach Term while it is still being read,
	 * with no size yet: sqlite3's WhereClause.aStatic came out as 0
	 * bytes, depending on which struct the unit walk met first.
	 */
	if (tag != DW_TAG_ptr_to_member_type) {
		int pt = dwarf_tag(&td);
		const char *pn = die_name(l, &td);

		if (pn && (pt == DW_TAG_typedef || pt == DW_TAG_base_type)) {
			t->p = arena__cat(&l->arena, pn, decl__needs_space(pn) ? " " : "", op, NULL);
			return;
		}
		if (pn && (pt == DW_TAG_structure_type || pt == DW_TAG_class_type ||
			   pt == DW_TAG_union_type)) {
			t->p = arena__cat(&l->arena, kw(l, pt), pn, " ", op);
			return;
		}
	}
	tt = tinfo__get(l, &td);
	if (tag != DW_TAG_ptr_to_member_type)
		t->anon = anon_of(tt);
	if (tag == DW_TAG_ptr_to_member_type) {
		Dwarf_Die cd;
		Dwarf_Attribute a;
		const char *cn = "?";

		if (dwarf_attr_integrate(d, DW_AT_containing_type, &a) && dwarf_formref_die(&a, &cd))
			cn = die_name(l, &cd) ?: "?";
		t->p = arena__printf(&l->arena, "%s%s(%s::*", tt->p, decl__needs_space(tt->p) ? " " : "", cn);
		t->s = arena__printf(&l->arena, ")%s", tt->s);
	} else if (tt->tag == DW_TAG_array_type || tt->tag == DW_TAG_subroutine_type) {
		t->p = arena__cat(&l->arena, tt->p, decl__needs_space(tt->p) ? " (" : "(", op, NULL);
		t->s = arena__cat(&l->arena, ")", tt->s, NULL, NULL);
	} else {
		t->p = arena__cat(&l->arena, tt->p, decl__needs_space(tt->p) ? " " : "", op, NULL);
		t->s = tt->s;
	}
}

/* const, volatile, restrict, _Atomic: the qualified type's facts with the qualifier added. */
static void tinfo_qualified(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	int tag = t->tag;
	Dwarf_Die td;
	struct tinfo *tt;
	const char *q = tag == DW_TAG_const_type ? "const" : tag == DW_TAG_volatile_type ? "volatile"
		: tag == DW_TAG_restrict_type ? "restrict" : tag == DW_TAG_atomic_type ? "_Atomic" : "const";

	if (!die_type(d, &td)) {
		t->p = arena__cat(&l->arena, q, " void", NULL, NULL);
		t->quals = q;
		return;
	}
	tt = tinfo__get(l, &td);
	*t = *tt;
	t->tag = tag;
	t->quals = *tt->quals ? arena__cat(&l->arena, q, " ", tt->quals, NULL) : q;
	if (tt->flags & MA_M_POINTER && tt->tag != DW_TAG_typedef) {
		t->p = arena__cat(&l->arena, tt->p, q, " ", NULL);
	} else {
		t->p = arena__cat(&l->arena, q, " ", tt->p, NULL);
	}
	/* Only the qualified type's own qualifiers; pointers reset them. */
	if (tag == DW_TAG_const_type)
		t->flags |= MA_M_CONST;
	if (tag == DW_TAG_volatile_type)
		t->flags |= MA_M_VOLATILE;
	if (tag == DW_TAG_atomic_type) {
		t->flags |= MA_M_ATOMIC;
		t->sync_kind = "_Atomic";
	}
}

/* A typedef has its target's facts under its own name (which may make it a lock or an atomic). */
static void tinfo_typedef(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	const char *name = die_name(l, d);
	Dwarf_Die td;
	struct tinfo *tt;

	t->p = name ? name : "?";
	if (!die_type(d, &td)) { /* typedef void T */
		return;
	}
	tt = tinfo__get(l, &td);
	t->size = tt->size;
	t->has_size = tt->has_size;
	t->align = tt->align;
	t->flags = tt->flags & ~(MA_M_CONST | MA_M_VOLATILE);
	t->flex = tt->flex;
	t->nr_dims = tt->nr_dims;
	t->dims = tt->dims;
	t->sync_kind = tt->sync_kind;
	t->agg = tt->agg;
	t->agg_off = tt->agg_off;
	t->anon = NULL; /* spelled by the typedef's name */
	t->quals = tt->quals;
	if (name && is_lock_name(name, &t->sync_kind))
		t->flags |= MA_M_LOCK;
	else if (name && !(t->flags & (MA_M_ATOMIC | MA_M_POINTER)) && is_atomic_name(name, &t->sync_kind))
		t->flags |= MA_M_ATOMIC;
}

/* struct, class and union: built here when defined, so their alignment is known. */
static void tinfo_aggregate(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	int tag = t->tag;
	const char *name = die_name(l, d);

	if (name)
		t->p = arena__cat(&l->arena, kw(l, tag), name, NULL, NULL);
	else
		t->p = tag == DW_TAG_union_type ? "union {...}" : "struct {...}";
	t->has_size = attr_udata(d, DW_AT_byte_size, &t->size);
	if (t->has_size && !attr_flag(d, DW_AT_declaration)) {
		struct mstruct *ms = mstruct__build(l, d, name);

		if (ms) {
			t->agg = ms;
			t->align = ms->pub.align;
			if (ms->pub.nr_sync && name && (is_lock_name(name, &t->sync_kind)))
				t->flags |= MA_M_LOCK;
		}
	} else {
		t->align = 1;
	}
	t->agg_off = dwarf_dieoffset(d);
	if (name && is_lock_name(name, &t->sync_kind))
		t->flags |= MA_M_LOCK;
	else if (name && l->cplusplus && is_atomic_name(name, &t->sync_kind))
		t->flags |= MA_M_ATOMIC;
	if (!t->align)
		t->align = 1;
}

/* A named enum is spelled by its name, an anonymous one with its enumerators. */
static void tinfo_enum(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	t->p = enum_spelling(l, d);
	t->has_size = attr_udata(d, DW_AT_byte_size, &t->size);
	t->align = base_align(t->size, 0);
}

/* Arrays: the dimensions, the "[N][M]" suffix and the size (a flexible array has none). */
static void tinfo_array(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	Dwarf_Die c, td;
	struct tinfo *tt = NULL;
	uint64_t dims[MA_MAX_DIMS];
	int nd = 0;
	char sbuf[256];
	size_t sn = 0;
	bool flex = false;

	if (dwarf_child(d, &c) == 0) {
		do {
			int ct = dwarf_tag(&c);
			uint64_t cnt = 0, ub;
			Dwarf_Attribute a;
			Dwarf_Sword sub;

			if (ct != DW_TAG_subrange_type && ct != DW_TAG_enumeration_type)
				continue;
			if (attr_udata(&c, DW_AT_count, &cnt)) {
			} else if (dwarf_attr(&c, DW_AT_upper_bound, &a) &&
				   upper_bound(&a, &sub) == 0) {
				ub = (uint64_t)sub;
				uint64_t lb = 0;

				attr_udata(&c, DW_AT_lower_bound, &lb);
				cnt = sub < 0 ? 0 : ub - lb + 1;
			} else {
				flex = true;
			}
			if (nd < MA_MAX_DIMS)
				dims[nd++] = cnt;
			if (sn < sizeof(sbuf) - 24) {
				if (!cnt && (flex || nd == 1))
					sn += snprintf(sbuf + sn, sizeof(sbuf) - sn, flex ? "[]" : "[0]");
				else
					sn += snprintf(sbuf + sn, sizeof(sbuf) - sn, "[%llu]",
						       (unsigned long long)cnt);
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	sbuf[sn] = 0;
	if (die_type(d, &td)) {
		tt = tinfo__get(l, &td);
		t->p = tt->p;
		t->s = arena__cat(&l->arena, sbuf, tt->s, NULL, NULL);
		t->align = tt->align;
		t->flags = (tt->flags & (MA_M_ATOMIC | MA_M_LOCK)) | MA_M_ARRAY;
		t->sync_kind = tt->sync_kind;
		t->agg = NULL;
		t->anon = anon_of(tt);
	}
	uint64_t n = 1;

	for (int i = 0; i < nd; i++) {
		if (layout__mul(n, dims[i], &n))
			n = LAYOUT_MAX_BYTES + 1; /* damaged: the member will be refused */
	}
	t->nr_dims = nd;
	t->dims = arena__alloc(&l->arena, sizeof(uint64_t) * (nd ? nd : 1));
	memcpy(t->dims, dims, sizeof(uint64_t) * nd);
	t->flex = flex || n == 0;
	if (attr_udata(d, DW_AT_byte_size, &t->size))
		;
	else if (!tt || !tt->has_size)
		t->size = 0;
	else if (layout__mul(n, tt->size, &t->size))
		t->size = LAYOUT_MAX_BYTES + 1;
	t->has_size = true;
}

/* Function types: "R" and "(params)R-suffix", for pointers to functions. */
static void tinfo_subroutine(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	Dwarf_Die td;
	struct tinfo *tt;
	const char *ps = params_spelling(l, d);

	if (die_type(d, &td)) {
		tt = tinfo__get(l, &td);
		t->p = tt->p;
		t->s = arena__cat(&l->arena, ps, tt->s, NULL, NULL);
	} else {
		t->p = "void";
		t->s = ps;
	}
	t->align = 1;
}

struct tinfo *tinfo__get(struct layout *l, Dwarf_Die *d)
{
	uint64_t key = die_key(l, d);
	void **slot = umap__slot(&l->types, key, false);

	if (slot && *slot)
		return *slot;

	struct tinfo *t = arena__alloc(&l->arena, sizeof(*t));
	int tag = dwarf_tag(d);
	const char *name;

	t->tag = tag;
	t->quals = "";
	/* Insert first: a pointer cycle (struct A { struct A *next; }) ends here. */
	*umap__slot(&l->types, key, true) = t;
	t->p = "?";
	t->s = "";

	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_unspecified_type:
		tinfo_base(l, d, t);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		tinfo_pointer(l, d, t);
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
		tinfo_qualified(l, d, t);
		break;
	case DW_TAG_typedef:
		tinfo_typedef(l, d, t);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		tinfo_aggregate(l, d, t);
		break;
	case DW_TAG_enumeration_type:
		tinfo_enum(l, d, t);
		break;
	case DW_TAG_array_type:
		tinfo_array(l, d, t);
		break;
	case DW_TAG_subroutine_type:
		tinfo_subroutine(l, d, t);
		break;
	default:
		name = dwarf_diename(d);
		t->p = name ? name : "?";
		t->align = 1;
		break;
	}
	if (!t->align)
		t->align = 1;
	return t;
}
