// SPDX-License-Identifier: GPL-2.0-only
/*
 * layout: fixture programs compiled now; what memadvise reads from DWARF is
 * checked against sizeof/offsetof printed by the same programs, and against
 * the known x86-64 ABI layout where C has no offsetof (bit fields).
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "layout/layout.h"
#include "layout/layout_int.h"
#include "layout/layout_dwarf.h"

static struct layout *load_fixture(const char *src, const char *out, const char *flags)
{
	const char *bin = test__build_fixture(src, out, flags);
	struct layout *l = NULL;

	if (!ASSERT_NOT_NULL(bin, "fixture build"))
		return NULL;
	if (!ASSERT_OK(layout__load(bin, &l), "layout__load"))
		return NULL;
	layout__set_cacheline(l, 64);
	return l;
}

/* Runs BIN and checks every "TYPE SIZE" / "TYPE.MEMBER OFFSET" line against L. */
static int check_against_compiler(const struct layout *l, const char *bin)
{
	char line[256], cmd[600];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s'", bin);
	p = popen(cmd, "r");
	if (!ASSERT_NOT_NULL(p, "run fixture"))
		return 0;
	while (fgets(line, sizeof(line), p)) {
		char key[128], *dot;
		unsigned long v;
		const struct ma_struct *s;

		if (sscanf(line, "%127s %lu", key, &v) != 2)
			continue;
		dot = strchr(key, '.');
		if (dot)
			*dot = 0;
		s = layout__find_struct(l, key);
		if (!ASSERT_NOT_NULL(s, key))
			continue;
		if (!dot) {
			ASSERT_EQ(s->size, v, key);
		} else {
			const struct ma_member *m = ma_struct__find_member(s, dot + 1);
			uint64_t off = 0;

			if (!ASSERT_NOT_NULL(m, dot + 1))
				continue;
			/* members of anonymous structs are relative to them */
			for (int i = 0; i < s->nr_members; i++) {
				const struct ma_member *a = &s->members[i];

				if (!a->name && a->nested && (a->flags & MA_M_ANON) &&
				    ma_struct__find_member(a->nested, dot + 1) == m)
					off = a->offset;
			}
			ASSERT_EQ(off + m->offset, v, dot + 1);
		}
		n++;
	}
	pclose(p);
	return n;
}

void test_layout__offsets_match_compiler_dwarf5(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");

	if (!l)
		return;
	ASSERT_TRUE(check_against_compiler(l, test__build_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0")) > 40,
		    "facts checked");
	layout__free(l);
}

void test_layout__offsets_match_compiler_dwarf4(void)
{
	const char *bin = test__build_fixture("layout_c.c", "layout_c4", "-g -gdwarf-4 -O0");
	struct layout *l = NULL;

	if (!ASSERT_NOT_NULL(bin, "build") || !ASSERT_OK(layout__load(bin, &l), "load"))
		return;
	ASSERT_TRUE(check_against_compiler(l, bin) > 40, "facts checked");
	layout__free(l);
}

void test_layout__holes_and_padding(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");
	const struct ma_struct *s;

	if (!l)
		return;
	s = layout__find_struct(l, "struct holes");
	if (ASSERT_NOT_NULL(s, "holes")) {
		ASSERT_EQ(s->nr_holes, 2, "nr_holes");
		ASSERT_EQ(s->sum_holes, 10, "sum_holes");
		ASSERT_EQ(s->members[0].hole, 3, "hole after a");
		ASSERT_EQ(s->members[2].hole, 7, "hole after c");
		ASSERT_EQ(s->padding, 6, "padding");
		ASSERT_EQ(s->sum_members, 16, "sum members");
		ASSERT_EQ(s->cachelines, 1, "cachelines");
		ASSERT_EQ(s->last_cacheline, 32, "last cacheline");
		ASSERT_STREQ(s->members[4].type_name, "short int", "type of e");
		ASSERT_TRUE(s->decl_file && strstr(s->decl_file, "layout_c.c"), "decl_file");
		ASSERT_TRUE(s->decl_line > 0, "decl_line");
		ASSERT_TRUE(s->members[1].decl_line == s->decl_line + 2, "member decl_line");
	}
	layout__free(l);
}

static void check_bits(const struct layout *l)
{
	const struct ma_struct *s = layout__find_struct(l, "bits");

	if (!ASSERT_NOT_NULL(s, "bits"))
		return;
	ASSERT_EQ(s->members[0].bit_size, 4, "a:4");
	ASSERT_EQ(s->members[0].bit_offset, 0, "a at bit 0");
	ASSERT_EQ(s->members[1].bit_offset, 4, "b at bit 4");
	ASSERT_EQ(s->members[1].bit_hole, 1, "1-bit hole after b");
	ASSERT_EQ(s->members[3].offset, 4, "d's unit at 4");
	ASSERT_EQ(s->members[3].bit_offset, 0, "d at bit 0");
	ASSERT_EQ(s->members[3].bit_hole, 12, "12-bit hole after d");
	ASSERT_EQ(s->nr_bit_holes, 2, "bit holes");
	ASSERT_EQ(s->sum_bit_holes, 13, "sum bit holes");
	ASSERT_EQ(s->nr_holes, 1, "byte holes");
	ASSERT_EQ(s->sum_holes, 2, "sum holes");
	ASSERT_EQ(s->sum_bit_members, 27, "sum bitfield members");
	s = layout__find_struct(l, "tailbits");
	if (ASSERT_NOT_NULL(s, "tailbits")) {
		ASSERT_EQ(s->bit_padding, 31, "bit padding");
		ASSERT_EQ(s->padding, 0, "byte padding");
	}
}

void test_layout__bitfields_dwarf5(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");

	if (l)
		check_bits(l);
	layout__free(l);
}

void test_layout__bitfields_dwarf4(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c4", "-g -gdwarf-4 -O0");

	if (l)
		check_bits(l);
	layout__free(l);
}

void test_layout__unions_and_nested(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");
	const struct ma_struct *s;
	const struct ma_member *m;

	if (!l)
		return;
	s = layout__find_struct(l, "union number");
	if (ASSERT_NOT_NULL(s, "union")) {
		ASSERT_EQ(s->kind, MA_KIND_UNION, "kind");
		ASSERT_EQ(s->size, 8, "size");
		for (int i = 0; i < s->nr_members; i++)
			ASSERT_EQ(s->members[i].offset, 0, "union member offset");
	}
	s = layout__find_struct(l, "nested");
	if (ASSERT_NOT_NULL(s, "nested")) {
		ASSERT_EQ(s->nr_members, 5, "members");
		ASSERT_EQ(s->nr_paddings, 2, "nested paddings (struct inner, anonymous struct)");
		ASSERT_EQ(s->sum_paddings, 8, "sum nested paddings");
		m = ma_struct__find_member(s, "u");
		if (ASSERT_NOT_NULL(m, "u")) {
			ASSERT_TRUE(m->flags & MA_M_ANON, "u's type is inline");
			ASSERT_EQ(m->nested->kind, MA_KIND_UNION, "u is a union");
		}
		ASSERT_NOT_NULL(ma_struct__find_member(s, "q"), "member of anonymous struct");
		ASSERT_TRUE(s->members[4].name == NULL, "anonymous member has no name");
	}
	s = layout__find_struct(l, "anon_t");
	if (ASSERT_NOT_NULL(s, "typedef'd anonymous struct"))
		ASSERT_TRUE(s->anonymous, "anonymous");
	layout__free(l);
}

void test_layout__flexible_array(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");
	const struct ma_struct *s;

	if (!l)
		return;
	s = layout__find_struct(l, "flex");
	if (ASSERT_NOT_NULL(s, "flex")) {
		const struct ma_member *m = &s->members[2];

		ASSERT_TRUE(m->flags & MA_M_FLEX, "flexible");
		ASSERT_EQ(m->size, 0, "size");
		ASSERT_EQ(m->nr_dims, 1, "dims");
		ASSERT_STREQ(m->decl, "double items[]", "declaration");
		ASSERT_EQ(s->nr_holes, 1, "hole before items");
		ASSERT_EQ(s->padding, 0, "no padding");
	}
	layout__free(l);
}

void test_layout__atomics_and_locks(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");
	const struct ma_struct *s;
	const struct ma_member *m;

	if (!l)
		return;
	s = layout__find_struct(l, "sync");
	if (!ASSERT_NOT_NULL(s, "sync"))
		goto out;
	m = ma_struct__find_member(s, "refs");
	ASSERT_TRUE(m && (m->flags & MA_M_ATOMIC), "refs atomic");
	ASSERT_STREQ(m ? m->type_name : NULL, "_Atomic int", "refs type");
	ASSERT_EQ(m ? m->size : 0, 4, "refs size");
	m = ma_struct__find_member(s, "total");
	ASSERT_TRUE(m && (m->flags & MA_M_ATOMIC), "total atomic");
	ASSERT_EQ(m ? m->offset : 0, 8, "total offset");
	m = ma_struct__find_member(s, "users");
	ASSERT_TRUE(m && (m->flags & MA_M_ATOMIC), "atomic_int is atomic");
	ASSERT_STREQ(m ? m->type_name : NULL, "atomic_int", "users type");
	m = ma_struct__find_member(s, "lock");
	ASSERT_TRUE(m && (m->flags & MA_M_LOCK), "mutex is a lock");
	ASSERT_STREQ(m ? m->sync_kind : NULL, "pthread_mutex_t", "lock kind");
	m = ma_struct__find_member(s, "grid");
	if (ASSERT_NOT_NULL(m, "grid")) {
		ASSERT_EQ(m->nr_dims, 2, "2 dims");
		ASSERT_EQ(m->dims[0], 3, "dim 0");
		ASSERT_EQ(m->dims[1], 4, "dim 1");
		ASSERT_STREQ(m->type_name, "int [3][4]", "array type");
	}
	m = ma_struct__find_member(s, "name");
	ASSERT_TRUE(m && strstr(m->type_name, "const") && strstr(m->type_name, "volatile") &&
		    strstr(m->type_name, "char *"), "qualified pointer");
	m = ma_struct__find_member(s, "cb");
	ASSERT_STREQ(m ? m->decl : NULL, "int (*cb)(int, char *)", "function pointer");
	ASSERT_EQ(s->nr_sync, 4, "sync members");
	ASSERT_TRUE(s->nr_sync_shared_lines >= 1, "sync members share a line");
	ASSERT_TRUE(s->garbled_by_pahole, "pahole 1.24 cannot print it");
	ASSERT_EQ(s->nr_holes, 2, "holes");
	ASSERT_EQ(s->sum_holes, 7, "sum holes");
out:
	layout__free(l);
}

void test_layout__alignment(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");
	const struct ma_struct *s;

	if (!l)
		return;
	s = layout__find_struct(l, "aligned_member");
	if (ASSERT_NOT_NULL(s, "aligned_member")) {
		ASSERT_EQ(s->members[1].declared_align, 64, "_Alignas(64)");
		ASSERT_EQ(s->members[0].hole, 63, "forced hole");
		ASSERT_EQ(s->nr_forced_alignments, 1, "forced alignments");
		ASSERT_EQ(s->sum_forced_holes, 63, "sum forced holes");
		ASSERT_EQ(s->align, 64, "alignment");
		ASSERT_TRUE(s->line_aligned, "line aligned");
	}
	s = layout__find_struct(l, "line_aligned");
	if (ASSERT_NOT_NULL(s, "line_aligned")) {
		ASSERT_EQ(s->declared_align, 64, "aligned(64)");
		ASSERT_EQ(s->padding, 56, "padding");
		ASSERT_TRUE(s->line_aligned, "line aligned");
		ASSERT_EQ(s->array_straddling, 0, "no element straddles");
	}
	s = layout__find_struct(l, "packed_s");
	if (ASSERT_NOT_NULL(s, "packed_s")) {
		ASSERT_TRUE(s->packed, "packed");
		ASSERT_EQ(s->align, 1, "alignment 1");
		ASSERT_EQ(s->members[1].offset, 1, "b at 1");
	}
	layout__free(l);
}

void test_layout__cacheline_facts(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");
	const struct ma_struct *s;

	if (!l)
		return;
	s = layout__find_struct(l, "straddle");
	if (ASSERT_NOT_NULL(s, "straddle")) {
		ASSERT_EQ(s->cachelines, 3, "cachelines");
		ASSERT_EQ(s->nr_straddling, 1, "one member straddles");
		ASSERT_TRUE(s->members[3].flags & MA_M_STRADDLES, "w straddles");
		ASSERT_EQ(s->members[3].first_line, 1, "w first line");
		ASSERT_EQ(s->members[3].last_line, 2, "w last line");
	}
	s = layout__find_struct(l, "elem48");
	if (ASSERT_NOT_NULL(s, "elem48")) {
		ASSERT_EQ(s->array_period, 4, "period of 48-byte elements in 64-byte lines");
		ASSERT_EQ(s->array_straddling, 2, "2 of 4 straddle");
		ASSERT_FALSE(s->line_aligned, "not line aligned");
		ASSERT_EQ(s->max_lines_spanned, 2, "worst case 2 lines");
	}
	layout__set_cacheline(l, 128);
	s = layout__find_struct(l, "straddle");
	if (ASSERT_NOT_NULL(s, "straddle@128")) {
		ASSERT_EQ(s->cachelines, 2, "cachelines at 128");
		ASSERT_EQ(s->cacheline, 128, "line size");
	}
	layout__free(l);
}

void test_layout__cplusplus_bases(void)
{
	const char *bin = test__build_fixture("layout_cc.cc", "layout_cc", "-g -O0 -Wno-invalid-offsetof");
	struct layout *l = NULL;
	const struct ma_struct *s;
	const struct ma_member *m;

	if (!ASSERT_NOT_NULL(bin, "build") || !ASSERT_OK(layout__load(bin, &l), "load"))
		return;
	layout__set_cacheline(l, 64);
	ASSERT_TRUE(check_against_compiler(l, bin) == 5, "facts checked");
	s = layout__find_struct(l, "Worker");
	if (!ASSERT_NOT_NULL(s, "Worker"))
		goto out;
	ASSERT_EQ(s->kind, MA_KIND_CLASS, "class");
	ASSERT_TRUE(s->members[0].flags & MA_M_BASE, "first base");
	ASSERT_STREQ(s->members[0].type_name, "app::Base", "qualified base");
	ASSERT_EQ(s->members[1].offset, 16, "second base");
	m = ma_struct__find_member(s, "pending");
	ASSERT_TRUE(m && (m->flags & MA_M_ATOMIC), "std::atomic");
	m = ma_struct__find_member(s, "lock");
	ASSERT_TRUE(m && (m->flags & MA_M_LOCK), "std::mutex");
	ASSERT_TRUE(m && (m->flags & MA_M_STRADDLES), "the mutex straddles a line");
	ASSERT_TRUE(ma_struct__find_member(s, "instances") == NULL, "static member skipped");
	ASSERT_NOT_NULL(layout__find_struct(l, "Base"), "unqualified lookup");
out:
	layout__free(l);
}

/* Compiles the proposal and checks sizeof/offsetof of every non-bit-field member. */
static void check_reorg_compiles(const struct layout *l, const char *name, const char *const *hot)
{
	const struct ma_struct *s = layout__find_struct(l, name);
	struct layout_reorg r;
	struct layout_print_opts po = { .notes = false };
	char src[600], bin[600], cmd[2400], line[256];
	FILE *f, *p;
	int checked = 0;

	if (!ASSERT_NOT_NULL(s, name) || !ASSERT_OK(layout__reorganize(l, s, hot, &r, NULL), "reorg"))
		return;
	ASSERT_TRUE(r.new_size <= r.old_size, "not larger");
	snprintf(src, sizeof(src), "%s/reorg_%s.c", test__fixture_dir(), name);
	snprintf(bin, sizeof(bin), "%s/reorg_%s", test__fixture_dir(), name);
	f = fopen(src, "w");
	if (!ASSERT_NOT_NULL(f, "write proposal"))
		goto out;
	fprintf(f, "#include <pthread.h>\n#include <stdatomic.h>\n#include <stddef.h>\n"
		   "#include <stdio.h>\nstruct inner { double x; char y; };\n");
	ma_struct__print_text(r.s, 64, &po, f);
	fprintf(f, "int main(void)\n{\n\tprintf(\"size %%zu\\n\", sizeof(struct %s));\n", name);
	for (int i = 0; i < r.s->nr_members; i++) {
		const struct ma_member *m = &r.s->members[i];

		if (m->name && !m->bit_size)
			fprintf(f, "\tprintf(\"%s %%zu\\n\", offsetof(struct %s, %s));\n", m->name, name,
				m->name);
	}
	fprintf(f, "\treturn 0;\n}\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -std=gnu11 -Wall -Werror -o '%s' '%s' 2>&1 && '%s'", bin, src, bin);
	p = popen(cmd, "r");
	if (!ASSERT_NOT_NULL(p, "compile"))
		goto out;
	while (fgets(line, sizeof(line), p)) {
		char key[128];
		unsigned long v;

		if (sscanf(line, "%127s %lu", key, &v) != 2) {
			test__fail(__FILE__, __LINE__, "proposal for %s: %s", name, line);
			continue;
		}
		if (!strcmp(key, "size")) {
			ASSERT_EQ(r.new_size, v, "proposed size");
		} else {
			const struct ma_member *m = ma_struct__find_member(r.s, key);

			ASSERT_EQ(m ? m->offset : (uint64_t)-1, v, key);
		}
		checked++;
	}
	ASSERT_EQ(pclose(p), 0, "proposal compiles and runs");
	ASSERT_TRUE(checked > 1, "offsets checked");
out:
	layout_reorg__free(&r);
}

void test_layout__reorganize(void)
{
	struct layout *l = load_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0");
	const struct ma_struct *s;
	struct layout_reorg r;
	static const char *const hot[] = { "e", "a", NULL };
	static const char *const bad[] = { "nosuch", NULL };
	const char *badname = NULL;

	if (!l)
		return;
	s = layout__find_struct(l, "holes");
	if (ASSERT_NOT_NULL(s, "holes") && ASSERT_OK(layout__reorganize(l, s, NULL, &r, NULL), "reorg")) {
		ASSERT_EQ(r.old_size, 32, "old size");
		ASSERT_EQ(r.new_size, 16, "packed size");
		ASSERT_EQ(r.s->nr_holes, 0, "no holes left");
		layout_reorg__free(&r);
	}
	if (s && ASSERT_OK(layout__reorganize(l, s, hot, &r, NULL), "reorg --hot")) {
		ASSERT_STREQ(r.s->members[0].name, "e", "hot first");
		ASSERT_STREQ(r.s->members[1].name, "a", "hot second");
		ASSERT_EQ(r.nr_hot, 2, "hot count");
		layout_reorg__free(&r);
	}
	if (s)
		ASSERT_EQ(layout__reorganize(l, s, bad, &r, &badname), -ENOENT, "unknown hot member");
	ASSERT_STREQ(badname, "nosuch", "bad name reported");
	check_reorg_compiles(l, "holes", NULL);
	check_reorg_compiles(l, "holes", hot);
	check_reorg_compiles(l, "bits", NULL);
	check_reorg_compiles(l, "nested", NULL);
	check_reorg_compiles(l, "sync", NULL);
	check_reorg_compiles(l, "aligned_member", NULL);
	check_reorg_compiles(l, "flex", NULL);
	check_reorg_compiles(l, "straddle", NULL);
	layout__free(l);
}

void test_layout__bad_input(void)
{
	char path[700], cmd[1600];
	const char *bin = test__build_fixture("layout_c.c", "layout_c_stripped", "-O0 -s");
	struct layout *l = NULL;

	ASSERT_EQ(layout__load("/nonexistent/file", &l), -ENOENT, "missing file");
	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/layout_c.c", getenv("MA_TOP") ?: ".");
	ASSERT_EQ(layout__load(path, &l), -ENOEXEC, "not ELF");
	if (ASSERT_NOT_NULL(bin, "stripped build"))
		ASSERT_EQ(layout__load(bin, &l), -ENODATA, "stripped");
	ASSERT_TRUE(l == NULL, "no layout on error");
	/* A stripped binary whose debug info sits next to it, found via .gnu_debuglink. */
	bin = test__build_fixture("layout_c.c", "layout_c_split", "-g -O0");
	if (!ASSERT_NOT_NULL(bin, "split build"))
		return;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && objcopy --only-keep-debug layout_c_split layout_c_split.debug && "
		 "objcopy --strip-debug --add-gnu-debuglink=layout_c_split.debug layout_c_split",
		 test__fixture_dir());
	if (!ASSERT_OK(system(cmd), "objcopy"))
		return;
	if (ASSERT_OK(layout__load(bin, &l), "load through .gnu_debuglink")) {
		ASSERT_NOT_NULL(layout__find_struct(l, "holes"), "types from the debug file");
		layout__free(l);
	}
}

/* Pointer members in a cycle of structs (through typedefs) keep their type names. */
void test_layout__pointer_cycle_names(void)
{
	struct layout *l = load_fixture("layout_cycle.c", "layout_cycle", "-g -O0");
	static const char *const want[][2] = {
		{ "owner", "tree *" }, { "sh", "shared *" }, { "next", "cursor *" },
		{ "raw", "struct shared *" },
	};
	const struct ma_struct *s;

	if (!l)
		return;
	s = layout__find_struct(l, "cursor");
	if (ASSERT_NOT_NULL(s, "struct cursor")) {
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			const struct ma_member *m = ma_struct__find_member(s, want[i][0]);

			if (ASSERT_NOT_NULL(m, want[i][0]))
				ASSERT_STREQ(m->type_name ? m->type_name : "(null)", want[i][1],
					     want[i][0]);
		}
	}
	layout__free(l);
}

/* A member with an empty name (damaged DWARF) splits without looping. */
void test_layout__split_decl_empty_name(void)
{
	struct ma_member m = { .name = "", .decl = "int " };
	char type[64], name[64];

	layout__split_decl(&m, type, sizeof(type), name, sizeof(name));
	ASSERT_STREQ(type, "int", "type column");
	ASSERT_STREQ(name, "", "name column");
	m.name = "x";
	m.decl = "struct x *x";
	layout__split_decl(&m, type, sizeof(type), name, sizeof(name));
	ASSERT_STREQ(type, "struct x *", "type of a named member");
	ASSERT_STREQ(name, "x", "last match is the name");
}

/* Offsets and sizes from damaged DWARF are refused, not wrapped. */
void test_layout__absurd_arithmetic(void)
{
	uint64_t e = 0;

	ASSERT_OK(layout__span(8, 8, &e), "sane span");
	ASSERT_EQ(e, 16, "sane end");
	ASSERT_EQ(layout__span(18446744073709544606ULL, 8, &e), -ERANGE, "offset past 2^48");
	ASSERT_EQ(layout__span(8, UINT64_MAX, &e), -ERANGE, "size wraps");
	ASSERT_EQ(layout__span(LAYOUT_MAX_BYTES, 1, &e), -ERANGE, "sum past 2^48");
	ASSERT_OK(layout__bitfield_offset(0, 4, 29, 3, false, &e), "low bits, little endian");
	ASSERT_EQ(e, 0, "bit 0");
	ASSERT_EQ(layout__bitfield_offset(0, 4, 40, 3, false, &e), -ERANGE, "field past its unit");
	ASSERT_EQ(layout__bitfield_offset(UINT64_MAX / 4, 4, 0, 3, false, &e), -ERANGE,
		  "offset * 8 overflows");
	ASSERT_EQ(layout__mul(1ULL << 32, 1ULL << 32, &e), -ERANGE, "array size wraps");
	ASSERT_OK(layout__mul(10, 4, &e), "array size");
	ASSERT_EQ(e, 40, "10 x 4");
}

/*
 * The file tables read from the line program's header name every file as
 * dwarf_getsrcfiles() does, in every unit: DWARF 4 and 5, C and C++, and
 * whatever MA_LAYOUT_BINS lists (real programs).
 */
static int check_unit_files(const char *path)
{
	int fd = open(path, O_RDONLY), units = 0;
	Dwarf *dbg = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	struct layout l = { 0 };
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t ut;

	if (!ASSERT_NOT_NULL(dbg, path)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (dwarf_get_units(dbg, cu, &cu, NULL, &ut, &cudie, NULL) == 0) {
		struct unit_files uf;
		Dwarf_Files *files;
		size_t n;

		if (ut != DW_UT_compile || dwarf_getsrcfiles(&cudie, &files, &n))
			continue;
		if (!ASSERT_OK(unit_files__read(&l, &cudie, &uf), "read the file table"))
			break;
		if (!ASSERT_EQ(uf.n, n, "number of files"))
			break;
		for (size_t i = 0; i < n; i++)
			if (!ASSERT_STREQ(uf.names[i], dwarf_filesrc(files, i, NULL, NULL), path))
				break;
		units++;
	}
	arena__free(l.arena);
	dwarf_end(dbg);
	close(fd);
	return units;
}

void test_layout__unit_files_match_libdw(void)
{
	const char *bins[] = {
		test__build_fixture("layout_c.c", "layout_c5", "-g -gdwarf-5 -O0"),
		test__build_fixture("layout_c.c", "layout_c4", "-g -gdwarf-4 -O0"),
		test__build_fixture("layout_cc.cc", "layout_cc", "-g -O0 -Wno-invalid-offsetof"),
	};
	char *more = getenv("MA_LAYOUT_BINS") ? strdup(getenv("MA_LAYOUT_BINS")) : NULL;

	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++)
		if (ASSERT_NOT_NULL(bins[i], "fixture build"))
			ASSERT_TRUE(check_unit_files(bins[i]) >= 1, bins[i]);
	for (char *b = more ? strtok(more, " ") : NULL; b; b = strtok(NULL, " "))
		ASSERT_TRUE(check_unit_files(b) >= 1, b);
	free(more);
}

/*
 * An array of a struct met while that struct's typedef is still being read
 * (sqlite3's WhereClause.aStatic) has the compiler's size, and
 * --reorganize claims no bytes that are not there.
 */
void test_layout__cycle_array_size(void)
{
	const char *bin = test__build_fixture("layout_cycle_array.c", "layout_cycle_array", "-g -O0");
	struct layout *l = NULL;
	const struct ma_struct *s;
	const struct ma_member *m;
	struct layout_reorg r = { 0 };

	if (!ASSERT_NOT_NULL(bin, "build") || !ASSERT_OK(layout__load(bin, &l), "load"))
		return;
	ASSERT_EQ(check_against_compiler(l, bin), 6, "facts checked");
	s = layout__find_struct(l, "Clause");
	m = s ? ma_struct__find_member(s, "aStatic") : NULL;
	if (ASSERT_NOT_NULL(m, "Clause.aStatic")) {
		ASSERT_EQ(m->size, 8 * 24, "aStatic size");
		ASSERT_EQ(s->padding, 0, "no padding");
		if (ASSERT_OK(layout__reorganize(l, s, NULL, &r, NULL), "reorganize"))
			ASSERT_EQ(r.new_size, s->size, "nothing to save");
		layout_reorg__free(&r);
	}
	layout__free(l);
}

/* The value the fixture program printed for KEY ("KEY VALUE" lines), or -1. */
static long fixture_value(const char *bin, const char *key)
{
	char line[256], cmd[600], k[128];
	long v, r = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s'", bin);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%127s %ld", k, &v) == 2 && !strcmp(k, key))
			r = v;
	pclose(p);
	return r;
}

static char *print_to_string(const struct ma_struct *s)
{
	struct layout_print_opts po = { .notes = false };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ma_struct__print_text(s, 64, &po, f);
	fclose(f);
	return buf;
}

/* Arrays of and pointers to unnamed structs and unions are expanded, at the right offsets. */
void test_layout__anon_array_and_pointer(void)
{
	const char *bin = test__build_fixture("layout_anon.c", "layout_anon", "-g -O0");
	struct layout *l = NULL;
	const struct ma_struct *s;
	const struct ma_member *arr, *ptr, *u2;
	char *text;

	if (!ASSERT_NOT_NULL(bin, "build") || !ASSERT_OK(layout__load(bin, &l), "load"))
		return;
	ASSERT_EQ(check_against_compiler(l, bin), 4, "facts checked");
	s = layout__find_struct(l, "holder");
	arr = s ? ma_struct__find_member(s, "arr") : NULL;
	ptr = s ? ma_struct__find_member(s, "ptr") : NULL;
	u2 = s ? ma_struct__find_member(s, "u2") : NULL;
	if (!ASSERT_NOT_NULL(arr, "arr") || !ASSERT_NOT_NULL(ptr, "ptr") || !ASSERT_NOT_NULL(u2, "u2"))
		goto out;
	if (ASSERT_NOT_NULL(arr->anon_type, "element type of arr")) {
		ASSERT_EQ(arr->anon_type->size, 16, "element size");
		ASSERT_EQ(arr->anon_type->nr_holes, 1, "element hole");
	}
	if (ASSERT_NOT_NULL(ptr->anon_type, "pointee of ptr"))
		ASSERT_EQ(ptr->anon_type->size, 8, "pointee size");
	if (ASSERT_NOT_NULL(u2->anon_type, "element type of u2"))
		ASSERT_EQ(u2->anon_type->kind, MA_KIND_UNION, "union elements");
	text = print_to_string(s);
	ASSERT_TRUE(text && !strstr(text, "{...}"), "no struct {...} left");
	ASSERT_TRUE(text && strstr(text, "\t} arr[3];"), "arr expanded");
	ASSERT_TRUE(text && strstr(text, "\t} *ptr;"), "ptr expanded");
	/* the array's element at the member's offset, the pointee from 0 */
	ASSERT_TRUE(text && strstr(text, "long int           b;                    /*    16     8 */"),
		    "element member at the array's offset");
	ASSERT_TRUE(text && strstr(text, "int                d;                    /*     4     4 */"),
		    "pointee member at its own offset");
	free(text);
out:
	layout__free(l);
}

/* Virtual bases are placed where the compiler puts them, not counted as padding. */
void test_layout__virtual_base(void)
{
	const char *bin = test__build_fixture("layout_cxx_cases.cc", "layout_cxx_cases", "-g -O0");
	struct layout *l = NULL;
	const struct ma_struct *s;

	if (!ASSERT_NOT_NULL(bin, "build") || !ASSERT_OK(layout__load(bin, &l), "load"))
		return;
	s = layout__find_struct(l, "app::Left");
	if (ASSERT_NOT_NULL(s, "app::Left")) {
		ASSERT_EQ(s->size, fixture_value(bin, "left.size"), "sizeof(Left)");
		ASSERT_EQ(s->nr_vbases, 1, "one virtual base");
		ASSERT_TRUE(s->vbases_placed, "placed");
		if (s->nr_vbases)
			ASSERT_EQ(s->vbases[0].offset, fixture_value(bin, "left.Base"), "Base in a Left");
		ASSERT_EQ(s->padding, 0, "no padding");
	}
	s = layout__find_struct(l, "app::Diamond");
	if (ASSERT_NOT_NULL(s, "app::Diamond")) {
		ASSERT_EQ(s->size, fixture_value(bin, "diamond.size"), "sizeof(Diamond)");
		ASSERT_EQ(s->nr_vbases, 1, "one inherited virtual base");
		ASSERT_TRUE(s->vbases_placed, "placed");
		if (s->nr_vbases)
			ASSERT_EQ(s->vbases[0].offset, fixture_value(bin, "diamond.Base"),
				  "Base in a Diamond");
		ASSERT_EQ(s->padding, 0, "no padding");
	}
	s = layout__find_struct(l, "app::Ring<char, 5>");
	if (ASSERT_NOT_NULL(s, "app::Ring<char, 5>"))
		ASSERT_EQ(s->size, fixture_value(bin, "ring.size"), "sizeof(Ring<char, 5>)");
	layout__free(l);
}

/* No reorganisation is proposed for a class with virtual bases. */
void test_layout__virtual_base_no_reorg(void)
{
	const char *bin = test__build_fixture("layout_cxx_cases.cc", "layout_cxx_cases", "-g -O0");
	struct layout *l = NULL;
	struct layout_reorg r = { 0 };
	const struct ma_struct *s;

	if (!ASSERT_NOT_NULL(bin, "build") || !ASSERT_OK(layout__load(bin, &l), "load"))
		return;
	s = layout__find_struct(l, "app::Diamond");
	if (ASSERT_NOT_NULL(s, "app::Diamond"))
		ASSERT_EQ(layout__reorganize(l, s, NULL, &r, NULL), -EINVAL, "no proposal");
	s = layout__find_struct(l, "app::Ring<char, 5>");
	if (ASSERT_NOT_NULL(s, "app::Ring<char, 5>") &&
	    ASSERT_OK(layout__reorganize(l, s, NULL, &r, NULL), "a plain struct is reorganized"))
		layout_reorg__free(&r);
	layout__free(l);
}

/* The file offset of section NAME's contents in the ELF file FD, or -1. */
static long section_offset(int fd, const char *name, Elf_Data **data, Elf **keep)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (!e || elf_getshdrstrndx(e, &shstr))
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstr, sh.sh_name)) || strcmp(n, name))
			continue;
		if (data)
			*data = elf_getdata(scn, NULL);
		*keep = e;
		return (long)sh.sh_offset;
	}
	elf_end(e);
	return -1;
}

/* Writes N bytes of BUF at OFF in a copy of SRC named DST. */
static int patch_copy(const char *src, const char *dst, long off, const void *buf, size_t n)
{
	char cmd[1500];
	int fd, ok;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	if (system(cmd))
		return -1;
	fd = open(dst, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = pwrite(fd, buf, n, off) == (ssize_t)n;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Damaged DWARF (found by tests/fuzz/layout-fuzz.py): a unit whose first DIE
 * has an abbreviation that does not exist, and a struct whose name points
 * past .debug_str, are read errors counted by layout__damaged(); a file
 * whose types all fail to read is -EILSEQ, not a file without types.
 */
void test_layout__damaged_dwarf(void)
{
	const char *bin = test__build_fixture("layout_c.c", "layout_c_dw5", "-g -gdwarf-5 -O0");
	static const unsigned char bad_abbrev[] = { 0xff, 0x7f };
	static const uint32_t past_str = 0xfffffff0;
	char dst[700];
	struct layout *l = NULL;
	Elf_Data *info = NULL;
	Elf *e = NULL;
	Dwarf *dbg;
	Dwarf_Die cu, c;
	long off, hit = -1;
	const char *victim = NULL;
	int fd;

	if (!ASSERT_NOT_NULL(bin, "build"))
		return;
	fd = open(bin, O_RDONLY);
	if (!ASSERT_TRUE(fd >= 0, "open"))
		return;
	elf_version(EV_CURRENT);
	off = section_offset(fd, ".debug_info", &info, &e);
	if (!ASSERT_TRUE(off > 0 && info, ".debug_info found")) {
		close(fd);
		return;
	}
	/* A DWARF 5 unit header is 12 bytes; the unit's DIE follows. */
	snprintf(dst, sizeof(dst), "%s/layout_c_bad_abbrev", test__fixture_dir());
	if (ASSERT_OK(patch_copy(bin, dst, off + 12, bad_abbrev, sizeof(bad_abbrev)), "patch")) {
		ASSERT_EQ(layout__load(dst, &l), -EILSEQ, "unreadable unit");
		ASSERT_TRUE(l == NULL, "no layout");
	}
	/* The first struct whose name is a .debug_str offset. */
	dbg = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (dbg && dwarf_offdie(dbg, 12, &cu) && dwarf_child(&cu, &c) == 0) {
		do {
			Dwarf_Attribute a;

			if (dwarf_tag(&c) == DW_TAG_structure_type &&
			    dwarf_attr(&c, DW_AT_name, &a) && a.form == DW_FORM_strp) {
				victim = dwarf_diename(&c);
				hit = off + ((const unsigned char *)a.valp - (const unsigned char *)info->d_buf);
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (ASSERT_TRUE(hit > 0 && victim, "a struct named through .debug_str")) {
		char name[128];

		snprintf(name, sizeof(name), "%s", victim);
		snprintf(dst, sizeof(dst), "%s/layout_c_bad_name", test__fixture_dir());
		if (ASSERT_OK(patch_copy(bin, dst, hit, &past_str, 4), "patch") &&
		    ASSERT_OK(layout__load(dst, &l), "the other types load")) {
			ASSERT_TRUE(layout__damaged(l) >= 1, "the read error is counted");
			ASSERT_TRUE(layout__find_struct(l, name) == NULL, name);
			ASSERT_TRUE(layout__nr_structs(l) > 3, "other types kept");
			layout__free(l);
		}
	}
	if (dbg)
		dwarf_end(dbg);
	elf_end(e);
	close(fd);
	/* An intact file has no read error. */
	if (ASSERT_OK(layout__load(bin, &l), "intact")) {
		ASSERT_EQ(layout__damaged(l), 0, "no read error");
		layout__free(l);
	}
}

/* Members past the size of a class with virtual bases (damaged DWARF): no wrapped count. */
void test_layout__vbase_members_past_size(void)
{
	struct ma_struct s = { .name = "vb", .kind = MA_KIND_CLASS, .size = 24, .nv_size = 130,
			       .nr_vbases = 1 };
	struct layout_print_opts o = { .notes = false };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!ASSERT_NOT_NULL(f, "memstream"))
		return;
	ma_struct__print_text(&s, 64, &o, f);
	fclose(f);
	ASSERT_TRUE(strstr(buf, "18446744") == NULL, "no wrapped number");
	ASSERT_NOT_NULL(strstr(buf, "members end at 130, past the size"), "says why");
	free(buf);
}

/*
 * gcc -gdwarf-4 -fdebug-types-section puts each C++ type in a type unit of
 * .debug_types, defined outside the namespace that declares it and named in
 * other units by signature: the same types, sizes and holes as without.
 */
void test_layout__debug_types_section(void)
{
	const char *plain = test__build_fixture("layout_cxx_cases.cc", "layout_cxx_dw4",
						"-g -gdwarf-4 -O0");
	struct layout *a = NULL, *b = NULL;
	const char *tu;
	size_t n;

	if (!ASSERT_NOT_NULL(plain, "build") || !ASSERT_OK(layout__load(plain, &a), "load"))
		return;
	tu = test__build_fixture("layout_cxx_cases.cc", "layout_cxx_types",
				 "-g -gdwarf-4 -O0 -fdebug-types-section");
	if (!ASSERT_NOT_NULL(tu, "build with type units") ||
	    !ASSERT_OK(layout__load(tu, &b), "load with type units")) {
		layout__free(a);
		return;
	}
	n = layout__nr_structs(a);
	ASSERT_TRUE(n > 3, "types in the plain build");
	ASSERT_EQ(layout__nr_structs(b), n, "as many types from type units");
	for (size_t i = 0; i < n; i++) {
		const struct ma_struct *s = layout__struct(a, i);
		const struct ma_struct *t = layout__find_struct(b, s->name);

		if (!ASSERT_NOT_NULL(t, s->name))
			continue;
		ASSERT_EQ(t->size, s->size, s->name);
		ASSERT_EQ(t->nr_members, s->nr_members, s->name);
		ASSERT_EQ(t->nr_holes, s->nr_holes, s->name);
		ASSERT_EQ(t->padding, s->padding, s->name);
		ASSERT_STREQ(t->decl_file ? t->decl_file : "(none)",
			     s->decl_file ? s->decl_file : "(none)", s->name);
	}
	layout__free(a);
	layout__free(b);
}
