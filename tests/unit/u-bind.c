// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binding a snapshot into facts: snapshots built in memory from the model
 * types, bound with ruleset's input (no layouts, or the layout of a fixture
 * compiled here), and the facts read back from the fact base.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/addr.h"
#include "model/sampling.h"
#include "model/report.h"
#include "model/streams.h"
#include "rules/facts.h"
#include "rules/rules.h"

/* The entity of SCOPE at FILE:LINE (line and function scopes), or -1. */
static int find_at(const struct factbase *fb, enum scope scope, const char *file, int line)
{
	for (int i = 0; i < fb->nr_ents; i++)
		if (fb->ents[i].scope == scope && fb->ents[i].line == line &&
		    !strcmp(fb->ents[i].file, file))
			return i;
	return -1;
}

static int find_struct(const struct factbase *fb, const char *name)
{
	for (int i = 0; i < fb->nr_ents; i++)
		if (fb->ents[i].scope == SCOPE_STRUCT && !strcmp(fb->ents[i].struct_name, name))
			return i;
	return -1;
}

static double fact(const struct factbase *fb, int idx, const char *name)
{
	double v = -12345;

	if (factbase__get(fb, idx, name, &v, NULL))
		test__fail(__FILE__, __LINE__, "%s not set on entity %d", name, idx);
	return v;
}

static bool has_fact(const struct factbase *fb, int idx, const char *name)
{
	double v;

	return !factbase__get(fb, idx, name, &v, NULL);
}

static struct factbase *bind(const struct report *r, const struct rules_layouts *l,
			     const struct eval_opts *o)
{
	struct rules_input in = { .snapshot = r, .layouts = l, .opts = o };
	struct factbase *fb = NULL;

	if (!ASSERT_OK(factbase__from_input(&in, &fb), "bind"))
		return NULL;
	return fb;
}

static void hotsum(struct sampling_hotsum *h, const char *fn, const char *file, int line,
		   uint64_t samples, double share)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->function, sizeof(h->function), "%s", fn);
	snprintf(h->file, sizeof(h->file), "%s", file);
	h->line = line;
	h->samples = samples;
	h->share = share;
}

/*
 * A profile of 1000 cpu-clock samples over 1 s (1 ms each): a hot line, a
 * line under the 0.5 % the binder keeps, a hot function (a GCC clone),
 * 5000 page faults at the hot line in a large anonymous region.
 */
static void fill_profile(struct report *r, struct sampling *p, struct sampling_hotsum hs[3],
			 struct sampling_fault_site *site, struct sampling_region *g)
{
	memset(p, 0, sizeof(*p));
	p->nr_events = 1;
	snprintf(p->events[0].name, sizeof(p->events[0].name), "cpu-clock");
	snprintf(p->events[0].unit, sizeof(p->events[0].unit), "ns");
	p->events[0].tier = TIER_SOFTWARE;
	p->events[0].samples = 1000;
	p->events[0].est_events = 1e9;
	p->nr_threads = 1;
	hotsum(&hs[0], "walk", "/src/walk.c", 10, 600, 0.6);
	hotsum(&hs[1], "walk", "/src/walk.c", 30, 3, 0.003);
	hotsum(&hs[2], "walk.constprop.0", "/src/walk.c", 10, 700, 0.7);
	p->lines = hs;
	p->nr_lines = 2;
	p->funcs = &hs[2];
	p->nr_funcs = 1;

	memset(g, 0, sizeof(*g));
	g->start = 0x7f0000000000ULL;
	g->size = 64ULL << 20;
	g->end = g->start + g->size;
	g->kind = REGION_ANON;
	g->large = true;
	g->faults = 5000;
	g->thp_eligible = -1;
	p->regions = g;
	p->nr_regions = 1;

	memset(site, 0, sizeof(*site));
	snprintf(site->loc.function, sizeof(site->loc.function), "walk");
	snprintf(site->loc.file, sizeof(site->loc.file), "/src/walk.c");
	site->loc.line = 10;
	site->count = 5000;
	site->region = 0;
	p->faults_measured = true;
	p->faults = 10000;
	p->sites = site;
	p->nr_sites = 1;

	memset(r, 0, sizeof(*r));
	r->target.wall_ns = 1000000000ULL;
	r->sampling = p;
}

void test_bind__profile(void)
{
	struct report r;
	struct sampling p;
	struct sampling_hotsum hs[3];
	struct sampling_fault_site site;
	struct sampling_region g;
	struct factbase *fb;
	int line, fn, reg = -1;

	fill_profile(&r, &p, hs, &site, &g);
	fb = bind(&r, NULL, NULL);
	if (!fb)
		return;
	ASSERT_TRUE(fb->have[EV_HOTSPOTS], "hot spots present");
	ASSERT_TRUE(fb->have[EV_FAULTS], "faults present");
	ASSERT_TRUE(fb->have[EV_REGIONS], "regions present");
	ASSERT_FALSE(fb->have[EV_ADDR], "no data addresses");
	ASSERT_FALSE(fb->have[EV_LAYOUT], "no layouts given");
	ASSERT_STREQ(fb->missing[EV_LAYOUT], "no DWARF debug info read for the target",
		     "why no layout");
	ASSERT_NEAR(fact(fb, -1, "run.samples"), 1000, 0, "run.samples");
	ASSERT_NEAR(fact(fb, -1, "run.sample_period_ns"), 1e6, 1e-6, "1 ms a sample");
	ASSERT_NEAR(fact(fb, -1, "run.faults_per_s"), 10000, 1e-6, "faults per second");

	line = find_at(fb, SCOPE_LINE, "/src/walk.c", 10);
	if (!ASSERT_TRUE(line >= 0, "the hot line is an entity"))
		goto out;
	ASSERT_STREQ(fb->ents[line].function, "walk", "the line's function");
	ASSERT_NEAR(fact(fb, line, "line.samples"), 600, 0, "line.samples");
	ASSERT_NEAR(fact(fb, line, "line.share"), 0.6, 1e-9, "line.share");
	ASSERT_NEAR(fact(fb, line, "line.faults"), 5000, 0, "line.faults");
	ASSERT_NEAR(fact(fb, line, "line.fault_share"), 0.5, 1e-9, "line.fault_share");
	ASSERT_STREQ(fb->ents[line].region, "anon", "the region it faulted in");
	ASSERT_EQ(find_at(fb, SCOPE_LINE, "/src/walk.c", 30), -1, "a line under 0.5 % is left out");

	fn = find_at(fb, SCOPE_FUNCTION, "/src/walk.c", 10);
	if (ASSERT_TRUE(fn >= 0, "the hot function is an entity")) {
		ASSERT_STREQ(fb->ents[fn].function, "walk", "a clone is named by its source");
		ASSERT_NEAR(fact(fb, fn, "function.share"), 0.7, 1e-9, "function.share");
	}

	for (int i = 0; i < fb->nr_ents; i++)
		if (fb->ents[i].scope == SCOPE_REGION)
			reg = i;
	if (ASSERT_TRUE(reg >= 0, "the large region is an entity")) {
		ASSERT_STREQ(fb->ents[reg].region, "anon 0x7f0000000000-0x7f0004000000",
			     "region name");
		ASSERT_NEAR(fact(fb, reg, "region.size"), 64 << 20, 0, "region.size");
		ASSERT_NEAR(fact(fb, reg, "region.faults_per_mib"), 5000 / 64.0, 1e-9,
			    "faults per MiB");
		ASSERT_FALSE(has_fact(fb, reg, "region.thp_bytes"), "no smaps: THP unknown");
	}
out:
	factbase__free(fb);
}

static void addr_ip(struct addr_ip *ip, const char *fn, int line, const char *text)
{
	memset(ip, 0, sizeof(*ip));
	ip->op.skip = AS_OK;
	snprintf(ip->op.text, sizeof(ip->op.text), "%s", text);
	snprintf(ip->loc.function, sizeof(ip->loc.function), "%s", fn);
	snprintf(ip->loc.file, sizeof(ip->loc.file), "/src/walk.c");
	ip->loc.line = line;
}

/*
 * Data addresses on top of the profile, sampled every 2 ms: the hot line's
 * strided locked writes on the heap, a line of register arithmetic the
 * profile charged samples to (skid), and a line two threads write.
 */
void test_bind__addr(void)
{
	struct report r;
	struct sampling p;
	struct sampling_hotsum hs[3];
	struct sampling_fault_site site;
	struct sampling_region g;
	struct addr_report a = { .tier = TIER_SW_ADDR, .period_ns = 2000000 };
	struct addr_ip ips[3];
	struct addr_region heap = { .start = 0x1000000, .end = 0x5000000, .kind = MAPK_HEAP,
				    .name = "[heap]", .samples = 800 };
	struct addr_line shared = { .nr_threads = 2, .false_sharing = true };
	struct factbase *fb;
	int hot, memless, writer;

	fill_profile(&r, &p, hs, &site, &g);
	hotsum(&hs[1], "walk", "/src/walk.c", 12, 300, 0.3); /* the line after the access */
	p.nr_lines = 2;
	addr_ip(&ips[0], "walk", 10, "lock xadd dword ptr [rax], ecx");
	ips[0].samples = ips[0].decoded = 800;
	ips[0].op.write = true;
	ips[0].op.size = 4;
	ips[0].stride = -4096;
	ips[0].stride_frac = 0.9;
	ips[0].stride_monotonic = 1;
	ips[0].lines = ips[0].pages = 700;
	ips[0].l1_sets = 1;
	ips[0].line_splits = 80;
	ips[0].nr_threads = 1;
	snprintf(ips[0].top_region, sizeof(ips[0].top_region), "[heap]");
	addr_ip(&ips[1], "walk", 12, "add ecx, 1");
	ips[1].op.skip = AS_NO_MEM;
	ips[1].samples = 100;
	addr_ip(&ips[2], "writer", 40, "mov qword ptr [rdi + 8], rax");
	ips[2].ip = 0x401234;
	ips[2].samples = ips[2].decoded = 100;
	ips[2].op.write = true;
	ips[2].op.size = 8;
	shared.ip = 0x401234;
	a.samples = a.decoded = 1000;
	a.ips = ips;
	a.nr_ips = 3;
	a.regions = &heap;
	a.nr_regions = 1;
	a.shared = &shared;
	a.nr_shared = 1;
	r.addr = &a;

	fb = bind(&r, NULL, NULL);
	if (!fb)
		return;
	ASSERT_TRUE(fb->have[EV_ADDR], "data addresses present");
	ASSERT_NEAR(fact(fb, -1, "run.addr_samples"), 1000, 0, "run.addr_samples");
	ASSERT_NEAR(fact(fb, -1, "run.shared_lines"), 1, 0, "run.shared_lines");
	ASSERT_NEAR(fact(fb, -1, "run.sample_period_ns"), 1e6, 1e-6,
		    "the profile's period is kept");

	hot = find_at(fb, SCOPE_LINE, "/src/walk.c", 10);
	if (ASSERT_TRUE(hot >= 0, "the hot line")) {
		ASSERT_NEAR(fact(fb, hot, "line.addr_samples"), 800, 0, "line.addr_samples");
		/* 800 of 1000 address samples beat the profile's 0.6 */
		ASSERT_NEAR(fact(fb, hot, "line.share"), 0.8, 1e-9, "the larger share");
		ASSERT_NEAR(fact(fb, hot, "line.samples"), 1600, 1e-9,
			    "in profile samples: 2 ms against 1 ms");
		ASSERT_NEAR(fact(fb, hot, "line.stride"), 4096, 0, "stride, either way");
		ASSERT_NEAR(fact(fb, hot, "line.pages"), 700, 0, "line.pages");
		ASSERT_NEAR(fact(fb, hot, "line.split_frac"), 0.1, 1e-9, "line.split_frac");
		ASSERT_NEAR(fact(fb, hot, "line.locked"), 1, 0, "lock prefix");
		ASSERT_NEAR(fact(fb, hot, "line.cas"), 0, 0, "no cmpxchg");
		ASSERT_NEAR(fact(fb, hot, "line.writes"), 1, 0, "line.writes");
		ASSERT_NEAR(fact(fb, hot, "line.region_bytes"), 0x4000000, 0, "the heap's size");
		ASSERT_STREQ(fb->ents[hot].region, "heap", "region label");
	}

	memless = find_at(fb, SCOPE_LINE, "/src/walk.c", 12);
	if (ASSERT_TRUE(memless >= 0, "the line without memory access")) {
		ASSERT_NEAR(fact(fb, memless, "line.addr_samples"), 0, 0, "no addresses there");
		ASSERT_NEAR(fact(fb, memless, "line.stride"), 0, 0, "no stride there");
		ASSERT_NEAR(fact(fb, memless, "line.samples"), 300, 0, "the profile's samples stay");
	}

	writer = find_at(fb, SCOPE_LINE, "/src/walk.c", 40);
	if (ASSERT_TRUE(writer >= 0, "the shared line's writer")) {
		ASSERT_NEAR(fact(fb, writer, "line.false_sharing"), 1, 0, "false sharing");
		ASSERT_NEAR(fact(fb, writer, "line.faults"), 0, 0,
			    "known from addresses only: no faults there");
	}
	factbase__free(fb);
}

/*
 * A loop store the samples never gave an address for (a movntdq whose few
 * samples fell on the instructions around it): what its address stream
 * says stays; the defaults for a line without addresses fill in the rest.
 */
void test_bind__stream_on_addressless_line(void)
{
	struct report r;
	struct sampling p;
	struct sampling_hotsum hs[3];
	struct sampling_fault_site site;
	struct sampling_region g;
	struct addr_report a = { .tier = TIER_SW_ADDR, .period_ns = 1000000 };
	struct addr_ip ips[1];
	struct stream_ip sip;
	struct streams_report s = { .tier = TIER_UPROBE_STREAM };
	struct factbase *fb;
	int line;

	fill_profile(&r, &p, hs, &site, &g);
	hotsum(&hs[1], "walk", "/src/walk.c", 50, 40, 0.04);
	addr_ip(&ips[0], "walk", 10, "mov eax, dword ptr [rsi + rdx*4]");
	ips[0].samples = ips[0].decoded = 900;
	ips[0].lines = ips[0].pages = 10;
	a.samples = a.decoded = 1000;
	a.ips = ips;
	a.nr_ips = 1;
	r.addr = &a;
	memset(&sip, 0, sizeof(sip));
	snprintf(sip.loc.function, sizeof(sip.loc.function), "walk");
	snprintf(sip.loc.file, sizeof(sip.loc.file), "/src/walk.c");
	sip.loc.line = 50;
	snprintf(sip.text, sizeof(sip.text), "movntdq xmmword ptr [rdi - 0x10], xmm0");
	sip.skip = STREAM_OK;
	sip.write = true;
	sip.loop_store = true;
	sip.accesses = 500;
	sip.written_lines = 125;
	sip.write_only = true;
	sip.stride = 16;
	sip.stride_frac = 1;
	s.ips = &sip;
	s.nr_ips = 1;
	r.streams = &s;

	fb = bind(&r, NULL, NULL);
	if (!fb)
		return;
	line = find_at(fb, SCOPE_LINE, "/src/walk.c", 50);
	if (ASSERT_TRUE(line >= 0, "the store's line")) {
		ASSERT_NEAR(fact(fb, line, "line.nt_store"), 1, 0, "the stream's movntdq stays");
		ASSERT_NEAR(fact(fb, line, "line.stream_write_only"), 1, 0, "write-only");
		ASSERT_NEAR(fact(fb, line, "line.addr_samples"), 0, 0, "no sampled address");
		ASSERT_NEAR(fact(fb, line, "line.stride"), 0, 0, "defaults fill the rest");
	}
	factbase__free(fb);
}

void test_bind__layout_missing(void)
{
	struct report r = { 0 };
	struct rules_layouts l = { 0 };
	struct factbase *fb;

	fb = bind(&r, &l, NULL);
	if (fb) {
		ASSERT_FALSE(fb->have[EV_LAYOUT], "no executable");
		ASSERT_STREQ(fb->missing[EV_LAYOUT], "the target's executable is unknown",
			     "why, without an executable");
		factbase__free(fb);
	}
	snprintf(r.target.exe, sizeof(r.target.exe), "/nonexistent/prog");
	ASSERT_OK(rules_layouts__load(&l, &r), "load");
	ASSERT_STREQ(l.exe, "/nonexistent/prog", "the executable named");
	ASSERT_TRUE(!l.layout && l.err, "no layout, and why");
	fb = bind(&r, &l, NULL);
	if (fb) {
		ASSERT_FALSE(fb->have[EV_LAYOUT], "unreadable executable");
		ASSERT_TRUE(!strncmp(fb->missing[EV_LAYOUT], "no layout of the executable: ", 29),
			    "why, with an unreadable executable");
		factbase__free(fb);
	}
	rules_layouts__release(&l);
}

/* Nothing sampled: every struct of the program is an entity, for rules on layout alone. */
void test_bind__layout_static(void)
{
	const char *bin = test__build_fixture("layout_c.c", "bind_layout_c", "-g -O0");
	struct report r = { 0 };
	struct rules_layouts l;
	struct factbase *fb;
	int s;

	if (!bin) {
		test__skip("no C compiler for the fixture");
		return;
	}
	snprintf(r.target.exe, sizeof(r.target.exe), "/nonexistent/launcher");
	snprintf(r.target.layout_exe, sizeof(r.target.layout_exe), "%s", bin);
	if (!ASSERT_OK(rules_layouts__load(&l, &r), "load"))
		return;
	ASSERT_STREQ(l.exe, bin, "the program that ran the hot code is read");
	if (!ASSERT_NOT_NULL(l.layout, "layout read"))
		goto out;
	fb = bind(&r, &l, NULL);
	if (!fb)
		goto out;
	ASSERT_TRUE(fb->have[EV_LAYOUT], "layout present");
	s = find_struct(fb, "holes");
	if (ASSERT_TRUE(s >= 0, "struct holes is an entity")) {
		ASSERT_NEAR(fact(fb, s, "struct.size"), 32, 0, "struct.size");
		ASSERT_NEAR(fact(fb, s, "struct.holes"), 2, 0, "struct.holes");
		ASSERT_NEAR(fact(fb, s, "struct.hole_bytes"), 10, 0, "struct.hole_bytes");
		ASSERT_NEAR(fact(fb, s, "struct.padding"), 6, 0, "struct.padding");
		ASSERT_NEAR(fact(fb, s, "struct.packed_size"), 16, 0, "reordered");
		ASSERT_NOT_NULL(fb->ents[s].decl_text, "its declaration");
		ASSERT_NOT_NULL(fb->ents[s].snippet, "its reordered declaration");
	}
	ASSERT_EQ(find_struct(fb, "number"), -1, "unions are no struct entities");
	factbase__free(fb);
out:
	rules_layouts__release(&l);
}

/* The machine profile is read from the options only. */
void test_bind__machine_profile(void)
{
	struct report r = { 0 };
	struct eval_opts o = { 0 };
	struct factbase *fb;

	fb = bind(&r, NULL, &o);
	if (fb) {
		ASSERT_FALSE(fb->have[EV_MACHINE], "no machine profile given");
		factbase__free(fb);
	}
	snprintf(o.machine_profile, sizeof(o.machine_profile), "%s/tests/golden/machine.json",
		 getenv("MA_TOP") ?: ".");
	fb = bind(&r, NULL, &o);
	if (fb) {
		ASSERT_TRUE(fb->have[EV_MACHINE], "machine profile read");
		ASSERT_NEAR(fact(fb, -1, "machine.tlb_miss_ns"), 25.322, 1e-9, "tlb_miss_ns");
		ASSERT_TRUE(has_fact(fb, -1, "machine.lat_mem_ns"), "DRAM latency");
		factbase__free(fb);
	}
	snprintf(o.machine_profile, sizeof(o.machine_profile), "/nonexistent/machine.json");
	fb = bind(&r, NULL, &o);
	if (fb) {
		ASSERT_FALSE(fb->have[EV_MACHINE], "unreadable machine profile");
		ASSERT_TRUE(strstr(fb->missing[EV_MACHINE],
				   "/nonexistent/machine.json could not be read (") != NULL,
			    "why, naming the file");
		factbase__free(fb);
	}
}

/* Lock words waited on become lock entities, named and placed at their declaration. */
void test_bind__locks(void)
{
	struct report *r = report__new();
	struct sampling *p = calloc(1, sizeof(*p));
	struct sampling_lock *l = calloc(2, sizeof(*l));
	struct factbase *fb;
	int idx = -1, anon = -1;

	r->target.wall_ns = 2000000000ULL;
	p->sys_measured = true;
	p->futex_lock_ns = 900000000ULL;
	p->runq_ns = 300000000ULL;
	l[0] = (struct sampling_lock){ .pid = 1, .uaddr = 0x601040, .wait_ns = 800000000ULL,
				       .waits = 4000, .threads = 4, .decl_line = 12 };
	snprintf(l[0].name, sizeof(l[0].name), "table_lock");
	snprintf(l[0].decl_file, sizeof(l[0].decl_file), "/src/app.c");
	snprintf(l[0].mapping, sizeof(l[0].mapping), "/usr/bin/app");
	l[1] = (struct sampling_lock){ .pid = 1, .uaddr = 0x7f0000001000, .wait_ns = 100000000ULL,
				       .waits = 3, .threads = 1 };
	snprintf(l[1].mapping, sizeof(l[1].mapping), "[heap]");
	p->locks = l;
	p->nr_locks = 2;
	r->sampling = p;
	fb = bind(r, NULL, NULL);
	if (!fb)
		return;
	for (int i = 0; i < fb->nr_ents; i++) {
		if (fb->ents[i].scope != SCOPE_LOCK)
			continue;
		if (!strcmp(fb->ents[i].member, "table_lock"))
			idx = i;
		else
			anon = i;
	}
	ASSERT_TRUE(fb->have[EV_SYSCALLS], "syscalls evidence present");
	if (!ASSERT_TRUE(idx >= 0 && anon >= 0, "two lock entities"))
		goto out;
	ASSERT_NEAR(fact(fb, idx, "lock.wait_s"), 0.8, 1e-9, "wait time");
	ASSERT_NEAR(fact(fb, idx, "lock.waits"), 4000, 0, "waits");
	ASSERT_NEAR(fact(fb, idx, "lock.threads"), 4, 0, "threads");
	ASSERT_NEAR(fact(fb, idx, "lock.waits_per_s"), 2000, 1e-9, "per second of wall");
	ASSERT_NEAR(fact(fb, idx, "lock.named"), 1, 0, "named");
	ASSERT_NEAR(fact(fb, -1, "run.runnable_s"), 0.3, 1e-9, "runnable time");
	ASSERT_STREQ(fb->ents[idx].decl_file, "/src/app.c", "declaration");
	ASSERT_EQ(fb->ents[idx].line, 12, "located at its declaration");
	ASSERT_NEAR(fact(fb, anon, "lock.named"), 0, 0, "heap lock unnamed");
	ASSERT_TRUE(strstr(fb->ents[anon].member, "0x7f0000001000") != NULL, fb->ents[anon].member);
out:
	factbase__free(fb);
	report__free(r);
}

/*
 * Nine arrays walked by one index that begin in one L1d set (the planes of
 * a lattice 1 MiB apart; x[i - 1] reads 8 bytes before its origin), one
 * that begins a line later, one whose origin moves: line.origin_streams
 * counts the nine, by base register.
 */
void test_bind__origin_streams(void)
{
	static const int bases[] = { AS_AX, AS_BX, AS_CX, AS_DX, AS_SI, AS_DI, AS_R8, AS_R9,
				     AS_R10, AS_R11, AS_R12 };
	struct report r;
	struct sampling p;
	struct sampling_hotsum hs[3];
	struct sampling_fault_site site;
	struct sampling_region g;
	struct addr_report a = { .tier = TIER_SW_ADDR, .period_ns = 1000000, .line_size = 64,
				 .l1_sets = 64 };
	struct addr_ip ips[11];
	struct factbase *fb;
	int line;

	fill_profile(&r, &p, hs, &site, &g);
	for (int i = 0; i < 11; i++) {
		addr_ip(&ips[i], "walk", i ? 11 : 10, "movsd xmm0, qword ptr [rax + rcx*8]");
		ips[i].samples = ips[i].decoded = i ? 40 : 400;
		ips[i].op.base = bases[i];
		ips[i].op.index = AS_R13;
		ips[i].op.scale = 8;
		ips[i].op.size = 8;
		ips[i].lines = 40;
		ips[i].origin_n = ips[i].origin_same = 20;
		ips[i].origin_off = i % 2 ? 4088 : 0;
	}
	ips[9].origin_off = 64;		/* a line on: another set */
	ips[10].origin_same = 15;	/* moves: no fixed origin */
	ips[8].origin_bases = 5;	/* seen with five bases, its own stays: one array */
	a.samples = a.decoded = 1000;
	a.ips = ips;
	a.nr_ips = 11;
	r.addr = &a;
	fb = bind(&r, NULL, NULL);
	if (!fb)
		return;
	line = find_at(fb, SCOPE_LINE, "/src/walk.c", 10);
	if (ASSERT_TRUE(line >= 0, "the hot line"))
		ASSERT_NEAR(fact(fb, line, "line.origin_streams"), 9, 0,
			    "nine arrays in its set, by base register");
	factbase__free(fb);
	/* one access whose loop loads its base for each of 6 arrays it was seen at */
	ips[8].op.reloads_base = true;
	ips[8].origin_bases = 6;
	fb = bind(&r, NULL, NULL);
	if (!fb)
		return;
	line = find_at(fb, SCOPE_LINE, "/src/walk.c", 10);
	if (ASSERT_TRUE(line >= 0, "the hot line"))
		ASSERT_NEAR(fact(fb, line, "line.origin_streams"), 14, 0,
			    "eight by register, six through the reloaded one");
	factbase__free(fb);
}

/*
 * A counter load that overwrites its own base (mov eax, [rax]): its 500
 * samples give no address, its stream recorded 400 accesses on 398 pages,
 * up and down at random, in the large anonymous region.  They count for
 * the region and its random walk; a stream that went in order would not.
 */
void test_bind__region_walk_from_stream(void)
{
	struct report r;
	struct sampling p;
	struct sampling_hotsum hs[3];
	struct sampling_fault_site site;
	struct sampling_region g;
	struct addr_report a = { .tier = TIER_SW_ADDR, .period_ns = 1000000 };
	struct addr_ip ip;
	struct stream_ip sip;
	struct streams_report s = { .tier = TIER_UPROBE_STREAM };
	struct factbase *fb;
	int reg = -1;

	fill_profile(&r, &p, hs, &site, &g);
	addr_ip(&ip, "walk", 10, "mov eax, dword ptr [rax]");
	ip.op.insn = 0x401000;
	ip.samples = ip.no_addr = 500;
	a.samples = 520;
	a.ips = &ip;
	a.nr_ips = 1;
	r.addr = &a;
	memset(&sip, 0, sizeof(sip));
	sip.insn = 0x401000;
	sip.skip = STREAM_OK;
	sip.read = true;
	sip.accesses = 400;
	sip.pages = 398;
	sip.forward = 205;
	sip.backward = 194;
	sip.region_start = g.start + 4096;
	sip.region_bytes = g.size;
	s.ips = &sip;
	s.nr_ips = 1;
	r.streams = &s;
	fb = bind(&r, NULL, NULL);
	if (!fb)
		return;
	for (int i = 0; i < fb->nr_ents; i++)
		if (fb->ents[i].scope == SCOPE_REGION)
			reg = i;
	if (ASSERT_TRUE(reg >= 0, "the region")) {
		ASSERT_NEAR(fact(fb, reg, "region.addr_samples"), 500, 0,
			    "the samples its stream placed there");
		ASSERT_NEAR(fact(fb, reg, "region.random_share"), 1, 0, "all of them at random");
		ASSERT_TRUE(fact(fb, reg, "region.random_pages") > 3072,
			    "398 pages of 400 accesses: far more than a TLB maps");
	}
	factbase__free(fb);
	sip.forward = 390;	/* in order: no random walk */
	sip.backward = 9;
	fb = bind(&r, NULL, NULL);
	if (!fb)
		return;
	for (int i = 0; i < fb->nr_ents; i++)
		if (fb->ents[i].scope == SCOPE_REGION)
			reg = i;
	ASSERT_NEAR(fact(fb, reg, "region.random_share"), 0, 0, "a walk in order");
	factbase__free(fb);
}
