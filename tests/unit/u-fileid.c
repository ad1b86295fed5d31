// SPDX-License-Identifier: GPL-2.0-only
/*
 * A mapped file's address as in the file, read from the file itself: it
 * must be the address the dynamic linker's symbol table gives (a libc
 * function's st_value; its code the bytes in memory), and the symbolizer must hand out the same answer
 * for a second process's snapshot from its cache.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "symbols/fileid.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"

void test_fileid__libc_function(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "getpid");
	const ElfW(Sym) *sym = NULL;
	struct procmaps *m = procmaps__capture(getpid(), false);
	const struct procmap *pm;
	unsigned char id[FILEID_MAX];
	uint64_t fa = 0;
	int len = 0;
	Dl_info info;

	if (!ASSERT_TRUE(fn && m, "getpid and our maps"))
		return;
	if (!ASSERT_TRUE(dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym, "its symbol"))
		goto out;
	pm = procmaps__find(m, (uint64_t)(uintptr_t)fn);
	if (!ASSERT_TRUE(pm && pm->path[0] == '/', "mapped from a file"))
		goto out;
	ASSERT_TRUE(fileid__file_addr(m, pm, (uint64_t)(uintptr_t)fn + 3, id, &len, &fa),
		    "libc has a build-id and segments");
	ASSERT_EQ(fa, sym->st_value + 3, "the address as in the file: the symbol's value");
	ASSERT_TRUE(len > 0 && len <= FILEID_MAX, "build-id length");
	{
		uint8_t code[16];

		ASSERT_EQ(fileid__code(m, pm, (uint64_t)(uintptr_t)fn, code, sizeof(code)),
			  (int)sizeof(code), "its code, from the file");
		ASSERT_TRUE(!memcmp(code, fn, sizeof(code)), "the bytes mapped in memory");
	}
	/* outside the mapping given, and an anonymous mapping: not answered */
	ASSERT_TRUE(!fileid__file_addr(m, pm, pm->end, id, &len, &fa), "outside the mapping");
	for (int i = 0; i < m->n; i++)
		if (!m->v[i].path[0]) {
			ASSERT_TRUE(!fileid__file_addr(m, &m->v[i], m->v[i].start, id, &len, &fa),
				    "anonymous memory");
			break;
		}
out:
	procmaps__free(m);
}

void test_fileid__second_snapshot_from_cache(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "getppid");
	struct procmaps *m = procmaps__capture(getpid(), false), *m2;
	struct symbolizer *s = symbolizer__new();
	struct sampling_loc a, b;

	if (!ASSERT_TRUE(fn && m, "getppid and our maps")) {
		symbolizer__free(s);
		return;
	}
	m2 = procmaps__dup(m, getpid() + 1);
	ASSERT_EQ(symbolizer__resolve(s, m, (uint64_t)(uintptr_t)fn, false, SYM_FUNCTION, &a), 0,
		  "resolved");
	ASSERT_EQ(symbolizer__cache_hits(s), 0, "first lookup");
	ASSERT_EQ(symbolizer__resolve(s, m2, (uint64_t)(uintptr_t)fn, false, SYM_FUNCTION, &b), 0,
		  "resolved in the copy");
	ASSERT_EQ(symbolizer__cache_hits(s), 1, "from the cache, by the file's build-id");
	ASSERT_STREQ(b.function, a.function, "same function");
	ASSERT_TRUE(strstr(a.function, "getppid") != NULL, "getppid");
	ASSERT_EQ(b.rel, a.rel, "same file address");
	symbolizer__free(s);
	procmaps__free(m2);
	procmaps__free(m);
}
