/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The maps that sampler.bpf.c's sampling programs and tick.bpf.c's tick
 * program both write (user space hands profile's to tick by fd, which needs
 * them defined alike), and the register record they both fill.  BPF side
 * only: included after bpf_helpers.h and sampler.h.
 */
#ifndef __MA_BPF_SAMPLE_MAPS_H
#define __MA_BPF_SAMPLE_MAPS_H

/* The target's processes (thp.bpf.c shares it too); user space fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tgid */
	__type(value, __u64);		/* unused (0) */
} procs SEC(".maps");

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

/* struct prof_regs_rec records, for the sw-addr collector (regs_out). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} regs_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROF_ST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

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

/*
 * Fills REC's registers (enum as_reg order) from pt_regs R, whose general
 * registers are named P##ax, P##bx, ...: P is r in the UAPI struct (rax),
 * empty in the kernel's (ax).
 */
#define PROF_FILL_REGS(rec, r, P)			\
	do {						\
		(rec)->regs[0] = (r)->P##ax;		\
		(rec)->regs[1] = (r)->P##bx;		\
		(rec)->regs[2] = (r)->P##cx;		\
		(rec)->regs[3] = (r)->P##dx;		\
		(rec)->regs[4] = (r)->P##si;		\
		(rec)->regs[5] = (r)->P##di;		\
		(rec)->regs[6] = (r)->P##bp;		\
		(rec)->regs[7] = (r)->P##sp;		\
		(rec)->regs[8] = (r)->P##ip;		\
		(rec)->regs[9] = (r)->r8;		\
		(rec)->regs[10] = (r)->r9;		\
		(rec)->regs[11] = (r)->r10;		\
		(rec)->regs[12] = (r)->r11;		\
		(rec)->regs[13] = (r)->r12;		\
		(rec)->regs[14] = (r)->r13;		\
		(rec)->regs[15] = (r)->r14;		\
		(rec)->regs[16] = (r)->r15;		\
	} while (0)

/*
 * A user-mode sample of thread TID_ of process TGID_, interrupted at pt_regs
 * R_ (registers named as for PROF_FILL_REGS), to regs_ring; counted as lost
 * when the ring is full.  No wakeup: user space polls, and a wakeup is an
 * irq_work, a self-IPI (an exit to the hypervisor in a guest).
 */
#define PROF_REGS_RECORD(r_, P, tgid_, tid_)					\
	do {									\
		struct prof_regs_rec *rec_ =					\
			bpf_ringbuf_reserve(&regs_ring, sizeof(*rec_), 0);	\
										\
		if (!rec_) {							\
			stat_inc(PROF_ST_REGS_LOST);				\
			break;							\
		}								\
		rec_->type = PROF_RECORD_SAMPLE;				\
		rec_->misc = 0;							\
		rec_->size = sizeof(*rec_);					\
		rec_->ip = (r_)->P##ip;						\
		rec_->pid = (tgid_);						\
		rec_->tid = (tid_);						\
		rec_->time = bpf_ktime_get_ns();				\
		rec_->abi = PROF_REGS_ABI_64;					\
		PROF_FILL_REGS(rec_, r_, P);					\
		bpf_ringbuf_submit(rec_, BPF_RB_NO_WAKEUP);			\
	} while (0)

#endif
