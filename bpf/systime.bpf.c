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

/* sampler.bpf.c's 'procs', reused by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} procs SEC(".maps");

/* Threads that exit inside a call (exit, exit_group) leave their entry: LRU. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);		/* tid */
	__type(value, struct systime_start);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tgid */
	__type(value, struct systime_val);
} systime SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);		/* tid */
	__type(value, struct systime_off);
} offcpu SEC(".maps");

static __always_inline struct systime_val *val_of(__u32 tgid)
{
	struct systime_val zero = {}, *v;

	v = bpf_map_lookup_elem(&systime, &tgid);
	if (!v) {
		bpf_map_update_elem(&systime, &tgid, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&systime, &tgid);
	}
	return v;
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
	__u32 tgid = BPF_CORE_READ(prev, tgid), tid = BPF_CORE_READ(prev, pid);
	struct systime_off *o;
	struct systime_val *v;
	__u64 now = bpf_ktime_get_ns(), d;

	if (bpf_map_lookup_elem(&procs, &tgid)) {
		struct systime_off s = { .ts = now, .runnable = preempt || state_of(prev) == 0 };

		bpf_map_update_elem(&offcpu, &tid, &s, BPF_ANY);
	}
	tgid = BPF_CORE_READ(next, tgid);
	tid = BPF_CORE_READ(next, pid);
	o = bpf_map_lookup_elem(&offcpu, &tid);
	if (!o)
		return 0;
	d = now - o->ts;
	v = bpf_map_lookup_elem(&procs, &tgid) ? val_of(tgid) : NULL;
	if (v) {
		if (o->runnable)
			__sync_fetch_and_add(&v->runq_ns, d);
		else
			__sync_fetch_and_add(&v->sleep_ns, d);
		if (!o->runnable && d >= SYSTIME_LONG_NS)
			__sync_fetch_and_add(&v->sleep_long_ns, d);
	}
	bpf_map_delete_elem(&offcpu, &tid);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32, tid = (__u32)pt;
	struct systime_start s;

	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	s.ts = bpf_ktime_get_ns();
	s.nr = (__u32)id;
	if (id == futex_nr)
		s.nr |= (__u64)(__u32)PT_REGS_PARM2_CORE_SYSCALL(regs) << 32;
	bpf_map_update_elem(&inflight, &tid, &s, BPF_ANY);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tgid = pt >> 32, tid = (__u32)pt;
	struct systime_val *v;
	struct systime_start *s;
	__u64 d, nr;

	s = bpf_map_lookup_elem(&inflight, &tid);
	if (!s)
		return 0;
	d = bpf_ktime_get_ns() - s->ts;
	nr = s->nr;
	bpf_map_delete_elem(&inflight, &tid);
	v = val_of(tgid);
	if (!v)
		return 0;
	__sync_fetch_and_add(&v->sys_ns, d);
	__sync_fetch_and_add(&v->sys_calls, 1);
	if ((long)(__u32)nr == futex_nr || (long)(__u32)nr == futex_waitv_nr) {
		__u32 op = (nr >> 32) & 0x7f;	/* less FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */

		__sync_fetch_and_add(&v->futex_ns, d);
		__sync_fetch_and_add(&v->futex_calls, 1);
		if (d >= SYSTIME_LONG_NS) {
			__sync_fetch_and_add(&v->futex_long_ns, d);
			__sync_fetch_and_add(&v->futex_long_calls, 1);
		} else if ((long)(__u32)nr == futex_nr &&
			   (op == 0 /* FUTEX_WAIT */ || op == 6 /* FUTEX_LOCK_PI */ ||
			    op == 13 /* FUTEX_LOCK_PI2 */)) {
			/*
			 * glibc waits for a mutex (lll_lock_wait) with FUTEX_WAIT; for
			 * condition variables, joins and semaphores with FUTEX_WAIT_BITSET.
			 */
			__sync_fetch_and_add(&v->futex_lock_ns, d);
			__sync_fetch_and_add(&v->futex_lock_calls, 1);
		}
	}
	return 0;
}
