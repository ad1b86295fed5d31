/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Exact address streams (tier uprobe-stream): for the hot memory
 * instructions data-address sampling named, every address they accessed
 * during short bursts of uprobes placed on the instructions themselves,
 * and what follows from them per instruction: exact stride, footprint per
 * 1000 accesses, set histogram against the associativity, line splits,
 * write-only streams, reuse distance, and miss ratios from a small
 * set-associative cache and TLB model with this machine's geometry.
 * Filled by collect/streams, read by the rules and the report.
 */
#ifndef __MA_MODEL_STREAMS_H
#define __MA_MODEL_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/report.h"
#include "model/site.h"

/* Why a hot instruction has no stream. */
enum stream_skip {
	STREAM_OK,
	STREAM_SKIP_SEGMENT,	/* fs/gs relative: the segment base is not in pt_regs */
	STREAM_SKIP_OPERAND,	/* an operand not computable from pt_regs (VSIB gathers, ...) */
	STREAM_SKIP_NO_FILE,	/* code not in a file mapping (JIT, deleted file) */
	STREAM_SKIP_ATTACH,	/* the kernel refused the uprobe */
	STREAM_SKIP_EMULATED,	/* the kernel would emulate it as a branch, not run it */
	STREAM_SKIP_NO_HITS,	/* probed, never executed during a burst */
	STREAM_SKIP__COUNT,
};
const char *stream_skip__name(enum stream_skip s);

/* The cache and TLB geometry the streams were judged against. */
struct stream_geom {
	int line;		/* bytes */
	int page;		/* bytes */
	int l1_sets, l1_ways;
	int l2_sets, l2_ways;	/* 0: unknown */
	int tlb_entries;	/* first-level data TLB, fully associative in the model; 0: unknown */
	uint64_t llc_bytes;	/* the last level cache (sysfs), 0: unknown */
	char tlb_source[48];	/* "machine profile (calibrate)", "" when unknown */
};

/* What the streams of one instruction show. */
struct stream_ip {
	uint64_t insn;		/* the instruction's address */
	int pid;
	struct sym_site loc;
	char text[64];		/* "mov qword ptr [rax + rdx*8], rcx" */
	enum stream_skip skip;
	char why[96];		/* detail of skip */
	bool read, write;
	uint8_t size;
	uint64_t addr_samples;	/* the sampling that chose it */
	/*
	 * A store of the loop around a hot instruction, probed though not
	 * sampled (stores retire into the store buffer and rarely take a
	 * sample): the loop's code [loop_lo, loop_hi).
	 */
	bool loop_store;
	uint32_t fill;		/* a loop store: the bytes its loop writes through its pointer a
				 * pass (addrsample__loop_fill), 0: unknown */
	uint64_t loop_lo, loop_hi;
	uint64_t region_start, region_bytes; /* the mapping its first access fell in, 0: unknown */
	uint64_t accesses;	/* records */
	int threads;
	int bursts;		/* bursts it was recorded in */
	/* stride: the most common delta between consecutive addresses of a thread */
	int64_t stride;
	double stride_frac;	/* share of the deltas equal to it (regularity) */
	uint64_t deltas;
	/*
	 * The walk's period: CYCLE_DELTAS consecutive deltas that repeat (nine
	 * in ten) and the bytes they add up to (p[k], k < 3, over 128-byte
	 * elements: 3 and 128); 0: no period.
	 */
	int64_t cycle;
	int cycle_deltas;
	uint64_t forward, backward; /* deltas going up, down (not 0) */
	/*
	 * deltas of a page or more that are not the stride: jumps no
	 * prefetcher follows (a tree's descent goes up in memory, since a
	 * child is allocated after its parent, but lands anywhere)
	 */
	uint64_t jumps;
	/* footprint */
	double lines_per_k, pages_per_k; /* distinct per 1000 consecutive accesses */
	uint64_t lines, pages;	/* distinct over the streams */
	/* sets: the worst window of l1_sets * l1_ways consecutive accesses */
	int window;		/* accesses in it */
	int window_lines;	/* distinct lines in it */
	int l1_sets_used;	/* sets those lines fall in */
	int l1_max_set_lines;	/* distinct lines in its fullest set */
	int l1_sets_over;	/* sets holding more distinct lines than ways */
	int l2_sets_used, l2_max_set_lines, l2_sets_over; /* the same in windows the L2 holds */
	int l2_window_lines;
	bool conflict;		/* lines crowd into few sets, more than ways in one */
	/* alignment */
	uint64_t splits;	/* accesses crossing a cache line */
	uint64_t misaligned;	/* not aligned to their size */
	/* write-only: stores to lines no probed instruction read in the streams */
	uint64_t written_lines, written_lines_read;
	/*
	 * Lines loads were sampled at (over the whole run, any code) within the
	 * span of the lines it wrote: the data is read back by code the
	 * streams did not probe.  Two or more: not write-only.
	 */
	uint64_t sampled_reads_in_span;
	int loads_over_span;	/* sampled loads whose address range covers part of it */
	bool write_only;
	/* reuse: accesses to a line this thread's stream touched before, in this burst or an earlier one */
	uint64_t reuses;
	double reuse_median;	/* distinct lines between (LRU stack distance), NAN: none */
	/* the cache and TLB model (per thread, state cleared at each burst) */
	uint64_t l1_misses, l1_cold, l2_misses, tlb_misses, tlb_cold;
	/*
	 * Accesses whose hit or miss the window decides (not a first touch,
	 * or a first touch after more lines or pages than the cache or TLB
	 * holds), and the misses among them.
	 */
	uint64_t l1_decided, l1_decided_misses, tlb_decided, tlb_decided_misses;
	bool tlb_modelled;
};

/*
 * Lines a store stream must write before it can say whether they are read
 * back (write-only: under one in 20 read back; fewer lines could not show
 * one).
 */
#define STREAM_WRITE_ONLY_LINES 20

/*
 * Deltas a stream needs before its order (forward against backward) is
 * taken.  In order is nine in ten one way: of 32 deltas in random order,
 * 29 or more go one way with probability 2.6e-6, so 32 tell a walk in order
 * from a random one; more would only leave the short streams of a walk that
 * visits few elements a pass (a budgeted burst records some 50) undecided.
 */
#define STREAM_ORDER_MIN_DELTAS 32

struct streams_report {
	enum tier tier;		/* TIER_UPROBE_STREAM */
	struct stream_geom geom;
	int bursts;
	uint64_t burst_ns;	/* planned length of one burst */
	uint64_t probed_ns;	/* sum of the bursts' lengths */
	uint64_t hits;		/* uprobe hits (records + capped + dropped + unarmed) */
	uint64_t records, dropped, capped;
	uint64_t unarmed;	/* hits while a burst's probes went in or came out */
	uint64_t ip_at_probe, ip_after_int3; /* what regs->ip was in the handler */
	bool multi;		/* attached as uprobe_multi links, else perf-event uprobes */
	double cost_ns;		/* charged: uprobe_multi, a fixed part and the hits a burst;
				 * perf-event uprobes, the bursts' spans (upper bounds) */
	double hits_cost_ns;	/* the hits alone, at cost_per_hit_ns */
	double cost_per_hit_ns;	/* the estimate used */
	uint64_t run_ns;	/* the time the budget was taken from */
	double budget;		/* share of the run the bursts may cost */
	struct stream_ip *ips;	/* by addr_samples, descending */
	int nr_ips;
};

void streams_report__free(struct streams_report *s);
/*
 * In order: at least nine in ten of its deltas go one way (the page walks
 * of such a walk read page-table lines in order too).  It may still jump:
 * a descent through a tree whose children were allocated after their
 * parents goes up at every step, anywhere (jumps, line.stream_jump_share).
 */
bool stream_ip__in_order(const struct stream_ip *s);
/* Regular: most deltas are the stride (the instruction walks with it). */
bool stream_ip__strided(const struct stream_ip *s);

#endif
