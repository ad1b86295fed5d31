/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of the DWARF reader, shared by layout.c (units, structs,
 * members) and layout_types.c (the facts and C spelling of each type DIE).
 */
#ifndef __MA_LAYOUT_DWARF_H
#define __MA_LAYOUT_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "layout/layout.h"
#include "layout/layout_int.h"

/* uint64 -> pointer map (open addressing), emptied per unit in O(1). */
struct umap {
	uint64_t *keys; /* key + 1; 0 = empty */
	void **vals;
	uint32_t *gens; /* a slot is live only in the current generation */
	uint32_t gen;
	size_t cap, n;
};

/* The value's slot for key; with insert a new slot (NULL) is made, else NULL when absent. */
void **umap__slot(struct umap *m, uint64_t key, bool insert);

/* The file names of a unit's line table (layout_files.c). */
struct unit_files {
	const char **names;
	size_t n;
	bool from_libdw; /* the table was not readable here: dwarf_getsrcfiles() */
};

/*
 * Reads the file table of CUDIE's line program, names as dwarf_filesrc()
 * gives them.  -ENOTSUP for what only libdw reads (split or type units,
 * DWARF64, strx forms, big endian), -EINVAL when damaged, -ENOENT without one.
 */
int unit_files__read(struct layout *l, Dwarf_Die *cudie, struct unit_files *uf);

struct mstruct {
	struct ma_struct pub;
	struct mstruct *hnext; /* same name hash */
	uint64_t hash;
	bool listed;
	bool files_done;
	bool absurd;	  /* offsets or sizes past LAYOUT_MAX_BYTES: not listed */
	Dwarf_Off off;	  /* the type's DIE, for decl_file resolved only once listed */
	Dwarf_Off *moffs; /* each member's DIE */
	Dwarf *dbg;	  /* the file they are in (main or dwz alternate) */
	bool in_types;	  /* in .debug_types (a DWARF 4 type unit): offsets are there */
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
	struct mstruct *anon; /* unnamed struct/union an array or pointer (chain) leads to */
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
	struct umap files;  /* Dwarf_CU * -> struct unit_files */
	uint32_t cacheline;
	int addr_size;
	bool big_endian;
	bool cplusplus;	    /* current unit */
	Dwarf *cur_dbg;
	int dwo_missing;      /* skeleton units whose .dwo was not found */
	const char *dwo_name; /* the first of them */
	int absurd;	      /* types skipped for absurd offsets or sizes */
	int damaged;	      /* DIEs, units or .dwo files libdw could not read */
	const char *path;     /* the file being loaded (during the load only) */
	const char *const *want; /* only these names (layout__load_types), or NULL */
	int nr_want;
	bool want_first;	 /* stop once each wanted name has a definition */
};

/* DIE offsets of the alternate (dwz) file live in their own space. */
static inline uint64_t die_key(const struct layout *l, Dwarf_Die *d)
{
	uint64_t alt = dwarf_cu_getdwarf(d->cu) != l->cur_dbg ? 1ULL << 62 : 0;

	return dwarf_dieoffset(d) | alt;
}

static inline bool attr_udata(Dwarf_Die *d, int at, uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(d, at, &a) || dwarf_formudata(&a, &w))
		return false;
	*v = w;
	return true;
}

static inline bool attr_flag(Dwarf_Die *d, int at)
{
	Dwarf_Attribute a;
	bool f = false;

	/*
	 * A definition does not inherit DW_AT_declaration from the declaration
	 * its DW_AT_specification names (gcc's DWARF 4 type units: the struct
	 * is defined outside the namespace that declares it).
	 */
	if (!(at == DW_AT_declaration ? dwarf_attr(d, at, &a) : dwarf_attr_integrate(d, at, &a)))
		return false;
	return dwarf_formflag(&a, &f) == 0 && f;
}

static inline bool die_type(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die def;

	if (!dwarf_attr_integrate(d, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
		return false;
	/* a declaration standing for a type unit's type (DWARF 4 -fdebug-types-section) */
	if (dwarf_attr(out, DW_AT_signature, &a) && dwarf_formref_die(&a, &def))
		*out = def;
	return true;
}

/* "struct ", "union " or "enum " before a C type name; nothing in C++. */
static inline const char *kw(struct layout *l, int tag)
{
	if (l->cplusplus)
		return "";
	switch (tag) {
	case DW_TAG_union_type: return "union ";
	case DW_TAG_enumeration_type: return "enum ";
	default: return "struct ";
	}
}

/* A C++ type by its qualified name (ns::T), when the unit walk recorded one. */
static inline const char *die_name(struct layout *l, Dwarf_Die *d)
{
	if (l->cplusplus) {
		void **q = umap__slot(&l->qnames, die_key(l, d), false);
		Dwarf_Attribute a;
		Dwarf_Die decl;

		if (q)
			return *q;
		/* defined outside its namespace: the declaration's qualified name */
		if (dwarf_attr(d, DW_AT_specification, &a) && dwarf_formref_die(&a, &decl) &&
		    (q = umap__slot(&l->qnames, die_key(l, &decl), false)))
			return *q;
	}
	return dwarf_diename(d);
}

static inline bool is_aggregate_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* The facts of the type DIE d, cached per unit (built on first use). */
struct tinfo *tinfo__get(struct layout *l, Dwarf_Die *d);
/* Whether a type spelled p needs a space before a name ("int x", but "int *x"). */
bool decl__needs_space(const char *p);
/* The declaration "p name s" (name may be NULL: the type alone), in the arena. */
const char *decl__join(struct layout *l, const char *p, const char *name, const char *s);
/* The struct, class or union of DIE d with its members, built once per unit. */
struct mstruct *mstruct__build(struct layout *l, Dwarf_Die *d, const char *name);

#endif
