// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Time in system calls of the target's processes, for the verdict of
 * 'memadvise run': sys_enter to sys_exit per thread (on the CPU or
 * blocked), with futex calls apart (threads waiting on a lock or a
 * condition); and time off the CPU from sched_switch, blocked or sleeping
 * apart from preempted (waiting for a CPU that others use).  The processes are those of sampler.bpf.c's process set
 * (the map is shared); user space sets the futex numbers before load.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "systime.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile long futex_nr = -1;
const volatile long futex_waitv_nr = -1;

/*
 * sampler.bpf.c's 'procs', reused by user space before load; weak: in the
 * linked object (see the Makefile) it is tick.bpf.c's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} procs SEC(".maps") __weak;

/* Per thread: the call in flight and when it left the CPU (no entry to delete). */
struct systime_task {
	__u64 sys_ts, sys_nr;	/* sys_nr: the call; for futex, its op in bits 32-63 */
	__u64 off_ts, off_runnable;
	__u64 uaddr;		/* futex: the word waited on */
	__u64 val;		/* futex: the value it was expected to hold */
};

/* Short lock waits per futex word; full: later locks are not counted (user space says so). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SYSTIME_MAX_LOCKS);
	__type(key, struct systime_lock_key);
	__type(value, struct systime_lock);
} locks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct systime_task);
} tasks SEC(".maps");

/* Summed over the target's processes: one slot per CPU, no atomics. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct systime_val);
} systime SEC(".maps");

static __always_inline struct systime_val *val_of(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&systime, &zero);
}

/* The task's state word: __state since 5.14, state before. */
static __always_inline long state_of(struct task_struct *t)
{
	struct task_struct___old {
		long state;
	} *o = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ(o, state);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 tgid = prev->tgid;
	struct systime_task *t;
	struct systime_val *v;
	__u64 now = bpf_ktime_get_ns(), d;

	if (bpf_map_lookup_elem(&procs, &tgid)) {
		t = bpf_task_storage_get(&tasks, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (t) {
			t->off_ts = now;
			t->off_runnable = preempt || state_of(prev) == 0;
		}
	}
	t = bpf_task_storage_get(&tasks, next, NULL, 0);
	if (!t || !t->off_ts)
		return 0;
	d = now - t->off_ts;
	t->off_ts = 0;
	v = val_of();
	if (!v)
		return 0;
	if (t->off_runnable) {
		v->runq_ns += d;
	} else {
		v->sleep_ns += d;
		if (d >= SYSTIME_LONG_NS)
			v->sleep_long_ns += d;
	}
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct systime_task *t;

	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return 0;
	t->sys_ts = bpf_ktime_get_ns();
	t->sys_nr = (__u32)id;
	if (id == futex_nr) {
		t->sys_nr |= (__u64)(__u32)PT_REGS_PARM2_CORE_SYSCALL(regs) << 32;
		t->uaddr = PT_REGS_PARM1_CORE_SYSCALL(regs);
		t->val = (__u32)PT_REGS_PARM3_CORE_SYSCALL(regs);
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	struct systime_task *t;
	struct systime_val *v;
	__u64 d, nr;
	__u32 op;

	t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), NULL, 0);
	if (!t || !t->sys_ts)
		return 0;
	d = bpf_ktime_get_ns() - t->sys_ts;
	nr = t->sys_nr;
	t->sys_ts = 0;
	v = val_of();
	if (!v)
		return 0;
	v->sys_ns += d;
	v->sys_calls++;
	if ((long)(__u32)nr != futex_nr && (long)(__u32)nr != futex_waitv_nr)
		return 0;
	op = (nr >> 32) & 0x7f;	/* less FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
	v->futex_ns += d;
	v->futex_calls++;
	if (d >= SYSTIME_LONG_NS) {
		v->futex_long_ns += d;
		v->futex_long_calls++;
	} else if ((long)(__u32)nr == futex_nr &&
		   ((op == 0 /* FUTEX_WAIT */ && t->val == 2) || op == 6 /* FUTEX_LOCK_PI */ ||
		    op == 13 /* FUTEX_LOCK_PI2 */)) {
		/*
		 * glibc waits for a mutex (lll_lock_wait) with FUTEX_WAIT on the
		 * lock word set to 2, "locked, with waiters"; barriers and
		 * pthread_once wait with FUTEX_WAIT on other values, condition
		 * variables, joins and semaphores with FUTEX_WAIT_BITSET.
		 */
		struct systime_lock_key k = { .tgid = bpf_get_current_pid_tgid() >> 32,
					      .uaddr = t->uaddr };
		struct systime_lock *l, zero = {};
		__u32 tid = (__u32)bpf_get_current_pid_tgid();

		v->futex_lock_ns += d;
		v->futex_lock_calls++;
		l = bpf_map_lookup_elem(&locks, &k);
		if (!l) {
			bpf_map_update_elem(&locks, &k, &zero, BPF_NOEXIST);
			l = bpf_map_lookup_elem(&locks, &k);
		}
		if (l) {
			__sync_fetch_and_add(&l->wait_ns, d);
			__sync_fetch_and_add(&l->waits, 1);
			/*
			 * not atomic (an atomic OR needs BPF_ATOMIC, 5.12): a
			 * race can only lose a bit, and the count is a lower
			 * bound anyway
			 */
			l->tid_bits |= 1ULL << (tid & 63);
		}
	}
	return 0;
}
