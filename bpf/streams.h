/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by bpf/streams.bpf.c and src/collect/streams/: the memory
 * operand of a probed instruction (the map value, keyed by the
 * instruction's address), the record each hit writes to the ring, and the
 * effective-address computation both sides use.  Fixed-width fields only
 * and no implicit padding; user space checks the sizes with _Static_assert.
 */
#ifndef __MA_BPF_STREAMS_H
#define __MA_BPF_STREAMS_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define STREAM_MAX_PROBES 16
#define STREAM_NR_REGS 17	/* ax bx cx dx si di bp sp ip r8..r15 (enum as_reg) */
#define STREAM_NO_REG 0xff

/* Flags of a probe (struct stream_probe.flags). */
#define STREAM_F_READ 1
#define STREAM_F_WRITE 2
#define STREAM_F_ADDR32 4	/* 0x67 prefix: the address wraps at 32 bits */

/* The operand of one probed instruction; RIP-relative ones come with base none and disp absolute. */
struct stream_probe {
	__s64 disp;
	__u8 base, index;	/* enum as_reg, STREAM_NO_REG: none */
	__u8 scale;		/* 1, 2, 4, 8 */
	__u8 size;		/* bytes accessed */
	__u8 flags;		/* STREAM_F_* */
	__u8 slot;		/* index of the probe (record.slot) */
	__u8 _pad[2];
};

/* One hit: {tid, ip, addr, kind, size}. */
struct stream_rec {
	__u64 ip;
	__u64 addr;
	__u64 ns;		/* bpf_ktime_get_ns() */
	__u32 tid;
	__u8 slot;
	__u8 flags;		/* the probe's STREAM_F_* */
	__u8 size;
	__u8 _pad;
};

/* Counters (array map 'stream_stats'). */
enum stream_stat {
	STREAM_ST_HITS,		/* handler runs */
	STREAM_ST_AT_IP,	/* regs->ip was the probed address */
	STREAM_ST_AT_IP1,	/* regs->ip was the probed address + 1 (after int3) */
	STREAM_ST_UNKNOWN,	/* neither: no probe for this ip */
	STREAM_ST_FULL,		/* records dropped: ring full */
	STREAM_ST_CAPPED,	/* records left out: the burst's cap reached */
	STREAM_ST_OTHER,	/* hits in another process (pid filter) */
	STREAM_ST_UNARMED,	/* hits while a burst's probes went in or came out */
	STREAM_ST__COUNT,
};

/*
 * The effective address: disp + base + index * scale, registers indexed by
 * enum as_reg.  With STREAM_F_ADDR32 it wraps at 4 GiB as the CPU does.
 */
static __always_inline __u64 stream_ea(const struct stream_probe *p, const __u64 *regs)
{
	__u64 ea = (__u64)p->disp;

	if (p->base < STREAM_NR_REGS)
		ea += regs[p->base];
	if (p->index < STREAM_NR_REGS)
		ea += regs[p->index] * (__u64)p->scale;
	if (p->flags & STREAM_F_ADDR32)
		ea &= 0xffffffffULL;
	return ea;
}

#endif
