/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What exact address streams show (model/streams.h), computed from the
 * records alone: no process, no BPF.  Also the probe's operand from the
 * instruction's bytes, and its effective address from registers (the same
 * computation the BPF program runs, bpf/streams.h).
 */
#ifndef __MA_STREAMS_ANALYZE_H
#define __MA_STREAMS_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/streams.h"
#include "model/streams.h"

/* One recorded access; an array of them is in the order they happened. */
struct stream_access {
	uint64_t addr;
	uint32_t tid;
	uint16_t ipi;		/* index of the instruction (struct stream_ip) */
	uint16_t burst;
	uint8_t size;
	bool write;
};

/*
 * The probe for the instruction in code[0..len) at address addr: its memory
 * operand decoded (capstone), RIP-relative ones resolved to an absolute
 * displacement, the 0x67 prefix noted.  STREAM_OK, or why it cannot be
 * probed; text gets the instruction.
 */
enum stream_skip streams__probe_from_code(const uint8_t *code, size_t len, uint64_t addr,
					  struct stream_probe *p, char *text, size_t tlen);
/*
 * True when the x86 uprobe code would emulate the instruction in
 * code[0..len) as a branch instead of running it: a VEX, EVEX, XOP or
 * REX2 (map 1) instruction whose opcode byte is one of a jump's (70-7f,
 * e8, e9, eb).  See analyze.c.
 */
bool streams__kernel_misemulates(const uint8_t *code, size_t len);
/* The effective address from registers indexed by enum as_reg (model/addr.h). */
uint64_t streams__ea(const struct stream_probe *p, const uint64_t *regs);

/*
 * The metrics of out[0..nr_ips) (their other fields kept) from the n
 * accesses a: streams are the accesses of one instruction by one thread in
 * one burst, the cache and TLB model runs per thread and burst over all
 * instructions' accesses together.
 */
void streams__analyze(const struct stream_access *a, size_t n, const struct stream_geom *g,
		      struct stream_ip *out, int nr_ips);

/* Distance cap of the reuse histogram (distinct lines): farther is no reuse. */
#define STREAM_REUSE_MAX 1024

#endif
