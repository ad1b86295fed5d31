// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where a memory access's base register came from (addrsample__base_origin
 * in decode.h).  Compilers keep a pointer into an object in a register of
 * its own when a loop stores to one member (hand = ...; c->hand = hand as
 * lea r8, [rdi + 40] before the loop, mov [r8], rax in it); the debug info
 * says which struct rdi points to, but nothing about r8.  Taken as it is,
 * the store lands 0 bytes into an object of unknown type, and the binder's
 * guess (the function's struct with a member at 0) names the wrong member
 * and places the object 40 bytes off.  Following the lea back gives the
 * register the debug info knows and the member's true offset.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/util.h"
#include "symbols/decode.h"
#include "symbols/decode_int.h"

/* A jump of the function: where from, where to. */
struct flow_jump {
	uint64_t from, to;
};

/* An instruction that writes register family A or B: where. */
struct flow_write {
	uint64_t at;
	bool a, b;
};

struct origin_sweep {
	struct flow_jump *j;
	size_t nj, cap_j;
	struct flow_write *w;
	size_t nw, cap_w;
	bool indirect;		/* an indirect jump: its targets are unknown */
	uint64_t lea;		/* the last write to the base before OP: a lea of FROM */
	int from;
	int64_t disp;
};

/* Which of families A and B instruction IN writes (a call: the caller-saved ones). */
static void writes_of(csh h, const cs_insn *in, int a, int b, bool *wa, bool *wb)
{
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;

	*wa = *wb = false;
	if (cs_insn_group(h, in, CS_GRP_CALL)) {
		*wa = decode__caller_saved(a);
		*wb = decode__caller_saved(b);
	}
	if (cs_regs_access(h, in, rr, &nr, rw, &nw)) {
		*wa = *wb = true;	/* unknown: assume the worst */
		return;
	}
	for (int k = 0; k < nw; k++) {
		int f = decode__reg_family(rw[k]);

		*wa |= f == a;
		*wb |= f == b;
	}
}

/* lea BASE, [from + disp]: *FROM and *DISP, or false. */
static bool lea_of(const cs_insn *in, int base, int *from, int64_t *disp)
{
	const cs_x86 *x = &in->detail->x86;
	int f;

	if (in->id != X86_INS_LEA || x->op_count != 2 || x->operands[0].type != X86_OP_REG ||
	    decode__reg_family(x->operands[0].reg) != base || x->operands[0].size != 8 ||
	    x->operands[1].type != X86_OP_MEM || x->operands[1].mem.index != X86_REG_INVALID ||
	    x->operands[1].mem.segment != X86_REG_INVALID ||
	    x->operands[1].mem.base == X86_REG_INVALID)
		return false;
	f = decode__reg_family(x->operands[1].mem.base);
	if (f < 0 || f == base || f == AS_SP || f == AS_IP)
		return false;
	*from = f;
	*disp = x->operands[1].mem.disp;
	return true;
}

/*
 * One pass over the function: its jumps, the writes to the base and to the
 * lea's source (known once the lea is), and the last write to the base
 * before OP.  False when the decoder fails.
 */
static bool sweep(csh h, cs_insn *in, const uint8_t *code, size_t len, uint64_t fstart,
		  const struct mem_operand *op, struct origin_sweep *s)
{
	const uint8_t *c = code;
	uint64_t a = fstart;
	size_t sz = len;

	s->from = -1;
	while (sz && decode__next(h, &c, &sz, &a, in)) {
		uint64_t t = decode__jump_target(h, in);
		bool wa, wb;

		if (cs_insn_group(h, in, CS_GRP_JUMP)) {
			if (!t) {
				s->indirect = true;
			} else {
				s->j = xgrow(s->j, &s->cap_j, s->nj + 1, sizeof(*s->j));
				s->j[s->nj++] = (struct flow_jump){ in->address, t };
			}
		}
		writes_of(h, in, op->base, s->from, &wa, &wb);
		if (in->address < op->insn && wa) {
			/* a later write to the base replaces the origin; the writes so far do not matter */
			s->nw = 0;
			s->lea = lea_of(in, op->base, &s->from, &s->disp) ? in->address : 0;
			if (!s->lea)
				s->from = -1;
			continue;
		}
		if (s->from >= 0 && (wa || wb)) {
			s->w = xgrow(s->w, &s->cap_w, s->nw + 1, sizeof(*s->w));
			s->w[s->nw++] = (struct flow_write){ in->address, wa, wb };
		}
	}
	return a > op->insn;
}

/* Whether a write to the base or the source lies in [LO, HI]. */
static bool written_in(const struct origin_sweep *s, uint64_t lo, uint64_t hi)
{
	for (size_t k = 0; k < s->nw; k++)
		if (s->w[k].at >= lo && s->w[k].at <= hi)
			return true;
	return false;
}

int addrsample__base_origin(const uint8_t *code, size_t len, uint64_t fstart,
			    const struct mem_operand *op, int *from, int64_t *disp)
{
	csh h = decode__cs();
	struct origin_sweep s = { 0 };
	cs_insn *in;
	bool ok;

	if (!h || op->skip != AS_OK || op->base < 0 || op->base == AS_SP || op->rip ||
	    op->clobbers || op->insn < fstart || op->insn >= fstart + len)
		return -ENOENT;
	if (!(in = cs_malloc(h)))
		return -ENOMEM;
	ok = sweep(h, in, code, len, fstart, op, &s) && s.lea && s.from >= 0 && !s.indirect &&
	     !written_in(&s, s.lea + 1, op->insn - 1);
	for (size_t k = 0; ok && k < s.nj; k++) {
		const struct flow_jump *j = &s.j[k];

		if (j->to <= s.lea || j->to > op->insn)
			continue;	/* lands outside (lea, OP]: the lea runs first on that path */
		if (j->from > s.lea && j->from < op->insn)
			continue;	/* forward within: the lea ran before it */
		/* a loop back from OP or after it over code that keeps both registers */
		ok = j->from >= op->insn && !written_in(&s, j->to, j->from);
	}
	cs_free(in, 1);
	free(s.j);
	free(s.w);
	if (!ok)
		return -ENOENT;
	*from = s.from;
	*disp = s.disp;
	return 0;
}
