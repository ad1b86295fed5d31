// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address streams: the probe's operand and effective address over a table
 * of hand-assembled x86-64 operands, the stream metrics on synthetic
 * address sequences, and the cache/TLB model.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/streams/analyze.h"
#include "model/addr.h"
#include "model/streams.h"
#include "harness.h"

struct ea_case {
	const char *what;
	uint8_t code[15];
	size_t len;
	uint64_t at;		/* the instruction's address */
	enum stream_skip skip;
	uint64_t ea;
	uint8_t size;
	bool write;
};

static void regs_fill(uint64_t *regs)
{
	for (int i = 0; i < AS_NR_REGS; i++)
		regs[i] = 0x100000 * (uint64_t)(i + 1);
	regs[AS_BX] = 0x100000010ULL;	/* above 4 GiB: the 32-bit forms wrap */
	regs[AS_CX] = 8;
}

void test_streams__ea_table(void)
{
	static const struct ea_case cases[] = {
		{ "mov rax, [rsi]", { 0x48, 0x8b, 0x06 }, 3, 0x401000, STREAM_OK,
		  0x500000, 8, false },
		{ "mov eax, [rsi + rcx*4 + 0x10]", { 0x8b, 0x44, 0x8e, 0x10 }, 4, 0x401000,
		  STREAM_OK, 0x500000 + 32 + 0x10, 4, false },
		{ "mov eax, [r12 + r13*8 - 8]", { 0x43, 0x8b, 0x44, 0xec, 0xf8 }, 5, 0x401000,
		  STREAM_OK, 0xe00000 + 0xf00000 * 8 - 8, 4, false },
		{ "mov rax, [rip + 0x100]", { 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 }, 7,
		  0x401000, STREAM_OK, 0x401007 + 0x100, 8, false },
		{ "mov eax, [ebx + ecx*2] (0x67)", { 0x67, 0x8b, 0x04, 0x4b }, 4, 0x401000,
		  STREAM_OK, (0x100000010ULL + 16) & 0xffffffffULL, 4, false },
		{ "mov byte ptr [rdi], 1", { 0xc6, 0x07, 0x01 }, 3, 0x401000, STREAM_OK,
		  0x600000, 1, true },
		{ "mov word ptr [rax + rbx], cx", { 0x66, 0x89, 0x0c, 0x18 }, 4, 0x401000,
		  STREAM_OK, 0x100000 + 0x100000010ULL, 2, true },
		{ "movsd xmm0, [rsp + 8]", { 0xf2, 0x0f, 0x10, 0x44, 0x24, 0x08 }, 6, 0x401000,
		  STREAM_OK, 0x800000 + 8, 8, false },
		{ "mov eax, [0x1234] (no base)", { 0x8b, 0x04, 0x25, 0x34, 0x12, 0x00, 0x00 }, 7,
		  0x401000, STREAM_OK, 0x1234, 4, false },
		{ "mov rax, fs:[0x28]", { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 }, 9,
		  0x401000, STREAM_SKIP_SEGMENT, 0, 0, false },
		{ "vpgatherdd ymm0, [rax + ymm1*4], ymm2", { 0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88 }, 6,
		  0x401000, STREAM_SKIP_OPERAND, 0, 0, false },
		{ "add rax, rbx (no memory)", { 0x48, 0x01, 0xd8 }, 3, 0x401000,
		  STREAM_SKIP_OPERAND, 0, 0, false },
		/* the kernel's uprobes would take these for jumps (analyze.c) */
		{ "vpcmpeqb ymm1, ymm0, [rdi] (VEX 74: je)", { 0xc5, 0xfd, 0x74, 0x0f }, 4,
		  0x401000, STREAM_SKIP_EMULATED, 0, 0, false },
		{ "vmovdqu [rsi], xmm1 (VEX 7f: jg)", { 0xc5, 0xfa, 0x7f, 0x0e }, 4, 0x401000,
		  STREAM_SKIP_EMULATED, 0, 0, false },
		{ "vmovdqu [r14], ymm1 (3-byte VEX 7f)", { 0xc4, 0xc1, 0x7e, 0x7f, 0x0e }, 5,
		  0x401000, STREAM_SKIP_EMULATED, 0, 0, false },
		{ "vpor ymm0, ymm1, [rdi] (VEX eb: jmp)", { 0xc5, 0xf5, 0xeb, 0x07 }, 4,
		  0x401000, STREAM_SKIP_EMULATED, 0, 0, false },
		{ "vmovdqu64 [rdi], zmm0 (EVEX 7f)", { 0x62, 0xf1, 0xfe, 0x48, 0x7f, 0x07 }, 6,
		  0x401000, STREAM_SKIP_EMULATED, 0, 0, false },
		/* not taken for jumps (the kernel refuses VEX 6f itself: attach fails) */
		{ "vmovdqu ymm1, [rax] (VEX 6f)", { 0xc5, 0xfe, 0x6f, 0x08 }, 4, 0x401000,
		  STREAM_OK, 0x100000, 32, false },
		{ "pcmpeqb xmm1, [rdi] (legacy 0f 74)", { 0x66, 0x0f, 0x74, 0x0f }, 4, 0x401000,
		  STREAM_OK, 0x600000, 16, false },
		{ "movdqu [rsi], xmm1 (legacy 0f 7f)", { 0xf3, 0x0f, 0x7f, 0x0e }, 4, 0x401000,
		  STREAM_OK, 0x500000, 16, true },
	};
	uint64_t regs[AS_NR_REGS];

	regs_fill(regs);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ea_case *c = &cases[i];
		struct stream_probe p;
		char text[64];
		enum stream_skip s = streams__probe_from_code(c->code, c->len, c->at, &p, text,
							      sizeof(text));

		if (!ASSERT_EQ(s, c->skip, c->what))
			continue;
		if (s != STREAM_OK)
			continue;
		ASSERT_EQ(streams__ea(&p, regs), c->ea, c->what);
		ASSERT_EQ(p.size, c->size, c->what);
		ASSERT_EQ(!!(p.flags & STREAM_F_WRITE), c->write, c->what);
	}
}

static const struct stream_geom geom = {
	.line = 64, .page = 4096, .l1_sets = 64, .l1_ways = 8, .l2_sets = 1024, .l2_ways = 8,
	.tlb_entries = 4,
};

static struct stream_access *seq(size_t n, uint64_t base, int64_t stride, bool write)
{
	struct stream_access *a = calloc(n, sizeof(*a));

	for (size_t i = 0; i < n; i++) {
		a[i].addr = base + (uint64_t)((int64_t)i * stride);
		a[i].tid = 7;
		a[i].size = 8;
		a[i].write = write;
	}
	return a;
}

void test_streams__column_walk_conflicts(void)
{
	struct stream_access *a = seq(1024, 0x10000000, 4096, false);
	struct stream_ip o = { 0 };

	streams__analyze(a, 1024, &geom, &o, 1);
	ASSERT_EQ(o.accesses, 1024, "every access counted");
	ASSERT_EQ(o.stride, 4096, "exact stride");
	ASSERT_TRUE(o.stride_frac > 0.99, "regular");
	ASSERT_EQ(o.l1_sets_used, 1, "a 4096-byte pitch maps every line to one L1 set");
	ASSERT_EQ(o.l1_max_set_lines, 512, "a window of 512 accesses, all in that set");
	ASSERT_EQ(o.l2_sets_used, 16, "and to 16 of the 1024 L2 sets");
	ASSERT_TRUE(o.conflict, "conflict");
	ASSERT_EQ((long long)o.lines_per_k, 1000, "a new line every access");
	ASSERT_EQ((long long)o.pages_per_k, 1000, "and a new page");
	ASSERT_EQ(o.splits, 0, "aligned");
	free(a);

	/* padded by one line: the lines spread over every set */
	a = seq(1024, 0x10000000, 4096 + 64, false);
	memset(&o, 0, sizeof(o));
	streams__analyze(a, 1024, &geom, &o, 1);
	ASSERT_EQ(o.stride, 4160, "exact stride");
	ASSERT_EQ(o.l1_sets_used, 64, "all L1 sets");
	ASSERT_EQ(o.l1_max_set_lines, 8, "no more lines in a set than ways");
	ASSERT_FALSE(o.conflict, "no conflict");
	free(a);
}

void test_streams__sequential_and_random(void)
{
	struct stream_access *a = seq(4000, 0x20000000, 8, false);
	struct stream_ip o = { 0 };

	streams__analyze(a, 4000, &geom, &o, 1);
	ASSERT_EQ(o.stride, 8, "element stride");
	ASSERT_EQ((long long)o.lines_per_k, 125, "8 accesses a line");
	ASSERT_FALSE(o.conflict, "a sequential walk crowds no set");
	/* the model: one miss a line, all cold */
	ASSERT_EQ(o.l1_misses, 500, "a miss per line");
	ASSERT_EQ(o.l1_cold, 500, "all cold");
	ASSERT_EQ(o.forward, 3999, "every delta goes forward");
	ASSERT_EQ(o.backward, 0, "none back");
	free(a);

	/* random lines over 64 MiB: spread over the sets */
	a = seq(2048, 0, 0, false);
	srand(1);
	for (int i = 0; i < 2048; i++)
		a[i].addr = 0x40000000ULL + ((uint64_t)rand() % (1 << 20)) * 64;
	memset(&o, 0, sizeof(o));
	streams__analyze(a, 2048, &geom, &o, 1);
	ASSERT_TRUE(o.stride_frac < 0.05, "no regular stride");
	ASSERT_FALSE(o.conflict, "random lines do not crowd into a few sets");
	ASSERT_TRUE(o.forward > 900 && o.backward > 900, "random order: about as many back as forward");
	free(a);
}

/*
 * Order is direction; jumps are reach: a sequential walk and a page-pitch
 * column walk are in order without jumps; a descent that always goes up
 * in memory but lands anywhere (a tree whose children were allocated after
 * their parents) is in order with half its steps jumps.
 */
void test_streams__in_order(void)
{
	struct stream_access *a = seq(2000, 0x20000000, 8, false);
	struct stream_ip o = { 0 };
	uint64_t at = 0x40000000ULL;

	o.skip = STREAM_OK;
	streams__analyze(a, 2000, &geom, &o, 1);
	ASSERT_EQ(o.jumps, 0, "no jump");
	ASSERT_TRUE(stream_ip__in_order(&o), "sequential: in order");
	free(a);
	a = seq(1024, 0x10000000, 4096, false);
	memset(&o, 0, sizeof(o));
	streams__analyze(a, 1024, &geom, &o, 1);
	ASSERT_EQ(o.jumps, 0, "a page-pitch stride is the stride, no jump");
	ASSERT_TRUE(stream_ip__in_order(&o), "column walk: in order");
	free(a);
	/* up every step: half the steps to the next node, half far */
	a = seq(2000, 0, 0, false);
	srand(3);
	for (int i = 0; i < 2000; i++) {
		at += (i & 1) ? 48 : 4096 + ((uint64_t)rand() % (1 << 16)) * 48;
		a[i].addr = at;
	}
	memset(&o, 0, sizeof(o));
	streams__analyze(a, 2000, &geom, &o, 1);
	ASSERT_EQ(o.backward, 0, "never down");
	ASSERT_TRUE(o.jumps >= 900, "half the steps jump");
	ASSERT_TRUE(stream_ip__in_order(&o), "one way: in order, but jumping (jumps)");
	free(a);
}

void test_streams__line_splits(void)
{
	struct stream_access *a = seq(100, 0x30000000 + 60, 64, false);
	struct stream_ip o = { 0 };

	streams__analyze(a, 100, &geom, &o, 1);
	ASSERT_EQ(o.splits, 100, "8 bytes at offset 60 cross a line every time");
	ASSERT_EQ(o.misaligned, 100, "and are not aligned to their size");
	for (int i = 0; i < 100; i++)
		a[i].addr = 0x30000000 + 56 + 64 * (uint64_t)i;
	streams__analyze(a, 100, &geom, &o, 1);
	ASSERT_EQ(o.splits, 0, "at offset 56 they fit");
	free(a);
}

void test_streams__write_only(void)
{
	struct stream_access *a = seq(200, 0x50000000, 64, true);
	struct stream_ip o[2];

	memset(o, 0, sizeof(o));
	o[0].write = true;
	streams__analyze(a, 200, &geom, o, 1);
	ASSERT_EQ(o[0].written_lines, 200, "lines written");
	ASSERT_EQ(o[0].written_lines_read, 0, "none read back");
	ASSERT_TRUE(o[0].write_only, "write-only");
	free(a);

	/* a second instruction reads half the lines back */
	a = seq(300, 0x50000000, 64, true);
	for (int i = 200; i < 300; i++) {
		a[i].addr = 0x50000000 + 128 * (uint64_t)(i - 200);
		a[i].write = false;
		a[i].ipi = 1;
	}
	memset(o, 0, sizeof(o));
	o[0].write = true;
	o[1].read = true;
	streams__analyze(a, 300, &geom, o, 2);
	ASSERT_EQ(o[0].written_lines_read, 100, "read back");
	ASSERT_FALSE(o[0].write_only, "not write-only");
	free(a);
}

void test_streams__reuse_distance(void)
{
	/* lines A B C A: A comes back after 2 other lines */
	static const uint64_t lines[] = { 1, 2, 3, 1 };
	struct stream_access a[4];
	struct stream_ip o = { 0 };

	memset(a, 0, sizeof(a));
	for (int i = 0; i < 4; i++) {
		a[i].addr = lines[i] * 64;
		a[i].size = 4;
		a[i].tid = 1;
	}
	streams__analyze(a, 4, &geom, &o, 1);
	ASSERT_EQ(o.reuses, 1, "one reuse");
	ASSERT_EQ((long long)o.reuse_median, 2, "distance 2");
}

void test_streams__reuse_over_bursts(void)
{
	/* lines 1 2 in burst 0, 3 1 in burst 1: line 1 comes back across them */
	static const uint64_t lines[] = { 1, 2, 3, 1 };
	struct stream_access a[4];
	struct stream_ip o = { 0 };

	memset(a, 0, sizeof(a));
	for (int i = 0; i < 4; i++) {
		a[i].addr = lines[i] * 64;
		a[i].size = 4;
		a[i].tid = 1;
		a[i].burst = i >= 2;
	}
	streams__analyze(a, 4, &geom, &o, 1);
	ASSERT_EQ(o.reuses, 1, "the line of burst 0 met again in burst 1");
	ASSERT_EQ((long long)o.reuse_median, 2, "two lines seen between");
	/* another thread's burst starts a stack of its own */
	for (int i = 2; i < 4; i++)
		a[i].tid = 2;
	streams__analyze(a, 4, &geom, &o, 1);
	ASSERT_EQ(o.reuses, 0, "no reuse across threads");
}

void test_streams__cycle(void)
{
	/* p[0..2] of 128-byte elements: 4, 4, 120 */
	struct stream_access a[300];
	struct stream_ip o = { 0 };

	memset(a, 0, sizeof(a));
	for (int i = 0; i < 300; i++) {
		a[i].addr = 0x10000 + (uint64_t)(i / 3) * 128 + (uint64_t)(i % 3) * 4;
		a[i].size = 4;
		a[i].tid = 1;
	}
	streams__analyze(a, 300, &geom, &o, 1);
	ASSERT_EQ(o.stride, 4, "most deltas are 4");
	ASSERT_EQ(o.cycle_deltas, 3, "a period of three deltas");
	ASSERT_EQ(o.cycle, 128, "an element a period");
	/* a plain walk: a period of one delta, the stride */
	for (int i = 0; i < 300; i++)
		a[i].addr = 0x10000 + (uint64_t)i * 64;
	streams__analyze(a, 300, &geom, &o, 1);
	ASSERT_EQ(o.cycle_deltas, 1, "one delta");
	ASSERT_EQ(o.cycle, 64, "the stride");
	/* at random: no period */
	for (int i = 0; i < 300; i++)
		a[i].addr = 0x10000 + ((uint64_t)i * 2654435761u % 4099) * 64;
	streams__analyze(a, 300, &geom, &o, 1);
	ASSERT_EQ(o.cycle_deltas, 0, "no period");
}

void test_streams__decided_over_bursts(void)
{
	/* a 128-byte walk, 200 accesses a burst: no burst alone passes 512 lines */
	struct stream_access a[800];
	struct stream_ip o = { 0 };

	memset(a, 0, sizeof(a));
	for (int i = 0; i < 800; i++) {
		a[i].addr = 0x100000 + (uint64_t)i * 128;
		a[i].size = 4;
		a[i].tid = 1;
		a[i].burst = (uint16_t)(i / 200);
	}
	streams__analyze(a, 800, &geom, &o, 1);
	ASSERT_EQ(o.l1_decided, 800 - 512, "first touches decided once the walk passed 512 lines");
	ASSERT_EQ(o.l1_decided_misses, o.l1_decided, "all of them misses");
	/* the same 200 lines walked again in every burst: never decided */
	for (int i = 0; i < 800; i++)
		a[i].addr = 0x100000 + (uint64_t)(i % 200) * 128;
	streams__analyze(a, 800, &geom, &o, 1);
	ASSERT_EQ(o.l1_decided, 0, "a walk the L1d holds: first touches undecided");
}

void test_streams__cache_tlb_model(void)
{
	/* 8 lines of one set (= ways), 10 times: only the first pass misses */
	struct stream_access *a = seq(80, 0, 0, false);
	struct stream_ip o = { 0 };

	for (int i = 0; i < 80; i++)
		a[i].addr = 0x60000000ULL + (uint64_t)(i % 8) * 4096;
	streams__analyze(a, 80, &geom, &o, 1);
	ASSERT_EQ(o.l1_misses, 8, "8 lines fit 8 ways");
	ASSERT_EQ(o.l1_cold, 8, "cold misses only");
	ASSERT_EQ(o.tlb_misses, 80, "8 pages cycled through 4 TLB entries: LRU misses all");
	ASSERT_EQ(o.tlb_cold, 8, "8 of them cold");
	/* 9 lines in one set cycled: LRU evicts each before its return */
	free(a);
	a = seq(90, 0, 0, false);
	for (int i = 0; i < 90; i++)
		a[i].addr = 0x60000000ULL + (uint64_t)(i % 9) * 4096;
	streams__analyze(a, 90, &geom, &o, 1);
	ASSERT_EQ(o.l1_misses, 90, "9 lines in 8 ways miss every time");
	ASSERT_EQ(o.l2_misses, 9, "the L2 has them in 16 sets");
	/* 4 pages in 4 TLB entries: cold misses only */
	for (int i = 0; i < 90; i++)
		a[i].addr = 0x70000000ULL + (uint64_t)(i % 4) * 4096;
	streams__analyze(a, 90, &geom, &o, 1);
	ASSERT_EQ(o.tlb_misses, 4, "4 pages fit 4 entries");
	/* a second thread starts cold: the model is per thread */
	for (int i = 45; i < 90; i++)
		a[i].tid = 8;
	streams__analyze(a, 90, &geom, &o, 1);
	ASSERT_EQ(o.tlb_misses, 8, "each thread's own TLB");
	ASSERT_EQ(o.threads, 2, "two threads");
	free(a);
}

/*
 * A first touch in a burst decides nothing (the line may have been cached
 * before it) until the burst has touched more lines than the cache holds;
 * the geometry here holds 64 x 8 = 512 lines and 4 pages.
 */
void test_streams__decided_accesses(void)
{
	struct stream_access *a = seq(600, 0x80000000ULL, 64, false);
	struct stream_ip o = { 0 };

	/* 123 new lines, as a 1 ms burst on a long walk sees: nothing decided */
	streams__analyze(a, 123, &geom, &o, 1);
	ASSERT_EQ(o.l1_misses, 123, "every access a cold miss");
	ASSERT_EQ(o.l1_decided, 0, "none of them decided");
	/* 600 new lines: those past the 512th decide, and miss */
	streams__analyze(a, 600, &geom, &o, 1);
	ASSERT_EQ(o.l1_decided, 88, "the 88 past the cache's 512 lines");
	ASSERT_EQ(o.l1_decided_misses, 88, "all misses");
	/* a 128-line table walked again and again: the returns decide, and hit */
	for (int i = 0; i < 600; i++)
		a[i].addr = 0x80000000ULL + (uint64_t)(i % 128) * 64;
	streams__analyze(a, 600, &geom, &o, 1);
	ASSERT_EQ(o.l1_decided, 472, "every return decides");
	ASSERT_EQ(o.l1_decided_misses, 0, "a table that fits never misses");
	/* pages: 8 cycled through 4 entries decide from their returns on */
	for (int i = 0; i < 80; i++)
		a[i].addr = 0x90000000ULL + (uint64_t)(i % 8) * 4096;
	streams__analyze(a, 80, &geom, &o, 1);
	ASSERT_EQ(o.tlb_decided, 76, "first touches past the 4th page and every return");
	ASSERT_EQ(o.tlb_decided_misses, 76, "LRU over 8 pages in 4 entries misses them all");
	free(a);
}

/* Sampled load lines in a span: what the read-back test of a store asks. */
void test_streams__sampled_reads_in_span(void)
{
	uint64_t lines[] = { 10, 20, 21, 22, 40, 100 };
	struct addr_report r = { .read_lines = lines, .nr_read_lines = 6 };

	ASSERT_EQ(addr_report__reads_in(&r, 20, 22), 3, "the three inside");
	ASSERT_EQ(addr_report__reads_in(&r, 23, 39), 0, "a gap");
	ASSERT_EQ(addr_report__reads_in(&r, 0, 1000), 6, "all");
	ASSERT_EQ(addr_report__reads_in(&r, 100, 100), 1, "one line");
	ASSERT_EQ(addr_report__reads_in(&r, 50, 40), 0, "an empty span");
	ASSERT_EQ(addr_report__reads_in(NULL, 0, 10), 0, "no sampling");
}
