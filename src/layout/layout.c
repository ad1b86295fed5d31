// SPDX-License-Identifier: GPL-2.0-only
/*
 * Struct layout from DWARF through libdw/libdwfl.
 *
 * One pass over every unit's top-level DIEs (and C++ namespaces and class
 * scopes) builds each struct, union and class once per unit; a definition
 * identical to one already seen under the same name is merged.  Type facts
 * (C spelling, size, alignment, atomic/lock) are cached per DIE, so shared
 * types are walked once per unit.  Holes and padding follow pahole's
 * definitions so that both tools print the same numbers.
 */
#include "layout/layout.h"
#include "symbols/symbolizer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "layout/layout_int.h"
#include "machine/sysinfo.h"
#include "base/util.h"

/* ---- arena ------------------------------------------------------------- */

struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char data[];
};

void *arena__alloc(struct arena_blk **a, size_t n)
{
	struct arena_blk *b = *a;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->used + n > b->cap) {
		size_t cap = n > 60000 ? n : 65536 - sizeof(*b);

		b = xmalloc(sizeof(*b) + cap);
		b->cap = cap;
		b->used = 0;
		b->next = *a;
		*a = b;
	}
	void *p = b->data + b->used;

	b->used += n;
	memset(p, 0, n);
	return p;
}

char *arena__strdup(struct arena_blk **a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena__alloc(a, n);

	memcpy(p, s, n);
	return p;
}

char *arena__printf(struct arena_blk **a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < (int)sizeof(buf))
		return arena__strdup(a, buf);

	char *p = arena__alloc(a, n + 1);

	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Concatenates up to four strings (NULL = ""), without printf. */
char *arena__cat(struct arena_blk **a, const char *s1, const char *s2, const char *s3,
		 const char *s4)
{
	const char *v[4] = { s1, s2, s3, s4 };
	size_t len[4], n = 0;
	char *p, *q;

	for (int i = 0; i < 4; i++)
		n += len[i] = v[i] ? strlen(v[i]) : 0;
	p = q = arena__alloc(a, n + 1);
	for (int i = 0; i < 4; i++) {
		memcpy(q, v[i] ? v[i] : "", len[i]);
		q += len[i];
	}
	*q = 0;
	return p;
}

void arena__free(struct arena_blk *a)
{
	while (a) {
		struct arena_blk *n = a->next;

		free(a);
		a = n;
	}
}

/* ---- uint64 -> pointer map (open addressing) ---------------------------- */

struct umap {
	uint64_t *keys; /* key + 1; 0 = empty */
	void **vals;
	uint32_t *gens; /* a slot is live only in the current generation */
	uint32_t gen;
	size_t cap, n;
};

static inline uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static void umap_grow(struct umap *m);

static void **umap_slot(struct umap *m, uint64_t key, bool insert)
{
	if (insert && (m->n + 1) * 2 > m->cap)
		umap_grow(m);
	if (!m->cap)
		return NULL;

	size_t mask = m->cap - 1, i = mix64(key) & mask;

	for (;;) {
		bool live = m->gens[i] == m->gen && m->keys[i];

		if (live && m->keys[i] == key + 1)
			return &m->vals[i];
		if (!live) {
			if (!insert)
				return NULL;
			m->keys[i] = key + 1;
			m->gens[i] = m->gen;
			m->vals[i] = NULL;
			m->n++;
			return &m->vals[i];
		}
		i = (i + 1) & mask;
	}
}

static void umap_grow(struct umap *m)
{
	struct umap old = *m;

	m->cap = old.cap ? old.cap * 2 : 1024;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	m->gens = xcalloc(m->cap, sizeof(*m->gens));
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i] && old.gens[i] == old.gen)
			*umap_slot(m, old.keys[i] - 1, true) = old.vals[i];
	free(old.keys);
	free(old.vals);
	free(old.gens);
}

static void umap_reset(struct umap *m)
{
	if (++m->gen == 0) { /* wrapped: clear for real */
		if (m->cap)
			memset(m->gens, 0xff, m->cap * sizeof(*m->gens));
		m->gen = 0;
	}
	m->n = 0;
}

static void umap_free(struct umap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->gens);
	memset(m, 0, sizeof(*m));
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* ---- the layout --------------------------------------------------------- */

struct mstruct {
	struct ma_struct pub;
	struct mstruct *hnext; /* same name hash */
	uint64_t hash;
	bool listed;
	bool files_done;
	Dwarf_Off off;	  /* the type's DIE, for decl_file resolved only once listed */
	Dwarf_Off *moffs; /* each member's DIE */
	Dwarf *dbg;	  /* the file they are in (main or dwz alternate) */
};

/* Facts about one type DIE, cached per unit. */
struct tinfo {
	const char *p, *s;  /* declaration = p NAME s */
	uint64_t size;
	uint32_t align;
	uint32_t flags;	    /* MA_M_ATOMIC | MA_M_LOCK | MA_M_POINTER | MA_M_ARRAY | CONST | VOLATILE */
	bool has_size;
	bool flex;	    /* array without a count */
	int tag;
	int nr_dims;
	uint64_t *dims;
	const char *quals;
	const char *sync_kind;
	struct mstruct *agg; /* struct/union this type is (typedefs/cv stripped), if built */
	Dwarf_Off agg_off;   /* its DIE offset, for on-demand builds */
};

struct layout {
	Dwfl *dwfl;
	int fd;
	struct arena_blk *arena;
	struct mstruct **v;
	size_t n, cap;
	struct umap names;  /* str_hash(name) -> mstruct chain */
	struct umap types;  /* die key -> tinfo (reset per unit) */
	struct umap aggs;   /* die key -> mstruct (reset per unit) */
	struct umap qnames; /* die key -> qualified C++ name (reset per unit) */
	uint32_t cacheline;
	int addr_size;
	bool big_endian;
	bool cplusplus;	    /* current unit */
	Dwarf *cur_dbg;
};

/* DIE offsets of the alternate (dwz) file live in their own space. */
static inline uint64_t die_key(const struct layout *l, Dwarf_Die *d)
{
	uint64_t alt = dwarf_cu_getdwarf(d->cu) != l->cur_dbg ? 1ULL << 62 : 0;

	return dwarf_dieoffset(d) | alt;
}

static bool attr_udata(Dwarf_Die *d, int at, uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(d, at, &a) || dwarf_formudata(&a, &w))
		return false;
	*v = w;
	return true;
}

static bool attr_flag(Dwarf_Die *d, int at)
{
	Dwarf_Attribute a;
	bool f = false;

	if (!dwarf_attr_integrate(d, at, &a))
		return false;
	return dwarf_formflag(&a, &f) == 0 && f;
}

static bool die_type(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static const char *kw(struct layout *l, int tag)
{
	if (l->cplusplus)
		return "";
	switch (tag) {
	case DW_TAG_union_type: return "union ";
	case DW_TAG_enumeration_type: return "enum ";
	default: return "struct ";
	}
}

static const char *die_name(struct layout *l, Dwarf_Die *d)
{
	if (l->cplusplus) {
		void **q = umap_slot(&l->qnames, die_key(l, d), false);

		if (q)
			return *q;
	}
	return dwarf_diename(d);
}

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

static struct tinfo *tinfo_get(struct layout *l, Dwarf_Die *d);
static bool is_aggregate_tag(int tag);
static struct mstruct *struct_build(struct layout *l, Dwarf_Die *d, const char *name);

static bool needs_space(const char *p)
{
	size_t n = strlen(p);

	return n && p[n - 1] != '*' && p[n - 1] != '(' && p[n - 1] != '&' && p[n - 1] != ' ';
}

static const char *join_decl(struct layout *l, const char *p, const char *name, const char *s)
{
	bool space = needs_space(p) && ((name && *name) || *s == '[');

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
				struct tinfo *ti = die_type(&c, &pt) ? tinfo_get(l, &pt) : NULL;

				t = ti ? join_decl(l, ti->p, NULL, ti->s) : "void *";
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
	 * Named before the pointee is resolved: a member reached again
	 * through a cycle of pointers (struct A { B *b; }, struct B
	 * { A *a; }) gets this pointer while it is in progress.
	 */
	if (tag != DW_TAG_ptr_to_member_type) {
		int pt = dwarf_tag(&td);
		const char *pn = die_name(l, &td);

		if (pn && (pt == DW_TAG_typedef || pt == DW_TAG_base_type))
			t->p = arena__cat(&l->arena, pn, needs_space(pn) ? " " : "", op, NULL);
		else if (pn && (pt == DW_TAG_structure_type || pt == DW_TAG_class_type ||
				pt == DW_TAG_union_type))
			t->p = arena__cat(&l->arena, kw(l, pt), pn, " ", op);
	}
	tt = tinfo_get(l, &td);
	if (tag == DW_TAG_ptr_to_member_type) {
		Dwarf_Die cd;
		Dwarf_Attribute a;
		const char *cn = "?";

		if (dwarf_attr_integrate(d, DW_AT_containing_type, &a) && dwarf_formref_die(&a, &cd))
			cn = die_name(l, &cd) ?: "?";
		t->p = arena__printf(&l->arena, "%s%s(%s::*", tt->p, needs_space(tt->p) ? " " : "", cn);
		t->s = arena__printf(&l->arena, ")%s", tt->s);
	} else if (tt->tag == DW_TAG_array_type || tt->tag == DW_TAG_subroutine_type) {
		t->p = arena__cat(&l->arena, tt->p, needs_space(tt->p) ? " (" : "(", op, NULL);
		t->s = arena__cat(&l->arena, ")", tt->s, NULL, NULL);
	} else {
		t->p = arena__cat(&l->arena, tt->p, needs_space(tt->p) ? " " : "", op, NULL);
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
	tt = tinfo_get(l, &td);
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
	tt = tinfo_get(l, &td);
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
		struct mstruct *ms = struct_build(l, d, name);

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
		tt = tinfo_get(l, &td);
		t->p = tt->p;
		t->s = arena__cat(&l->arena, sbuf, tt->s, NULL, NULL);
		t->align = tt->align;
		t->flags = (tt->flags & (MA_M_ATOMIC | MA_M_LOCK)) | MA_M_ARRAY;
		t->sync_kind = tt->sync_kind;
		t->agg = NULL;
	}
	uint64_t n = 1;

	for (int i = 0; i < nd; i++)
		n *= dims[i];
	t->nr_dims = nd;
	t->dims = arena__alloc(&l->arena, sizeof(uint64_t) * (nd ? nd : 1));
	memcpy(t->dims, dims, sizeof(uint64_t) * nd);
	t->flex = flex || n == 0;
	if (!attr_udata(d, DW_AT_byte_size, &t->size))
		t->size = tt && tt->has_size ? n * tt->size : 0;
	t->has_size = true;
}

/* Function types: "R" and "(params)R-suffix", for pointers to functions. */
static void tinfo_subroutine(struct layout *l, Dwarf_Die *d, struct tinfo *t)
{
	Dwarf_Die td;
	struct tinfo *tt;
	const char *ps = params_spelling(l, d);

	if (die_type(d, &td)) {
		tt = tinfo_get(l, &td);
		t->p = tt->p;
		t->s = arena__cat(&l->arena, ps, tt->s, NULL, NULL);
	} else {
		t->p = "void";
		t->s = ps;
	}
	t->align = 1;
}

static struct tinfo *tinfo_get(struct layout *l, Dwarf_Die *d)
{
	uint64_t key = die_key(l, d);
	void **slot = umap_slot(&l->types, key, false);

	if (slot && *slot)
		return *slot;

	struct tinfo *t = arena__alloc(&l->arena, sizeof(*t));
	int tag = dwarf_tag(d);
	const char *name;

	t->tag = tag;
	t->quals = "";
	/* Insert first: a pointer cycle (struct A { struct A *next; }) ends here. */
	*umap_slot(&l->types, key, true) = t;
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

/* ---- members and statistics ---------------------------------------------- */

static bool member_location(Dwarf_Die *m, uint64_t *off, bool *is_const)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	*is_const = true;
	if (!dwarf_attr_integrate(m, DW_AT_data_member_location, &a)) {
		*off = 0;
		return true;
	}
	if (dwarf_formudata(&a, &w) == 0) {
		*off = w;
		return true;
	}
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
	    (ops[0].atom == DW_OP_plus_uconst || ops[0].atom == DW_OP_constu)) {
		*off = ops[0].number;
		return true;
	}
	*is_const = false; /* virtual base: computed at run time */
	*off = 0;
	return false;
}

static void find_holes(struct ma_struct *s)
{
	int64_t cur_bf_end = (int64_t)s->size * 8, cur_bf_size = 0, last_seen = 0;
	bool in_bf = false;
	struct ma_member *last = NULL;

	s->nr_holes = s->nr_bit_holes = 0;
	s->sum_holes = s->sum_bit_holes = 0;
	s->pre_hole = s->pre_bit_hole = 0;
	if (s->kind == MA_KIND_UNION) {
		s->padding = 0;
		s->bit_padding = 0;
		if (s->nr_members) {
			uint64_t mx = 0;

			for (int i = 0; i < s->nr_members; i++)
				if (s->members[i].size > mx)
					mx = s->members[i].size;
			(void)mx; /* pahole reports no padding for unions */
		}
		return;
	}
	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		int64_t bit_start, bit_end, bit_holes = 0, byte_holes = 0;

		if (m->flags & MA_M_VIRTUAL_BASE)
			continue;
		m->hole = 0;
		m->bit_hole = 0;
		bit_start = (int64_t)m->offset * 8 + m->bit_offset;
		bit_end = bit_start + (m->bit_size ? (int64_t)m->bit_size : (int64_t)m->size * 8);
		if (in_bf) {
			int64_t bfend = bit_start < cur_bf_end ? bit_start : cur_bf_end;

			bit_holes = bfend - last_seen;
			last_seen = bfend;
		}
		if (m->bit_size) {
			int64_t aligned = (int64_t)m->offset * 8;

			if (last_seen < aligned && aligned <= bit_start) {
				byte_holes = (int64_t)m->offset - last_seen / 8;
				last_seen = aligned;
			}
			bit_holes += bit_start - last_seen;
		} else {
			byte_holes = bit_start / 8 - last_seen / 8;
		}
		last_seen = bit_end;
		if (m->bit_size) {
			in_bf = true;
			if (bit_end > cur_bf_end || (int64_t)m->size * 8 > cur_bf_size) {
				cur_bf_size = (int64_t)m->size * 8;
				cur_bf_end = (int64_t)m->offset * 8 + cur_bf_size;
				if (bit_end > cur_bf_end)
					cur_bf_end += cur_bf_size;
			}
		} else {
			in_bf = false;
			cur_bf_size = 0;
			cur_bf_end = bit_end;
		}
		if (last) {
			last->hole = byte_holes;
			last->bit_hole = bit_holes > 0 ? (uint32_t)bit_holes : 0;
		} else {
			s->pre_hole = byte_holes > 0 ? byte_holes : 0;
			s->pre_bit_hole = bit_holes > 0 ? (uint32_t)bit_holes : 0;
		}
		if (bit_holes > 0) {
			s->nr_bit_holes++;
			s->sum_bit_holes += bit_holes;
		}
		if (byte_holes > 0) {
			s->nr_holes++;
			s->sum_holes += byte_holes;
		}
		last = m;
	}
	if (in_bf) {
		int64_t bfend = (int64_t)s->size * 8 < cur_bf_end ? (int64_t)s->size * 8 : cur_bf_end;

		s->bit_padding = bfend - last_seen > 0 ? (uint32_t)(bfend - last_seen) : 0;
		last_seen = bfend;
	} else {
		s->bit_padding = 0;
	}
	s->padding = (int64_t)s->size - last_seen / 8;
}

static void struct_stats(struct ma_struct *s)
{
	s->sum_members = s->sum_bit_members = 0;
	s->nr_paddings = 0;
	s->sum_paddings = 0;
	s->nr_forced_alignments = s->nr_forced_holes = 0;
	s->sum_forced_holes = 0;
	s->nr_sync = 0;
	find_holes(s);
	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		int64_t prev_hole = i ? s->members[i - 1].hole : (int64_t)s->pre_hole;

		if (m->declared_align) {
			s->nr_forced_alignments++;
			if (prev_hole > 0) {
				s->nr_forced_holes++;
				s->sum_forced_holes += prev_hole;
			}
		}
		if (m->flags & (MA_M_ATOMIC | MA_M_LOCK))
			s->nr_sync++;
		if (m->flags & MA_M_BASE)
			continue;
		if (m->bit_size)
			s->sum_bit_members += m->bit_size;
		else
			s->sum_members += m->size;
	}
}

/* The padding pahole shows after a member whose type is directly a struct. */
int64_t layout__member_struct_padding(const struct ma_member *m)
{
	if (!(m->flags & MA_M_DIRECT_STRUCT) || !m->nested)
		return 0;
	return m->nested->padding;
}

void layout__struct_finish(struct ma_struct *s, uint32_t line)
{
	struct_stats(s);
	layout__struct_lines(s, line);
}

void layout__struct_lines(struct ma_struct *s, uint32_t line)
{
	uint64_t L = line ? line : 64;

	s->cacheline = L;
	s->cachelines = (s->size + L - 1) / L;
	s->last_cacheline = s->size % L;
	s->nr_straddling = 0;
	s->nr_paddings = 0;
	s->sum_paddings = 0;
	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		uint64_t b0 = m->offset * 8 + m->bit_offset;
		uint64_t nb = m->bit_size ? m->bit_size : m->size * 8;

		m->flags &= ~MA_M_STRADDLES;
		m->first_line = b0 / 8 / L;
		m->last_line = nb ? (b0 + nb - 1) / 8 / L : m->first_line;
		if (m->last_line != m->first_line) {
			m->flags |= MA_M_STRADDLES;
			s->nr_straddling++;
		}
		int64_t pad = layout__member_struct_padding(m);

		if (pad > 0) {
			s->nr_paddings++;
			s->sum_paddings += pad;
		}
	}
	s->nr_sync_shared_lines = 0;
	for (uint64_t ln = 0; ln < s->cachelines && s->nr_sync; ln++) {
		int sync = 0, other = 0;

		for (int i = 0; i < s->nr_members; i++) {
			const struct ma_member *m = &s->members[i];

			if (m->first_line > ln || m->last_line < ln || (!m->size && !m->bit_size))
				continue;
			if (m->flags & (MA_M_ATOMIC | MA_M_LOCK))
				sync++;
			else
				other++;
		}
		if (sync && sync + other >= 2)
			s->nr_sync_shared_lines++;
	}
	/* Arrays of it, first element line-aligned. */
	s->array_period = 0;
	s->array_straddling = 0;
	if (s->size) {
		uint64_t g = gcd64(s->size, L), p = L / g, min_lines = (s->size + L - 1) / L;

		s->array_period = p;
		for (uint64_t i = 0; i < p; i++) {
			uint64_t start = (i * s->size) % L;

			if ((start + s->size + L - 1) / L > min_lines)
				s->array_straddling++;
		}
	}
	uint64_t a = s->align ? s->align : 1;

	s->line_aligned = a % L == 0;
	uint64_t g = gcd64(a, L);

	s->max_lines_spanned = s->size ? (s->line_aligned ? (s->size + L - 1) / L
							  : (L - g + s->size + L - 1) / L)
				       : 0;
}

static struct mstruct *struct_build(struct layout *l, Dwarf_Die *d, const char *name)
{
	uint64_t key = die_key(l, d);
	void **slot = umap_slot(&l->aggs, key, false);

	if (slot)
		return *slot;

	struct mstruct *ms = arena__alloc(&l->arena, sizeof(*ms));
	struct ma_struct *s = &ms->pub;
	int tag = dwarf_tag(d);
	Dwarf_Die c;
	int cap = 0;
	uint64_t align = 0, da = 0;
	bool packed = false;

	*umap_slot(&l->aggs, key, true) = ms;
	s->name = name ? name : NULL;
	s->anonymous = !name;
	s->cplusplus = l->cplusplus;
	s->kind = tag == DW_TAG_union_type ? MA_KIND_UNION
		  : tag == DW_TAG_class_type ? MA_KIND_CLASS : MA_KIND_STRUCT;
	attr_udata(d, DW_AT_byte_size, &s->size);
	if (attr_udata(d, DW_AT_alignment, &da))
		s->declared_align = da;
	ms->off = dwarf_dieoffset(d);
	ms->dbg = dwarf_cu_getdwarf(d->cu);
	{
		int ln = 0;

		if (dwarf_decl_line(d, &ln) == 0)
			s->decl_line = ln;
	}

	if (dwarf_child(d, &c) == 0) {
		do {
			int ct = dwarf_tag(&c);
			Dwarf_Die td;
			struct ma_member *m;
			struct tinfo *ti;
			uint64_t off = 0, bs = 0, v;
			bool cst;

			if (ct != DW_TAG_member && ct != DW_TAG_inheritance)
				continue;
			if (ct == DW_TAG_member &&
			    (attr_flag(&c, DW_AT_declaration) || attr_flag(&c, DW_AT_external)))
				continue; /* C++ static member */
			if (!die_type(&c, &td))
				continue;
			if (s->nr_members == cap) {
				cap = cap ? cap * 2 : 8;
				struct ma_member *nm = arena__alloc(&l->arena, sizeof(*nm) * cap);

				Dwarf_Off *no = arena__alloc(&l->arena, sizeof(*no) * cap);

				if (s->nr_members) {
					memcpy(nm, s->members, sizeof(*nm) * s->nr_members);
					memcpy(no, ms->moffs, sizeof(*no) * s->nr_members);
				}
				s->members = nm;
				ms->moffs = no;
			}
			m = &s->members[s->nr_members++];
			ti = tinfo_get(l, &td);
			m->name = ct == DW_TAG_member ? dwarf_diename(&c) : NULL;
			m->size = ti->size;
			m->align = ti->align;
			m->flags = ti->flags;
			m->sync_kind = ti->sync_kind;
			m->qualifiers = ti->quals;
			m->nr_dims = ti->nr_dims;
			if (ti->nr_dims)
				memcpy(m->dims, ti->dims, sizeof(uint64_t) * ti->nr_dims);
			if (ti->flex && (ti->flags & MA_M_ARRAY))
				m->flags |= MA_M_FLEX;
			if (ti->agg)
				m->nested = &ti->agg->pub;
			if (dwarf_tag(&td) == DW_TAG_structure_type || dwarf_tag(&td) == DW_TAG_class_type)
				m->flags |= MA_M_DIRECT_STRUCT;
			if (attr_udata(&c, DW_AT_alignment, &v)) {
				m->declared_align = v;
				if (v > m->align)
					m->align = v;
			}
			ms->moffs[s->nr_members - 1] = dwarf_dieoffset(&c);
			{
				int ln = 0;

				if (dwarf_decl_line(&c, &ln) == 0)
					m->decl_line = ln;
			}
			if (!member_location(&c, &off, &cst))
				m->flags |= MA_M_VIRTUAL_BASE;
			if (ct == DW_TAG_inheritance) {
				m->flags |= MA_M_BASE;
				m->type_name = join_decl(l, ti->p, NULL, ti->s);
				m->decl = m->type_name;
			} else if (ti->agg && ti->agg->pub.anonymous && !ti->agg->listed &&
				   is_aggregate_tag(dwarf_tag(&td))) {
				m->flags |= MA_M_ANON; /* struct { ... } [name]; printed inline */
			}
			if (attr_udata(&c, DW_AT_bit_size, &bs) && bs) {
				uint64_t abs, unit = ti->size ? ti->size : 1, bo, ubytes;

				m->flags |= MA_M_BITFIELD;
				m->bit_size = bs;
				if (attr_udata(&c, DW_AT_data_bit_offset, &abs)) {
				} else if (attr_udata(&c, DW_AT_bit_offset, &bo)) {
					if (!attr_udata(&c, DW_AT_byte_size, &ubytes))
						ubytes = unit;
					abs = l->big_endian ? off * 8 + bo : off * 8 + ubytes * 8 - bo - bs;
				} else {
					abs = off * 8;
				}
				m->offset = abs / (unit * 8) * unit;
				m->bit_offset = abs - m->offset * 8;
			} else {
				m->offset = off;
				if (m->declared_align == 0 && m->align > 1 && off % m->align)
					packed = true;
			}
			if (ct == DW_TAG_member && !(m->flags & MA_M_BASE)) {
				m->type_name = join_decl(l, ti->p, NULL, ti->s);
				if (m->bit_size)
					m->decl = arena__printf(&l->arena, "%s%s%s:%u", ti->p,
								needs_space(ti->p) && m->name ? " " : "",
								m->name ? m->name : "", m->bit_size);
				else
					m->decl = join_decl(l, ti->p, m->name, ti->s);
			}
			if (!(m->flags & MA_M_VIRTUAL_BASE) && m->align > align)
				align = m->align;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (!align)
		align = 1;
	if (packed || (s->size % align)) {
		s->packed = align > 1;
		align = 1;
	}
	if (s->declared_align > align)
		align = s->declared_align;
	s->align = align;
	struct_stats(s);
	if (s->nr_sync)
		for (int i = 0; i < s->nr_members; i++)
			if (s->members[i].flags & MA_M_ATOMIC && s->members[i].sync_kind &&
			    !strcmp(s->members[i].sync_kind, "_Atomic"))
				s->garbled_by_pahole = true;
	layout__struct_lines(s, l->cacheline);
	return ms;
}

/* ---- dedupe and the unit walk -------------------------------------------- */

/*
 * dwarf_decl_file() reads the unit's whole line table (elfutils 0.188), so
 * it runs only for definitions that get listed, not for every duplicate.
 */
static void resolve_files(struct layout *l, struct mstruct *ms, int depth)
{
	Dwarf_Die d;
	Dwarf *dbg = ms->dbg ? ms->dbg : l->cur_dbg;

	if (ms->files_done || depth > 16)
		return;
	ms->files_done = true;
	if (dwarf_offdie(dbg, ms->off, &d))
		ms->pub.decl_file = dwarf_decl_file(&d);
	for (int i = 0; i < ms->pub.nr_members && ms->moffs; i++) {
		struct ma_member *m = &ms->pub.members[i];

		if (dwarf_offdie(dbg, ms->moffs[i], &d))
			m->decl_file = dwarf_decl_file(&d);
		if (m->nested && (m->flags & MA_M_ANON))
			resolve_files(l, (struct mstruct *)m->nested, depth + 1);
	}
}

static bool members_equal(const struct ma_struct *a, const struct ma_struct *b)
{
	if (a->size != b->size || a->nr_members != b->nr_members || a->kind != b->kind ||
	    a->align != b->align)
		return false;
	for (int i = 0; i < a->nr_members; i++) {
		const struct ma_member *x = &a->members[i], *y = &b->members[i];

		if (x->offset != y->offset || x->size != y->size || x->bit_size != y->bit_size ||
		    x->bit_offset != y->bit_offset || x->flags != y->flags)
			return false;
		if ((x->name || y->name) && (!x->name || !y->name || strcmp(x->name, y->name)))
			return false;
		if (strcmp(x->type_name, y->type_name))
			return false;
		if (x->nested && y->nested && x->nested->anonymous &&
		    !members_equal(x->nested, y->nested))
			return false;
	}
	return true;
}

static void list_struct(struct layout *l, struct mstruct *ms)
{
	struct ma_struct *s = &ms->pub;
	uint64_t h;
	void **slot;

	if (ms->listed || !s->name)
		return;
	h = str_hash(s->name);
	slot = umap_slot(&l->names, h, true);
	for (struct mstruct *o = *slot; o; o = o->hnext) {
		if (!strcmp(o->pub.name, s->name) && members_equal(&o->pub, s)) {
			o->pub.duplicates++;
			ms->listed = true;
			return;
		}
	}
	ms->listed = true;
	resolve_files(l, ms, 0);
	ms->hash = h;
	if (!*slot) {
		*slot = ms;
	} else {
		struct mstruct *o = *slot;

		while (o->hnext)
			o = o->hnext;
		o->hnext = ms;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = ms;
}

static bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* C++: record the qualified name of every type declared in a namespace or class. */
static void collect_qnames(struct layout *l, Dwarf_Die *parent, const char *prefix, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		const char *n;

		if (tag != DW_TAG_namespace && !is_aggregate_tag(tag) && tag != DW_TAG_typedef &&
		    tag != DW_TAG_enumeration_type)
			continue;
		n = dwarf_diename(&c);
		if (tag == DW_TAG_namespace) {
			const char *np = n ? (prefix ? arena__printf(&l->arena, "%s::%s", prefix, n)
						     : n)
					   : prefix; /* anonymous namespace */
			collect_qnames(l, &c, np, depth + 1);
			continue;
		}
		if (!n)
			continue;
		const char *q = prefix ? arena__printf(&l->arena, "%s::%s", prefix, n) : n;

		if (prefix)
			*umap_slot(&l->qnames, die_key(l, &c), true) = (void *)q;
		if (is_aggregate_tag(tag) && dwarf_haschildren(&c))
			collect_qnames(l, &c, q, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void walk_scope(struct layout *l, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (is_aggregate_tag(tag)) {
			const char *n;

			if (attr_flag(&c, DW_AT_declaration)) {
				continue;
			}
			n = die_name(l, &c);
			if (n) {
				uint64_t sz;

				if (!attr_udata(&c, DW_AT_byte_size, &sz))
					continue;
				struct tinfo *t = tinfo_get(l, &c);

				if (t->agg) {
					t->agg->pub.name = n;
					list_struct(l, t->agg);
				}
			}
			if (l->cplusplus && dwarf_haschildren(&c))
				walk_scope(l, &c, depth + 1);
		} else if (tag == DW_TAG_typedef) {
			Dwarf_Die td;
			const char *n = die_name(l, &c);

			if (!n || !die_type(&c, &td) || !is_aggregate_tag(dwarf_tag(&td)) ||
			    dwarf_diename(&td) || attr_flag(&td, DW_AT_declaration))
				continue;
			struct tinfo *t = tinfo_get(l, &td);

			if (t->agg && !t->agg->listed) {
				t->agg->pub.name = n;
				t->agg->pub.anonymous = true;
				list_struct(l, t->agg);
			}
		} else if (tag == DW_TAG_namespace) {
			walk_scope(l, &c, depth + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static bool lang_is_cplusplus(int lang)
{
	switch (lang) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case 0x2a: /* DW_LANG_C_plus_plus_17 */
	case 0x2b: /* DW_LANG_C_plus_plus_20 */
		return true;
	default:
		return false;
	}
}

static int layout_walk(struct layout *l, Dwarf *dbg)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	int nr = 0;

	while (dwarf_get_units(dbg, cu, &cu, NULL, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Die *top = &cudie;

		if (unit_type == DW_UT_skeleton || unit_type == DW_UT_split_compile)
			top = &subdie;
		umap_reset(&l->types);
		umap_reset(&l->aggs);
		umap_reset(&l->qnames);
		l->cplusplus = lang_is_cplusplus(dwarf_srclang(top));
		{
			uint8_t as = 0;

			if (dwarf_cu_info(cu, NULL, NULL, NULL, NULL, NULL, &as, NULL) == 0 && as)
				l->addr_size = as;
		}
		if (l->cplusplus)
			collect_qnames(l, top, NULL, 0);
		walk_scope(l, top, 0);
		nr++;
	}
	return nr;
}

const char *layout__strerror(int err)
{
	switch (err) {
	case -ENOENT: return "no such file";
	case -ENOEXEC: return "not an ELF file";
	case -ENODATA: return "no DWARF debug info";
	case -EACCES: return "permission denied";
	case -EISDIR: return "is a directory";
	default: return strerror(-err);
	}
}

int layout__load(const char *path, struct layout **out)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = symbolizer__find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	struct layout *l;
	struct stat st;
	char magic[4];
	int fd, err;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dbg;

	*out = NULL;
	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, magic, 4) != 4 || memcmp(magic, "\177ELF", 4)) {
		close(fd);
		return -ENOEXEC;
	}
	l = xcalloc(1, sizeof(*l));
	l->fd = -1;
	l->cacheline = sysinfo__cacheline();
	l->addr_size = 8;
	l->dwfl = dwfl_begin(&cb);
	if (!l->dwfl) {
		close(fd);
		err = -ENOMEM;
		goto out_free;
	}
	/* dwfl takes ownership of the descriptor. */
	lseek(fd, 0, SEEK_SET);
	mod = dwfl_report_offline(l->dwfl, "", path, fd);
	dwfl_report_end(l->dwfl, NULL, NULL);
	if (!mod) {
		err = -ENOEXEC;
		goto out_free;
	}
	dbg = dwfl_module_getdwarf(mod, &bias);
	if (!dbg) {
		err = -ENODATA;
		goto out_free;
	}
	{
		Elf *elf = dwarf_getelf(dbg);
		GElf_Ehdr eh;

		if (elf && gelf_getehdr(elf, &eh)) {
			l->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
			l->addr_size = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
		}
	}
	l->cur_dbg = dbg;
	if (layout_walk(l, dbg) == 0) {
		err = -ENODATA;
		goto out_free;
	}
	umap_free(&l->types);
	umap_free(&l->aggs);
	umap_free(&l->qnames);
	*out = l;
	return 0;
out_free:
	layout__free(l);
	return err;
}

void layout__free(struct layout *l)
{
	if (!l)
		return;
	if (l->dwfl)
		dwfl_end(l->dwfl);
	umap_free(&l->types);
	umap_free(&l->aggs);
	umap_free(&l->qnames);
	umap_free(&l->names);
	free(l->v);
	arena__free(l->arena);
	free(l);
}

static void lines_rec(struct ma_struct *s, uint32_t line, int depth)
{
	layout__struct_lines(s, line);
	if (depth > 8)
		return;
	for (int i = 0; i < s->nr_members; i++)
		if (s->members[i].nested && s->members[i].nested->anonymous &&
		    s->members[i].flags & MA_M_ANON)
			lines_rec((struct ma_struct *)s->members[i].nested, line, depth + 1);
}

void layout__set_cacheline(struct layout *l, uint32_t line)
{
	l->cacheline = line;
	for (size_t i = 0; i < l->n; i++)
		lines_rec(&l->v[i]->pub, line, 0);
}

uint32_t layout__cacheline(const struct layout *l)
{
	return l->cacheline;
}

static const char *strip_kw(const char *name)
{
	static const char *const kws[] = { "struct ", "union ", "class " };

	for (size_t i = 0; i < ARRAY_SIZE(kws); i++)
		if (!strncmp(name, kws[i], strlen(kws[i])))
			return name + strlen(kws[i]);
	return name;
}

const struct ma_struct *layout__find_struct(const struct layout *l, const char *name)
{
	const char *n = strip_kw(name);
	void **slot = umap_slot((struct umap *)&l->names, str_hash(n), false);

	for (struct mstruct *o = slot ? *slot : NULL; o; o = o->hnext)
		if (!strcmp(o->pub.name, n)) {
			if (n != name && strncmp(name, "union ", 6) == 0 && o->pub.kind != MA_KIND_UNION)
				continue;
			return &o->pub;
		}
	/* C++: "Base" finds "ns::Base" when no type is called just "Base". */
	if (!strstr(n, "::")) {
		size_t nl = strlen(n);

		for (size_t i = 0; i < l->n; i++) {
			const char *q = l->v[i]->pub.name;
			size_t ql = strlen(q);

			if (ql > nl + 2 && !strcmp(q + ql - nl, n) && q[ql - nl - 1] == ':' &&
			    q[ql - nl - 2] == ':')
				return &l->v[i]->pub;
		}
	}
	return NULL;
}

size_t layout__nr_structs(const struct layout *l)
{
	return l->n;
}

const struct ma_struct *layout__struct(const struct layout *l, size_t i)
{
	return i < l->n ? &l->v[i]->pub : NULL;
}

const struct ma_member *ma_struct__find_member(const struct ma_struct *s, const char *name)
{
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];

		if (m->name && !strcmp(m->name, name))
			return m;
		if (!m->name && m->nested && (m->flags & MA_M_ANON)) { /* transparent member */
			const struct ma_member *r = ma_struct__find_member(m->nested, name);

			if (r)
				return r;
		}
	}
	return NULL;
}

const char *ma_kind__name(enum ma_kind k)
{
	return k == MA_KIND_UNION ? "union" : k == MA_KIND_CLASS ? "class" : "struct";
}
