// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * In-kernel aggregation for 'memadvise run': code hot spots (perf_event
 * program on the sampling event), page faults (perf_event program on the
 * page-faults software event in frequency mode, and on the major-faults
 * event), and the set of the target's processes (task/sched raw tracepoints).
 * User space reads the maps at the end; only the rare process events go
 * through the ring buffer, without wakeups (the reader consumes it when it
 * polls: wakeups are expensive, see docs/platform.md).
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

#include "profile.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space between open and load. */
const volatile __u32 follow_children = 1; /* add forked children to the process set */
const volatile __u64 bucket_ns = 10000000; /* fault timeline bucket width */
const volatile __u32 nr_buckets = 1;	 /* entries of 'timeline' */

/* Written by user space after load (bss): the object is loaded before the target exists. */
__u32 targ_tgid = 0;	/* the target's thread-group leader */
__u64 t0_ns = 0;	/* CLOCK_MONOTONIC when the target was released */
__u32 active = 0;	/* 1 once the target runs its own program (after exec, or attached) */
/*
 * 1: on_sample runs on the sw-addr event, whose ring user space reads:
 * user-mode samples go on to it.  (Not an attach cookie: the events that
 * threads and children inherit carry the program but not the cookie.)
 */
__u32 pass_user = 0;

#define CLONE_THREAD_FLAG 0x00010000ULL

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tgid */
	__type(value, __u64);		/* unused (0) */
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);		/* task_struct of a new child process, not yet seen */
	__type(value, __u32);		/* its parent's tgid */
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct prof_hot_key);
	__type(value, struct prof_hot_val);
} hot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROF_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct prof_stack_key);
	__type(value, struct prof_hot_val);
} stack_counts SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROF_ST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

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

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += n;
}

static __always_inline void stat_inc(__u32 idx)
{
	stat_add(idx, 1);
}

static __always_inline void proc_event(__u32 kind, __u32 tgid, __u32 parent)
{
	struct prof_proc_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(PROF_ST_RB_DROP);
		return;
	}
	e->kind = kind;
	e->tgid = tgid;
	e->parent = parent;
	e->_pad = 0;
	e->time_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/*
 * Current is the process TGID, not tracked yet: when task_newtask noted it as
 * a child of a tracked process, it joins the set now (and user space hears of
 * the fork).  False when it is not the target's.
 */
static __always_inline bool discover(__u32 tgid)
{
	__u64 task = bpf_get_current_task(), zero = 0;
	__u32 *parent = bpf_map_lookup_elem(&pending, &task), ptgid;

	if (!parent)
		return false;
	ptgid = *parent;
	bpf_map_delete_elem(&pending, &task);
	if (bpf_map_update_elem(&procs, &tgid, &zero, BPF_NOEXIST)) {
		/* full, or another program of the same task came first */
		if (!bpf_map_lookup_elem(&procs, &tgid)) {
			stat_inc(PROF_ST_PROCS_FULL);
			return false;
		}
		return true;
	}
	proc_event(PROF_PROC_FORK, tgid, ptgid);
	return true;
}

/* The tgid of the current task when it is one of the target's processes, else 0. */
static __always_inline __u32 tracked_tgid(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!tgid || !active)
		return 0;
	if (!bpf_map_lookup_elem(&procs, &tgid) && !discover(tgid))
		return 0;
	return tgid;
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

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = tracked_tgid();
	struct prof_hot_key hk = {};
	struct prof_stack_key sk = {};
	struct prof_hot_val *v, zero = {};
	__u64 period = ctx->sample_period ? ctx->sample_period : 1;
	bool kernel = ctx->regs.rip >> 63; /* a kernel address */
	/* The event's index in user space's table travels as the attach cookie. */
	__u32 ev = (__u32)bpf_get_attach_cookie(ctx) & (PROF_MAX_EVENTS - 1);
	/* non-zero: perf writes the sample to the event's ring as well */
	int pass = pass_user && !kernel;

	if (!tgid)
		return pass;
	stat_inc(PROF_ST_SAMPLES);
	if (kernel)
		stat_inc(PROF_ST_SAMPLES_KERNEL);

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
	if (!bpf_map_lookup_elem(&procs, &tgid))
		discover(tgid);
	maxp = bpf_map_lookup_elem(&stats, &idx);
	if (maxp && *maxp < period)
		*maxp = period;

	fv = lookup_or_init(&fault_sites, &fk, &fzero);
	if (fv) {
		__sync_fetch_and_add(&fv->count, period);
		__sync_fetch_and_add(&fv->samples, 1);
		/* an instruction fetch faults on the instruction's own bytes */
		if (!kernel && addr - ip < 16)
			__sync_fetch_and_add(&fv->instr, period);
		fv->last_addr = addr;
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

/*
 * The target's new processes.  task_newtask runs in the parent and names
 * the child by its task_struct, whose pid this object cannot read (no BTF):
 * the child is noted by that pointer and becomes a tracked process the first
 * time one of our programs runs in it (a sample, its exec, its exit), where
 * bpf_get_current_task() gives the same pointer and the helpers its tgid.
 * Raw tracepoints: unlike perf tracepoint events, they detach without waiting
 * for an RCU-tasks grace period (60-75 ms each here).
 */
SEC("raw_tp/task_newtask")
int on_newtask(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 ptgid = bpf_get_current_pid_tgid() >> 32;
	__u64 task = ctx->args[0], flags = ctx->args[1];

	if (!follow_children || !active || (flags & CLONE_THREAD_FLAG) ||
	    !bpf_map_lookup_elem(&procs, &ptgid))
		return 0;
	if (bpf_map_update_elem(&pending, &task, &ptgid, BPF_ANY))
		stat_inc(PROF_ST_PROCS_FULL);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int on_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!bpf_map_lookup_elem(&procs, &tgid) && !discover(tgid))
		return 0;
	if (tgid == targ_tgid)
		active = 1;
	if (!active)
		return 0;
	proc_event(PROF_PROC_EXEC, tgid, 0);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int on_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	if ((__u32)id != tgid || !active)
		return 0;
	if (!bpf_map_lookup_elem(&procs, &tgid) && !discover(tgid))
		return 0;
	proc_event(PROF_PROC_EXIT, tgid, 0);
	return 0;
}
