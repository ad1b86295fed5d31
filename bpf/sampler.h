/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by bpf/sampler.bpf.c and src/collect/sampling/: map keys, values,
 * and counter indexes.  Fixed-width fields only and no
 * implicit padding; user space checks the sizes with _Static_assert.
 */
#ifndef __MA_BPF_PROFILE_H
#define __MA_BPF_PROFILE_H

#define PROF_MAX_EVENTS 4	 /* sampling events attached at once */
#define PROF_STACK_DEPTH 32	 /* user frames kept per stack */
#define PROF_PAGE_SHIFT 12

/* Hot code: one entry per (process, thread, user ip, event). */
struct prof_hot_key {
	__u32 tgid;
	__u32 tid;
	__u64 ip;	/* user ip; for samples taken in the kernel, the user ip of the syscall/fault */
	__u32 ev;	/* index of the sampling event */
	__u32 _pad;
};

struct prof_hot_val {
	__u64 samples;
	__u64 kernel_samples;	/* of which taken in kernel mode (on behalf of this ip) */
	__u64 period_sum;	/* sum of sample periods: estimated events */
};

/* Hot stacks: (process, user stack id, event). */
struct prof_stack_key {
	__u32 tgid;
	__s32 stackid;
	__u32 ev;
	__u32 _pad;
};

/*
 * Page faults by faulting code location, from samples of the page-faults
 * software event in frequency mode: while faults are rare the period is 1 and
 * every fault is a sample; in a storm the kernel raises the period, and each
 * sample stands for 'period' faults.
 */
struct prof_fault_site_key {
	__u32 tgid;
	__u32 kernel;	/* 1: taken in kernel mode (copy to/from user); ip is the user ip of the syscall */
	__u64 ip;
};

struct prof_fault_val {
	__u64 count;	/* sum of the samples' periods: estimated faults */
	__u64 samples;
	__u64 instr;	/* of count, instruction fetches (the address is the ip's) */
	__u64 major;	/* from the major-faults software event (period 1): exact */
	__u64 last_addr; /* the last sampled faulting address (names the region) */
};

/*
 * Page faults by 2 MiB chunk of address space (address >> PROF_CHUNK_SHIFT):
 * one bit per sampled 4 KiB page, and the chunk's estimated faults.
 */
#define PROF_CHUNK_SHIFT 21
#define PROF_CHUNK_PAGES (1 << (PROF_CHUNK_SHIFT - PROF_PAGE_SHIFT))

struct prof_chunk_key {
	__u32 tgid;
	__u32 _pad;
	__u64 chunk;
};

struct prof_chunk_val {
	__u64 pages[PROF_CHUNK_PAGES / 64];	/* bit i: page i of the chunk was sampled faulting */
	__u64 faults;	/* estimated (sum of periods) */
	__u64 samples;
	__u64 major;
};

/* Faults per time bucket (estimated), counted from t0_ns (set when the target starts). */
struct prof_bucket {
	__u64 faults;
	__u64 major;
};

/* khugepaged / MADV_COLLAPSE activity on the target's mm. */
struct prof_thp_val {
	__u64 scan_pmd;		/* mm_khugepaged_scan_pmd, any status */
	__u64 _reserved;
	__u64 collapse_ok;	/* mm_collapse_huge_page, succeeded */
	__u64 collapse_fail;	/* mm_collapse_huge_page, other status */
};

/*
 * A user-mode sample with the user registers, for the sw-addr collector,
 * written to the 'regs_ring' ring buffer by the sampling programs when user
 * space asks for it (regs_out).  Laid out as perf's PERF_RECORD_SAMPLE with
 * sample_type IP | TID | TIME | REGS_USER and the sw-addr register mask, so
 * that one decoder reads both: regs[] in enum as_reg order (AX BX CX DX SI
 * DI BP SP IP R8-R15).
 */
#define PROF_NR_REGS 17
#define PROF_RECORD_SAMPLE 9	/* PERF_RECORD_SAMPLE */
#define PROF_REGS_ABI_64 2	/* PERF_SAMPLE_REGS_ABI_64 */

struct prof_regs_rec {
	__u32 type;		/* PROF_RECORD_SAMPLE */
	__u16 misc;
	__u16 size;		/* sizeof(struct prof_regs_rec) */
	__u64 ip;
	__u32 pid;
	__u32 tid;
	__u64 time;		/* CLOCK_MONOTONIC ns */
	__u64 abi;		/* PROF_REGS_ABI_64 */
	__u64 regs[PROF_NR_REGS];
};

/* Indexes into the per-CPU 'stats' array. */
enum prof_stat {
	PROF_ST_SAMPLES,	/* samples of the target's threads */
	PROF_ST_SAMPLES_KERNEL,	/* of which in kernel mode */
	PROF_ST_HOT_FULL,	/* hot map full: sample not aggregated by ip */
	PROF_ST_STACK_ERR,	/* bpf_get_stackid failed (collision, no user stack) */
	PROF_ST_STACK_FULL,	/* stack-count map full */
	PROF_ST_FAULTS_MAJOR,	/* major-faults software event samples */
	PROF_ST_FAULT_SAMPLES,	/* page-faults event samples */
	PROF_ST_FAULT_MAX_PERIOD, /* the largest period seen (a maximum, not a sum) */
	PROF_ST_SITE_FULL,	/* estimated user-mode faults not in the site map */
	PROF_ST_SITE_FULL_KERNEL, /* estimated kernel-mode faults not in the site map */
	PROF_ST_PAGE_FULL,	/* estimated faults not in the chunk map */
	PROF_ST_TIMELINE_LATE,	/* samples after the last time bucket */
	PROF_ST_TICKS,		/* of PROF_ST_SAMPLES, from the scheduler tick (tick.bpf.c) */
	PROF_ST_REGS_LOST,	/* register records the ring had no room for */
	PROF_ST__COUNT,
};

/* Indexes into the THP object's 'thp_stats' array. */
enum prof_thp_stat {
	PROF_THP_EVENTS,	/* huge_memory events on the target's mm */
	PROF_THP_NO_OWNER,	/* events whose mm has no owner to filter by */
	PROF_THP__COUNT,
};

#endif
