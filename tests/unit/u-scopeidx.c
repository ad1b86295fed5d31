// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CU scope index against libdw's own walk: for addresses throughout the
 * unit-test binary (built with -O2 -g, so with inlined instances), the
 * innermost function or inlined instance dwarf_getscopes() finds and the
 * index finds are the same DIE, and so is the next one out
 * (dwarf_getscopes_die()).
 */
#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <elfutils/libdw.h>

#include "harness.h"
#include "symbols/scopeidx.h"

/* What the symbolizer used to take from dwarf_getscopes: the innermost function scope. */
static Dwarf_Off walk_innermost(Dwarf_Die *cu, uint64_t pc, int *tag)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Off off = 0;
	int n = dwarf_getscopes(cu, pc, &scopes);

	*tag = 0;
	for (int i = 0; i < n; i++) {
		int t = dwarf_tag(&scopes[i]);

		if (t == DW_TAG_subprogram || t == DW_TAG_inlined_subroutine) {
			off = dwarf_dieoffset(&scopes[i]);
			*tag = t;
			break;
		}
	}
	free(scopes);
	return off;
}

static Dwarf_Off walk_outer(Dwarf *dw, Dwarf_Off inst)
{
	Dwarf_Die die, *outer = NULL;
	Dwarf_Off off = 0;
	int m;

	if (!dwarf_offdie(dw, inst, &die))
		return 0;
	m = dwarf_getscopes_die(&die, &outer);
	for (int k = 1; k < m; k++) {
		int t = dwarf_tag(&outer[k]);

		if (t == DW_TAG_subprogram || t == DW_TAG_inlined_subroutine) {
			off = dwarf_dieoffset(&outer[k]);
			break;
		}
	}
	free(outer);
	return off;
}

static Dwarf_Off node_off(const struct scopeidx *x, Dwarf *dw, int node)
{
	Dwarf_Die die;

	return scopeidx__die(x, dw, node, &die) ? 0 : dwarf_dieoffset(&die);
}

void test_scopeidx__agrees_with_getscopes(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	long checked = 0, inlined = 0, bad = 0;

	if (!ASSERT_NOT_NULL(dw, "DWARF of the test binary"))
		goto out;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		struct scopeidx *x;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;

		if (!dwarf_offdie(dw, off + hsize, &cu))
			break;
		off = next;
		x = scopeidx__build(&cu);
		if (!x)
			continue;
		while ((r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
			/* a prime step: every alignment, and every function of some size */
			for (uint64_t pc = lo; pc < hi; pc += 29) {
				int tag, k = scopeidx__innermost(x, pc);
				Dwarf_Off want = walk_innermost(&cu, pc, &tag);

				checked++;
				if (node_off(x, dw, k) != want || scopeidx__tag(x, k) != tag) {
					if (bad++ < 5)
						ASSERT_EQ(node_off(x, dw, k), want, "innermost function scope");
					continue;
				}
				if (tag != DW_TAG_inlined_subroutine)
					continue;
				inlined++;
				if (node_off(x, dw, scopeidx__outer(x, k)) != walk_outer(dw, want) &&
				    bad++ < 5)
					ASSERT_EQ(node_off(x, dw, scopeidx__outer(x, k)),
						  walk_outer(dw, want), "the caller of an inlined instance");
			}
		}
		scopeidx__free(x);
	}
	ASSERT_EQ(bad, 0, "addresses where the index and the walk differ");
	ASSERT_TRUE(checked > 10000, "addresses checked");
	ASSERT_TRUE(inlined > 100, "addresses in inlined instances");
out:
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
}
