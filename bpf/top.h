/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by bpf/top.bpf.c and src/collect/top/: the keys and values of
 * the maps 'memadvise top' drains at every refresh.  Fixed-width fields
 * only, no implicit padding.
 */
#ifndef __MA_BPF_TOP_H
#define __MA_BPF_TOP_H

/* A scheduler-tick sample of a thread: its user ip (kernel 1: in kernel mode, ip the user one). */
struct top_hot_key {
	__u32 tgid;
	__u32 tid;
	__u64 ip;
	__u32 kernel;
	__u32 _pad;
};

/* Page faults of the process being drilled into, by faulting user ip. */
struct top_fault_key {
	__u64 ip;
};

struct top_fault_val {
	__u64 count;		/* every fault (the tracepoint, no sampling) */
	__u64 writes;		/* error code bit 1 */
	__u64 instr;		/* error code bit 4: instruction fetches */
	__u64 last_addr;	/* the last faulting address (names the region) */
};

/* Indexes into the per-CPU 'top_stats' array. */
enum top_stat {
	TOP_ST_TICKS,		/* samples counted */
	TOP_ST_HOT_FULL,	/* samples lost: hot map full */
	TOP_ST_FAULT_FULL,	/* faults lost: fault map full */
	TOP_ST__COUNT,
};

#endif
