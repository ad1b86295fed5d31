// SPDX-License-Identifier: GPL-2.0-only
/*
 * The struct types a function works on, named as layout.h names them:
 * qualified by the namespaces and classes they are declared in, anonymous
 * namespaces left out, parameters first.
 */
#include "harness.h"
#include "symbols/codetypes.h"

static int find(const struct func_types *ft, const char *name)
{
	for (int i = 0; i < ft->nr; i++)
		if (!strcmp(ft->t[i].name, name))
			return i;
	return -1;
}

void test_codetypes__qualified_names(void)
{
	const char *bin = test__build_fixture("codetypes_cc.cc", "codetypes_cc", "-g -O0");
	struct codetypes *ct = bin ? codetypes__open(bin) : NULL;
	struct func_types ft;
	int k;

	if (!ASSERT_NOT_NULL(ct, "open the fixture's DWARF"))
		return;
	if (!ASSERT_OK(codetypes__lookup(ct, "work", &ft), "lookup"))
		goto out;
	ASSERT_EQ(ft.nr, 4, "types");
	k = find(&ft, "app::Outer::Inner");
	ASSERT_TRUE(k >= 0 && ft.t[k].param, "a class's nested type, a parameter");
	k = find(&ft, "app::Outer");
	ASSERT_TRUE(k >= 0 && ft.t[k].param, "a namespace's type, a parameter");
	k = find(&ft, "Plain");
	ASSERT_TRUE(k >= 0 && ft.t[k].param, "a type at file scope, a parameter");
	k = find(&ft, "app::Hidden");
	ASSERT_TRUE(k >= 0 && !ft.t[k].param, "an anonymous namespace left out, a variable");
	ASSERT_EQ(ft.t[3].name[0] == 'a' && !ft.t[3].param, 1, "the variable after the parameters");
out:
	codetypes__close(ct);
}

/* The struct a register's pointer variable points to, from its DWARF location at a PC. */
void test_codetypes__reg_struct(void)
{
	const char *bin = test__build_fixture("codetypes_regs.c", "codetypes_regs", "-g -O2");
	struct codetypes *ct = bin ? codetypes__open(bin) : NULL;
	unsigned long long lo;
	char type[128];
	int64_t delta = 0;
	int stats = 0, worker = 0, other = 0;

	if (!ASSERT_NOT_NULL(ct, "open the fixture's DWARF"))
		return;
	if (!ASSERT_OK(codetypes__func_addr(ct, "work", &lo), "work's address"))
		goto out;
	for (unsigned long long pc = lo; pc < lo + 64; pc++) {
		for (int reg = 0; reg < 16; reg++) {
			if (codetypes__reg_struct(ct, "work", pc, reg, type, sizeof(type), &delta))
				continue;
			stats += !strcmp(type, "stats");
			worker += !strcmp(type, "worker");
			other += strcmp(type, "stats") && strcmp(type, "worker");
		}
	}
	ASSERT_TRUE(stats > 0, "s: a register holds a struct stats pointer");
	ASSERT_TRUE(worker > 0, "w: a register holds a struct worker pointer");
	ASSERT_EQ(other, 0, "no other struct");
	ASSERT_TRUE(codetypes__reg_struct(ct, "work", lo, 15, type, sizeof(type), &delta) != 0,
		    "r15 holds nothing at the entry");
	ASSERT_TRUE(codetypes__reg_struct(ct, "main", lo, 5, type, sizeof(type), &delta) != 0,
		    "not main's code");
	/* gather's idx: a pointer to scalars, said apart from nothing known */
	if (!ASSERT_OK(codetypes__func_addr(ct, "gather", &lo), "gather's address"))
		goto out;
	stats = 0;
	for (unsigned long long pc = lo; pc < lo + 32; pc++)
		for (int reg = 0; reg < 16; reg++)
			stats += codetypes__reg_struct(ct, "gather", pc, reg, type, sizeof(type),
						       &delta) == 1 && !strcmp(type, "unsigned int");
	ASSERT_TRUE(stats > 0, "idx: a register holds an unsigned int pointer (1)");
out:
	codetypes__close(ct);
}
