// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exact address streams at hot instructions: a uprobe placed on the access
 * instruction itself (file offset of the instruction, not of a function).
 * The handler runs before the instruction executes, so its base and index
 * registers still hold what the access uses: the effective address computed
 * from them (stream_ea(), with the operand user space decoded and put in
 * 'probes' under the instruction's address) is the address accessed.
 *
 * Records go to 'stream_ring' without a wakeup (a wakeup per record costs
 * microseconds here); user space consumes the ring after each burst.  At
 * most 'cap' records per probe and burst ('burst_count', reset by user
 * space), so that a burst's records fit the ring.  Only while 'armed':
 * user space sets it once every probe of a burst is in and clears it
 * before it takes them out, so that all of them record the same stretch
 * of the run (a load that fetches a line and the store after it that
 * finds it cached are seen together, or not at all).
 *
 * This object needs no kernel BTF: a uprobe's context is the registers as
 * the kernel saved them, whose x86-64 layout is the UAPI struct pt_regs
 * (asm/ptrace.h, the user_regs_struct order), read without CO-RE
 * relocations.  libbpf then does not read and parse /sys/kernel/btf/vmlinux
 * (5-6 MB, 10-15 ms of CPU) when a burst first loads it.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <asm/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "streams.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 target_tgid = 0;
const volatile __u32 cap = 4096;
__u32 armed = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STREAM_MAX_PROBES);
	__type(key, __u64);
	__type(value, struct stream_probe);
} probes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STREAM_MAX_PROBES);
	__type(key, __u32);
	__type(value, __u32);
} burst_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STREAM_ST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stream_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} stream_ring SEC(".maps");

static __always_inline void stat_inc(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&stream_stats, &i);

	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("uprobe")
int stream_hit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), ip = ctx->rip, regs[STREAM_NR_REGS];
	struct stream_probe *p;
	struct stream_rec *r;
	__u32 slot, *n;

	stat_inc(STREAM_ST_HITS);
	if (target_tgid && (__u32)(id >> 32) != target_tgid) {
		stat_inc(STREAM_ST_OTHER);
		return 0;
	}
	if (!armed) {
		stat_inc(STREAM_ST_UNARMED);
		return 0;
	}
	p = bpf_map_lookup_elem(&probes, &ip);
	if (p) {
		stat_inc(STREAM_ST_AT_IP);
	} else {
		ip -= 1;
		p = bpf_map_lookup_elem(&probes, &ip);
		if (!p) {
			stat_inc(STREAM_ST_UNKNOWN);
			return 0;
		}
		stat_inc(STREAM_ST_AT_IP1);
	}
	slot = p->slot;
	n = bpf_map_lookup_elem(&burst_count, &slot);
	if (!n)
		return 0;
	if (*n >= cap) {
		stat_inc(STREAM_ST_CAPPED);
		return 0;
	}
	__sync_fetch_and_add(n, 1);
	regs[0] = ctx->rax;
	regs[1] = ctx->rbx;
	regs[2] = ctx->rcx;
	regs[3] = ctx->rdx;
	regs[4] = ctx->rsi;
	regs[5] = ctx->rdi;
	regs[6] = ctx->rbp;
	regs[7] = ctx->rsp;
	regs[8] = ip;
	regs[9] = ctx->r8;
	regs[10] = ctx->r9;
	regs[11] = ctx->r10;
	regs[12] = ctx->r11;
	regs[13] = ctx->r12;
	regs[14] = ctx->r13;
	regs[15] = ctx->r14;
	regs[16] = ctx->r15;
	r = bpf_ringbuf_reserve(&stream_ring, sizeof(*r), 0);
	if (!r) {
		stat_inc(STREAM_ST_FULL);
		return 0;
	}
	r->ip = ip;
	r->addr = stream_ea(p, regs);
	r->ns = bpf_ktime_get_ns();
	r->tid = (__u32)id;
	r->slot = p->slot;
	r->flags = p->flags;
	r->size = p->size;
	r->_pad = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}
