// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * 'memadvise top': which code every process runs, from the scheduler tick,
 * system-wide, and where the process being drilled into faults.
 *
 * The tick program is tick.bpf.c's (see there why the tick and not a
 * cpu-clock event: in a guest every timer interrupt exits to the
 * hypervisor, and the tick interrupts a busy CPU anyway), without the
 * target filter: every user task counts, by (tgid, user ip).  User space
 * reads and empties the map at every refresh.
 *
 * The fault program is attached only while a process is drilled into
 * (user space sets watch_tgid first): every fault on the machine runs it
 * while it is attached.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "top.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* bss, set by user space */
__u64 tick_fn = 0;	/* the tick's hrtimer function (find_tick_fn) */
__u32 live = 0;
__u32 watch_tgid = 0;	/* the process drilled into, 0: none */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct top_hot_key);
	__type(value, __u64);
} top_hot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct top_fault_key);
	__type(value, struct top_fault_val);
} top_faults SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TOP_ST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} top_stats SEC(".maps");

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&top_stats, &idx);

	if (v)
		*v += 1;
}

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
int BPF_PROG(top_tick, struct hrtimer *timer, ktime_t *now)
{
	struct top_hot_key k = {};
	struct task_struct *task;
	struct pt_regs *regs;
	__u64 one = 1, *v, id;
	__u32 tgid;

	if (!live || (__u64)BPF_CORE_READ(timer, function) != tick_fn)
		return 0;
	id = bpf_get_current_pid_tgid();
	tgid = id >> 32;
	if (!tgid)
		return 0; /* idle */
	task = bpf_get_current_task_btf();
	if (task->flags & 0x00200000 /* PF_KTHREAD */)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	k.tgid = tgid;
	k.tid = (__u32)id;
	k.kernel = (long)regs->orig_ax != -1;
	k.ip = regs->ip;
	stat_inc(TOP_ST_TICKS);
	v = bpf_map_lookup_elem(&top_hot, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return 0;
	}
	if (bpf_map_update_elem(&top_hot, &k, &one, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&top_hot, &k);
		if (v)
			__sync_fetch_and_add(v, 1);
		else
			stat_inc(TOP_ST_HOT_FULL);
	}
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(top_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	struct top_fault_val zero = {}, *v;
	struct top_fault_key k = {};

	if (!watch_tgid || (bpf_get_current_pid_tgid() >> 32) != watch_tgid)
		return 0;
	k.ip = BPF_CORE_READ(regs, ip);
	v = bpf_map_lookup_elem(&top_faults, &k);
	if (!v) {
		bpf_map_update_elem(&top_faults, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&top_faults, &k);
		if (!v) {
			stat_inc(TOP_ST_FAULT_FULL);
			return 0;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	if (error_code & 2)
		__sync_fetch_and_add(&v->writes, 1);
	else if (error_code & 0x10)
		__sync_fetch_and_add(&v->instr, 1);
	/* a fetch of the code's own page does not replace a data fault's address */
	if (!(error_code & 0x10) || !v->last_addr)
		v->last_addr = address;
	return 0;
}
