// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hot-code sampling on the scheduler tick, for 'memadvise run' in a virtual
 * machine.  A cpu-clock sample is a timer interrupt of its own, and in a
 * guest every timer interrupt costs exits to the hypervisor (20-40 us on
 * our nested KVM guests: 2 % of the target's time at 500 Hz).  The tick
 * interrupts a busy CPU HZ times a second anyway; this program runs on it
 * (hrtimer_expire_entry for the tick's own hrtimer, in the interrupted
 * task's context) and costs no interrupt.
 *
 * For a task of the target it does what sampler.bpf.c's sampling programs
 * do with a cpu-clock sample: counts the user ip and the user stack, and
 * for the sw-addr collector writes the user registers to 'regs_ring'.
 * Those maps are sampler.bpf.c's, shared by user space before load.
 *
 * The tick does not say whether it interrupted user or kernel mode.  The
 * task's user registers do, on x86-64 without FRED: an interrupt from user
 * mode saved them with orig_ax -1, a system call with its number, a page
 * fault with its error code (>= 0).  (A tick during the kernel's handling
 * of an exception without an error code, int3 or #UD, counts as user
 * mode.)  User space does not use this program where FRED is on.
 *
 * A process is the target's when its tgid is in 'procs' (user space puts
 * the target there, and children as it learns of them), or when one of its
 * four nearest ancestors is: a child forked an instant ago is sampled
 * before user space reads its fork record.  With since_ns set (attach mode)
 * only processes started after it count as descendants: a child that ran
 * before the attach, and what it forks, is not the target's.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sampler.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * bss, set by user space once the cpu-clock events are off: no tick counts
 * before.  First in the object's .bss (tests/bench/toggle.c flips it).
 */
__u32 live = 0;
/* The tick's hrtimer function, which find_tick_fn looks up. */
__u64 tick_fn = 0;
/*
 * Set by user space before 'live': the object is loaded ahead, before the
 * run knows them (see src/collect/sampling/load.c).
 */
__u64 tick_ns = 0;		/* 1 / HZ */
__u32 regs_out = 0;		/* write regs_ring records */
__u64 since_ns = 0;		/* CLOCK_MONOTONIC of the attach, or 0 */

/* sampler.bpf.c's maps, reused by user space before load. */
#include "sample_maps.h"

/* Whether TASK (of TGID) is the target's; adds a new child to 'procs'. */
static __always_inline bool is_target(struct task_struct *task, __u32 tgid)
{
	struct task_struct *p = task;
	__u64 zero = 0;

	if (bpf_map_lookup_elem(&procs, &tgid))
		return true;
	for (int i = 0; i < 4; i++) {
		__u32 ptgid;

		/* older than the attach and not in procs: not a new child */
		if (since_ns && BPF_CORE_READ(p, group_leader, start_time) < since_ns)
			return false;
		p = BPF_CORE_READ(p, real_parent);
		if (!p)
			return false;
		ptgid = BPF_CORE_READ(p, tgid);
		if (ptgid <= 1)
			return false;
		if (bpf_map_lookup_elem(&procs, &ptgid)) {
			bpf_map_update_elem(&procs, &tgid, &zero, BPF_NOEXIST);
			return true;
		}
	}
	return false;
}

static __always_inline void count(void *map, const void *key, bool kernel)
{
	struct prof_hot_val zero = {}, *v = bpf_map_lookup_elem(map, key);

	if (!v) {
		bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(map, key);
		if (!v) {
			stat_inc(map == (void *)&hot ? PROF_ST_HOT_FULL : PROF_ST_STACK_FULL);
			return;
		}
	}
	__sync_fetch_and_add(&v->samples, 1);
	__sync_fetch_and_add(&v->period_sum, tick_ns);
	if (kernel)
		__sync_fetch_and_add(&v->kernel_samples, 1);
}

/* Run once by user space after load (BPF_PROG_RUN): sets tick_fn. */
SEC("syscall")
int find_tick_fn(void *ctx)
{
	char now_name[] = "tick_nohz_handler";	/* Linux 6.9 and later */
	char old_name[] = "tick_sched_timer";	/* before */
	__u64 addr = 0;

	if (bpf_kallsyms_lookup_name(now_name, sizeof(now_name), 0, &addr) || !addr)
		bpf_kallsyms_lookup_name(old_name, sizeof(old_name), 0, &addr);
	tick_fn = addr;
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(on_tick, struct hrtimer *timer, ktime_t *now)
{
	struct task_struct *task;
	struct pt_regs *regs;
	struct prof_hot_key hk = {};
	struct prof_stack_key sk = {};
	__u64 id;
	__u32 tgid;
	bool kernel;

	if (!live || (__u64)BPF_CORE_READ(timer, function) != tick_fn)
		return 0;
	id = bpf_get_current_pid_tgid();
	tgid = id >> 32;
	if (!tgid)
		return 0; /* idle */
	task = bpf_get_current_task_btf();
	if (task->flags & 0x00200000 /* PF_KTHREAD */)
		return 0;
	if (!is_target(task, tgid))
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	kernel = (long)regs->orig_ax != -1;
	stat_inc(PROF_ST_SAMPLES);
	stat_inc(PROF_ST_TICKS);
	if (kernel)
		stat_inc(PROF_ST_SAMPLES_KERNEL);
	else if (regs_out)
		PROF_REGS_RECORD(regs, , tgid, (__u32)id);

	hk.tgid = tgid;
	hk.tid = (__u32)id;
	hk.ip = regs->ip;
	hk.ev = 0;
	count(&hot, &hk, kernel);

	sk.tgid = tgid;
	sk.stackid = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	sk.ev = 0;
	if (sk.stackid < 0) {
		stat_inc(PROF_ST_STACK_ERR);
		return 0;
	}
	count(&stack_counts, &sk, kernel);
	return 0;
}
