// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "addrsym.h"
#include "harness.h"

void test_addrsym__parse_maps(void)
{
	static const char text[] =
		"55d0c0a00000-55d0c0a01000 r--p 00000000 fd:01 123 /usr/bin/prog\n"
		"55d0c1e00000-55d0c1e21000 rw-p 00000000 00:00 0                          [heap]\n"
		"7f0000000000-7f0004000000 rw-p 00000000 00:00 0 \n"
		"7ffd10000000-7ffd10021000 rw-p 00000000 00:00 0                          [stack]\n"
		"7ffd10100000-7ffd10102000 r-xp 00000000 00:00 0                          [vdso]\n";
	struct map_entry *m = NULL;
	int n = procmap__parse(text, &m);

	if (!ASSERT_EQ(n, 5, "entries"))
		goto out;
	ASSERT_EQ(m[0].kind, MAPK_FILE, "file");
	ASSERT_STREQ(m[0].path, "/usr/bin/prog", "path");
	ASSERT_EQ(m[1].kind, MAPK_HEAP, "heap");
	ASSERT_EQ(m[2].kind, MAPK_ANON, "anonymous");
	ASSERT_EQ(m[3].kind, MAPK_STACK, "stack");
	ASSERT_EQ(m[4].kind, MAPK_OTHER, "vdso");
	ASSERT_TRUE(procmap__find(m, n, 0x7f0001000000) == &m[2], "inside the anon map");
	ASSERT_TRUE(procmap__find(m, n, 0x7f0004000000) == NULL, "end is exclusive");
	ASSERT_TRUE(procmap__find(m, n, 0x1000) == NULL, "below everything");
out:
	free(m);
}

struct ut_inner {
	short s;
	int v[4];
};

struct ut_global {
	long a;
	struct ut_inner in[2];
} ut_global_var;

void test_addrsym__data_names_members(void)
{
	struct addrsym *s = addrsym__new(getpid());
	char buf[96];

	if (!ASSERT_NOT_NULL(s, "symboliser on this process"))
		return;
	ASSERT_OK(addrsym__data(s, (uintptr_t)&ut_global_var.a, buf, sizeof(buf)), "a");
	ASSERT_STREQ(buf, "ut_global_var.a", "first member");
	ASSERT_OK(addrsym__data(s, (uintptr_t)&ut_global_var.in[1].v[2] + 1, buf, sizeof(buf)),
		  "inside an array element");
	ASSERT_STREQ(buf, "ut_global_var.in[1].v[2]", "nested path");
	ASSERT_ERR(addrsym__data(s, (uintptr_t)buf, buf, sizeof(buf)), "a stack address");
	addrsym__free(s);
}
