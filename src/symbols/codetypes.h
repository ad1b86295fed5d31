/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which struct types a function works on, from DWARF: the types of its
 * parameters and local variables (pointers, arrays, typedefs and qualifiers
 * stripped), parameters first; then the types their pointer and array
 * members lead to (one level).  The rules use it to tie a sampled code line
 * to the struct and member it accesses.  Last, the struct types that the
 * file-scope variables of its compilation unit lead to through a pointer or
 * an array: what a function reaches through a global table.
 */
#ifndef __MA_CODETYPES_H
#define __MA_CODETYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define CODETYPES_MAX 16

struct codetypes;

struct func_types {
	int nr;
	struct {
		char name[128];	 /* struct name as layout.h names it */
		bool param;	 /* reached through a formal parameter */
		bool member;	 /* not a variable's type: a pointer or array member's of one
				  * (c->items[i].x), listed after the variables' own */
		bool global;	 /* only a file-scope variable of the function's unit leads
				  * to it (static struct s *table), listed last */
		bool value;	 /* a variable of the type itself, or an array of them (no
				  * pointer or reference on the way): its objects can lie in
				  * the function's own frame */
	} t[CODETYPES_MAX];
};

/* Opens PATH's DWARF; NULL + errno (ENODATA: no debug info). */
struct codetypes *codetypes__open(const char *path);
void codetypes__close(struct codetypes *ct);
/* The struct types FUNCTION works on (all its definitions merged); 0 or -ENOENT. */
int codetypes__lookup(struct codetypes *ct, const char *function, struct func_types *out);

/* Link-time entry address of FUNCTION (DW_AT_low_pc); 0 or -ENOENT. */
int codetypes__func_addr(struct codetypes *ct, const char *function, unsigned long long *addr);

/*
 * The global variable covering link-time address ADDR whose type is a struct
 * or an array of structs: the struct's name and the offset of ADDR inside
 * the element it falls in.  0 or -ENOENT.
 */
int codetypes__global_at(struct codetypes *ct, unsigned long long addr, char *type, size_t len,
			 unsigned long long *offset);

/* The struct type (through arrays and typedefs) of the global variable SYMBOL; 0 or -ENOENT. */
int codetypes__global_type(struct codetypes *ct, const char *symbol, char *type, size_t len);

/*
 * The struct a pointer variable of FUNCTION points to when DWARF register
 * REG holds it at link-time address PC (its location there, in the
 * innermost block or inlined call around PC): what an access through that
 * register works on.  *DELTA: the variable's value less the register's (0
 * when held there; -3 when f is rax - 3: rax points 3 bytes into *f).
 * 0; 1 when no struct pointer is there but a pointer to scalars wider than
 * a byte or to pointers is (uint32_t *order: TYPE names the scalar,
 * "pointer" for one; what the register reaches is no struct's member); or
 * -ENOENT.
 */
int codetypes__reg_struct(struct codetypes *ct, const char *function, unsigned long long pc,
			  int reg, char *type, size_t len, int64_t *delta);

#endif
