/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Data addresses by name for the evidence collectors (data-address sampling,
 * watchpoints): the global variable from the ELF symbol tables, the member
 * path from DWARF.  Code addresses are the symbolizer's (symbolizer.h).
 */
#ifndef __MA_ADDRSYM_H
#define __MA_ADDRSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <elfutils/libdw.h>

struct symbolizer;
struct procmaps;

/*
 * Names the global variable holding addr: "counters.b", "table[3].key",
 * "buf+12" (no DWARF).  0, or -ENOENT when addr is in no object symbol.
 */
int addrsym__data(struct symbolizer *s, const struct procmaps *maps, uint64_t addr, char *buf,
		  size_t len);

/*
 * The same, with the variable's declaration (DWARF) into FILE and *LINE;
 * FILE is "" when unknown.
 */
int addrsym__data_decl(struct symbolizer *s, const struct procmaps *maps, uint64_t addr,
		       char *buf, size_t len, char *file, size_t flen, int *line);

/* DWARF helpers (also used by the watchpoint resolver). */
bool addrsym__peel_type(Dwarf_Die *type);	/* skips typedefs and qualifiers */
bool addrsym__die_type(Dwarf_Die *die, Dwarf_Die *type);
bool addrsym__var_type(Dwarf *dw, const char *name, Dwarf_Die *type);
bool addrsym__member_offset(Dwarf_Die *member, uint64_t *off);
bool addrsym__find_member(Dwarf_Die *type, const char *name, uint64_t *off, Dwarf_Die *mtype);

#endif
