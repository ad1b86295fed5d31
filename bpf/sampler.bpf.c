// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * In-kernel aggregation for 'memadvise run': code hot spots (perf_event
 * programs on the sampling events) and page faults (perf_event programs on
 * the page-faults software event in frequency mode, and on the major-faults
 * event).  Every event is opened on the target as a per-task event that its
 * threads and children inherit, so every program run is the target's: no
 * process filter.  User space reads the maps at the end, and learns of the
 * target's processes from perf's own fork/exit/comm records.  In a virtual
 * machine the scheduler tick takes over the sampling once tick.bpf.c is
 * loaded (it shares these maps); until then the cpu-clock program here
 * writes the user registers to regs_ring as the tick program does.
 *
 * This object needs no kernel BTF: UAPI types only, no CO-RE relocations,
 * no BTF-typed tracepoints, no task_struct reads.  libbpf then does not read and parse
 * /sys/kernel/btf/vmlinux (5-6 MB, 14 ms here), which would delay the
 * target's start.  khugepaged activity, which does need BTF (the mm's
 * owner), is in thp.bpf.c, loaded while the target already runs.
 */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <asm/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "sampler.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space between open and load. */
const volatile __u64 bucket_ns = 10000000; /* fault timeline bucket width */
const volatile __u32 nr_buckets = 1;	 /* entries of 'timeline' */

/* Written by user space after load (bss): the object is loaded before the target exists. */
__u64 t0_ns = 0;	/* CLOCK_MONOTONIC when the target was released */
/*
 * The index of the sampling event that is the sw-addr collector's, whose
 * ring user space reads: its user-mode samples go on to it.  -1: none.
 */
__s32 pass_ev = -1;
/*
 * Non-zero: user-mode samples go to 'regs_ring' with their registers, for
 * the sw-addr collector, when it takes its samples from the scheduler tick
 * (tick.bpf.c) and from these programs until the tick sampler is attached.
 */
__u32 regs_out = 0;

#include "sample_maps.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct prof_fault_site_key);
	__type(value, struct prof_fault_val);
} fault_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* 32 GiB of touched address space */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct prof_chunk_key);
	__type(value, struct prof_chunk_val);
} fault_chunks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* resized before load */
	__type(key, __u32);
	__type(value, struct prof_bucket);
} timeline SEC(".maps");


/* The map's value for KEY, inserted as INIT first when there is none; NULL when full. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *init)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/* Adds one sample to a counter found by lookup_or_init(); false when the map was full. */
static __always_inline bool count_sample(struct prof_hot_val *v, __u64 period, bool kernel)
{
	if (!v)
		return false;
	__sync_fetch_and_add(&v->samples, 1);
	__sync_fetch_and_add(&v->period_sum, period);
	if (kernel)
		__sync_fetch_and_add(&v->kernel_samples, 1);
	return true;
}

/*
 * The user-mode ip of the current task, for events taken in kernel mode
 * (the helper's result is a BTF pointer the kernel's own BTF describes: no
 * relocation for libbpf to make).
 */
static __always_inline __u64 user_ip(void)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	__u64 ip = 0;

	if (regs)
		bpf_probe_read_kernel(&ip, sizeof(ip), &regs->rip);
	return ip;
}

/*
 * A sample of sampling event EV (the event's index in user space's table).
 * The index is the program's own: the events that threads and children
 * inherit carry the program but not the attach cookie.
 */
static __always_inline int sample(struct bpf_perf_event_data *ctx, __u32 ev)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	struct prof_hot_key hk = {};
	struct prof_stack_key sk = {};
	struct prof_hot_val *v, zero = {};
	__u64 period = ctx->sample_period ? ctx->sample_period : 1;
	bool kernel = ctx->regs.rip >> 63; /* a kernel address */
	/* non-zero: perf writes the sample to the event's ring as well */
	int pass = pass_ev == (__s32)ev && !kernel;

	stat_inc(PROF_ST_SAMPLES);
	if (kernel)
		stat_inc(PROF_ST_SAMPLES_KERNEL);

	if (regs_out && !kernel)
		PROF_REGS_RECORD(&ctx->regs, r, tgid, (__u32)id);

	hk.tgid = tgid;
	hk.tid = (__u32)id;
	hk.ip = kernel ? user_ip() : ctx->regs.rip;
	hk.ev = ev;
	v = lookup_or_init(&hot, &hk, &zero);
	if (!count_sample(v, period, kernel))
		stat_inc(PROF_ST_HOT_FULL);

	sk.tgid = tgid;
	sk.stackid = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	sk.ev = ev;
	if (sk.stackid < 0) {
		stat_inc(PROF_ST_STACK_ERR);
		return pass;
	}
	v = lookup_or_init(&stack_counts, &sk, &zero);
	if (!count_sample(v, period, kernel))
		stat_inc(PROF_ST_STACK_FULL);
	return pass;
}

#define SAMPLE_PROG(n)						\
	SEC("perf_event")					\
	int on_sample##n(struct bpf_perf_event_data *ctx)	\
	{							\
		return sample(ctx, n);				\
	}

SAMPLE_PROG(0)
SAMPLE_PROG(1)
SAMPLE_PROG(2)
SAMPLE_PROG(3)
_Static_assert(PROF_MAX_EVENTS == 4, "one on_sampleN program per sampling event");

/* The timeline bucket of now (the first before t0 is set), or NULL after the last. */
static __always_inline struct prof_bucket *bucket_now(void)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 idx;
	struct prof_bucket *b;

	if (!t0_ns || now < t0_ns)
		now = t0_ns;
	idx = (now - t0_ns) / (bucket_ns ? bucket_ns : 1);
	if (idx >= nr_buckets) {
		stat_inc(PROF_ST_TIMELINE_LATE);
		return NULL;
	}
	b = bpf_map_lookup_elem(&timeline, &idx);
	return b;
}

/*
 * A sample of the page-faults software event (user-mode and kernel-mode
 * faults on user memory, as perf counts them; not those taken with page
 * faults disabled).  The event is per task and inherited, opened on the
 * target only: every task it fires in is the target's.  ctx->addr is the
 * faulting address, ctx->sample_period the faults this sample stands for.
 */
SEC("perf_event")
int on_fault(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 period = ctx->sample_period ? ctx->sample_period : 1;
	bool kernel = ctx->regs.rip >> 63;
	__u64 addr = ctx->addr, ip = kernel ? user_ip() : ctx->regs.rip;
	struct prof_fault_site_key fk = { .tgid = tgid, .kernel = kernel, .ip = ip };
	struct prof_chunk_key ck = { .tgid = tgid, .chunk = addr >> PROF_CHUNK_SHIFT };
	struct prof_fault_val *fv, fzero = {};
	struct prof_chunk_val *cv, czero = {};
	struct prof_bucket *b;
	__u32 pg = (addr >> PROF_PAGE_SHIFT) & (PROF_CHUNK_PAGES - 1);
	__u32 idx = PROF_ST_FAULT_MAX_PERIOD;
	__u64 *maxp;

	stat_inc(PROF_ST_FAULT_SAMPLES);
	maxp = bpf_map_lookup_elem(&stats, &idx);
	if (maxp && *maxp < period)
		*maxp = period;

	fv = lookup_or_init(&fault_sites, &fk, &fzero);
	if (fv) {
		__sync_fetch_and_add(&fv->count, period);
		__sync_fetch_and_add(&fv->samples, 1);
		/*
		 * an instruction fetch faults on the instruction's own bytes;
		 * the site's region is where its data faults are, so a fetch
		 * (its code page read in again) does not replace one's address
		 */
		if (!kernel && addr - ip < 16) {
			__sync_fetch_and_add(&fv->instr, period);
			if (!fv->last_addr)
				fv->last_addr = addr;
		} else {
			fv->last_addr = addr;
		}
	} else {
		stat_add(kernel ? PROF_ST_SITE_FULL_KERNEL : PROF_ST_SITE_FULL, period);
	}

	cv = lookup_or_init(&fault_chunks, &ck, &czero);
	if (cv) {
		__sync_fetch_and_or(&cv->pages[(pg >> 6) & (PROF_CHUNK_PAGES / 64 - 1)],
				    1ULL << (pg & 63));
		__sync_fetch_and_add(&cv->faults, period);
		__sync_fetch_and_add(&cv->samples, 1);
	} else {
		stat_add(PROF_ST_PAGE_FULL, period);
	}

	b = bucket_now();
	if (b)
		__sync_fetch_and_add(&b->faults, period);
	return 0;
}

/*
 * The major-faults software event, period 1, per task like on_fault:
 * ctx->addr is the fault address.  It fires after the fault was handled.
 */
SEC("perf_event")
int on_major(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	bool kernel = ctx->regs.rip >> 63;
	struct prof_fault_site_key fk = { .tgid = tgid, .kernel = kernel };
	struct prof_chunk_key ck = { .tgid = tgid, .chunk = ctx->addr >> PROF_CHUNK_SHIFT };
	struct prof_fault_val *fv;
	struct prof_chunk_val *cv;
	struct prof_bucket *b;

	stat_inc(PROF_ST_FAULTS_MAJOR);
	fk.ip = kernel ? user_ip() : ctx->regs.rip;
	fv = bpf_map_lookup_elem(&fault_sites, &fk);
	if (fv)
		__sync_fetch_and_add(&fv->major, 1);
	cv = bpf_map_lookup_elem(&fault_chunks, &ck);
	if (cv)
		__sync_fetch_and_add(&cv->major, 1);
	b = bucket_now();
	if (b)
		__sync_fetch_and_add(&b->major, 1);
	return 0;
}
