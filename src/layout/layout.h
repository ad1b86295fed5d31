/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Struct layout from DWARF (libdw/libdwfl): members, holes, padding,
 * cache-line facts, false-sharing candidates.  The numbers follow pahole's
 * definitions (holes, bit holes, padding, "sum members") so that the two
 * tools agree; on top come the facts memadvise's rules need.
 */
#ifndef __MA_LAYOUT_H
#define __MA_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

enum ma_kind {
	MA_KIND_STRUCT,
	MA_KIND_UNION,
	MA_KIND_CLASS,
};

/* Member flags. */
enum {
	MA_M_BITFIELD = 1 << 0,
	MA_M_ATOMIC = 1 << 1,	/* _Atomic, atomic_*, std::atomic<> (also arrays of them) */
	MA_M_LOCK = 1 << 2,	/* pthread_mutex_t, pthread_spinlock_t, std::mutex, ... */
	MA_M_CONST = 1 << 3,
	MA_M_VOLATILE = 1 << 4,
	MA_M_BASE = 1 << 5,	/* C++ base class (DW_TAG_inheritance) */
	MA_M_VIRTUAL_BASE = 1 << 6,
	MA_M_ANON = 1 << 7,	/* type is an unnamed struct/union (printed inline); no name: transparent */
	MA_M_FLEX = 1 << 8,	/* flexible array member (or [0]) */
	MA_M_STRADDLES = 1 << 9, /* crosses a cache-line boundary */
	MA_M_POINTER = 1 << 10,
	MA_M_ARRAY = 1 << 11,
	MA_M_DIRECT_STRUCT = 1 << 12, /* the member's type is a struct/class, no typedef */
};

#define MA_MAX_DIMS 8

struct ma_struct;

struct ma_member {
	const char *name;	/* NULL for anonymous members and base classes */
	const char *type_name;	/* the type as C spells it: "unsigned int", "char [60]" */
	const char *decl;	/* the declaration without ';': "int (*fp)(int, char *)" */
	const char *decl_file;	/* may be NULL */
	unsigned int decl_line;
	uint64_t offset;	/* bytes; the storage unit's offset for bit fields */
	uint64_t size;		/* bytes; the storage unit's size for bit fields */
	uint32_t align;		/* natural (or declared) alignment in bytes */
	uint32_t declared_align; /* DW_AT_alignment of the member, 0 if none */
	uint32_t bit_size;	/* 0 unless a bit field */
	uint32_t bit_offset;	/* bit inside the storage unit, from the LSB (pahole's "off:bit") */
	int64_t hole;		/* bytes of hole after this member (< 0: overlap, C++ base tail reuse) */
	uint32_t bit_hole;	/* bits of hole after this member */
	uint32_t flags;		/* MA_M_* */
	int nr_dims;
	uint64_t dims[MA_MAX_DIMS]; /* array dimensions, 0 for a flexible one */
	const char *qualifiers; /* "const volatile _Atomic" of the member's own type, or "" */
	const char *sync_kind;	/* "_Atomic", "pthread_mutex_t", ... when ATOMIC or LOCK */
	const struct ma_struct *nested; /* struct/union type of the member (typedefs stripped) */
	/* The unnamed struct/union the member is an array of or points to, printed inline. */
	const struct ma_struct *anon_type;
	uint64_t first_line, last_line; /* cache lines it covers (by cacheline size) */
};

struct ma_struct {
	const char *name;	/* "foo", "ns::Foo", or the typedef name of an anonymous struct */
	enum ma_kind kind;
	bool anonymous;		/* no tag name (typedef'd or nested) */
	bool packed;		/* members at unnatural offsets or size not a multiple of alignment */
	bool cplusplus;
	const char *decl_file;
	unsigned int decl_line;
	uint64_t size;
	uint32_t align;		/* natural alignment or DW_AT_alignment, whichever is larger */
	uint32_t declared_align; /* DW_AT_alignment on the type, 0 if none */
	int nr_members;
	struct ma_member *members;
	/* pahole's statistics, same definitions. */
	int nr_holes, nr_bit_holes;
	uint64_t sum_holes, sum_bit_holes;
	uint64_t pre_hole;
	uint32_t pre_bit_hole;
	int64_t padding;	/* trailing bytes after the last member */
	uint32_t bit_padding;
	uint64_t sum_members;	/* bytes of non-bit-field members (no base classes) */
	uint64_t sum_bit_members; /* bits of bit-field members */
	int nr_paddings;	/* members whose struct type has trailing padding */
	uint64_t sum_paddings;
	int nr_forced_alignments, nr_forced_holes;
	uint64_t sum_forced_holes;
	/* Cache-line facts for the current cacheline size. */
	uint32_t cacheline;
	uint64_t cachelines;	/* ceil(size / line) */
	uint64_t last_cacheline; /* size % line */
	int nr_straddling;	/* members crossing a line boundary */
	int nr_sync;		/* atomic or lock members (false-sharing candidates) */
	int nr_sync_shared_lines; /* lines holding >= 2 sync members or a sync and a plain one */
	uint32_t array_period;	/* elements after which an array's placement repeats */
	uint32_t array_straddling; /* of those, elements spanning more lines than needed */
	bool line_aligned;	/* alignment guarantees every instance starts a line */
	uint64_t max_lines_spanned; /* worst case over the placements its alignment allows */
	int duplicates;		/* identical definitions merged from other units */
	/*
	 * C++ virtual bases (direct and inherited), where they are in a
	 * complete object: after the non-virtual part (nv_size bytes), as the
	 * Itanium C++ ABI places them.  Not members, not padding.  When the
	 * placement does not add up to the size, vbases_placed is false and
	 * the bytes after the non-virtual part are virtual bases and padding.
	 */
	int nr_vbases;
	struct ma_member *vbases; /* type_name, offset, size, align */
	bool vbases_placed;
	uint64_t nv_size;
	uint64_t vbases_end;
	bool garbled_by_pahole;	/* has _Atomic members (pahole 1.24 does not handle them) */
};

struct layout;

/*
 * Reads every struct, union and class with a definition in PATH (an ELF
 * executable, shared object or relocatable object; separate debug files are
 * found through build-id and .gnu_debuglink).  Returns 0 or -errno:
 * -ENOENT no such file, -ENOEXEC not ELF, -ENODATA no DWARF (stripped).
 */
int layout__load(const char *path, struct layout **out);
/*
 * As layout__load(), but builds only the types called one of NAMES (as
 * layout__find_struct() matches them: "foo", "struct foo", "ns::C", or "C"
 * for "ns::C") and what they contain: every unit's top-level names are
 * compared and nothing else is built.  layout__find_struct() then returns
 * what it would after layout__load(); types not asked for are not listed.
 * With LAYOUT_LOAD_FIRST the units after the one where each name was first
 * defined are not read, so identical definitions elsewhere are not counted
 * (ma_struct.duplicates stays 0).
 */
enum { LAYOUT_LOAD_FIRST = 1 << 0 };
int layout__load_types(const char *path, const char *const *names, int nr, unsigned int flags,
		       struct layout **out);
/* A short reason for the last layout__load() failure ("no DWARF in ..."). */
const char *layout__strerror(int err);
/*
 * Units of -gsplit-dwarf whose .dwo file was not found (their types are not
 * in L); *FIRST is the name of one of them (or NULL).
 */
int layout__missing_dwo(const struct layout *l, const char **first);
/* Types left out because their DWARF has sizes or offsets no compiler makes. */
int layout__absurd(const struct layout *l);
/* Read errors in L's DWARF (damaged units or DIEs whose types are not in L). */
int layout__damaged(const struct layout *l);
void layout__free(struct layout *l);

/* Recomputes the cache-line facts for LINE bytes (default sysinfo__cacheline()). */
void layout__set_cacheline(struct layout *l, uint32_t line);
uint32_t layout__cacheline(const struct layout *l);

/* First type called NAME ("foo", "struct foo", "union u", "ns::C"), or NULL. */
const struct ma_struct *layout__find_struct(const struct layout *l, const char *name);
size_t layout__nr_structs(const struct layout *l);
/* In the order first seen in the debug info. */
const struct ma_struct *layout__struct(const struct layout *l, size_t i);
#define layout__for_each_struct(l, i, s) \
	for ((i) = 0; (i) < layout__nr_structs(l) && ((s) = layout__struct(l, i)); (i)++)

/* The member called NAME (searching anonymous members too), or NULL. */
const struct ma_member *ma_struct__find_member(const struct ma_struct *s, const char *name);
const char *ma_kind__name(enum ma_kind k);

/* A reorganisation proposal. */
struct layout_reorg {
	struct ma_struct *s;	/* the proposed layout (members in the new order) */
	uint64_t old_size, new_size;
	uint64_t old_cachelines, new_cachelines;
	int nr_hot;		/* members kept first */
	struct arena_blk *arena;
};
/*
 * Packs S's holes, keeping the members named in HOT (NULL-terminated, may be
 * NULL) first and in that order.  Returns 0, or -ENOENT when a hot name is
 * not a member (*bad_name set), -EINVAL for unions and classes with virtual
 * bases.
 */
int layout__reorganize(const struct layout *l, const struct ma_struct *s, const char *const *hot,
		       struct layout_reorg *out, const char **bad_name);
void layout_reorg__free(struct layout_reorg *r);

/* Output (cmd_layout and reports). */
struct layout_print_opts {
	bool notes;	/* memadvise's own notes after the pahole-style footer */
	bool compile;	/* print only a C declaration (no statistics) */
};
void ma_struct__print_text(const struct ma_struct *s, uint32_t line,
			   const struct layout_print_opts *o, FILE *f);
struct json_object *ma_struct__to_json(const struct ma_struct *s);

#endif
