// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stream metrics and the cache/TLB model (analyze.h).  Everything here is
 * a function of the recorded accesses and the geometry, so that the unit
 * tests can feed it synthetic address sequences.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/streams/analyze.h"
#include "symbols/decode.h"
#include "base/u64map.h"
#include "base/util.h"

_Static_assert(sizeof(struct stream_probe) == 16, "stream_probe has no padding");
_Static_assert(sizeof(struct stream_rec) == 32, "stream_rec has no padding");
_Static_assert(AS_NR_REGS == STREAM_NR_REGS, "the BPF program reads the registers perf samples");

/* The number of legacy prefix bytes before the opcode (or a VEX/EVEX/REX prefix). */
static size_t legacy_prefixes(const uint8_t *code, size_t len)
{
	size_t i = 0;

	while (i < len && i < 15) {
		switch (code[i]) {
		case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
			i++;
			continue;
		}
		break;
	}
	return i;
}

/* True when the legacy prefixes before the opcode hold 0x67 (32-bit address size). */
static bool has_addr32(const uint8_t *code, size_t len)
{
	return memchr(code, 0x67, legacy_prefixes(code, len)) != NULL;
}

/*
 * The x86 uprobe code decides whether to emulate a probed instruction from
 * the first byte of its opcode alone (arch/x86/kernel/uprobes.c,
 * branch_setup_xol_ops(): 70-7f a conditional jump, e8 a call, e9 and eb
 * a jump).  Its decoder stores the byte after a VEX, EVEX or XOP prefix
 * there, the opcode in the map the prefix names, and so takes, say,
 * vpcmpeqb (VEX 0f 74) for je, vmovdqu to memory (VEX 0f 7f) for jg, and
 * vpor (VEX 0f eb) for a jump: at a breakpoint on one of them the kernel
 * skips the instruction, or moves the program counter by its immediate, or
 * pushes a return address, and the program goes on with wrong results.
 * Measured on Linux 6.18 (AMD guest): a uprobe on glibc's
 * __memchr_avx2 (vpcmpeqb ymm1, ymm0, [rdi]) changed a log parser's
 * result and crashed tail(1); one on vmovdqu [rsi], xmm1 stored nothing.
 * The check in the kernel is the same since uprobes came to x86, so these
 * are never probed, whatever the kernel: a breakpoint must not change what
 * the program computes.  Legacy-encoded SSE (0f 74 pcmpeqb: two opcode
 * bytes, the second not taken for a jump) and VEX opcodes outside the set
 * (vpaddb, fc) are run out of line as they should be.  The kernel looks the
 * same byte up in its table of opcodes it refuses, so it refuses a VEX
 * load with vmovdqu (6f, read as outs): that shows as an attach refusal.
 */
bool streams__kernel_misemulates(const uint8_t *code, size_t len)
{
	size_t i = legacy_prefixes(code, len), at;

	if (i + 1 >= len)
		return false;
	switch (code[i]) {
	case 0xc5:		/* two-byte VEX: map 0f */
		at = i + 2;
		break;
	case 0xc4:		/* three-byte VEX */
		at = i + 3;
		break;
	case 0x8f:		/* XOP when its map field is 8 or more; else pop r/m */
		if ((code[i + 1] & 0x1f) < 8)
			return false;
		at = i + 3;
		break;
	case 0x62:		/* EVEX (64-bit code) */
		at = i + 4;
		break;
	case 0xd5:		/* REX2: its M0 bit names map 1 (0f) */
		if (!(code[i + 1] & 0x80))
			return false;
		at = i + 2;
		break;
	default:
		return false;
	}
	if (at >= len)
		return false;
	switch (code[at]) {
	case 0x70 ... 0x7f:
	case 0xe8: case 0xe9: case 0xeb:
		return true;
	}
	return false;
}

enum stream_skip streams__probe_from_code(const uint8_t *code, size_t len, uint64_t addr,
					  struct stream_probe *p, char *text, size_t tlen)
{
	struct mem_operand op;

	memset(p, 0, sizeof(*p));
	p->base = p->index = STREAM_NO_REG;
	if (text && tlen)
		text[0] = 0;
	if (addrsample__decode(code, len, addr, &op))
		return STREAM_SKIP_OPERAND;
	if (text && tlen)
		snprintf(text, tlen, "%s", op.text);
	switch (op.skip) {
	case AS_OK:
		if (streams__kernel_misemulates(code, op.len ? op.len : len))
			return STREAM_SKIP_EMULATED;
		break;
	case AS_SEGMENT:
		return STREAM_SKIP_SEGMENT;
	default:
		return STREAM_SKIP_OPERAND;
	}
	p->disp = op.disp;
	if (op.rip)
		p->disp += (int64_t)(op.insn + op.len);
	else if (op.base >= 0)
		p->base = (uint8_t)op.base;
	if (op.index >= 0)
		p->index = (uint8_t)op.index;
	p->scale = (uint8_t)(op.scale ? op.scale : 1);
	p->size = op.size ? op.size : 1;
	p->flags = (op.read ? STREAM_F_READ : 0) | (op.write ? STREAM_F_WRITE : 0) |
		   (has_addr32(code, len) ? STREAM_F_ADDR32 : 0);
	return STREAM_OK;
}

uint64_t streams__ea(const struct stream_probe *p, const uint64_t *regs)
{
	return stream_ea(p, (const __u64 *)regs);
}

/* --- helpers ---------------------------------------------------------------- */

/* A set of non-zero keys (u64map with the value unused). */
static bool set_add(struct u64map *m, uint64_t key)
{
	bool added;

	*u64map__get(m, key | (1ULL << 63), &added) = 1;
	return added;
}

static void set_clear(struct u64map *m)
{
	u64map__free(m);
	memset(m, 0, sizeof(*m));
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Indexes of the accesses ordered by burst, thread, then time; or by
 * instruction, thread, burst, then time (an instruction's bursts of one
 * thread one after the other).
 */
static const struct stream_access *sort_base;
static bool sort_by_ip;

static int cmp_order(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct stream_access *a = &sort_base[i], *b = &sort_base[j];

	if (sort_by_ip && a->ipi != b->ipi)
		return a->ipi < b->ipi ? -1 : 1;
	if (sort_by_ip && a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->burst != b->burst)
		return a->burst < b->burst ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return i < j ? -1 : i > j;
}

static uint32_t *order(const struct stream_access *a, size_t n, bool by_ip)
{
	uint32_t *ix = xcalloc(n + 1, sizeof(*ix));

	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	sort_base = a;
	sort_by_ip = by_ip;
	qsort(ix, n, sizeof(*ix), cmp_order);
	return ix;
}

static bool same_stream(const struct stream_access *a, const struct stream_access *b, bool by_ip)
{
	return a->burst == b->burst && a->tid == b->tid && (!by_ip || a->ipi == b->ipi);
}

/* --- per stream ---------------------------------------------------------------- */

/* The set histogram of the window w[0..n) of line numbers against SETS sets and WAYS ways. */
static void window_sets(const uint64_t *lines, size_t n, int sets, int ways, int *used,
			int *max_lines, int *over)
{
	int *cnt = xcalloc((size_t)sets, sizeof(int));

	*used = *max_lines = *over = 0;
	for (size_t i = 0; i < n; i++) {
		int s = (int)(lines[i] % (uint64_t)sets);

		if (!cnt[s]++)
			(*used)++;
		if (cnt[s] > *max_lines)
			*max_lines = cnt[s];
		if (cnt[s] == ways + 1)
			(*over)++;
	}
	free(cnt);
}

/* Distinct lines of a window, in order of first use. */
static size_t window_lines(const struct stream_access *a, const uint32_t *ix, size_t n, int line,
			   uint64_t *out)
{
	struct u64map seen = { 0 };
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t l = a[ix[i]].addr / (uint64_t)line;

		if (set_add(&seen, l))
			out[k++] = l;
	}
	set_clear(&seen);
	return k;
}

struct ip_acc {
	int64_t *deltas;
	size_t nr_deltas, cap_deltas;
	double *reuse;
	size_t nr_reuse, cap_reuse;
	uint64_t chunk_lines, chunk_pages, chunk_acc;
	struct u64map lines, pages, tids, wlines;
};

static void push_i64(int64_t **v, size_t *n, size_t *cap, int64_t x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

static void push_double(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

/*
 * One stream: the accesses ix[0..n) of one instruction, thread and burst.
 * The LRU stack of lines (STACK, *DEPTH deep) carries on from the same
 * instruction's and thread's earlier bursts: a line touched again in a
 * later burst is a reuse at no more distinct lines than the bursts saw in
 * between (the walk went over those at least), so that bursts shorter than
 * a pass of a loop still show whether it returns to its lines.  A walk
 * over more lines than the stack holds seldom meets a line of an earlier
 * burst again.
 */
static void one_stream(const struct stream_access *a, const uint32_t *ix, size_t n,
		       const struct stream_geom *g, struct stream_ip *o, struct ip_acc *acc,
		       uint64_t *wbuf, uint64_t *stack, size_t *depth_io)
{
	size_t depth = *depth_io;
	struct u64map cl = { 0 }, cp = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct stream_access *x = &a[ix[i]];
		uint64_t line = x->addr / (uint64_t)g->line;
		size_t d;

		if (i) {
			int64_t dl = (int64_t)(x->addr - a[ix[i - 1]].addr);

			push_i64(&acc->deltas, &acc->nr_deltas, &acc->cap_deltas, dl);
			o->forward += dl > 0;
			o->backward += dl < 0;
		}
		if ((x->addr % (uint64_t)g->line) + x->size > (uint64_t)g->line)
			o->splits++;
		if (x->size && !(x->size & (x->size - 1)) && x->addr % x->size)
			o->misaligned++;
		if (set_add(&acc->lines, line))
			o->lines++;
		if (set_add(&acc->pages, x->addr / (uint64_t)g->page))
			o->pages++;
		if (x->write && set_add(&acc->wlines, line))
			o->written_lines++;
		/* footprint per 1000 accesses: chunks of 1000 */
		if (i % 1000 == 0) {
			set_clear(&cl);
			set_clear(&cp);
		}
		acc->chunk_acc++;
		acc->chunk_lines += set_add(&cl, line);
		acc->chunk_pages += set_add(&cp, x->addr / (uint64_t)g->page);
		/* reuse distance: the line's depth in an LRU stack of distinct lines */
		for (d = 0; d < depth && stack[d] != line; d++)
			;
		if (d < depth) {
			o->reuses++;
			push_double(&acc->reuse, &acc->nr_reuse, &acc->cap_reuse, (double)d);
			memmove(stack + 1, stack, d * sizeof(*stack));
		} else {
			if (depth < STREAM_REUSE_MAX)
				depth++;
			memmove(stack + 1, stack, (depth - 1) * sizeof(*stack));
		}
		stack[0] = line;
	}
	*depth_io = depth;
	set_clear(&cl);
	set_clear(&cp);

	/* sets: windows of as many accesses as the L1 (the L2) holds lines */
	for (int lvl = 1; lvl <= 2; lvl++) {
		int sets = lvl == 1 ? g->l1_sets : g->l2_sets, ways = lvl == 1 ? g->l1_ways : g->l2_ways;
		size_t w = (size_t)sets * (size_t)ways;

		if (sets <= 0 || ways <= 0)
			continue;
		for (size_t s = 0; s < n; s += w) {
			size_t len = n - s < w ? n - s : w, k;
			int used, maxl, over;

			/* a short tail says little next to a full window */
			if (s && len < w / 2)
				break;
			k = window_lines(a, ix + s, len, g->line, wbuf);
			window_sets(wbuf, k, sets, ways, &used, &maxl, &over);
			if (lvl == 1 && (maxl > o->l1_max_set_lines ||
					 (maxl == o->l1_max_set_lines && (int)len > o->window))) {
				o->l1_max_set_lines = maxl;
				o->l1_sets_used = used;
				o->l1_sets_over = over;
				o->window = (int)len;
				o->window_lines = (int)k;
			} else if (lvl == 2 && maxl > o->l2_max_set_lines) {
				o->l2_max_set_lines = maxl;
				o->l2_sets_used = used;
				o->l2_sets_over = over;
				o->l2_window_lines = (int)k;
			}
		}
	}
}

/* The most common delta and its share. */
static void stride_of(struct ip_acc *acc, struct stream_ip *o)
{
	size_t best = 0, run = 0;

	o->deltas = acc->nr_deltas;
	if (!acc->nr_deltas)
		return;
	qsort(acc->deltas, acc->nr_deltas, sizeof(*acc->deltas), cmp_i64);
	for (size_t i = 0; i < acc->nr_deltas; i++) {
		run = i && acc->deltas[i] == acc->deltas[i - 1] ? run + 1 : 1;
		if (run > best) {
			best = run;
			o->stride = acc->deltas[i];
		}
	}
	o->stride_frac = (double)best / (double)acc->nr_deltas;
}

/*
 * The walk's period: the fewest consecutive deltas (up to STREAM_CYCLE_MAX)
 * after which nine in ten of the deltas repeat, and the distance those add
 * up to, the most common over the stream: p[0], p[1], p[2] of consecutive
 * 128-byte elements step 4, 4 and 120, a cycle of 3 deltas and 128 bytes.
 * Called before stride_of() sorts the deltas.
 */
#define STREAM_CYCLE_MAX 8

static void cycle_of(struct ip_acc *acc, struct stream_ip *o)
{
	size_t n = acc->nr_deltas;
	const int64_t *d = acc->deltas;

	o->cycle = 0;
	o->cycle_deltas = 0;
	for (int k = 1; k <= STREAM_CYCLE_MAX && n >= 4 * (size_t)k; k++) {
		size_t same = 0, nr = 0, best = 0, run = 0;
		int64_t *sums;

		for (size_t i = (size_t)k; i < n; i++)
			same += d[i] == d[i - (size_t)k];
		if (same * 10 < (n - (size_t)k) * 9)
			continue;
		sums = xcalloc(n / (size_t)k + 1, sizeof(*sums));
		for (size_t i = 0; i + (size_t)k <= n; i += (size_t)k, nr++)
			for (int j = 0; j < k; j++)
				sums[nr] += d[i + (size_t)j];
		qsort(sums, nr, sizeof(*sums), cmp_i64);
		for (size_t i = 0; i < nr; i++) {
			run = i && sums[i] == sums[i - 1] ? run + 1 : 1;
			if (run > best) {
				best = run;
				o->cycle = sums[i];
			}
		}
		o->cycle_deltas = k;
		free(sums);
		return;
	}
}

/* --- the cache and TLB model --------------------------------------------------- */

struct cache {
	int sets, ways;
	uint64_t *tag;		/* sets * ways, most recent first; 0 = empty */
};

static void cache_init(struct cache *c, int sets, int ways)
{
	c->sets = sets;
	c->ways = ways;
	c->tag = sets > 0 && ways > 0 ? xcalloc((size_t)sets * ways, sizeof(uint64_t)) : NULL;
}

static void cache_clear(struct cache *c)
{
	if (c->tag)
		memset(c->tag, 0, (size_t)c->sets * c->ways * sizeof(uint64_t));
}

/* An access to block b (line or page number): true on a hit; LRU within the set. */
static bool cache_access(struct cache *c, uint64_t b)
{
	uint64_t *set = c->tag + (size_t)(b % (uint64_t)c->sets) * c->ways, key = b + 1;
	int w;

	for (w = 0; w < c->ways && set[w] != key; w++)
		;
	bool hit = w < c->ways;

	if (!hit)
		w = c->ways - 1;
	memmove(set + 1, set, (size_t)w * sizeof(*set));
	set[0] = key;
	return hit;
}

/*
 * A thread's walk over its bursts, the accesses of all its probed
 * instructions: an LRU stack of the last CAP distinct lines it touched
 * (walk_far()).  Up to STREAM_WALKS threads.
 */
#define STREAM_WALKS 16

struct walk {
	uint32_t tid;
	size_t depth;
	uint64_t *stack;
};

static struct walk *walk_of(struct walk *w, int nr, uint32_t tid)
{
	for (int k = 0; k < nr; k++)
		if (w[k].tid == tid || !w[k].depth) {
			w[k].tid = tid;
			return &w[k];
		}
	return NULL;
}

/*
 * Whether LINE is not among the last CAP distinct lines the thread's walk
 * touched, over its earlier bursts too, once the walk has touched that
 * many: the walk went over more lines than the cache holds since it last
 * met this one (or never did).  The stack moves LINE to the top.
 */
static bool walk_far(struct walk *w, uint64_t line, size_t cap)
{
	size_t d;
	bool far;

	if (!w || !w->stack)
		return false;
	for (d = 0; d < w->depth && w->stack[d] != line; d++)
		;
	far = d == w->depth && w->depth >= cap;
	if (d == w->depth) {
		if (w->depth < cap)
			w->depth++;
		d = w->depth - 1;
	}
	memmove(w->stack + 1, w->stack, d * sizeof(*w->stack));
	w->stack[0] = line;
	return far;
}

static void model(const struct stream_access *a, size_t n, const struct stream_geom *g,
		  struct stream_ip *out, int nr_ips)
{
	struct cache l1, l2, tlb;
	struct u64map seen_l = { 0 }, seen_p = { 0 };
	uint32_t *ix = order(a, n, false);
	/* distinct lines and pages of the window so far */
	uint64_t wl = 0, wp = 0, l1_cap = (uint64_t)g->l1_sets * (uint64_t)g->l1_ways;
	struct walk walks[STREAM_WALKS] = { 0 };

	for (int k = 0; k < STREAM_WALKS && l1_cap; k++)
		walks[k].stack = xcalloc(l1_cap + 1, sizeof(uint64_t));
	cache_init(&l1, g->l1_sets, g->l1_ways);
	cache_init(&l2, g->l2_sets, g->l2_ways);
	cache_init(&tlb, 1, g->tlb_entries);
	for (size_t i = 0; i < n; i++) {
		const struct stream_access *x = &a[ix[i]];
		struct stream_ip *o = &out[x->ipi];
		uint64_t line = x->addr / (uint64_t)g->line, page = x->addr / (uint64_t)g->page;
		bool cold_l, cold_p;

		if (x->ipi >= nr_ips)
			continue;
		if (i && !same_stream(x, &a[ix[i - 1]], false)) {
			cache_clear(&l1);
			cache_clear(&l2);
			cache_clear(&tlb);
			set_clear(&seen_l);
			set_clear(&seen_p);
			wl = wp = 0;
		}
		cold_l = set_add(&seen_l, line);
		cold_p = set_add(&seen_p, page);
		/*
		 * A first touch in the window may have found its line cached
		 * before the burst: it decides nothing, unless the window has
		 * already touched more lines than the cache holds (then the
		 * walk does not fit, and it would miss on any pass), or the
		 * thread's walk, over its bursts, went over more lines than the
		 * cache holds since it last met the line (a walk in steps wider
		 * than a line, 3 ms at a time).  Code no probe is on could have
		 * touched the line between bursts: a limit.
		 */
		if (l1.tag) {
			bool miss = !cache_access(&l1, line);
			bool far = walk_far(walk_of(walks, STREAM_WALKS, x->tid), line,
					    (size_t)l1_cap);
			bool decided = !cold_l || wl >= l1_cap || far;

			o->l1_decided += decided;
			if (miss) {
				o->l1_misses++;
				o->l1_cold += cold_l;
				o->l1_decided_misses += decided;
				if (l2.tag && !cache_access(&l2, line))
					o->l2_misses++;
			}
		}
		if (tlb.tag) {
			bool miss = !cache_access(&tlb, page);
			bool decided = !cold_p || wp >= (uint64_t)g->tlb_entries;

			o->tlb_modelled = true;
			o->tlb_decided += decided;
			if (miss) {
				o->tlb_misses++;
				o->tlb_cold += cold_p;
				o->tlb_decided_misses += decided;
			}
		}
		wl += cold_l;
		wp += cold_p;
	}
	for (int k = 0; k < STREAM_WALKS; k++)
		free(walks[k].stack);
	free(l1.tag);
	free(l2.tag);
	free(tlb.tag);
	set_clear(&seen_l);
	set_clear(&seen_p);
	free(ix);
}

/* --- all of it ------------------------------------------------------------------ */

static void reset_metrics(struct stream_ip *o)
{
	o->accesses = 0;
	o->threads = 0;
	o->stride = 0;
	o->stride_frac = 0;
	o->cycle = 0;
	o->cycle_deltas = 0;
	o->deltas = 0;
	o->forward = o->backward = o->jumps = 0;
	o->lines_per_k = o->pages_per_k = 0;
	o->lines = o->pages = 0;
	o->window = o->window_lines = 0;
	o->l1_sets_used = o->l1_max_set_lines = o->l1_sets_over = 0;
	o->l2_sets_used = o->l2_max_set_lines = o->l2_sets_over = o->l2_window_lines = 0;
	o->conflict = false;
	o->splits = o->misaligned = 0;
	o->written_lines = o->written_lines_read = 0;
	o->write_only = false;
	o->reuses = 0;
	o->reuse_median = NAN;
	o->l1_misses = o->l1_cold = o->l2_misses = o->tlb_misses = o->tlb_cold = 0;
	o->l1_decided = o->l1_decided_misses = o->tlb_decided = o->tlb_decided_misses = 0;
	o->tlb_modelled = false;
}

/* Lines crowd into few sets: fewer than a quarter of the sets they would spread over. */
static bool crowded(int used, int max_lines, int ways, int lines, int sets)
{
	int spread = lines < sets ? lines : sets;

	return ways > 0 && max_lines > ways && lines > ways && used * 4 <= spread;
}

void streams__analyze(const struct stream_access *a, size_t n, const struct stream_geom *g,
		      struct stream_ip *out, int nr_ips)
{
	struct ip_acc *acc = xcalloc((size_t)nr_ips + 1, sizeof(*acc));
	struct u64map read_lines = { 0 };
	size_t wmax = (size_t)(g->l2_sets * g->l2_ways > g->l1_sets * g->l1_ways ?
			       g->l2_sets * g->l2_ways : g->l1_sets * g->l1_ways);
	uint64_t *wbuf = xcalloc(wmax + 1, sizeof(*wbuf));
	uint64_t *stack = xcalloc(STREAM_REUSE_MAX + 1, sizeof(*stack));
	size_t depth = 0;
	uint32_t *ix = order(a, n, true);

	for (int i = 0; i < nr_ips; i++)
		reset_metrics(&out[i]);
	for (size_t i = 0; i < n; i++)
		if (!a[i].write && a[i].ipi < nr_ips)
			set_add(&read_lines, a[i].addr / (uint64_t)g->line);
	for (size_t s = 0, e; s < n; s = e) {
		const struct stream_access *x = &a[ix[s]];

		for (e = s + 1; e < n && same_stream(&a[ix[e]], x, true); e++)
			;
		if (x->ipi >= nr_ips)
			continue;
		out[x->ipi].accesses += e - s;
		if (set_add(&acc[x->ipi].tids, x->tid))
			out[x->ipi].threads++;
		/* a new instruction or thread starts a new stack */
		if (!s || a[ix[s - 1]].ipi != x->ipi || a[ix[s - 1]].tid != x->tid)
			depth = 0;
		one_stream(a, ix + s, e - s, g, &out[x->ipi], &acc[x->ipi], wbuf, stack, &depth);
	}
	for (int i = 0; i < nr_ips; i++) {
		struct stream_ip *o = &out[i];
		struct ip_acc *c = &acc[i];

		cycle_of(c, o);
		stride_of(c, o);
		for (size_t k = 0; k < c->nr_deltas; k++)
			o->jumps += c->deltas[k] != o->stride &&
				    (c->deltas[k] >= (int64_t)g->page || c->deltas[k] <= -(int64_t)g->page);
		if (c->chunk_acc) {
			o->lines_per_k = 1000.0 * (double)c->chunk_lines / (double)c->chunk_acc;
			o->pages_per_k = 1000.0 * (double)c->chunk_pages / (double)c->chunk_acc;
		}
		if (c->nr_reuse) {
			qsort(c->reuse, c->nr_reuse, sizeof(*c->reuse), cmp_double);
			o->reuse_median = c->reuse[c->nr_reuse / 2];
		}
		/* written lines read back by a probed load, in any thread */
		for (size_t k = 0; k < c->wlines.cap; k++)
			if (c->wlines.keys[k] &&
			    u64map__find(&read_lines, c->wlines.keys[k]) != 0)
				o->written_lines_read++;
		/*
		 * write-only: under 5 % of the written lines read back, over 20
		 * lines or more (fewer could not show one line in 20 read back)
		 */
		o->write_only = o->write && !o->read && o->written_lines >= STREAM_WRITE_ONLY_LINES &&
				o->written_lines_read * 20 <= o->written_lines;
		o->conflict = crowded(o->l1_sets_used, o->l1_max_set_lines, g->l1_ways,
				      o->window_lines, g->l1_sets) ||
			      crowded(o->l2_sets_used, o->l2_max_set_lines, g->l2_ways,
				      o->l2_window_lines, g->l2_sets);
		free(c->deltas);
		free(c->reuse);
		set_clear(&c->lines);
		set_clear(&c->pages);
		set_clear(&c->tids);
		set_clear(&c->wlines);
	}
	model(a, n, g, out, nr_ips);
	set_clear(&read_lines);
	free(acc);
	free(wbuf);
	free(stack);
	free(ix);
}
