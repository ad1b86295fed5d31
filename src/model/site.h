/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a sample points: the kind of mapping, and a symbolised code site. */
#ifndef __MA_MODEL_SITE_H
#define __MA_MODEL_SITE_H

#include <stdint.h>

enum map_kind { MAPK_HEAP, MAPK_STACK, MAPK_ANON, MAPK_FILE, MAPK_OTHER,
		   MAPK__COUNT };
const char *map_kind__name(enum map_kind k);

/*
 * IP by its ELF symbol (the containing function, never an inlined one) with
 * the symbol's start and size, for reports that print function+offset; the
 * source line too when LINES (as SYM_LINES: a system library's only when its
 * DWARF is already loaded, as its caller is what a user changes).  Fields it cannot
 * fill are left empty.  0, or -ENOENT when IP is in no module (the vDSO is
 * none: a snapshot has no file for it).
 */
struct sym_site {
	char module[128];   /* basename of the object */
	char function[128]; /* "" when unknown */
	char file[256];	    /* source path, "" when no line info */
	int line;
	char inlined[128];  /* the function the line is in when not the symbol's
			     * (inlined there), "" when the same */
	uint64_t func_start; /* 0 when unknown */
	uint64_t func_size;
	uint64_t rel;	     /* the address as in the module's ELF file */
};

#endif
