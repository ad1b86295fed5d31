/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function and inlined-instance scopes of one compilation unit, indexed
 * by address.  dwarf_getscopes() walks the CU's DIEs from its start for every
 * address: in an amalgamated CU (sqlite3.c, a million DIEs) that is
 * milliseconds an address, and a profile resolves thousands.  The index is
 * built by one walk of the CU, the walk dwarf_getscopes() makes (the same
 * DIEs visited, the same pruning of those not containing the address), and
 * answers by binary search over the CU's top-level ranges, then down the
 * tree.  It holds DIE offsets only, so one index serves every libdw session
 * of the same file (keyed by build-id by its user).
 */
#ifndef __MA_SCOPEIDX_H
#define __MA_SCOPEIDX_H

#include <stdint.h>
#include <elfutils/libdw.h>

struct scopeidx;

/* Walks CU (a compilation unit DIE); NULL when the CU imports units (dwz). */
/* The tags dwarf_getscopes descends into (libdw's may_have_scopes). */
bool scopeidx__descends(int tag);
struct scopeidx *scopeidx__build(Dwarf_Die *cu);
void scopeidx__free(struct scopeidx *x);
/*
 * The innermost DW_TAG_subprogram or DW_TAG_inlined_subroutine containing
 * PC (CU-relative as dwarf_getscopes takes it), as a node, or -1.
 */
int scopeidx__innermost(const struct scopeidx *x, uint64_t pc);
/* The nearest subprogram or inlined instance enclosing NODE's DIE, or -1. */
int scopeidx__outer(const struct scopeidx *x, int node);
int scopeidx__tag(const struct scopeidx *x, int node);
/* NODE's DIE, from DW (the CU's Dwarf in the caller's session): 0 or -ENOENT. */
int scopeidx__die(const struct scopeidx *x, Dwarf *dw, int node, Dwarf_Die *die);
/* Nodes (for tests and diagnostics). */
int scopeidx__count(const struct scopeidx *x);

#endif
