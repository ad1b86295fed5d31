// SPDX-License-Identifier: GPL-2.0-only
/* Effective addresses from hand-assembled x86-64 bytes and sampled registers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>

#include "collect/addr/addrsample.h"
#include "symbols/decode.h"
#include "model/addr.h"
#include "harness.h"

static uint64_t regs[AS_NR_REGS];

static void set_regs(void)
{
	for (int i = 0; i < AS_NR_REGS; i++)
		regs[i] = 0x1000 * (uint64_t)(i + 1);
}

void test_addrsample__base_overwritten(void)
{
	static const uint8_t code[] = { 0x4d, 0x8b, 0x24, 0x24 }; /* mov r12, [r12] */
	struct mem_operand op;

	set_regs();
	if (!ASSERT_OK(addrsample__decode(code, sizeof(code), 0x401000, &op), "decode"))
		return;
	ASSERT_EQ(op.skip, AS_OK, "has a memory operand");
	ASSERT_EQ(op.len, 4, "length");
	ASSERT_EQ(op.base, AS_R12, "base");
	ASSERT_EQ(op.index, -1, "no index");
	ASSERT_TRUE(op.read && !op.write, "a load");
	ASSERT_TRUE(op.clobbers, "r12 is overwritten: approximate");
	ASSERT_TRUE(op.chase, "a pointer loaded into its own base: the next object's member");
	ASSERT_EQ(op.size, 8, "8-byte access");
	ASSERT_EQ(addrsample__ea(&op, regs), regs[AS_R12], "ea = r12");
}

void test_addrsample__base_index_scale(void)
{
	static const uint8_t code[] = { 0x48, 0x03, 0x74, 0xc1, 0x10 }; /* add rsi, [rcx+rax*8+0x10] */
	struct mem_operand op;

	set_regs();
	if (!ASSERT_OK(addrsample__decode(code, sizeof(code), 0x401000, &op), "decode"))
		return;
	ASSERT_EQ(op.skip, AS_OK, "memory operand");
	ASSERT_EQ(op.base, AS_CX, "base");
	ASSERT_EQ(op.index, AS_AX, "index");
	ASSERT_EQ(op.scale, 8, "scale");
	ASSERT_FALSE(op.clobbers, "rsi is not an address register");
	ASSERT_EQ(addrsample__ea(&op, regs), regs[AS_CX] + regs[AS_AX] * 8 + 0x10, "ea");
}

/*
 * The decoder keeps instructions by address: the same address with other
 * bytes (another process's code, a test's) decodes those bytes, and bytes
 * cut short do not decode.
 */
void test_addrsample__decode_cached_by_bytes(void)
{
	static const uint8_t a[] = { 0x48, 0x03, 0x74, 0xc1, 0x10 }; /* add rsi, [rcx+rax*8+0x10] */
	static const uint8_t b[] = { 0x48, 0x8b, 0x57, 0x08 };	     /* mov rdx, [rdi+8] */
	struct mem_operand op;

	for (int round = 0; round < 2; round++) {
		if (!ASSERT_OK(addrsample__decode(a, sizeof(a), 0x7000, &op), "decode a"))
			return;
		ASSERT_EQ(op.base, AS_CX, "a: base rcx");
		ASSERT_EQ(op.index, AS_AX, "a: index rax");
		ASSERT_EQ(op.len, 5, "a: length");
		if (!ASSERT_OK(addrsample__decode(b, sizeof(b), 0x7000, &op), "decode b"))
			return;
		ASSERT_EQ(op.base, AS_DI, "b: base rdi at the same address");
		ASSERT_EQ(op.index, -1, "b: no index");
		ASSERT_EQ(op.disp, 8, "b: displacement");
		ASSERT_EQ(op.len, 4, "b: length");
	}
	ASSERT_TRUE(addrsample__decode(a, 3, 0x7000, &op) != 0 || op.skip != AS_OK,
		    "a cut to 3 bytes does not decode");
}

void test_addrsample__rip_relative_store(void)
{
	static const uint8_t code[] = { 0x89, 0x05, 0x10, 0x00, 0x00, 0x00 }; /* mov [rip+0x10], eax */
	struct mem_operand op;

	set_regs();
	if (!ASSERT_OK(addrsample__decode(code, sizeof(code), 0x401000, &op), "decode"))
		return;
	ASSERT_TRUE(op.rip, "rip-relative");
	ASSERT_TRUE(op.write && !op.read, "a store");
	ASSERT_EQ(op.size, 4, "4 bytes");
	ASSERT_EQ(addrsample__ea(&op, regs), 0x401000 + 6 + 0x10, "ea = next ip + disp");
}

void test_addrsample__read_modify_write(void)
{
	static const uint8_t code[] = { 0x83, 0x00, 0x01 }; /* add dword ptr [rax], 1 */
	struct mem_operand op;

	if (!ASSERT_OK(addrsample__decode(code, sizeof(code), 0x1000, &op), "decode"))
		return;
	ASSERT_TRUE(op.read && op.write, "read and write");
	ASSERT_EQ(op.base, AS_AX, "base");
}

void test_addrsample__vector_move_kinds(void)
{
	static const struct {
		uint8_t code[5];
		size_t len;
		bool write;
		const char *what;
	} t[] = {
		{ { 0x0f, 0x11, 0x2f }, 3, true, "movups [rdi], xmm5: a store" },
		{ { 0x66, 0x0f, 0x7f, 0x2f }, 4, true, "movdqa [rdi], xmm5: a store" },
		{ { 0x66, 0x0f, 0xe7, 0x2f }, 4, true, "movntdq [rdi], xmm5: a store" },
		{ { 0x0f, 0x10, 0x2f }, 3, false, "movups xmm5, [rdi]: a load" },
		{ { 0x66, 0x0f, 0x6f, 0x2f }, 4, false, "movdqa xmm5, [rdi]: a load" },
	};
	struct mem_operand op;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!ASSERT_OK(addrsample__decode(t[i].code, t[i].len, 0x1000, &op), t[i].what))
			return;
		ASSERT_EQ(op.write, t[i].write, t[i].what);
		ASSERT_EQ(op.read, !t[i].write, t[i].what);
	}
}

void test_addrsample__skipped(void)
{
	static const uint8_t lea[] = { 0x48, 0x8d, 0x43, 0x08 };	      /* lea rax, [rbx+8] */
	static const uint8_t tls[] = { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 }; /* fs:[0x28] */
	static const uint8_t push[] = { 0x53 };				      /* push rbx */
	static const uint8_t nop[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };	      /* nop [rax+rax] */
	static const uint8_t bad[] = { 0x0f, 0x0b, 0xff };		      /* ud2 is fine... */
	struct mem_operand op;

	ASSERT_OK(addrsample__decode(lea, sizeof(lea), 0x1000, &op), "lea decodes");
	ASSERT_EQ(op.skip, AS_LEA, "lea is no access");
	ASSERT_OK(addrsample__decode(tls, sizeof(tls), 0x1000, &op), "tls decodes");
	ASSERT_EQ(op.skip, AS_SEGMENT, "fs-relative skipped");
	ASSERT_OK(addrsample__decode(push, sizeof(push), 0x1000, &op), "push decodes");
	ASSERT_EQ(op.skip, AS_NO_MEM, "implicit stack access not covered");
	ASSERT_OK(addrsample__decode(nop, sizeof(nop), 0x1000, &op), "nop decodes");
	ASSERT_EQ(op.skip, AS_LEA, "multi-byte nop is no access");
	ASSERT_ERR(addrsample__decode(bad + 2, 1, 0x1000, &op), "a lone 0xff does not decode");
	(void)bad;
}

/* mov rax,[rbx]; add rsi,[rcx+rax*8]; cmp rax, 0x7fffff  -- IP sampled after the add */
static const uint8_t seq[] = { 0x48, 0x8b, 0x03, 0x48, 0x03, 0x34, 0xc1,
			       0x48, 0x3d, 0xff, 0xff, 0x7f, 0x00 };

/*
 * A loop compiled as: mov rax,[rdx]; add rdx,8; lea r11,[rax+rax*2]; sar rax,2;
 * a tick lands after the sar (as on some cores): the access is the mov,
 * three instructions before the sar, and rdx has moved 8 on since.
 */
static const uint8_t walk[] = { 0x48, 0x8b, 0x02,	      /* 0x1000 mov rax, [rdx] */
				0x48, 0x83, 0xc2, 0x08,	      /* 0x1003 add rdx, 8 */
				0x4c, 0x8d, 0x1c, 0x40,	      /* 0x1007 lea r11, [rax+rax*2] */
				0x48, 0xc1, 0xf8, 0x02 };     /* 0x100b sar rax, 2 */

void test_addrsample__decode_back(void)
{
	struct mem_operand op;

	set_regs();
	if (!ASSERT_OK(addrsample__decode_back(walk, 0x1000, 0x1000, 0x1000 + sizeof(walk), &op),
		       "the access before the sar"))
		return;
	ASSERT_EQ(op.skip, AS_OK, "a memory operand");
	ASSERT_EQ(op.insn, 0x1000, "the mov");
	ASSERT_EQ(op.back, 3, "three instructions before the sar");
	ASSERT_EQ(op.base, AS_DX, "base rdx");
	ASSERT_EQ(op.adj, 8, "rdx moved on by 8");
	ASSERT_FALSE(op.clobbers, "a constant move is undone: exact");
	ASSERT_EQ(addrsample__ea(&op, regs), regs[AS_DX] - 8, "ea = rdx - 8");
}

void test_addrsample__decode_back_limits(void)
{
	/* mov rax,[rdx]; mov rdx,rax; sar rax,2: the base was replaced */
	static const uint8_t clob[] = { 0x48, 0x8b, 0x02, 0x48, 0x89, 0xc2, 0x48, 0xc1, 0xf8, 0x02 };
	/* mov rax,[rdx]; jne 0x1000; sar rax,2: a branch between */
	static const uint8_t br[] = { 0x48, 0x8b, 0x02, 0x75, 0xfb, 0x48, 0xc1, 0xf8, 0x02 };
	/* jmp 0x1005; mov rax,[rdx]; add rdx,8; sar rax,2: the jump lands after the access */
	static const uint8_t into[] = { 0xeb, 0x03, 0x48, 0x8b, 0x02, 0x48, 0x83, 0xc2, 0x08,
					0x48, 0xc1, 0xf8, 0x02 };
	/* mov rax,[rdx]; then five instructions with no access: too far back */
	static const uint8_t far[] = { 0x48, 0x8b, 0x02, 0x48, 0xff, 0xc1, 0x48, 0xff, 0xc1,
				       0x48, 0xff, 0xc1, 0x48, 0xff, 0xc1, 0x48, 0xff, 0xc1 };
	/* mov rax,[rdx]; ret: the IP after a ret is reached by a jump, not from the mov */
	static const uint8_t ret[] = { 0x48, 0x8b, 0x02, 0xc3 };
	struct mem_operand op;

	ASSERT_ERR(addrsample__decode_back(ret, 0x1000, 0x1000, 0x1000 + sizeof(ret), &op),
		   "not after a ret");
	ASSERT_OK(addrsample__decode_back(clob, 0x1000, 0x1000, 0x1000 + sizeof(clob), &op),
		  "an access whose base was replaced");
	ASSERT_TRUE(op.clobbers, "its address is approximate");
	ASSERT_FALSE(op.chase, "replaced by a later instruction: no address");
	ASSERT_ERR(addrsample__decode_back(br, 0x1000, 0x1000, 0x1000 + sizeof(br), &op),
		   "not across a branch");
	ASSERT_ERR(addrsample__decode_back(into, 0x1000, 0x1000, 0x1000 + sizeof(into), &op),
		   "not where a jump lands between the access and the IP");
	ASSERT_ERR(addrsample__decode_back(far, 0x1000, 0x1000, 0x1000 + sizeof(far), &op),
		   "not more than four instructions back");
}

/*
 * A store, then a call: the IP is the return address, and the registers
 * sampled there are what the callee left in them.
 */
void test_addrsample__decode_back_call(void)
{
	/* mov [rdi+0x18],eax; call +0: rdi is the callee's to change */
	static const uint8_t rdi[] = { 0x89, 0x47, 0x18, 0xe8, 0x00, 0x00, 0x00, 0x00 };
	/* mov [rbx+0x18],eax; call +0: rbx survives calls */
	static const uint8_t rbx[] = { 0x89, 0x43, 0x18, 0xe8, 0x00, 0x00, 0x00, 0x00 };
	struct mem_operand op;

	if (ASSERT_OK(addrsample__decode_back(rdi, 0x1000, 0x1000, 0x1000 + sizeof(rdi), &op),
		      "the store before the call"))
		ASSERT_TRUE(op.clobbers && !op.chase, "a caller-saved base: no address");
	if (ASSERT_OK(addrsample__decode_back(rbx, 0x1000, 0x1000, 0x1000 + sizeof(rbx), &op),
		      "the store before the call"))
		ASSERT_FALSE(op.clobbers, "a callee-saved base: exact");
}

void test_addrsample__prev_insn_sweep(void)
{
	uint64_t insn = 0;

	ASSERT_OK(addrsample__prev_insn(seq, 0x2000, 0x2007, 0x2000, &insn), "found");
	ASSERT_EQ(insn, 0x2003, "the add before the IP");
	ASSERT_OK(addrsample__prev_insn(seq, 0x2000, 0x2003, 0x2000, &insn), "found");
	ASSERT_EQ(insn, 0x2000, "the first instruction");
}

void test_addrsample__prev_insn_vote(void)
{
	uint64_t insn = 0;

	/* no symbol: decode from each offset before the IP and vote */
	ASSERT_OK(addrsample__prev_insn(seq, 0x2000, 0x2007, 0, &insn), "found");
	ASSERT_EQ(insn, 0x2003, "the add before the IP");
}

void test_addrsample__stride_from_sparse_samples(void)
{
	/* a 256-byte stride seen at random times: random multiples, one wrap */
	static const int64_t d[] = { 256 * 3, 256 * 5, 256 * 2, 256 * 7, 256 * 9, 256 * 4,
				     256 * 11, -256 * 40, 256 * 6, 256 * 3, 256 * 10, 256 * 5 };
	int64_t deltas[(sizeof(d) / sizeof(d[0]))];
	double frac = 0;

	for (size_t i = 0; i < (sizeof(d) / sizeof(d[0])); i++)
		deltas[i] = d[i];
	ASSERT_EQ(addrsample__stride(deltas, (sizeof(d) / sizeof(d[0])), &frac), 256, "stride");
	ASSERT_NEAR(frac, 1.0, 1e-9, "all deltas are multiples");
	ASSERT_NEAR(addrsample__monotonic(deltas, (sizeof(d) / sizeof(d[0])), 256), 1.0, 1e-9,
		    "the wrap starts a new pass: not a step back");
	/* a short step back (a tenth of the span) is one */
	deltas[7] = -256 * 4;
	ASSERT_NEAR(addrsample__monotonic(deltas, (sizeof(d) / sizeof(d[0])), 256), 11.0 / 12, 1e-9,
		    "a short step back counts against the walk");
}

void test_addrsample__stride_regular_clock(void)
{
	/*
	 * a 256-byte walk sampled by a clock as regular as the loop: most
	 * samples 38 or 40 steps apart (gcd 512), some 39 (gcd 256 with them)
	 */
	static const int64_t d[] = { 256 * 40, 256 * 38, 256 * 40, 256 * 38, 256 * 39, 256 * 40,
				     256 * 38, 256 * 40, 256 * 39, 256 * 38, 256 * 40, 256 * 38 };
	/* a walk in 512-byte steps: every gcd a multiple of 512 */
	static const int64_t w[] = { 512 * 20, 512 * 19, 512 * 20, 512 * 19, 512 * 20, 512 * 21 };
	int64_t deltas[12];
	double frac = 0;

	memcpy(deltas, d, sizeof(d));
	ASSERT_EQ(addrsample__stride(deltas, 12, &frac), 256, "the stride, not twice it");
	ASSERT_NEAR(frac, 1.0, 1e-9, "all deltas are multiples");
	memcpy(deltas, w, sizeof(w));
	ASSERT_EQ(addrsample__stride(deltas, 6, &frac), 512, "512-byte steps stay 512");
}

void test_addrsample__stride_none(void)
{
	static const int64_t same[] = { 0, 0, 0, 0 };
	static const int64_t noise[] = { 7, 13, 101, 1009, 65537, 3 };
	double frac = 1;

	ASSERT_EQ(addrsample__stride(same, 4, &frac), 0, "a fixed address has no stride");
	ASSERT_NEAR(frac, 0.0, 1e-9, "no fraction");
	ASSERT_EQ(addrsample__stride(noise, 6, &frac), 1, "co-prime deltas: stride 1");
}

void test_addrsample__atomics(void)
{
	static const uint8_t cas[] = { 0xf0, 0x48, 0x0f, 0xb1, 0x37 };	/* lock cmpxchg [rdi], rsi */
	static const uint8_t ladd[] = { 0xf0, 0x83, 0x00, 0x01 };	/* lock add dword [rax], 1 */
	static const uint8_t xchg[] = { 0x48, 0x87, 0x08 };		/* xchg [rax], rcx */
	static const uint8_t plain[] = { 0x83, 0x00, 0x01 };		/* add dword [rax], 1 */
	struct mem_operand op;

	ASSERT_OK(addrsample__decode(cas, sizeof(cas), 0x1000, &op), "cas decodes");
	ASSERT_TRUE(op.atomic && op.cas, "lock cmpxchg: atomic compare-and-swap");
	ASSERT_TRUE(op.read && op.write, "a CAS is a read-modify-write");
	ASSERT_EQ(op.base, AS_DI, "cas base");
	ASSERT_OK(addrsample__decode(ladd, sizeof(ladd), 0x1000, &op), "lock add decodes");
	ASSERT_TRUE(op.atomic && !op.cas, "lock add: atomic, no CAS");
	ASSERT_OK(addrsample__decode(xchg, sizeof(xchg), 0x1000, &op), "xchg decodes");
	ASSERT_TRUE(op.atomic, "xchg with memory is implicitly locked");
	ASSERT_OK(addrsample__decode(plain, sizeof(plain), 0x1000, &op), "add decodes");
	ASSERT_FALSE(op.atomic, "no lock prefix");
}

/* Pages covered at random, from S samples that saw D of them: a lower bound near N. */
void test_addrsample__random_span(void)
{
	static const int ns[] = { 500, 5000, 50000, 131072 };
	uint64_t seed = 99;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		int n = ns[i], s = 1500;
		uint8_t *seen = calloc((size_t)n, 1);
		uint64_t d = 0;
		double est;

		for (int k = 0; k < s; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			int pg = (int)((seed >> 33) % (uint64_t)n);

			if (!seen[pg]++)
				d++;
		}
		est = addr__random_span((uint64_t)s, d);
		ASSERT_TRUE(est <= n * 1.1, "a lower bound");
		/* and the upper bound: above N, finite only where samples repeat enough */
		if (n <= 5000)
			ASSERT_TRUE(addr__random_span_max((uint64_t)s, d) >= n * 0.9 &&
				    addr__random_span_max((uint64_t)s, d) <= n * 4.0, "an upper bound");
		if (n >= 131072)
			ASSERT_TRUE(addr__random_span_max((uint64_t)s, d) > 65536, "none below 2^16");
		if (n <= 50000)
			ASSERT_TRUE(est >= n / 4.0, "of the right order");
		else
			ASSERT_TRUE(est >= 20000, "beyond any TLB");
		free(seen);
	}
	ASSERT_EQ(addr__random_span(0, 0), 0, "no samples");
	ASSERT_TRUE(isinf(addr__random_span_max(224, 222)), "2 repeats in 224: no upper bound");
}

static void span_counts(const uint32_t *x, int s, uint64_t *d, uint64_t *f1, uint64_t *f2)
{
	uint32_t *v = malloc((size_t)s * sizeof(*v));

	memcpy(v, x, (size_t)s * sizeof(*v));
	for (int i = 1; i < s; i++)	/* insertion sort: a few thousand */
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			uint32_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*d = *f1 = *f2 = 0;
	for (int i = 0, j; i < s; i = j) {
		for (j = i; j < s && v[j] == v[i]; j++)
			;
		(*d)++;
		*f1 += j - i == 1;
		*f2 += j - i == 2;
	}
	free(v);
}

/*
 * The footprint's lower bound where some lines are much hotter than others:
 * a binary tree's search (each level as likely, so the root is in every
 * step's path) is much larger than the equal-odds estimate says, and still
 * a lower bound where all lines are equally likely.
 */
void test_addrsample__span_lower(void)
{
	enum { S = 1200 };
	static uint32_t x[S];
	uint64_t seed = 5, d, f1, f2;
	double uni, low;

	for (int k = 0; k < S; k++) {
		int lvl;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		lvl = (int)((seed >> 33) % 19);
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		x[k] = (1u << lvl) + (uint32_t)((seed >> 33) % (1u << lvl));
	}
	span_counts(x, S, &d, &f1, &f2);
	uni = addr__random_span(S, d);
	low = addr__span_lower(S, d, f1, f2);
	ASSERT_TRUE(low >= 2 * uni, "hot lines: the equal-odds estimate is far too low");
	ASSERT_TRUE(low <= (1u << 19), "and this one is still a lower bound");
	for (int n = 500; n <= 131072; n *= 4) {
		for (int k = 0; k < S; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			x[k] = (uint32_t)((seed >> 33) % (uint64_t)n);
		}
		span_counts(x, S, &d, &f1, &f2);
		ASSERT_TRUE(addr__span_lower(S, d, f1, f2) <= n * 1.15, "equal odds: a lower bound");
		ASSERT_TRUE(addr__span_lower(S, d, f1, f2) >= addr__random_span(S, d),
			    "never below the equal-odds one");
	}
	ASSERT_EQ(addr__span_lower(0, 0, 0, 0), 0, "no samples");
}

/*
 * Two threads each walking a ring of their own 128 MiB apart: each walk is
 * small (thread_extent), and the source line's footprint is one thread's.
 */
void test_addrsample__thread_extent(void)
{
	struct footprint fp = { 0 };
	struct addr_ip ip = { .decoded = 448, .agg = 0 };
	struct addr_report r = { .ips = &ip, .nr_ips = 1 };

	snprintf(ip.loc.file, sizeof(ip.loc.file), "ring.c");
	snprintf(ip.loc.function, sizeof(ip.loc.function), "sweep");
	ip.loc.line = 96;
	/* each element's line sampled twice in each thread */
	for (uint64_t k = 0; k < 448; k++) {
		footprint__add(&fp, 0, 101, (0x7f0000000000ULL >> 6) + 2 * (k % 224));
		footprint__add(&fp, 0, 102,
			       ((0x7f0000000000ULL + (128ULL << 20)) >> 6) + 2 * (k % 224));
	}
	addrsample__pool_spans(&fp, 1, &r);
	ASSERT_EQ(ip.thread_extent, 447 * 64, "one thread's ring: 224 elements of two lines");
	ASSERT_EQ(ip.line_span_samples, 448, "one thread's samples");
	ASSERT_TRUE(ip.line_span_lines >= 200 && ip.line_span_lines <= 240, "one ring's lines");
	footprint__free(&fp);
}

/* Loads that overwrite their base or index other than by a pointer chase give no address. */
void test_addrsample__clobber_no_address(void)
{
	static const struct {
		uint8_t code[8];
		size_t len;
		const char *what;
	} cases[] = {
		{ { 0x0f, 0xb6, 0x04, 0x02 }, 4, "movzx eax, byte [rdx+rax]: the index becomes the byte" },
		{ { 0x8b, 0x00 }, 2, "mov eax, [rax]: a 4-byte load into the base" },
		{ { 0x48, 0x8b, 0x04, 0xc0 }, 4, "mov rax, [rax+rax*8]: base and index both" },
	};
	struct mem_operand op;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!ASSERT_OK(addrsample__decode(cases[i].code, cases[i].len, 0x401000, &op),
			       cases[i].what))
			continue;
		ASSERT_TRUE(op.clobbers, cases[i].what);
		ASSERT_FALSE(op.chase, cases[i].what);
	}
}

/* A load whose operand is written right after, with nothing between moving it: stored back. */
void test_addrsample__stored_back(void)
{
	static const uint8_t load[] = { 0x48, 0x8b, 0x01 };		/* mov rax, [rcx] */
	static const uint8_t rmw[] = { 0x48, 0x83, 0xc0, 0x01,	/* add rax, 1 */
				       0x48, 0x89, 0x01 };		/* mov [rcx], rax */
	static const uint8_t moved[] = { 0x48, 0x83, 0xc1, 0x08,	/* add rcx, 8 */
					 0x48, 0x89, 0x01 };		/* mov [rcx], rax */
	static const uint8_t branch[] = { 0x73, 0x00,			/* jae +0 */
					  0x48, 0x89, 0x01 };
	static const uint8_t narrow[] = { 0x89, 0x01 };			/* mov [rcx], eax */
	static const uint8_t other[] = { 0x48, 0x89, 0x41, 0x08 };	/* mov [rcx+8], rax */
	struct mem_operand op;

	if (!ASSERT_OK(addrsample__decode(load, sizeof(load), 0x401000, &op), "decode"))
		return;
	ASSERT_TRUE(addrsample__stored_back(rmw, sizeof(rmw), 0x401003, &op),
		    "load, add, store to the same operand");
	ASSERT_FALSE(addrsample__stored_back(moved, sizeof(moved), 0x401003, &op),
		     "the base moved before the store: another address");
	ASSERT_FALSE(addrsample__stored_back(branch, sizeof(branch), 0x401003, &op),
		     "a branch between: the store may not run");
	ASSERT_FALSE(addrsample__stored_back(narrow, sizeof(narrow), 0x401003, &op),
		     "a 4-byte store is not the 8-byte operand");
	ASSERT_FALSE(addrsample__stored_back(other, sizeof(other), 0x401003, &op),
		     "another displacement: another member");
}

/* A loop that moves its pointer only to a pointer loaded through it: a dependent chain. */
void test_addrsample__loop_chained(void)
{
	static const uint8_t code[] = {
		/* 0x00 list: add rax,[rdx+8]; mov rdx,[rdx]; test rdx,rdx; jne list */
		0x48, 0x03, 0x42, 0x08, 0x48, 0x8b, 0x12, 0x48, 0x85, 0xd2, 0x75, 0xf4,
		/* 0x0c arr: add rax,[rdx+8]; add rdx,16; cmp rdx,rcx; jne arr */
		0x48, 0x03, 0x42, 0x08, 0x48, 0x83, 0xc2, 0x10, 0x48, 0x39, 0xca, 0x75, 0xf3,
		/* 0x19 ptrs: mov rdx,[rbx+rsi*8]; add eax,[rdx+16]; inc rsi; cmp rsi,rcx; jne ptrs */
		0x48, 0x8b, 0x14, 0xf3, 0x03, 0x42, 0x10, 0x48, 0xff, 0xc6, 0x48, 0x39, 0xce,
		0x75, 0xf1,
		/* 0x28 tree: mov rcx,[rax+8]; cmp [rax+16],rdi; mov rax,[rax]; cmovl rax,rcx;
		 *           test rax,rax; jne tree */
		0x48, 0x8b, 0x48, 0x08, 0x48, 0x39, 0x78, 0x10, 0x48, 0x8b, 0x00, 0x48, 0x0f,
		0x4c, 0xc1, 0x48, 0x85, 0xc0, 0x75, 0xec,
		/* 0x3c two: add eax,[rdx+4]; mov rdx,[rdx+8]; mov rdx,[rdx+16]; test; jne two */
		0x03, 0x42, 0x04, 0x48, 0x8b, 0x52, 0x08, 0x48, 0x8b, 0x52, 0x10, 0x48, 0x85,
		0xd2, 0x75, 0xf0,
		/* 0x4c stack: add eax,[rdx]; mov rdx,[rsp+8]; test rdx,rdx; jne stack */
		0x03, 0x02, 0x48, 0x8b, 0x54, 0x24, 0x08, 0x48, 0x85, 0xd2, 0x75, 0xf4,
		/*
		 * 0x58 heads: mov rsi,[rdx]; cmp [rsi],eax; jne 1f; mov rcx,[rsi+8];
		 * mov [rdx],rcx; 1: add rdx,8; cmp rdx,r9; jne heads
		 */
		0x48, 0x8b, 0x32, 0x39, 0x06, 0x75, 0x07, 0x48, 0x8b, 0x4e, 0x08, 0x48, 0x89,
		0x0a, 0x48, 0x83, 0xc2, 0x08, 0x4c, 0x39, 0xca, 0x75, 0xe9,
		/* 0x6f ro: mov rsi,[rdx]; cmp [rsi],eax; add rdx,8; cmp rdx,r9; jne ro */
		0x48, 0x8b, 0x32, 0x39, 0x06, 0x48, 0x83, 0xc2, 0x08, 0x4c, 0x39, 0xca, 0x75,
		0xf2,
		/*
		 * 0x7d merge: mov rdx,r14;
		 *   min: mov rcx,[rdx]; mov ecx,[rcx]; add rdx,8; cmp rdx,r9; jne min;
		 *   mov rdx,r14;
		 *   adv: mov rsi,[rdx]; mov rcx,[rsi+8]; mov [rdx],rcx; add rdx,8;
		 *        cmp rdx,r9; jne adv;
		 *   test eax,eax; jne merge
		 */
		0x4c, 0x89, 0xf2, 0x48, 0x8b, 0x0a, 0x8b, 0x09, 0x48, 0x83, 0xc2, 0x08, 0x4c,
		0x39, 0xca, 0x75, 0xf2, 0x4c, 0x89, 0xf2, 0x48, 0x8b, 0x32, 0x48, 0x8b, 0x4e,
		0x08, 0x48, 0x89, 0x0a, 0x48, 0x83, 0xc2, 0x08, 0x4c, 0x39, 0xca, 0x75, 0xed,
		0x85, 0xc0, 0x75, 0xd5,
		/*
		 * 0xa8 rotated: mov [rbx],rax; add rbx,8; mov rdi,[rbx];
		 * movzx eax,byte [rdi+0x1c]; mov rax,[rdi]; cmp rbx,rcx; jne rotated
		 */
		0x48, 0x89, 0x03, 0x48, 0x83, 0xc3, 0x08, 0x48, 0x8b, 0x3b, 0x0f, 0xb6, 0x47,
		0x1c, 0x48, 0x8b, 0x07, 0x48, 0x39, 0xcb, 0x75, 0xea,
	};
	static const struct {
		unsigned int off;
		bool chained;
		const char *what;
	} cases[] = {
		{ 0x00, true, "p = p->next after reading p->val" },
		{ 0x04, true, "the p = p->next load itself" },
		{ 0x0c, false, "an array walk: the pointer moves by a constant" },
		{ 0x1d, false, "an array of pointers: loaded through another register" },
		{ 0x2c, true, "a tree descent: the child chosen by a conditional move" },
		{ 0x3c, true, "p = p->a->b: loaded through a loaded register" },
		{ 0x4c, false, "the pointer reloaded from the stack" },
		{ 0x5b, true, "cur[t] = cur[t]->next: the heads kept in an array" },
		{ 0x72, false, "an array of pointers only read: no chain through it" },
		{ 0x83, true, "the heads read by one loop, advanced by the next" },
		{ 0xb2, true, "a rotated loop: the store back comes first in address order" },
	};
	struct mem_operand op;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!ASSERT_OK(addrsample__decode(code + cases[i].off, sizeof(code) - cases[i].off,
						  0x401000 + cases[i].off, &op), cases[i].what))
			continue;
		ASSERT_EQ(addrsample__loop_chained(code, sizeof(code), 0x401000, &op),
			  cases[i].chained, cases[i].what);
	}
}

/* A function that calls itself on a pointer loaded through its argument: a chain over calls. */
void test_addrsample__call_chained(void)
{
	/*
	 * eval: movzx eax,byte [rdi]; push rbx; mov rbx,rdi; mov rdi,[rdi+8];
	 *       call eval; mov rdi,[rbx+16]; pop rbx; jmp eval
	 */
	static const uint8_t tree[] = {
		0x0f, 0xb6, 0x07, 0x53, 0x48, 0x89, 0xfb, 0x48, 0x8b, 0x7f, 0x08,
		0xe8, 0xf0, 0xff, 0xff, 0xff, 0x48, 0x8b, 0x7b, 0x10, 0x5b,
		0xe9, 0xe6, 0xff, 0xff, 0xff,
	};
	/* f: movzx eax,byte [rdi]; mov rdi,[rsi+8]; call f; ret */
	static const uint8_t other_arg[] = {
		0x0f, 0xb6, 0x07, 0x48, 0x8b, 0x7e, 0x08, 0xe8, 0xf4, 0xff, 0xff, 0xff, 0xc3,
	};
	/* f: movzx eax,byte [rdi]; mov rdi,[rdi+8]; call f+0x100 (another function); ret */
	static const uint8_t other_fn[] = {
		0x0f, 0xb6, 0x07, 0x48, 0x8b, 0x7f, 0x08, 0xe8, 0xf4, 0x00, 0x00, 0x00, 0xc3,
	};
	/* f: mov rdi,[rdi+8]; call f; movzx eax,byte [rdi]; ret (rdi after the call: no argument) */
	static const uint8_t after_call[] = {
		0x48, 0x8b, 0x7f, 0x08, 0xe8, 0xf7, 0xff, 0xff, 0xff, 0x0f, 0xb6, 0x07, 0xc3,
	};
	static const struct {
		const uint8_t *code;
		size_t len;
		unsigned int off;
		bool chained;
		const char *what;
	} cases[] = {
		{ tree, sizeof(tree), 0, true, "eval(n->left), then a tail call on n->right" },
		{ other_arg, sizeof(other_arg), 0, false, "the next node loaded through another argument" },
		{ other_fn, sizeof(other_fn), 0, false, "n->next passed to another function" },
		{ after_call, sizeof(after_call), 9, false, "the base after the call is no argument" },
	};
	struct mem_operand op;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!ASSERT_OK(addrsample__decode(cases[i].code + cases[i].off,
						  cases[i].len - cases[i].off,
						  0x402000 + cases[i].off, &op), cases[i].what))
			continue;
		ASSERT_EQ(addrsample__call_chained(cases[i].code, cases[i].len, 0x402000, &op),
			  cases[i].chained, cases[i].what);
	}
}

/* A sweep repeated faster than the samples: the deltas' phases over the span gather. */
void test_addrsample__cyclic_sweep(void)
{
	int64_t d[200];
	uint64_t seed = 7, pos = 0, prev = 0;
	const uint64_t span = 36u << 20;

	/* 2.3 passes a period, the period jittered by up to 3 % */
	for (int k = 0; k < 200; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		pos = (pos + span * 23 / 10 + (seed >> 40) % (span * 7 / 100)) % span;
		d[k] = (int64_t)pos - (int64_t)prev;
		prev = pos;
	}
	ASSERT_TRUE(addrsample__cyclic_z(d, 200) > 20, "a fast sweep gathers");
	/* uniform positions: no gathering */
	for (int k = 0; k < 200; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		pos = (seed >> 20) % span;
		d[k] = (int64_t)pos - (int64_t)prev;
		prev = pos;
	}
	ASSERT_TRUE(addrsample__cyclic_z(d, 200) < 9, "random positions do not");
	/*
	 * random within a window of a 64th of the span that drifts forward
	 * (a merge's early passes): the steps are short but go both ways
	 */
	for (int k = 0; k < 200; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		pos = (uint64_t)k * (span / 256) + (seed >> 20) % (span / 64);
		d[k] = (int64_t)pos - (int64_t)prev;
		prev = pos;
	}
	d[0] = 0;
	ASSERT_TRUE(addrsample__cyclic_z(d, 200) < 9, "a drifting random walk does not");
	/* nearly a whole number of passes a period: short steps, all one way */
	for (int k = 0; k < 200; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		pos = (pos + span * 3 + span / 50 + (seed >> 40) % (span / 200)) % span;
		d[k] = (int64_t)pos - (int64_t)prev;
		prev = pos;
	}
	ASSERT_TRUE(addrsample__cyclic_z(d, 200) > 20, "a sweep a little past whole passes gathers");
}

/* The stores of the loop around a hot load: spills and global scalars left out. */
void test_addrsample__loop_stores(void)
{
	static const uint8_t loop[] = {
		0x8b, 0x04, 0x8e,			/* 401000: mov eax, [rsi + rcx*4] */
		0x89, 0x04, 0x8f,			/* 401003: mov [rdi + rcx*4], eax */
		0x89, 0x44, 0x24, 0x08,			/* 401006: mov [rsp + 8], eax (spill) */
		0x89, 0x05, 0x00, 0x01, 0x00, 0x00,	/* 40100a: mov [rip + 0x100], eax */
		0x01, 0x06,				/* 401010: add [rsi], eax (reads too) */
		0x48, 0x83, 0xc1, 0x01,			/* 401012: add rcx, 1 */
		0x48, 0x39, 0xd1,			/* 401016: cmp rcx, rdx */
		0x75, 0xe5,				/* 401019: jne 401000 */
		0xc3,					/* 40101b: ret */
	};
	static const uint8_t noloop[] = { 0x8b, 0x06, 0x89, 0x07, 0xc3 };
	uint64_t st[4], lo = 0, hi = 0;
	int n;

	n = addrsample__loop_stores(loop, sizeof(loop), 0x401000, 0x401000, &lo, &hi, st, 4);
	if (!ASSERT_EQ(n, 1, "one store streams through the loop"))
		return;
	ASSERT_EQ(st[0], 0x401003, "mov [rdi + rcx*4]");
	ASSERT_EQ(lo, 0x401000, "the loop starts at the jump's target");
	ASSERT_EQ(hi, 0x40101b, "and ends after the jump");
	n = addrsample__loop_stores(loop, sizeof(loop), 0x401000, 0x401012, &lo, &hi, st, 4);
	ASSERT_EQ(n, 1, "from an instruction inside the loop: the same loop");
	ASSERT_EQ(addrsample__loop_stores(noloop, sizeof(noloop), 0x402000, 0x402000, &lo, &hi,
					  st, 4), -ENOENT, "no jump back: no loop");
}

/*
 * level[i] = level[i] * k + input[i]: the store writes the element the
 * loop has just read, whose line is in the cache: no streaming store.
 * Once the index moved, the same operand is another element.
 */
void test_addrsample__loop_stores_rmw(void)
{
	static const uint8_t rmw[] = {
		0xf3, 0x0f, 0x10, 0x04, 0x02,		/* 401000: movss xmm0, [rdx + rax] */
		0xf3, 0x0f, 0x59, 0xc2,			/* 401005: mulss xmm0, xmm2 */
		0xf3, 0x0f, 0x58, 0x04, 0x01,		/* 401009: addss xmm0, [rcx + rax] */
		0xf3, 0x0f, 0x11, 0x04, 0x02,		/* 40100e: movss [rdx + rax], xmm0 */
		0x48, 0x83, 0xc0, 0x04,			/* 401013: add rax, 4 */
		0x48, 0x39, 0xf0,			/* 401017: cmp rax, rsi */
		0x75, 0xe4,				/* 40101a: jne 401000 */
		0xc3,					/* 40101c: ret */
	};
	static const uint8_t moved[] = {
		0xf3, 0x0f, 0x10, 0x04, 0x02,		/* 401000: movss xmm0, [rdx + rax] */
		0x48, 0x83, 0xc0, 0x04,			/* 401005: add rax, 4 */
		0xf3, 0x0f, 0x11, 0x04, 0x02,		/* 401009: movss [rdx + rax], xmm0 */
		0x48, 0x39, 0xf0,			/* 40100e: cmp rax, rsi */
		0x75, 0xed,				/* 401011: jne 401000 */
		0xc3,					/* 401013: ret */
	};
	uint64_t st[4], lo = 0, hi = 0;

	ASSERT_EQ(addrsample__loop_stores(rmw, sizeof(rmw), 0x401000, 0x401000, &lo, &hi, st, 4),
		  0, "the element read, then written: no streaming store");
	if (ASSERT_EQ(addrsample__loop_stores(moved, sizeof(moved), 0x401000, 0x401000, &lo, &hi,
					      st, 4), 1, "the next element: a store of its own"))
		ASSERT_EQ(st[0], 0x401009, "movss [rdx + rax] after the add");
}

/* Jump targets: where a sample may have come from a jump, not the access before it. */
void test_addrsample__jump_targets(void)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0x07,	/* 401000: mov [rdi], rax */
		0xeb, 0x03,		/* 401003: jmp 401008 */
		0x48, 0x89, 0x06,	/* 401005: mov [rsi], rax */
		0x48, 0x83, 0xc1, 0x01,	/* 401008: add rcx, 1 (both paths join) */
		0x75, 0xf2,		/* 40100c: jne 401000 */
		0xc3,			/* 40100e: ret */
	};
	uint64_t *t;
	size_t n = addrsample__jump_targets(code, sizeof(code), 0x401000, &t);

	if (!ASSERT_EQ(n, 2, "two direct jumps"))
		return;
	ASSERT_EQ(t[0], 0x401000, "the loop's head, first");
	ASSERT_EQ(t[1], 0x401008, "the join");
	free(t);
	{
		struct as_jump *j;

		if (!ASSERT_EQ(addrsample__jumps(code, sizeof(code), 0x401000, &j), 2,
			       "the same jumps, with where they are"))
			return;
		ASSERT_TRUE(j[0].from == 0x40100c && j[0].to == 0x401000, "jne back to the head");
		ASSERT_TRUE(j[1].from == 0x401003 && j[1].to == 0x401008, "jmp to the join");
		ASSERT_TRUE(addrsample__jump_lands(j, 2, 0x401005, 0x40100c, 0x401205),
			    "the jmp lands between the second store and a tick at the jne");
		ASSERT_TRUE(!addrsample__jump_lands(j, 2, 0x401005, 0x40100c, 0x401003),
			    "not when only jumps before it count");
		ASSERT_TRUE(!addrsample__jump_lands(j, 2, 0x401008, 0x40100c, 0x401205),
			    "nothing lands after the join");
		free(j);
	}
}

/*
 * Three loops at 0x401000: inner (0x00), a pointer bumped inside the
 * element; chain (0x27), p = p->next; idx (0x36), an index stepped by one.
 */
static const uint8_t loops_code[] = {
	/* 0x00 inner: movss xmm1,[rax]; add rax,4; movaps; subss xmm0,[rax+8];
	 *             movss [rax+8],xmm1; mulss; addss; movss [rax-4],xmm0;
	 *             cmp rdx,rax; jne inner */
	0xf3, 0x0f, 0x10, 0x08, 0x48, 0x83, 0xc0, 0x04, 0x0f, 0x28, 0xc1, 0xf3, 0x0f, 0x5c,
	0x40, 0x08, 0xf3, 0x0f, 0x11, 0x48, 0x08, 0xf3, 0x0f, 0x59, 0xc2, 0xf3, 0x0f, 0x58,
	0xc1, 0xf3, 0x0f, 0x11, 0x40, 0xfc, 0x48, 0x39, 0xc2, 0x75, 0xd9,
	/* 0x27 chain: add rax,[rdx+8]; mov rdx,[rdx]; add eax,[rdx+16]; test; jne chain */
	0x48, 0x03, 0x42, 0x08, 0x48, 0x8b, 0x12, 0x03, 0x42, 0x10, 0x48, 0x85, 0xd2,
	0x75, 0xf1,
	/* 0x36 idx: mov eax,[r13+rcx*4]; add rcx,1; cmp rcx,rbx; jne idx */
	0x41, 0x8b, 0x44, 0x8d, 0x00, 0x48, 0x83, 0xc1, 0x01, 0x48, 0x39, 0xd9, 0x75, 0xf2,
};

/* The loop's other accesses through the pointer, relative to its value at the access. */
void test_addrsample__loop_siblings_bumped(void)
{
	const uint8_t *code = loops_code;
	struct mem_operand op;
	int64_t disp[16];
	uint8_t size[16];
	int64_t bump = -1;
	int n;
	bool has0 = false, has12 = false, other = false;

	/* the first load: the bump by 4 makes [rax+8] the member at +12, [rax-4] this one */
	if (!ASSERT_OK(addrsample__decode(code, sizeof(loops_code), 0x401000, &op), "decode inner"))
		return;
	n = addrsample__loop_siblings(code, sizeof(loops_code), 0x401000, &op, disp, size, 16, &bump,
				      NULL);
	ASSERT_EQ(bump, 0, "the first load: no bump before it");
	for (int i = 0; i < n; i++) {
		has0 |= disp[i] == 0 && size[i] == 4;
		has12 |= disp[i] == 12 && size[i] == 4;
		other |= disp[i] != 0 && disp[i] != 12;
	}
	ASSERT_EQ(n, 2, "two places: this element's x[k] and o[k]");
	ASSERT_TRUE(has0 && has12 && !other, "offsets 0 and 12, not 8 and -4");
	/* the load at [rax+8] after the bump: 12 past where rax pointed on the first pass */
	if (ASSERT_OK(addrsample__decode(code + 0x0b, sizeof(loops_code) - 0x0b, 0x40100b, &op),
		      "decode subss")) {
		n = addrsample__loop_siblings(code, sizeof(loops_code), 0x401000, &op, disp, size, 16,
					      &bump, NULL);
		ASSERT_EQ(bump, 4, "bumped by 4 before it");
		ASSERT_EQ(n, 2, "the same two places");
	}
	/* the load through the pointer after p = p->next is another node */
	if (!ASSERT_OK(addrsample__decode(code + 0x27, sizeof(loops_code) - 0x27, 0x401027, &op),
		       "decode chain"))
		return;
	n = addrsample__loop_siblings(code, sizeof(loops_code), 0x401000, &op, disp, size, 16, NULL,
				      NULL);
	has0 = has12 = other = false;
	for (int i = 0; i < n; i++) {
		has0 |= disp[i] == 0;
		other |= disp[i] == 16;
	}
	ASSERT_TRUE(has0 && !other, "[rdx] before the reload counts, [rdx+16] after it does not");
}

/* What one pass of the loop adds to the access's address, from the code. */
void test_addrsample__loop_step(void)
{
	const uint8_t *code = loops_code;
	struct mem_operand op;
	int64_t step = 0;

	if (ASSERT_OK(addrsample__decode(code, sizeof(loops_code), 0x401000, &op), "decode inner"))
		ASSERT_TRUE(!addrsample__loop_step(code, sizeof(loops_code), 0x401000, &op, &step) &&
			    step == 4, "add rax,4 each pass: 4");
	if (ASSERT_OK(addrsample__decode(code + 0x27, sizeof(loops_code) - 0x27, 0x401027, &op),
		      "decode chain"))
		ASSERT_TRUE(addrsample__loop_step(code, sizeof(loops_code), 0x401000, &op, &step) < 0,
			    "p = p->next: no step the code knows");
	if (ASSERT_OK(addrsample__decode(code + 0x36, sizeof(loops_code) - 0x36, 0x401036, &op),
		      "decode idx"))
		ASSERT_TRUE(!addrsample__loop_step(code, sizeof(loops_code), 0x401000, &op, &step) &&
			    step == 4, "the index moved by 1, scaled by 4: 4");
}

/*
 * A walk whose test skips most elements: the jne back to the step closes a
 * loop around the one test (0x19), the element's other accesses are in the
 * loop enclosing it (from 0x00).  At 0x401000: movb [rax],2; add rcx,rdx;
 * add rdx,1; add rax,160; cmp rdx,0x200000; je out; cmpb [rax],1;
 * jne 0x401006; cmp edi,[rax+12]; jae 0x401000; add r8d,1; jmp 0x401006.
 */
static const uint8_t skip_walk_code[] = {
	0xc6, 0x00, 0x02, 0x48, 0x01, 0xd1, 0x48, 0x83, 0xc2, 0x01, 0x48, 0x05, 0xa0, 0x00,
	0x00, 0x00, 0x48, 0x81, 0xfa, 0x00, 0x00, 0x20, 0x00, 0x74, 0x10, 0x80, 0x38, 0x01,
	0x75, 0xe8, 0x3b, 0x78, 0x0c, 0x73, 0xdd, 0x41, 0x83, 0xc0, 0x01, 0xeb, 0xdd, 0xc3,
};

void test_addrsample__loop_siblings_enclosing(void)
{
	const uint8_t *code = skip_walk_code;
	struct mem_operand op;
	int64_t disp[16], bump = -1;
	uint8_t size[16];
	bool has0 = false, has12 = false;
	int n;

	if (!ASSERT_OK(addrsample__decode(code + 0x19, sizeof(skip_walk_code) - 0x19, 0x401019,
					  &op), "decode cmpb"))
		return;
	n = addrsample__loop_siblings(code, sizeof(skip_walk_code), 0x401000, &op, disp, size, 16,
				      &bump, NULL);
	for (int i = 0; i < n; i++) {
		has0 |= disp[i] == 0 && size[i] == 1;
		has12 |= disp[i] == 12 && size[i] == 4;
	}
	ASSERT_TRUE(n >= 2, "more than the test itself: the enclosing loop's accesses");
	ASSERT_TRUE(has0 && has12, "the byte it tests and the word 12 past it");
	ASSERT_EQ(bump, 160, "the step comes before it in the enclosing loop");
	/* the load at +12 has its siblings in its own loop: not widened */
	if (ASSERT_OK(addrsample__decode(code + 0x1e, sizeof(skip_walk_code) - 0x1e, 0x40101e, &op),
		      "decode cmp")) {
		n = addrsample__loop_siblings(code, sizeof(skip_walk_code), 0x401000, &op, disp,
					      size, 16, &bump, NULL);
		ASSERT_TRUE(n >= 2, "its own loop holds the store and the test");
	}
}

/* Two threads at different bytes of one named object share it; of two objects, falsely. */
void test_addrsample__shared_line_one_object(void)
{
	struct addr_line l;

	memset(&l, 0, sizeof(l));
	l.nr_threads = 3;
	l.t[0].writes = 1;
	l.t[0].wmask = 0xf;
	snprintf(l.t[0].object, sizeof(l.t[0].object), "stripes[9].lock");
	l.t[1].writes = 2;
	l.t[1].wmask = 0xf00;
	snprintf(l.t[1].object, sizeof(l.t[1].object), "stripes[9].lock");
	l.t[2].reads = 4;	/* a reader names nothing */
	ASSERT_TRUE(addr_line__one_object(&l), "the lock word and the owner of one mutex");
	snprintf(l.t[1].object, sizeof(l.t[1].object), "stripes[10].lock");
	ASSERT_TRUE(!addr_line__one_object(&l), "two stripes' locks");
	snprintf(l.t[1].object, sizeof(l.t[1].object), "q.tail");
	snprintf(l.t[0].object, sizeof(l.t[0].object), "q.head");
	ASSERT_TRUE(!addr_line__one_object(&l), "two members of one struct");
	l.t[0].object[0] = '\0';
	snprintf(l.t[1].object, sizeof(l.t[1].object), "q.head");
	ASSERT_TRUE(!addr_line__one_object(&l), "an unnamed writer decides nothing");
}

/*
 * A set-up loop that memsets each 160-byte record (rep stosq) and writes a
 * field: it writes bytes no displacement names.  An SSE movsd (F2 0F 10),
 * which capstone also calls MOVSD, is no string store.
 */
void test_addrsample__loop_bulk(void)
{
	static const uint8_t fill[] = {
		0x48, 0x89, 0xdf,			/* mov rdi, rbx */
		0xb9, 0x14, 0x00, 0x00, 0x00,		/* mov ecx, 20 */
		0x31, 0xc0,				/* xor eax, eax */
		0xf3, 0x48, 0xab,			/* rep stosq */
		0x89, 0x53, 0x04,			/* mov [rbx+4], edx */
		0x48, 0x81, 0xc3, 0xa0, 0x00, 0x00, 0x00, /* add rbx, 160 */
		0x48, 0x39, 0xeb,			/* cmp rbx, rbp */
		0x75, 0xe4,				/* jne 0x401000 */
		0xc3,
	};
	static const uint8_t sum[] = {
		0xf2, 0x0f, 0x10, 0x03,			/* movsd xmm0, [rbx] */
		0x48, 0x83, 0xc3, 0x08,			/* add rbx, 8 */
		0x48, 0x39, 0xeb,			/* cmp rbx, rbp */
		0x75, 0xf3,				/* jne 0x401000 */
		0xc3,
	};
	struct mem_operand op;

	if (ASSERT_OK(addrsample__decode(fill + 0x0d, sizeof(fill) - 0x0d, 0x40100d, &op),
		      "decode the field store"))
		ASSERT_TRUE(addrsample__loop_bulk(fill, sizeof(fill), 0x401000, &op),
			    "the loop memsets each record");
	if (ASSERT_OK(addrsample__decode(sum, sizeof(sum), 0x401000, &op), "decode movsd"))
		ASSERT_TRUE(!addrsample__loop_bulk(sum, sizeof(sum), 0x401000, &op),
			    "an SSE load is no string store");
}

/*
 * The bytes a loop writes through a store's pointer a pass: four 16-byte
 * stores of a 64-byte step fill it; a 2-byte column store every 48 bytes
 * fills 2.
 */
void test_addrsample__loop_fill(void)
{
	static const uint8_t copy[] = {
		0xf3, 0x0f, 0x7f, 0x07,			/* movdqu [rdi], xmm0 */
		0xf3, 0x0f, 0x7f, 0x4f, 0x10,		/* movdqu [rdi+0x10], xmm1 */
		0xf3, 0x0f, 0x7f, 0x57, 0x20,		/* movdqu [rdi+0x20], xmm2 */
		0xf3, 0x0f, 0x7f, 0x5f, 0x30,		/* movdqu [rdi+0x30], xmm3 */
		0x48, 0x83, 0xc7, 0x40,			/* add rdi, 64 */
		0x48, 0x39, 0xf7,			/* cmp rdi, rsi */
		0x75, 0xe4,				/* jne 0x401000 */
		0xc3,
	};
	static const uint8_t column[] = {
		0x66, 0x89, 0x07,			/* mov [rdi], ax */
		0x48, 0x83, 0xc7, 0x30,			/* add rdi, 48 */
		0x48, 0x39, 0xf7,			/* cmp rdi, rsi */
		0x75, 0xf4,				/* jne 0x401000 */
		0xc3,
	};
	struct mem_operand op;

	if (ASSERT_OK(addrsample__decode(copy + 9, sizeof(copy) - 9, 0x401009, &op),
		      "decode the third store"))
		ASSERT_EQ(addrsample__loop_fill(copy, sizeof(copy), 0x401000, &op), 64,
			  "four 16-byte stores fill the 64-byte step");
	if (ASSERT_OK(addrsample__decode(column, sizeof(column), 0x401000, &op),
		      "decode the column store"))
		ASSERT_EQ(addrsample__loop_fill(column, sizeof(column), 0x401000, &op), 2,
			  "a 2-byte store fills 2 bytes of its 48");
}

/*
 * out += w[k] * ch[k][i] for k < 19, at 0x401000: the inner loop loads
 * each channel's pointer (mov rdx, [rsi + rax*8 + 8]) and reads through it
 * (movsx edx, word ptr [rdx + rcx]): one instruction, 19 arrays a pass.
 * The weight load's base stays.
 */
void test_addrsample__loop_reloads_base(void)
{
	static const uint8_t mix[] = {
		0x31, 0xc0, 0x66, 0x0f, 0xef, 0xc9, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x48, 0x8b, 0x54, 0xc6, 0x08, 0x66, 0x0f, 0xef, 0xc0, 0x0f,
		0xbf, 0x14, 0x0a, 0xf3, 0x0f, 0x2a, 0xc2, 0xf3, 0x0f, 0x59, 0x04, 0x87, 0x48,
		0x83, 0xc0, 0x01, 0xf3, 0x0f, 0x58, 0xc8, 0x48, 0x83, 0xf8, 0x13, 0x75, 0xdc,
		0xf3, 0x41, 0x0f, 0x11, 0x0c, 0x48, 0x48, 0x83, 0xc1, 0x02, 0x48, 0x81, 0xf9,
		0x00, 0x00, 0x04, 0x00, 0x75, 0xb9, 0xc3,
	};
	struct mem_operand op;

	if (ASSERT_OK(addrsample__decode(mix + 0x19, sizeof(mix) - 0x19, 0x401019, &op),
		      "decode the channel load"))
		ASSERT_TRUE(addrsample__loop_reloads_base(mix, sizeof(mix), 0x401000, &op),
			    "its base is loaded in its loop");
	if (ASSERT_OK(addrsample__decode(mix + 0x21, sizeof(mix) - 0x21, 0x401021, &op),
		      "decode the weight load"))
		ASSERT_TRUE(!addrsample__loop_reloads_base(mix, sizeof(mix), 0x401000, &op),
			    "the weights' base stays");
}

/*
 * The samples that make an access hot: a load over its own index
 * (movsx edx,[rdx+rcx]) has no address after it ran, and all its samples
 * count; a mulss found by walking back from an IP after an addss, its
 * index moved on since, is blamed by its samples with an address only.
 */
void test_addrsample__blamed(void)
{
	static const uint8_t movsx[] = { 0x0f, 0xbf, 0x14, 0x0a };	/* movsx edx, word [rdx+rcx] */
	static const uint8_t loop[] = { 0xf3, 0x0f, 0x59, 0x04, 0x87,	/* mulss xmm0, [rdi+rax*4] */
					0x48, 0x83, 0xc0, 0x01,		/* add rax, 1 */
					0xf3, 0x0f, 0x58, 0xc8 };	/* addss xmm1, xmm0 */
	struct mem_operand op;

	if (ASSERT_OK(addrsample__decode(movsx, sizeof(movsx), 0x1000, &op), "movsx"))
		ASSERT_EQ(addrsample__blamed(&op, 203, 0), 203, "a load over its index: all");
	if (!ASSERT_OK(addrsample__decode_back(loop, 0x1000, 0x1000, 0x1000 + sizeof(loop), &op),
		       "the mulss before the addss"))
		return;
	ASSERT_EQ(op.insn, 0x1000, "the mulss");
	ASSERT_TRUE(op.clobbers && op.back, "its index moved on");
	ASSERT_EQ(addrsample__blamed(&op, 224, 0), 0, "the addss's samples are not the mulss's");
	ASSERT_EQ(addrsample__blamed(&op, 224, 5), 5, "those with an address are");
}

/*
 * A loop body of some 700 bytes (a record built and stored, unrolled): its
 * last store, 600 bytes past the loop's head, is in the loop, and its
 * sibling is the first store.
 */
void test_addrsample__long_loop(void)
{
	static uint8_t code[4 + 600 + 5 + 7 + 6];
	size_t at = 0, last;
	struct mem_operand op;
	int64_t disp[4];
	uint8_t size[4];
	uint64_t lo = 0, hi = 0;
	int32_t rel;
	int n;

	memcpy(code + at, (const uint8_t[]){ 0x0f, 0x29, 0x04, 0x16 }, 4);	/* movaps [rsi+rdx],xmm0 */
	at += 4;
	memset(code + at, 0x90, 600);						/* nop ... */
	at += 600;
	last = at;
	memcpy(code + at, (const uint8_t[]){ 0x0f, 0x29, 0x4c, 0x16, 0x10 }, 5); /* movaps [rsi+rdx+0x10],xmm1 */
	at += 5;
	memcpy(code + at, (const uint8_t[]){ 0x48, 0x81, 0xc2, 0x00, 0x01, 0x00, 0x00 }, 7); /* add rdx,256 */
	at += 7;
	rel = -(int32_t)(at + 6);
	code[at] = 0x0f;							/* jne 0x1000 */
	code[at + 1] = 0x85;
	memcpy(code + at + 2, &rel, 4);
	at += 6;
	if (!ASSERT_OK(addrsample__decode(code + last, sizeof(code) - last, 0x1000 + last, &op),
		       "the last store"))
		return;
	ASSERT_OK(addrsample__loop_range(code, sizeof(code), 0x1000, 0x1000 + last, &lo, &hi),
		  "a loop closes around it");
	ASSERT_EQ(lo, 0x1000, "from the loop's head, 604 bytes before it");
	n = addrsample__loop_siblings(code, sizeof(code), 0x1000, &op, disp, size, 4, NULL, NULL);
	ASSERT_EQ(n, 2, "both stores through rsi+rdx");
}

/*
 * A line one thread writes while another reads other bytes of it is shared
 * (each write takes the reader's copy); a reader of the written bytes, a
 * writer seen once, or a reader seen under three times are not evidence.
 */
void test_addrsample__shared_line_reader(void)
{
	struct addr_line l;
	uint64_t reads;

	memset(&l, 0, sizeof(l));
	l.nr_threads = 2;
	l.t[0].writes = 5;
	l.t[0].reads = 9;
	l.t[0].wmask = 0xffull << 32;		/* counters at 32-39 */
	snprintf(l.t[0].object, sizeof(l.t[0].object), "shipper.bytes_sent");
	l.t[1].reads = 7;
	l.t[1].rmask = 0xffffff;		/* settings at 0-23 */
	snprintf(l.t[1].object, sizeof(l.t[1].object), "shipper.hash_seed");
	ASSERT_EQ(addr_line__writers(&l), 1, "one writer");
	ASSERT_EQ(addr_line__foreign_readers(&l, &reads), 1, "one reader of other bytes");
	ASSERT_EQ(reads, 7, "its reads");
	ASSERT_TRUE(addr_line__shared(&l), "written by one, read by another");
	ASSERT_FALSE(addr_line__one_object(&l), "two members");
	l.t[1].rmask |= 1ull << 33;
	ASSERT_FALSE(addr_line__shared(&l), "the reader reads the counter too: true sharing");
	l.t[1].rmask = 0xffffff;
	l.t[1].reads = 2;
	ASSERT_FALSE(addr_line__shared(&l), "two reads: perhaps once");
	l.t[1].reads = 7;
	l.t[0].writes = 1;
	ASSERT_FALSE(addr_line__shared(&l), "one write: perhaps at set-up");
	l.t[0].writes = 5;
	snprintf(l.t[1].object, sizeof(l.t[1].object), "shipper.bytes_sent");
	ASSERT_TRUE(addr_line__one_object(&l), "other bytes of the one object the writer wrote");
}

/*
 * lea r8, [rdi + 40] before a loop that stores through r8: the store is 40
 * bytes into what rdi points to.  Not when the loop moves rdi, nor when a
 * jump from before the lea reaches the store without it.
 */
void test_addrsample__base_origin(void)
{
	static const uint8_t pos[] = {
		0x4c, 0x8d, 0x47, 0x28,		/* lea r8, [rdi + 0x28] */
		0x31, 0xc0,			/* xor eax, eax */
		0x48, 0x83, 0xc0, 0x01,		/* 6: add rax, 1 */
		0x49, 0x89, 0x00,		/* a: mov [r8], rax */
		0x48, 0x83, 0xf8, 0x64,		/* cmp rax, 100 */
		0x75, 0xf3,			/* jne 6 */
		0xc3,				/* ret */
	};
	static const uint8_t moved[] = {
		0x4c, 0x8d, 0x47, 0x28,		/* lea r8, [rdi + 0x28] */
		0x31, 0xc0,			/* xor eax, eax */
		0x48, 0x83, 0xc0, 0x01,		/* 6: add rax, 1 */
		0x49, 0x89, 0x00,		/* a: mov [r8], rax */
		0x48, 0x83, 0xc7, 0x08,		/* add rdi, 8 */
		0x48, 0x83, 0xf8, 0x64,		/* cmp rax, 100 */
		0x75, 0xef,			/* jne 6 */
		0xc3,				/* ret */
	};
	static const uint8_t bypass[] = {
		0x85, 0xf6,			/* test esi, esi */
		0x74, 0x04,			/* je 8 */
		0x4c, 0x8d, 0x47, 0x28,		/* lea r8, [rdi + 0x28] */
		0x31, 0xc0,			/* 8: xor eax, eax */
		0x49, 0x89, 0x00,		/* a: mov [r8], rax */
		0xc3,				/* ret */
	};
	struct mem_operand op;
	struct base_origin o;

	if (!ASSERT_OK(addrsample__decode(pos + 0xa, sizeof(pos) - 0xa, 0x100a, &op), "the store"))
		return;
	ASSERT_EQ(op.base, AS_R8, "through r8");
	ASSERT_OK(addrsample__base_origin(pos, sizeof(pos), 0x1000, &op, &o), "r8 comes from rdi");
	ASSERT_EQ(o.from, AS_DI, "rdi");
	ASSERT_TRUE(!o.loaded, "by a lea");
	ASSERT_EQ(o.disp, 40, "40 bytes on");
	if (!ASSERT_OK(addrsample__decode(moved + 0xa, sizeof(moved) - 0xa, 0x100a, &op), "store"))
		return;
	ASSERT_EQ(addrsample__base_origin(moved, sizeof(moved), 0x1000, &op, &o), -ENOENT,
		  "the loop moves rdi: r8 is no longer rdi + 40");
	if (!ASSERT_OK(addrsample__decode(bypass + 0xa, sizeof(bypass) - 0xa, 0x100a, &op), "store"))
		return;
	ASSERT_EQ(addrsample__base_origin(bypass, sizeof(bypass), 0x1000, &op, &o), -ENOENT,
		  "the je reaches the store without the lea");
}

/*
 * Pointers into a struct another one points to, kept for a loop (uint64_t
 * *a = &rf->lim->b, *c = &rf->lim->d): mov rbx, [rdi] then add rbx, 56,
 * and lea r13, [rbx + 40] taken before that add.  Both stores are into the
 * pointer loaded from [rdi + 0], at 56 and at 40, although rdi changes in
 * the loop (what it held at the load is what counts).
 */
void test_addrsample__base_origin_loaded(void)
{
	static const uint8_t code[] = {
		0x48, 0x8b, 0x1f,		/* mov rbx, [rdi] */
		0x48, 0x8b, 0x6f, 0x08,		/* mov rbp, [rdi + 8] */
		0x4c, 0x8d, 0x6b, 0x28,		/* lea r13, [rbx + 0x28] */
		0x48, 0x83, 0xc3, 0x38,		/* add rbx, 0x38 */
		0x49, 0x83, 0xc1, 0x01,		/* f: add r9, 1 */
		0x48, 0x89, 0xf8,		/* mov rax, rdi */
		0x48, 0x8b, 0x38,		/* mov rdi, [rax] */
		0x4c, 0x89, 0x0b,		/* 19: mov [rbx], r9 */
		0x4d, 0x89, 0x4d, 0x00,		/* 1c: mov [r13], r9 */
		0x49, 0x83, 0xf9, 0x64,		/* cmp r9, 100 */
		0x75, 0xe9,			/* jne f */
		0xc3,				/* ret */
	};
	struct mem_operand op;
	struct base_origin o;

	if (!ASSERT_OK(addrsample__decode(code + 0x19, sizeof(code) - 0x19, 0x1019, &op), "store"))
		return;
	ASSERT_OK(addrsample__base_origin(code, sizeof(code), 0x1000, &op, &o), "rbx's origin");
	ASSERT_TRUE(o.loaded && o.from == AS_DI && o.load_disp == 0, "loaded from [rdi]");
	ASSERT_EQ(o.disp, 56, "56 bytes into it");
	ASSERT_EQ(o.at, 0x1000, "at the load");
	if (!ASSERT_OK(addrsample__decode(code + 0x1c, sizeof(code) - 0x1c, 0x101c, &op), "store"))
		return;
	ASSERT_OK(addrsample__base_origin(code, sizeof(code), 0x1000, &op, &o), "r13's origin");
	ASSERT_TRUE(o.loaded && o.from == AS_DI && o.load_disp == 0, "rbx's load, before its add");
	ASSERT_EQ(o.disp, 40, "40 bytes into it");
}

/* The binder sees the store through rdi at 40, its loop's siblings moved alike, once. */
void test_addrsample__rebase(void)
{
	static struct addr_ip ip;

	memset(&ip, 0, sizeof(ip));
	ip.op.base = AS_R8;
	ip.op.disp = 8;
	ip.op.from_base = AS_DI + 1;
	ip.op.from_disp = 40;
	ip.op.from_load = false;
	ip.nr_sib = 2;
	ip.sib_disp[0] = 0;
	ip.sib_disp[1] = 8;
	addr_ip__rebase(&ip);
	ASSERT_EQ(ip.op.base, AS_DI, "through rdi");
	ASSERT_EQ(ip.op.disp, 48, "at 48");
	ASSERT_EQ(ip.sib_disp[0], 40, "sibling at 40");
	ASSERT_EQ(ip.sib_disp[1], 48, "and 48");
	addr_ip__rebase(&ip);
	ASSERT_EQ(ip.op.disp, 48, "done once");
	memset(&ip, 0, sizeof(ip));
	ip.op.base = AS_R8;
	addr_ip__rebase(&ip);
	ASSERT_EQ(ip.op.base, AS_R8, "no origin: as decoded");
	/* a loaded pointer: the displacement from it, its origin kept for the binder */
	memset(&ip, 0, sizeof(ip));
	ip.op.base = AS_BX;
	ip.op.from_base = AS_DI + 1;
	ip.op.from_load = true;
	ip.op.from_disp = 56;
	addr_ip__rebase(&ip);
	addr_ip__rebase(&ip);
	ASSERT_EQ(ip.op.disp, 56, "56 into the loaded pointer's object, once");
	ASSERT_EQ(ip.op.base, AS_BX, "the register as decoded");
	ASSERT_EQ(ip.op.from_base, AS_DI + 1, "the load's register kept");
}
