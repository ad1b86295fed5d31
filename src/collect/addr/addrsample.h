/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Software data-address sampling (tier sw-addr): cpu-clock samples with the
 * user registers, the instruction *before* the sampled IP decoded with
 * capstone (the timer interrupt is taken after the stalled load retires),
 * and its effective address computed from the sampled registers.  This
 * samples where time is spent, weighted by stall time: a proxy for the
 * accesses that miss, not a precise (PEBS/IBS) data source.
 */
#ifndef __MA_ADDRSAMPLE_H
#define __MA_ADDRSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbols/addrsym.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"
#include "model/report.h"

struct json_object;

/* Registers sampled (PERF_SAMPLE_REGS_USER), in the order perf writes them. */
enum as_reg {
	AS_AX, AS_BX, AS_CX, AS_DX, AS_SI, AS_DI, AS_BP, AS_SP, AS_IP,
	AS_R8, AS_R9, AS_R10, AS_R11, AS_R12, AS_R13, AS_R14, AS_R15,
	AS_NR_REGS,
};
/* The matching perf sample_regs_user mask: AX..IP (bits 0-8), R8..R15 (16-23). */
#define AS_REGS_MASK 0x0000000000ff01ffULL

/* Why an instruction gives no effective address. */
enum as_skip {
	AS_OK,
	AS_NO_MEM,	/* no explicit memory operand (push/ret/arith on registers) */
	AS_LEA,		/* lea/nop: an address computation, no access */
	AS_SEGMENT,	/* fs/gs relative (TLS): perf has no fs_base */
	AS_UNSUPPORTED, /* a register we did not sample (VSIB gathers, ...) */
	AS_UNDECODABLE,
	AS_SKIP__COUNT,
};

/* The memory operand of one decoded instruction. */
struct mem_operand {
	uint64_t insn;	     /* the instruction's address */
	uint8_t len;	     /* its length */
	enum as_skip skip;
	int base, index;     /* enum as_reg, -1 = none */
	bool rip;	     /* RIP-relative: ea = insn + len + disp */
	int scale;
	int64_t disp;
	uint8_t size;	     /* access size in bytes */
	bool read, write;
	bool clobbers;	     /* writes its own base or index: EA is approximate */
	bool atomic;	     /* locked read-modify-write (lock prefix, xchg with memory) */
	bool cas;	     /* cmpxchg: a compare-and-swap (retry loops, R13) */
	uint8_t back;	     /* instructions before the sampled IP's previous one (see decode_back) */
	int64_t adj;	     /* what those added to the base register since: ea = ... - adj */
	char text[64];	     /* "mov r12, qword ptr [r12]" */
};

/* Decodes the one instruction at code[0..len) placed at address addr. 0 or -EINVAL. */
int addrsample__decode(const uint8_t *code, size_t len, uint64_t addr, struct mem_operand *op);
/* Effective address from sampled registers (regs indexed by enum as_reg). */
uint64_t addrsample__ea(const struct mem_operand *op, const uint64_t *regs);
/*
 * Address of the instruction that ends exactly at ip.  code holds the bytes
 * [code_addr, ip); func_start (0 = unknown) is where a linear sweep may start.
 * Without it, or when the sweep does not land on ip, decoding starts at each
 * of the 40 bytes before ip and the last instruction's length is voted on.
 * 0 or -ENOENT.
 */
int addrsample__prev_insn(const uint8_t *code, uint64_t code_addr, uint64_t ip,
			  uint64_t func_start, uint64_t *insn);
/*
 * Where the instruction before ip has no memory operand: the last access
 * before it in the same straight run of code, at most AS_BACK_MAX
 * instructions back, swept from func_start (code holds [code_addr, ip)),
 * unless the instruction before ip is a jmp or ret (ip is then reached by a jump).
 * The run may hold no branch, and no branch seen in the sweep may land
 * inside it.  A base register the instructions after the access moved by a
 * constant (add, sub, inc, dec, lea) is moved back (op->adj); one they
 * changed otherwise makes the address approximate (op->clobbers).
 * 0 with *op filled, or -ENOENT.
 */
#define AS_BACK_MAX 4
int addrsample__decode_back(const uint8_t *code, uint64_t code_addr, uint64_t func_start,
			    uint64_t ip, struct mem_operand *op);
/*
 * The stride of an access stream sampled at random times: deltas between
 * consecutive addresses are multiples k*stride, so the stride is the most
 * common gcd of consecutive deltas.  Returns it (0 when unknown); *frac gets
 * the fraction of non-zero deltas that are multiples of it.
 */
int64_t addrsample__stride(const int64_t *deltas, size_t n, double *frac);
/*
 * Fraction of the non-zero deltas with the sign of stride (1 = a monotonic
 * walk); jumps back over half the walk's span or more (a repeated walk
 * starting its next pass) are left out.
 */
double addrsample__monotonic(const int64_t *deltas, size_t n, int64_t stride);

#define AS_MAX_THREADS_PER_LINE 8

/* One sampled IP. */
struct addr_ip {
	uint64_t ip;		/* sampled IP (just after the access) */
	int pid;		/* process (the target, or a child of it): the first sampled */
	int nr_procs;		/* processes sampled at this code (same file, same offset) */
	uint32_t space;		/* the address space of pid (internal: symbolising) */
	struct mem_operand op;	/* the decoded access before it */
	struct sym_site loc; /* of op.insn */
	char object[96];	/* global variable at the last exact address, "" if none */
	uint64_t samples;	/* samples at this IP */
	uint64_t decoded;	/* samples with an effective address */
	uint64_t approx;	/* ... of which approximate (base/index overwritten) */
	uint64_t lines, pages;	/* distinct cache lines / 4 KiB pages touched */
	int l1_sets;		/* distinct L1D sets of those lines (conflicts, R7) */
	uint64_t line_splits;	/* accesses crossing a cache line (R6) */
	uint64_t approx_line_splits; /* ... at approximate addresses: the object the
				      * load moved to, laid out like the one it read */
	uint64_t misaligned;	/* accesses not aligned to their size */
	uint64_t region[MAPK__COUNT];
	uint64_t top_region_samples; /* samples in the most hit mapping */
	char top_region[200];	     /* its name ("[heap]", "anon", path) */
	uint64_t top_region_start, top_region_end; /* and where it was mapped */
	int nr_threads;
	int64_t stride;		/* dominant stride in bytes, 0 = none */
	double stride_frac;	/* fraction of deltas that are multiples of it */
	double stride_monotonic; /* fraction of deltas going its way: ~0.5 = random */
	uint64_t stride_deltas; /* deltas it was computed from */
};

/* A regular strided walk: most deltas are multiples of the stride and go one way. */
bool addr_ip__strided(const struct addr_ip *ip);

/* A mapping that effective addresses fell into. */
struct addr_region {
	uint64_t start, end;
	enum map_kind kind;
	char name[200];
	uint64_t samples;
};

/* A cache line written by at least two threads (false/true sharing evidence). */
struct addr_line {
	uint64_t line;
	int nr_threads;
	struct {
		int tid;
		uint64_t reads, writes;
		uint64_t rmask, wmask; /* bytes of the line accessed (bit = offset) */
		char object[96];       /* global written first in wmask ("" if none) */
	} t[AS_MAX_THREADS_PER_LINE];
	uint64_t ip;		/* the IP that wrote it most */
	bool false_sharing;	/* writers touched different bytes */
};

struct addr_profile {
	enum tier tier;		/* TIER_SW_ADDR */
	char event[48];
	uint64_t period_ns;
	int line_size;
	int l1_sets;		/* sets of this machine's L1D (the set index used) */
	uint64_t line_splits, misaligned, atomic, cas; /* samples */
	uint64_t samples, lost, no_regs, unreadable, decoded, approx;
	uint64_t back;		/* decoded from an earlier access (mem_operand.back) */
	uint64_t other_process;	/* samples in processes beyond the first 64 (not decoded) */
	uint64_t previous_images; /* samples before the process exec'd again */
	uint64_t skipped[AS_SKIP__COUNT];
	uint64_t reads, writes;
	uint64_t lines, pages;	/* distinct over all IPs */
	struct addr_ip *ips;	/* by samples, descending */
	int nr_ips;
	struct addr_region *regions; /* by samples, descending */
	int nr_regions;
	struct addr_line *shared;    /* lines written by >= 2 threads */
	int nr_shared;
};

struct json_object *addr_profile__to_json(const struct addr_profile *p);
void addr_profile__print_text(const struct addr_profile *p, FILE *f, bool wide);
void addr_profile__free(struct addr_profile *p);

/*
 * Standalone use (tests, other collectors): attach to a process (a corked
 * child that has not exec'd yet when enable_on_exec) and sample it.
 */
struct addrsample;
struct perf_event_header;
/* The cpu-clock rate without -F: lower in a virtualized guest (see the .c). */
unsigned int addrsample__default_hz(void);
/*
 * FREQ_HZ 0: addrsample__default_hz().  SIDEBAND_ONLY: no sampling event,
 * only the mapping and task records; the samples (with their registers, as
 * perf lays them out) are handed to addrsample__sink().
 */
struct addrsample *addrsample__open(pid_t pid, unsigned int freq_hz, bool enable_on_exec,
				    bool sideband_only, char *why, size_t why_len);
/* A sample from elsewhere (run_shared.regs_sink): a PERF_RECORD_SAMPLE as the ring has them. */
void addrsample__sink(void *ctx, const struct perf_event_header *rec);
/*
 * Drains the ring (ctx: the addrsample) and hands every record to
 * run_shared.side_sink as well; also after addrsample__finish, until close.
 */
void addrsample__drain_side(void *ctx);
int addrsample__poll(struct addrsample *as);
/* The target is still mapped (stopped at exit): drain and read what is left. */
void addrsample__at_exit(struct addrsample *as);
/* Drains, aggregates and symbolises; the caller owns the result. */
struct addr_profile *addrsample__finish(struct addrsample *as);
void addrsample__close(struct addrsample *as);

extern const struct collector collector_addrsample;

#endif
