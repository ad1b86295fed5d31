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
