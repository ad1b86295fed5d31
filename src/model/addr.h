/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Data-address sampling results (tier sw-addr): the decoded accesses at the
 * sampled instructions, the mappings they fell in, and the cache lines
 * written by more than one thread.  Filled by collect/addr, read by the
 * rules and the report.
 */
#ifndef __MA_MODEL_ADDR_H
#define __MA_MODEL_ADDR_H

#include <stdbool.h>
#include <stdint.h>

#include "model/report.h"
#include "model/site.h"

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
	/*
	 * Of those, a pointer-sized load into its own base and nothing else
	 * changed (p = p->next): the EA is the same member of the next object,
	 * an address the walk does read.  Any other clobber (a narrow load into
	 * the base, a load into the index, a later instruction's write) leaves
	 * base + loaded value: no address at all.
	 */
	bool chase;
	bool swept;	     /* its start found by a sweep from the function's start, not
			      * by a vote over the bytes before the sampled IP: sure */
	bool chained;	     /* its loop moves the base only to a pointer loaded through it
			      * (addrsample__loop_chained): a dependent chain */
	bool bulk;	     /* its loop also stores with rep stos/movs (addrsample__loop_bulk) */
	bool reloads_base;   /* its loop loads its base from memory (addrsample__loop_reloads_base) */
	bool lea_indexed;    /* its base was last set by a lea with an index in its loop
			      * (lea r9, [r8 + r9*8]; mov [r9]): an element of an array */
	bool atomic;	     /* locked read-modify-write (lock prefix, xchg with memory) */
	bool stored;	     /* a load whose operand is stored to right after (addrsample__stored_back) */
	bool joined;	     /* a jump lands between the access and the sampled IP: the
			      * access may not have run (no address is taken from it) */
	bool cas;	     /* cmpxchg: a compare-and-swap (retry loops, R13) */
	uint8_t back;	     /* instructions before the sampled IP's previous one (see decode_back) */
	int64_t adj;	     /* what those added to the base register since: ea = ... - adj */
	/*
	 * Where the base came from (addrsample__base_origin), the register
	 * plus one (0: not known): lea base, [from + from_disp], or a pointer
	 * loaded from [from + from_load_disp] from_back bytes of code before
	 * the access, from_disp added since; neither changed on any path from
	 * there to it.  The access lands from_disp + disp into the object that
	 * from (lea), or the loaded pointer, points to.
	 */
	int from_base;
	int64_t from_disp;
	bool from_load;
	int64_t from_load_disp;
	uint32_t from_back;
	char text[64];	     /* "mov r12, qword ptr [r12]" */
};

#define AS_MAX_THREADS_PER_LINE 8

#define ADDR_LINE_OFF_MAX 128
#define ADDR_SIBLINGS 16
#define AS_ORIGIN_BASES 32	/* distinct base values kept per indexed access */

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
	uint64_t no_addr;	/* decoded, but base/index overwritten other than by a
				 * pointer chase: no address (not in decoded) */
	uint64_t joined;	/* ... of which at a join (op.joined): one of the
				 * function's accesses, which one unknown */
	uint64_t lines, pages;	/* distinct cache lines / 4 KiB pages touched */
	int l1_sets;		/* distinct L1D sets of those lines (conflicts, R7) */
	uint64_t line_splits;	/* accesses crossing a cache line (R6) */
	uint64_t approx_line_splits; /* ... at approximate addresses: the object the
				      * load moved to, laid out like the one it read */
	uint64_t misaligned;	/* accesses not aligned to their size */
	/*
	 * Exact addresses by their offset in the line (lines of up to
	 * ADDR_LINE_OFF_MAX bytes): where the objects they hit begin, once the
	 * member's offset is known (the binder's object placement).
	 */
	uint32_t line_off[ADDR_LINE_OFF_MAX];
	uint64_t ea_min, ea_max; /* lowest and highest exact address (0, 0: none) */
	/*
	 * An indexed access (base + index * scale + disp, the base not the
	 * stack pointer): where the array it walks begins (base + disp) modulo
	 * the bytes the L1d's sets span (line size * sets, 4096 here), in its
	 * first exact sample (origin_off), and how many of its exact samples
	 * had one (origin_n) and the same (origin_same).  Arrays walked by one
	 * index whose origins lie within a line of each other share a set at
	 * nearly every index (addr_origin_streams in the binder).
	 */
	uint32_t origin_off, origin_n, origin_same;
	/*
	 * The distinct arrays among them: base values seen at that origin (up
	 * to AS_ORIGIN_BASES).  One instruction reloads its base for each of
	 * several arrays (x += w[k] * ch[k][i], ch[k] loaded in the loop).
	 */
	uint32_t origin_bases;
	uint64_t bases[AS_ORIGIN_BASES];
	/*
	 * The loop around the access reaches these through the same base and
	 * index registers (addrsample__loop_siblings): displacements and sizes,
	 * its own among them; the members the samples did not name.
	 */
	int64_t sib_disp[ADDR_SIBLINGS];
	uint8_t sib_size[ADDR_SIBLINGS];
	int nr_sib;
	/*
	 * What the loop added to the base from its top to the access (a
	 * pointer bumped within the element: x = v->pos; x[k]): on the loop's
	 * first pass the access is this far past where the base pointed.
	 */
	int64_t sib_bump;
	/*
	 * What one pass of that loop adds to the access's address, when the
	 * code moves its registers only by constants (addrsample__loop_step):
	 * the walk's step, 0 = not known from the code.
	 */
	int64_t loop_step;
	/*
	 * The innermost loop around the access (addrsample__loop_range):
	 * [loop_lo, loop_hi), both 0 when none was found.  An access in a block
	 * laid out past the loop's end that jumps back into it has its loop
	 * begin inside that one's.
	 */
	uint64_t loop_lo, loop_hi;
	uint64_t region[MAPK__COUNT];
	uint64_t top_region_samples; /* samples in the most hit mapping */
	char top_region[200];	     /* its name ("[heap]", "anon", path) */
	uint64_t top_region_start, top_region_end; /* and where it was mapped */
	int nr_threads;
	int64_t stride;		/* dominant stride in bytes, 0 = none */
	double stride_frac;	/* fraction of deltas that are multiples of it */
	double stride_monotonic; /* fraction of deltas going its way: ~0.5 = random */
	double cyclic_z;	 /* addrsample__cyclic_z: a walk repeated faster than sampled */
	uint64_t stride_deltas; /* deltas it was computed from */
	/*
	 * The lines and pages the walk of this IP's source line covers, a
	 * lower bound from the samples of every IP of the line in its process
	 * (addr__span_lower over their pooled counts); 0: not computed.
	 */
	double line_span_lines, line_span_pages;
	uint64_t line_span_samples;	/* the pooled samples */
	uint64_t thread_extent;	/* bytes of the widest range of lines one thread's samples hit */
	uint32_t agg;		/* internal: the collector's index of the IP */
};

/* A regular strided walk: most deltas are multiples of the stride and go one way. */
bool addr_ip__strided(const struct addr_ip *ip);

/*
 * The number of pages (or lines) a uniformly random walk covers, from S
 * samples that saw D distinct ones (S/D = L / (1 - exp(-L)), N = S / L),
 * with the repeats (S - D) taken two standard deviations high: a lower
 * bound.  0 when S is 0.
 */
double addr__random_span(uint64_t s, uint64_t d);
/*
 * The upper bound to match: the most items S uniform draws with D distinct
 * can have come from (repeats 2 standard deviations below those seen);
 * INFINITY when the draws repeat too little to bound it.
 */
double addr__random_span_max(uint64_t s, uint64_t d);
/*
 * A lower bound on the lines (or pages) a walk covers from S samples that
 * fell on D distinct ones, F1 of them sampled once and F2 twice: the larger
 * of addr__random_span(S, D) and Chao's estimator less two standard
 * deviations.  The first assumes every line as likely; the second holds
 * when some are much hotter than others (the top of a tree, hot buckets):
 * it takes only the rarely sampled lines to measure what was not seen.
 */
double addr__span_lower(uint64_t s, uint64_t d, uint64_t f1, uint64_t f2);

/*
 * How far IP's share of deltas going the stride's way lies above random
 * order's 0.5, in standard deviations of that share over its deltas
 * (0.5 / sqrt(n)).  A walk in order repeated from its start gives a share
 * of (k-1)/k with k samples a pass, so the share itself needs no fixed bound.
 */
double addr_ip__order_sigma(const struct addr_ip *ip);

/*
 * A walk in order, as far as samples can tell: its forward share is 2.5
 * standard deviations above random order's (random passes 0.6% of the
 * time), and at least 2/3, what a walk repeated from its start gives with
 * 3 samples a pass (fewer samples a pass cannot show the order).  Random
 * probing with short runs forward (open addressing) stays under it.
 * Or a walk repeated faster than the samples come (addr_ip__cyclic).
 */
bool addr_ip__in_order(const struct addr_ip *ip);
/*
 * A walk repeated faster than the samples come (addrsample__cyclic_z): its
 * order is not in the deltas' signs but in their phases over the span.
 */
bool addr_ip__cyclic(const struct addr_ip *ip);

/* A mapping that effective addresses fell into. */
struct addr_region {
	uint64_t start, end;
	enum map_kind kind;
	char name[200];
	uint64_t samples;
};

/*
 * A cache line written by two threads or more, or written by one and read
 * at other bytes by another (addr_line__shared): false/true sharing evidence.
 */
struct addr_line {
	uint64_t line;
	int nr_threads;
	struct {
		int tid;
		uint64_t reads, writes;
		uint64_t rmask, wmask; /* bytes of the line accessed (bit = offset) */
		char object[96];       /* global written first in wmask, or for a
					* thread that only read, read first ("" if none) */
	} t[AS_MAX_THREADS_PER_LINE];
	uint64_t ip;		/* the IP that wrote it most */
	bool false_sharing;	/* the threads used different bytes of different objects */
	char decl_file[256];	/* the first writer's global's declaration ("" unknown) */
	int decl_line;
};

struct addr_report {
	enum tier tier;		/* TIER_SW_ADDR */
	char event[48];
	uint64_t period_ns;
	int line_size;
	int l1_sets;		/* sets of this machine's L1D (the set index used) */
	uint64_t line_splits, misaligned, atomic, cas; /* samples */
	uint64_t samples, lost, no_regs, unreadable, decoded, approx, no_addr;
	uint64_t back;		/* decoded from an earlier access (mem_operand.back) */
	uint64_t write_ro;	/* writes decoded into a read-only mapping: the address
				 * is not the one written, kept out of the shared lines */
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
	/* the lines loads were sampled at (address / 64), sorted, distinct */
	uint64_t *read_lines;
	size_t nr_read_lines;
};

/*
 * Whether the threads that wrote shared line L (and those that only read
 * other bytes of it) all used one object the debug info names (different
 * bytes of one mutex: true sharing).
 */
bool addr_line__one_object(const struct addr_line *l);
/*
 * The samples a thread needs on a line before its accesses count as
 * recurring: an access phase shorter than the sampling period (a set-up
 * write, a last read) gives at most one sample in most runs.
 */
#define AS_SHARED_MIN_SAMPLES 3
/* The threads that wrote line L. */
int addr_line__writers(const struct addr_line *l);
/*
 * The threads that only read line L, AS_SHARED_MIN_SAMPLES times or more,
 * and only bytes no thread wrote (a writer's own data read back is true
 * sharing); their reads go to *READS when READS is not NULL.
 */
int addr_line__foreign_readers(const struct addr_line *l, uint64_t *reads);
/*
 * Whether L is a line threads share: written by two threads or more, or by
 * one (AS_SHARED_MIN_SAMPLES writes or more) while another reads other bytes
 * of it (each write takes the reader's copy away).
 */
bool addr_line__shared(const struct addr_line *l);
/* Counts ORIGIN among IP's distinct base values at its origin (origin_bases). */
void addr_ip__note_base(struct addr_ip *ip, uint64_t origin);
/*
 * IP's access as the code's pointer sees it (op.from_base): from_disp more
 * into the object, the siblings' displacements moved alike (the addresses
 * sampled are the same); through a lea's source register, while a loaded
 * pointer's origin stays for the binder (from_load).  Done once.
 */
void addr_ip__rebase(struct addr_ip *ip);
/* qsort order of shared lines: most writes first. */
int addr_line__cmp_writes(const void *a, const void *b);
/* Read lines of P in [lo, hi] (line numbers, address / 64). */
size_t addr_report__reads_in(const struct addr_report *p, uint64_t lo, uint64_t hi);

void addr_profile__free(struct addr_report *p);

#endif
