// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where a memory access's base register came from (addrsample__base_origin
 * in decode.h).  Compilers keep a pointer into an object in a register of
 * its own when a loop stores to one member (c->hand = ... as lea r8, [rdi +
 * 40] before the loop, mov [r8], rax in it; &rf->lim->issued as mov rbx,
 * [rdi] then add rbx, 56).  The debug info says which struct rdi points to,
 * nothing about r8 or rbx: taken as it is, the store lands 0 bytes into an
 * object of unknown type, and the binder's guess (the function's struct
 * with a member at 0) names the wrong member and places the object off.
 * Following the register back gives one the debug info knows, and the
 * member's true offset.
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

/* An instruction that writes the base (A) or the lea's source (B): where. */
struct flow_write {
	uint64_t at;
	bool a, b;
	bool folded;		/* a constant added to the base, counted in the origin's disp */
};

struct origin_sweep {
	struct flow_jump *j;
	size_t nj, cap_j;
	struct flow_write *w;
	size_t nw, cap_w;
	bool indirect;		/* an indirect jump: its targets are unknown */
	struct base_origin o;	/* the base's origin before OP (o.at 0: none) */
};

/* Which of families A and B instruction IN writes (a call: the caller-saved ones). */
static void writes_of(csh h, const cs_insn *in, int a, int b, bool *wa, bool *wb)
{
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;

	*wa = *wb = false;
	if (cs_insn_group(h, in, CS_GRP_CALL)) {
		*wa = decode__caller_saved(a);
		*wb = b >= 0 && decode__caller_saved(b);
	}
	if (cs_regs_access(h, in, rr, &nr, rw, &nw)) {
		*wa = true;	/* unknown: assume the worst */
		*wb = b >= 0;
		return;
	}
	for (int k = 0; k < nw; k++) {
		int f = decode__reg_family(rw[k]);

		*wa |= f == a;
		*wb |= b >= 0 && f == b;
	}
}

/*
 * lea BASE, [from + disp] (another register), or mov BASE, qword ptr
 * [from + disp] (a pointer loaded, BASE may be from): *O set, else false.
 */
static bool origin_of(const cs_insn *in, int base, struct base_origin *o)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *m = &x->operands[1];
	int f;

	if ((in->id != X86_INS_LEA && in->id != X86_INS_MOV) || x->op_count != 2 ||
	    x->operands[0].type != X86_OP_REG || decode__reg_family(x->operands[0].reg) != base ||
	    x->operands[0].size != 8 || m->type != X86_OP_MEM || m->mem.index != X86_REG_INVALID ||
	    m->mem.segment != X86_REG_INVALID || m->mem.base == X86_REG_INVALID)
		return false;
	f = decode__reg_family(m->mem.base);
	if (f < 0 || f == AS_SP || f == AS_IP || (in->id == X86_INS_LEA && f == base))
		return false;
	o->from = f;
	o->loaded = in->id == X86_INS_MOV;
	o->load_disp = o->loaded ? m->mem.disp : 0;
	o->disp = o->loaded ? 0 : m->mem.disp;
	o->at = in->address;
	return true;
}

static void note_write(struct origin_sweep *s, uint64_t at, bool a, bool b, bool folded)
{
	s->w = xgrow(s->w, &s->cap_w, s->nw + 1, sizeof(*s->w));
	s->w[s->nw++] = (struct flow_write){ at, a, b, folded };
}

/*
 * One pass over the function: its jumps, the writes to the base (and, with
 * SRC, to a lea's source) from the origin on, and the base's origin before
 * OP.  False when the decoder fails before OP.
 */
static bool sweep(csh h, cs_insn *in, const uint8_t *code, size_t len, uint64_t fstart,
		  const struct mem_operand *op, bool src_too, struct origin_sweep *s)
{
	const uint8_t *c = code;
	uint64_t a = fstart;
	size_t sz = len;

	while (sz && decode__next(h, &c, &sz, &a, in)) {
		uint64_t t = decode__jump_target(h, in);
		int src = src_too && s->o.at && !s->o.loaded ? s->o.from : -1;
		bool wa, wb;
		int64_t k;

		if (cs_insn_group(h, in, CS_GRP_JUMP)) {
			if (!t) {
				s->indirect = true;
			} else {
				s->j = xgrow(s->j, &s->cap_j, s->nj + 1, sizeof(*s->j));
				s->j[s->nj++] = (struct flow_jump){ in->address, t };
			}
		}
		writes_of(h, in, op->base, src, &wa, &wb);
		if (in->address < op->insn && wa) {
			if (s->o.at && decode__reg_step(h, in, op->base, &k) > 0) {
				/* moved by a constant on the way: still from the origin */
				s->o.disp += k;
				note_write(s, in->address, true, false, true);
				continue;
			}
			/* a later write to the base replaces the origin; the writes so far do not matter */
			s->nw = 0;
			if (!origin_of(in, op->base, &s->o))
				s->o.at = 0;
			continue;
		}
		if (s->o.at && (wa || wb))
			note_write(s, in->address, wa, wb, false);
	}
	return a > op->insn;
}

/* Whether a write to the base or the source lies in [LO, HI] (FOLDED: constant adds too). */
static bool written_in(const struct origin_sweep *s, uint64_t lo, uint64_t hi, bool folded)
{
	for (size_t k = 0; k < s->nw; k++)
		if (s->w[k].at >= lo && s->w[k].at <= hi && (folded || !s->w[k].folded))
			return true;
	return false;
}

/* The origin of OP's base and whether it reaches OP (see addrsample__base_origin). */
static int origin_checked(csh h, const uint8_t *code, size_t len, uint64_t fstart,
			  const struct mem_operand *op, bool src_too, struct base_origin *o)
{
	struct origin_sweep s = { 0 };
	cs_insn *in;
	bool ok;

	if (!(in = cs_malloc(h)))
		return -ENOMEM;
	ok = sweep(h, in, code, len, fstart, op, src_too, &s) && s.o.at && !s.indirect &&
	     !written_in(&s, s.o.at + 1, op->insn - 1, false);
	for (size_t k = 0; ok && k < s.nj; k++) {
		const struct flow_jump *j = &s.j[k];

		if (j->to <= s.o.at || j->to > op->insn)
			continue;	/* lands outside (origin, OP]: the origin runs first on that path */
		if (j->from > s.o.at && j->from < op->insn)
			continue;	/* from within: the origin ran before it */
		/* a loop back from OP or after it over code that keeps both registers */
		ok = j->from >= op->insn && !written_in(&s, j->to, j->from, true);
	}
	cs_free(in, 1);
	free(s.j);
	free(s.w);
	*o = s.o;
	return ok ? 0 : -ENOENT;
}

int addrsample__base_origin(const uint8_t *code, size_t len, uint64_t fstart,
			    const struct mem_operand *op, struct base_origin *out)
{
	csh h = decode__cs();
	struct base_origin o, inner, again;
	struct mem_operand at;
	int err;

	if (!h || op->skip != AS_OK || op->base < 0 || op->base == AS_SP || op->rip ||
	    op->clobbers || op->insn < fstart || op->insn >= fstart + len)
		return -ENOENT;
	err = origin_checked(h, code, len, fstart, op, true, &o);
	if (!err) {
		*out = o;
		return 0;
	}
	if (err != -ENOENT || !o.at || o.loaded)
		return err;
	/*
	 * A lea whose source changes later (lea r13, [rbx + 40] with rbx
	 * loaded from [rdi] and moved on after): where the source's value at
	 * the lea was a pointer loaded, the base is that pointer plus both
	 * constants, if the base itself reaches OP.
	 */
	at = *op;
	at.base = o.from;
	at.insn = o.at;
	at.index = -1;
	if (origin_checked(h, code, len, fstart, &at, false, &inner) || !inner.loaded ||
	    origin_checked(h, code, len, fstart, op, false, &again) || again.at != o.at)
		return -ENOENT;
	inner.disp += o.disp;
	*out = inner;
	return 0;
}
