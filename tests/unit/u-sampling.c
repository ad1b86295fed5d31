// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/output.h"
#include "harness.h"
#include "symbols/procmaps.h"
#include "model/sampling.h"
#include "symbols/symbolizer.h"

static const char maps_text[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 fe:01 1234 /usr/bin/app\n"
	"55d0c0a01000-55d0c0a02000 r-xp 00001000 fe:01 1234 /usr/bin/app\n"
	"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0 [heap]\n"
	"7f0000000000-7f0020000000 rw-p 00000000 00:00 0 \n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";

void test_sampling__procmaps_parse(void)
{
	struct procmaps *m = procmaps__parse(42, maps_text);
	const struct procmap *pm;

	if (!ASSERT_NOT_NULL(m, "parse"))
		return;
	ASSERT_EQ(m->n, 5, "mappings");
	pm = procmaps__find(m, 0x55d0c0a01800);
	ASSERT_TRUE(pm && !strcmp(pm->path, "/usr/bin/app") && pm->offset == 0x1000, "text segment");
	pm = procmaps__find(m, 0x7f0010000000);
	ASSERT_TRUE(pm && pm->path[0] == '\0' && pm->end - pm->start == 512ULL << 20, "anon 512 MiB");
	ASSERT_TRUE(procmaps__find(m, 0x1000) == NULL, "unmapped");
	ASSERT_TRUE(procmaps__find(m, 0x7ffd00021000) == NULL, "end is exclusive");
	procmaps__free(m);
}

void test_sampling__smaps_fields(void)
{
	struct procmaps *m = procmaps__capture(getpid(), true);
	bool any = false;
	size_t len = 0;
	char *text;

	if (!ASSERT_NOT_NULL(m, "capture own smaps"))
		return;
	for (int i = 0; i < m->n; i++)
		any |= m->v[i].has_smaps && m->v[i].rss > 0;
	ASSERT_TRUE(any, "some mapping has Rss");
	text = procmaps__format(m, &len);
	ASSERT_TRUE(len > 0 && strchr(text, '-') && !strstr(text, "Rss:"),
		    "a maps text for libdwfl from the entries, without smaps fields");
	free(text);
	procmaps__free(m);
}

__attribute__((noinline)) static int marker_function(int x)
{
	return x * 3 + 1; /* MARKER */
}

void test_sampling__symbolize_self(void)
{
	struct procmaps *m = procmaps__capture(getpid(), false);
	struct symbolizer *s = symbolizer__new();
	struct sampling_loc loc, again;
	uint64_t ip = (uint64_t)(uintptr_t)&marker_function;

	ASSERT_EQ(marker_function(1), 4, "marker runs");
	if (!ASSERT_NOT_NULL(m, "capture own maps"))
		goto out;
	ASSERT_OK(symbolizer__resolve(s, m, ip, false, SYM_LINES, &loc), "resolve");
	ASSERT_STREQ(loc.function, "marker_function", "function");
	ASSERT_TRUE(strstr(loc.file, "u-sampling.c") != NULL, "file");
	ASSERT_TRUE(loc.line > 0, "line");
	ASSERT_TRUE(loc.rel != 0 && loc.rel < ip, "module-relative address (PIE)");
	ASSERT_OK(symbolizer__resolve(s, m, ip, false, SYM_LINES, &again), "again");
	ASSERT_EQ(symbolizer__cache_hits(s), 1, "second lookup from the build-id cache");
	ASSERT_EQ(symbolizer__resolve(s, m, 0x10, false, SYM_LINES, &loc), -ENOENT, "unmapped");
	ASSERT_STREQ(loc.module, "[unknown]", "unknown module");
out:
	symbolizer__free(s);
	procmaps__free(m);
}

void test_sampling__emitters(void)
{
	struct sampling *p = calloc(1, sizeof(*p));
	struct json_object *j, *x;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	p->nr_events = 1;
	snprintf(p->events[0].name, sizeof(p->events[0].name), "cpu-clock");
	snprintf(p->events[0].unit, sizeof(p->events[0].unit), "ns");
	p->events[0].tier = TIER_SOFTWARE;
	p->events[0].samples = 100;
	p->funcs = calloc(1, sizeof(*p->funcs));
	p->nr_funcs = 1;
	snprintf(p->funcs[0].function, sizeof(p->funcs[0].function), "%s",
		 "a_function_name_much_longer_than_the_column_it_is_printed_in");
	snprintf(p->funcs[0].module, sizeof(p->funcs[0].module), "%s", "a_long_module_name.so.1.2.3");
	p->funcs[0].samples = 100;
	p->funcs[0].share = 1;
	p->faults_measured = p->major_measured = true;
	p->faults = p->minor = p->writes = 7;
	p->regions = calloc(1, sizeof(*p->regions));
	p->nr_regions = 1;
	p->regions[0].start = 0x7f0000000000;
	p->regions[0].end = p->regions[0].start + (512ULL << 20);
	p->regions[0].size = 512ULL << 20;
	p->regions[0].kind = REGION_ANON;
	p->regions[0].large = p->regions[0].has_smaps = p->regions[0].aligned_2m = true;
	p->regions[0].anon_huge = 512ULL << 20;
	p->regions[0].thp_eligible = 1;

	j = sampling__to_json(p);
	ASSERT_TRUE(json_object_object_get_ex(j, "page_faults", &x), "page_faults");
	ASSERT_TRUE(json_object_object_get_ex(x, "total", &x) && json_object_get_int(x) == 7, "total");
	ASSERT_TRUE(json_object_object_get_ex(j, "regions", &x) && json_object_array_length(x) == 1,
		    "regions");
	json_object_put(j);

	f = open_memstream(&buf, &len);
	sampling__print_text(p, f, false);
	fclose(f);
	ASSERT_TRUE(strstr(buf, "cpu-clock") && strstr(buf, "512.0 MiB"), "text names event and region");
	for (char *l = buf, *e; l && *l; l = e ? e + 1 : NULL) {
		e = strchr(l, '\n');
		ASSERT_TRUE((e ? e - l : (long)strlen(l)) <= 80, "80 columns");
	}
	free(buf);
	sampling__free(p);
}

/* A loss count whose collector did not run is null, not 0. */
void test_sampling__unknown_loss_is_null(void)
{
	struct sampling *p = calloc(1, sizeof(*p));
	struct json_object *j, *lost, *x;

	if (!ASSERT_NOT_NULL(p, "alloc"))
		return;
	p->faults_measured = true;	/* faults on; no sampling event, no side-band ring */
	j = sampling__to_json(p);
	if (!ASSERT_TRUE(json_object_object_get_ex(j, "lost", &lost), "lost"))
		goto out;
	ASSERT_TRUE(json_object_object_get_ex(lost, "samples_hot_map_full", &x) && !x,
		    "no sampling: samples_hot_map_full null");
	ASSERT_TRUE(json_object_object_get_ex(lost, "process_events_lost", &x) && !x,
		    "no side-band ring: process_events_lost null");
	ASSERT_TRUE(json_object_object_get_ex(lost, "faults_site_map_full", &x) && x &&
		    json_object_get_int(x) == 0, "faults on: faults_site_map_full 0");
	json_object_put(j);
	p->faults_measured = false;
	p->nr_events = 1;
	p->loss.proc_events_known = true;
	j = sampling__to_json(p);
	json_object_object_get_ex(j, "lost", &lost);
	ASSERT_TRUE(json_object_object_get_ex(lost, "faults_site_map_full", &x) && !x,
		    "faults off: faults_site_map_full null");
	ASSERT_TRUE(json_object_object_get_ex(lost, "samples_hot_map_full", &x) && x,
		    "sampling: samples_hot_map_full counted");
	ASSERT_TRUE(json_object_object_get_ex(lost, "process_events_lost", &x) && x,
		    "side-band ring: process_events_lost counted");
out:
	json_object_put(j);
	sampling__free(p);
}

void test_sampling__procmaps_kinds(void)
{
	static const char text[] =
		"55d0c0a00000-55d0c0a01000 r--p 00000000 fd:01 123 /usr/bin/prog\n"
		"55d0c1e00000-55d0c1e21000 rw-p 00000000 00:00 0                          [heap]\n"
		"7f0000000000-7f0004000000 rw-p 00000000 00:00 0 \n"
		"7ffd10000000-7ffd10021000 rw-p 00000000 00:00 0                          [stack]\n"
		"7ffd10100000-7ffd10102000 r-xp 00000000 00:00 0                          [vdso]\n";
	struct procmaps *m = procmaps__parse(42, text);
	const struct procmap *v;

	if (!ASSERT_NOT_NULL(m, "parsed") || !ASSERT_EQ(m->n, 5, "entries"))
		goto out;
	v = m->v;
	ASSERT_EQ(v[0].kind, MAPK_FILE, "file");
	ASSERT_STREQ(v[0].path, "/usr/bin/prog", "path");
	ASSERT_EQ(v[1].kind, MAPK_HEAP, "heap");
	ASSERT_EQ(v[2].kind, MAPK_ANON, "anonymous");
	ASSERT_EQ(v[3].kind, MAPK_STACK, "stack");
	ASSERT_EQ(v[4].kind, MAPK_OTHER, "vdso");
	ASSERT_TRUE(procmaps__find(m, 0x7f0001000000) == &v[2], "inside the anon map");
	ASSERT_TRUE(procmaps__find(m, 0x7f0004000000) == NULL, "end is exclusive");
	ASSERT_TRUE(procmaps__find(m, 0x1000) == NULL, "below everything");
out:
	procmaps__free(m);
}

void test_sampling__prev_insn_from_bytes(void)
{
	/* mov rax,[rbx]; add rsi,[rcx+rax*8]; cmp rax, 0x7fffff */
	static const uint8_t code[] = { 0x48, 0x8b, 0x03, 0x48, 0x03, 0x34, 0xc1,
					0x48, 0x3d, 0xff, 0xff, 0x7f, 0x00 };
	uint64_t prev = 0;

	ASSERT_OK(symbolizer__prev_insn_in(code, 0x2000, 0x2000, 0x2007, &prev), "found");
	ASSERT_EQ(prev, 0x2003, "the add before the IP");
	ASSERT_EQ(symbolizer__prev_insn_in(code, 0x2000, 0x2000, 0x2005, &prev), -ENOENT,
		  "not an instruction boundary");
	ASSERT_EQ(symbolizer__prev_insn_in(code, 0x2000, 0, 0x2007, &prev), -ENOENT,
		  "no function start");
	ASSERT_EQ(symbolizer__prev_insn_in(code, 0x2000, 0x2000, 0x2000, &prev), -ENOENT,
		  "at the function's start");
}

/* Sweeps are reused by the bytes they came from, never by the address alone. */
void test_sampling__prev_insn_sweep_reuse(void)
{
	/* mov rax,[rbx]; add rsi,[rcx+rax*8]; cmp rax, 0x7fffff */
	static const uint8_t code[] = { 0x48, 0x8b, 0x03, 0x48, 0x03, 0x34, 0xc1,
					0x48, 0x3d, 0xff, 0xff, 0x7f, 0x00 };
	static const uint8_t nops[] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 };
	uint64_t prev = 0;

	ASSERT_OK(symbolizer__prev_insn_in(code, 0x3000, 0x3000, 0x300d, &prev), "whole sweep");
	ASSERT_EQ(prev, 0x3007, "the cmp's start");
	ASSERT_OK(symbolizer__prev_insn_in(code, 0x3000, 0x3000, 0x3007, &prev), "an earlier ip");
	ASSERT_EQ(prev, 0x3003, "the add before it");
	ASSERT_EQ(symbolizer__prev_insn_in(code, 0x3000, 0x3000, 0x3005, &prev), -ENOENT,
		  "inside the add");
	ASSERT_OK(symbolizer__prev_insn_in(nops, 0x3000, 0x3000, 0x3003, &prev),
		  "other bytes at the same address");
	ASSERT_EQ(prev, 0x3002, "the nop before it, not the cached sweep's");
	ASSERT_OK(symbolizer__prev_insn_in(code + 3, 0x3003, 0x3003, 0x300d, &prev),
		  "a later start in the same bytes");
	ASSERT_EQ(prev, 0x3007, "the cmp's start again");
	/* a sweep over more than the IP needs answers the later IPs in it */
	ASSERT_OK(symbolizer__prev_insn_span(nops, 0x5000, sizeof(nops), 0x5000, 0x5002, &prev),
		  "a sweep of the whole function for its second byte");
	ASSERT_EQ(prev, 0x5001, "the nop before it");
	ASSERT_OK(symbolizer__prev_insn_span(nops, 0x5000, sizeof(nops), 0x5000, 0x5007, &prev),
		  "the last IP of the bytes given");
	ASSERT_EQ(prev, 0x5006, "from the same sweep");
	ASSERT_EQ(symbolizer__prev_insn_span(nops, 0x5000, 3, 0x5000, 0x5005, &prev), -ENOENT,
		  "not past the bytes given");
}

/*
 * The instruction before each address of 32 KiB of this binary's code, from
 * the function's instructions decoded once and kept, is the one decoding
 * from the function's start up to the address finds (the code in memory is
 * the file's).
 */
void test_sampling__prev_insn_cached(void)
{
	struct procmaps *m = procmaps__capture(getpid(), false);
	struct symbolizer *s = symbolizer__new();
	uint64_t from = (uint64_t)(uintptr_t)&test_sampling__emitters;
	unsigned long found = 0, differ = 0;
	Dwfl *dwfl;

	if (!ASSERT_NOT_NULL(m, "capture own maps"))
		goto out;
	dwfl = symbolizer__dwfl(s, m);
	for (uint64_t ip = from; dwfl && ip < from + 32768; ip++) {
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, ip);
		uint64_t want = 0, got = 0;
		GElf_Off off;
		GElf_Sym sym;
		int r1, r2;

		if (!mod || !symbolizer__addrinfo(mod, ip, &off, &sym) || !off || off > 65536)
			continue;
		r1 = symbolizer__prev_insn_in((const uint8_t *)(uintptr_t)(ip - off), ip - off,
					      ip - off, ip, &want);
		r2 = symbolizer__prev_insn(s, m, ip, &got);
		found += !r1;
		if (r1 != r2 || (!r1 && want != got))
			differ++;
	}
	ASSERT_EQ(differ, 0, "addresses where the cached decode differs");
	ASSERT_TRUE(found > 3000, "instruction boundaries checked");
out:
	symbolizer__free(s);
	procmaps__free(m);
}

struct addrinfo_cmp {
	unsigned long checked, differ;
	char first[256];
};

/* Every 61st byte of each module: the index finds the symbol libdwfl finds. */
static int cmp_module(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	struct addrinfo_cmp *c = arg;
	Dwarf_Addr end;

	(void)ud; (void)start;
	dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	for (Dwarf_Addr a = start; a < end; a += 61) {
		GElf_Off o1 = 0, o2 = 0;
		GElf_Sym s1, s2;
		const char *n1 = dwfl_module_addrinfo(mod, a, &o1, &s1, NULL, NULL, NULL);
		const char *n2 = symbolizer__addrinfo(mod, a, &o2, &s2);

		c->checked++;
		/* aliases (versioned names) of one address may be told either way */
		if ((!n1) != (!n2) || (n1 && (o1 != o2 || s1.st_value != s2.st_value))) {
			if (!c->differ++)
				snprintf(c->first, sizeof(c->first), "%s+%#lx: dwfl %s+%lu, index %s+%lu",
					 name, (unsigned long)(a - start), n1 ? n1 : "-",
					 (unsigned long)o1, n2 ? n2 : "-", (unsigned long)o2);
		}
	}
	return DWARF_CB_OK;
}

void test_sampling__addrinfo_index(void)
{
	struct procmaps *m = procmaps__capture(getpid(), true);
	struct symbolizer *s = symbolizer__new();
	struct addrinfo_cmp c = { 0 };
	Dwfl *dwfl;

	if (!ASSERT_TRUE(m != NULL, "maps"))
		return;
	dwfl = symbolizer__dwfl(s, m);
	if (ASSERT_TRUE(dwfl != NULL, "dwfl")) {
		dwfl_getmodules(dwfl, cmp_module, &c, 0);
		ASSERT_TRUE(c.checked > 10000, "addresses checked");
		/*
		 * libdwfl also names a few bytes of padding past the end of a
		 * section after the section's last label (13 of 244288 here, in
		 * .eh_frame); no sample lands there.
		 */
		if (c.differ > c.checked / 10000)
			test__fail(__FILE__, __LINE__, "%lu of %lu addresses differ; first %s",
				   c.differ, c.checked, c.first);
	}
	symbolizer__free(s);
	procmaps__free(m);
}

/* S samples of N pages each faulting R times, each fault sampled with P. */
static void refault_trial(int n, int r, double p, uint64_t seed, uint64_t *s, uint64_t *d,
			  uint64_t *f)
{
	*s = *d = 0;
	*f = (uint64_t)n * r;
	for (int pg = 0; pg < n; pg++) {
		int seen = 0;

		for (int k = 0; k < r; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			if ((double)(seed >> 11) / (double)(1ULL << 53) < p)
				seen++;
		}
		*s += seen;
		*d += seen > 0;
	}
}

void test_sampling__faults_per_page(void)
{
	static const struct {
		int n, r;
		double p;
	} t[] = {
		{ 2048, 1, 0.01 }, { 2048, 2, 0.01 }, { 2048, 2, 0.05 }, { 100000, 2, 0.003 },
		{ 2048, 20, 0.01 }, { 2048, 100, 0.0015 }, { 256, 1000, 0.01 }, { 4096, 2, 1.0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t s, d, f;
		double est, lo;

		refault_trial(t[i].n, t[i].r, t[i].p, 12345 + i, &s, &d, &f);
		est = sampling__faults_per_page(s, d, f, false);
		lo = sampling__faults_per_page(s, d, f, true);
		ASSERT_TRUE(lo <= est + 1e-9, "the bound is below the estimate");
		/* first touch (1, or 2 with the zero page) never looks like re-faulting */
		if (t[i].r <= 2)
			ASSERT_TRUE(lo < 3, "first touch stays under 3 faults a page");
		else
			ASSERT_TRUE(lo >= 3, "re-faulting is recognised");
		if (t[i].p * t[i].r >= 0.1)
			ASSERT_NEAR(est, t[i].r, 0.35 * t[i].r, "the estimate is near R");
	}
	ASSERT_EQ(sampling__faults_per_page(0, 0, 0, true), 0, "nothing sampled: unknown");
	ASSERT_NEAR(sampling__faults_per_page(50, 50, 5000, true), 1, 1e-9, "no repeats: 1");
}
