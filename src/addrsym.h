/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small symboliser for the evidence collectors (data-address sampling,
 * watchpoints): a live process's modules through libdwfl, function starts
 * from the ELF symbol tables, source lines from DWARF.
 */
#ifndef __MA_ADDRSYM_H
#define __MA_ADDRSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <elfutils/libdw.h>

struct addrsym;

struct addrsym_loc {
	char module[128];   /* basename of the object */
	char function[128]; /* "" when unknown */
	char file[256];	    /* source path, "" when no line info */
	int line;
	uint64_t func_start; /* 0 when unknown */
	uint64_t func_size;
};

/* Reports the modules of a live process; NULL + errno. */
struct addrsym *addrsym__new(pid_t pid);
/* Re-reads the module list (after dlopen); rate-limited by the caller. */
int addrsym__refresh(struct addrsym *s);
/* Function start and size from the symbol tables: 0 or -ENOENT. */
int addrsym__func(struct addrsym *s, uint64_t ip, uint64_t *start, uint64_t *size);
/*
 * Location; fields it cannot fill are left empty.  Source lines need the
 * module's DWARF (about 100 ms for libc's debug info): ask for them
 * (lines=true) only where the address carries weight.  0 or -ENOENT.
 */
int addrsym__resolve(struct addrsym *s, uint64_t ip, bool lines, struct addrsym_loc *loc);
/*
 * Names the global variable holding addr: "counters.b", "table[3].key",
 * "buf+12" (no DWARF).  0, or -ENOENT when addr is in no object symbol.
 */
int addrsym__data(struct addrsym *s, uint64_t addr, char *buf, size_t len);
void addrsym__free(struct addrsym *s);

/* DWARF helpers (also used by the watchpoint resolver). */
bool addrsym__peel_type(Dwarf_Die *type);	/* skips typedefs and qualifiers */
bool addrsym__die_type(Dwarf_Die *die, Dwarf_Die *type);
bool addrsym__var_type(Dwarf *dw, const char *name, Dwarf_Die *type);
bool addrsym__member_offset(Dwarf_Die *member, uint64_t *off);
bool addrsym__find_member(Dwarf_Die *type, const char *name, uint64_t *off, Dwarf_Die *mtype);

#endif
