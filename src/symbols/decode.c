// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x86-64 instruction decoder (capstone) for data-address sampling: the
 * memory operand of the instruction before a sampled IP, and its effective
 * address from the sampled registers.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "symbols/decode.h"
#include "symbols/decode_int.h"
#include "symbols/symbolizer.h"
#include "base/util.h"

/* --- instruction decoding ------------------------------------------------ */

static csh cs_handle;
static bool cs_ready;

static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void decoder_open(void)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs_handle) != CS_ERR_OK)
		return;
	cs_option(cs_handle, CS_OPT_DETAIL, CS_OPT_ON);
	cs_ready = true;
}

/* The one handle: decode__next decodes with it under dis_lock. */
csh decode__cs(void)
{
	pthread_once(&cs_once, decoder_open);
	return cs_ready ? cs_handle : 0;
}

/*
 * Decoded instructions by address, each checked against the bytes before
 * use: a decode depends on nothing else, so a hit is what capstone would
 * return.  The analyses of one sampled instruction sweep the same function
 * several times (the instruction's start, the loop around it, its jump
 * targets, the registers changed before it), and the samples of a hot
 * function land on many of its instructions: decoding with capstone's
 * detail took about half of memadvise's own CPU time on sqlite3.  Only the
 * x86 part of the detail is kept.
 */
#define DIS_SLOTS 8192
#define DIS_DETAIL_BYTES (offsetof(cs_detail, x86) + sizeof(cs_x86))

struct dis_slot {
	cs_insn insn;			/* size 0: empty; detail NULL */
	uint8_t detail[DIS_DETAIL_BYTES];
};

/*
 * The address streams' thread decodes its probes while the sampler
 * decodes, and capstone changes its handle while it decodes (the printer's
 * memory-access state): decoding and the cache are under this lock.
 */
static pthread_mutex_t dis_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dis_slot *dis_cache;
static bool dis_cache_failed;

/* cs_disasm_iter through the cache; IN's detail, when it has one, is filled. */
bool decode__next(csh h, const uint8_t **code, size_t *size, uint64_t *addr, cs_insn *in)
{
	cs_detail *d = in->detail;
	struct dis_slot *s = NULL;
	bool ok;

	pthread_mutex_lock(&dis_lock);
	if (!dis_cache && !dis_cache_failed) {
		dis_cache = calloc(DIS_SLOTS, sizeof(*dis_cache));
		dis_cache_failed = !dis_cache;
	}
	if (dis_cache) {
		s = &dis_cache[((*addr * 0x9e3779b97f4a7c15ULL) >> 40) & (DIS_SLOTS - 1)];
		if (s->insn.size && s->insn.address == *addr && s->insn.size <= *size &&
		    !memcmp(s->insn.bytes, *code, s->insn.size)) {
			*in = s->insn;
			in->detail = d;
			if (d)
				memcpy(d, s->detail, DIS_DETAIL_BYTES);
			*code += in->size;
			*size -= in->size;
			*addr += in->size;
			pthread_mutex_unlock(&dis_lock);
			return true;
		}
	}
	ok = cs_disasm_iter(h, code, size, addr, in);
	if (ok && s && d && in->size <= sizeof(in->bytes)) {
		s->insn = *in;
		s->insn.detail = NULL;
		memcpy(s->detail, d, DIS_DETAIL_BYTES);
	}
	pthread_mutex_unlock(&dis_lock);
	return ok;
}

int decode__insn_starts(const uint8_t *code, size_t len, uint64_t start, uint64_t **v,
			size_t *n, size_t *cap)
{
	csh h = decode__cs();
	const uint8_t *c = code;
	uint64_t a = start;
	size_t size = len;
	cs_insn *in;

	if (!h || !(in = cs_malloc(h)))
		return -ENOTSUP;
	for (;;) {
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*v = xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[(*n)++] = a;	/* where the next instruction starts */
		if (!size || !decode__next(h, &c, &size, &a, in))
			break;
	}
	cs_free(in, 1);
	return 0;
}

/* A register a call may change (the System V x86-64 ABI's caller-saved ones). */
bool decode__caller_saved(int f)
{
	return f == AS_AX || f == AS_CX || f == AS_DX || f == AS_SI || f == AS_DI ||
	       (f >= AS_R8 && f <= AS_R11);
}

/* The sampled register holding (a part of) r, -1 when not sampled. */
int decode__reg_family(unsigned int r)
{
	switch (r) {
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL: case X86_REG_AH:
		return AS_AX;
	case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL: case X86_REG_BH:
		return AS_BX;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH:
		return AS_CX;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH:
		return AS_DX;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
		return AS_SI;
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
		return AS_DI;
	case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL:
		return AS_BP;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
		return AS_SP;
	case X86_REG_RIP: case X86_REG_EIP:
		return AS_IP;
	case X86_REG_R8: case X86_REG_R8D: case X86_REG_R8W: case X86_REG_R8B: return AS_R8;
	case X86_REG_R9: case X86_REG_R9D: case X86_REG_R9W: case X86_REG_R9B: return AS_R9;
	case X86_REG_R10: case X86_REG_R10D: case X86_REG_R10W: case X86_REG_R10B: return AS_R10;
	case X86_REG_R11: case X86_REG_R11D: case X86_REG_R11W: case X86_REG_R11B: return AS_R11;
	case X86_REG_R12: case X86_REG_R12D: case X86_REG_R12W: case X86_REG_R12B: return AS_R12;
	case X86_REG_R13: case X86_REG_R13D: case X86_REG_R13W: case X86_REG_R13B: return AS_R13;
	case X86_REG_R14: case X86_REG_R14D: case X86_REG_R14W: case X86_REG_R14B: return AS_R14;
	case X86_REG_R15: case X86_REG_R15D: case X86_REG_R15W: case X86_REG_R15B: return AS_R15;
	default:
		return -1;
	}
}

/* Any instruction that may not fall through to the next: jumps, calls, returns, traps. */
static bool is_branch(csh h, const cs_insn *in)
{
	return cs_insn_group(h, in, CS_GRP_JUMP) || cs_insn_group(h, in, CS_GRP_CALL) ||
	       cs_insn_group(h, in, CS_GRP_RET) || cs_insn_group(h, in, CS_GRP_INT) ||
	       cs_insn_group(h, in, CS_GRP_IRET);
}

/*
 * How instruction IN accesses its memory operand M.  Capstone 4 marks the
 * memory destination of several vector moves as read (movups, movdqa,
 * movntdq [mem], xmm: a store of a ring record read as a load): a plain
 * move of two operands writes its first and reads its second.
 */
static uint8_t mem_access(const cs_insn *in, const cs_x86_op *m)
{
	const cs_x86 *x = &in->detail->x86;

	switch (in->id) {
	case X86_INS_MOVUPS: case X86_INS_MOVUPD: case X86_INS_MOVAPS: case X86_INS_MOVAPD:
	case X86_INS_MOVDQA: case X86_INS_MOVDQU: case X86_INS_MOVNTPS: case X86_INS_MOVNTPD:
	case X86_INS_MOVNTDQ: case X86_INS_MOVNTI: case X86_INS_MOVSS: case X86_INS_MOVSD:
	case X86_INS_MOVQ: case X86_INS_MOVD: case X86_INS_MOVLPS: case X86_INS_MOVHPS:
	case X86_INS_MOVLPD: case X86_INS_MOVHPD: case X86_INS_VMOVUPS: case X86_INS_VMOVUPD:
	case X86_INS_VMOVAPS: case X86_INS_VMOVAPD: case X86_INS_VMOVDQA: case X86_INS_VMOVDQU:
	case X86_INS_VMOVNTPS: case X86_INS_VMOVNTPD: case X86_INS_VMOVNTDQ: case X86_INS_VMOVSS:
	case X86_INS_VMOVSD: case X86_INS_VMOVQ: case X86_INS_VMOVD: case X86_INS_VMOVDQU8:
	case X86_INS_VMOVDQU16: case X86_INS_VMOVDQU32: case X86_INS_VMOVDQU64:
	case X86_INS_VMOVDQA32: case X86_INS_VMOVDQA64:
		/* the string movsd has two memory operands: capstone's word stands */
		if (x->op_count == 2 && x->operands[0].type != x->operands[1].type)
			return m == &x->operands[0] ? CS_AC_WRITE : CS_AC_READ;
		break;
	default:
		break;
	}
	return m->access;
}

static bool is_no_access(unsigned int id)
{
	switch (id) {
	case X86_INS_LEA: case X86_INS_NOP: case X86_INS_FNOP:
	case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
		return true;
	default:
		return false;
	}
}

int addrsample__decode(const uint8_t *code, size_t len, uint64_t addr, struct mem_operand *op)
{
	csh h = decode__cs();
	const uint8_t *c = code;
	uint64_t a = addr;
	size_t sz = len;
	const cs_x86_op *mem = NULL;
	cs_insn *in;
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;

	memset(op, 0, sizeof(*op));
	op->insn = addr;
	op->base = op->index = -1;
	op->skip = AS_UNDECODABLE;
	if (!h)
		return -EINVAL;
	in = cs_malloc(h);
	if (!in || !decode__next(h, &c, &sz, &a, in)) {
		if (in)
			cs_free(in, 1);
		return -EINVAL;
	}
	op->len = in->size;
	snprintf(op->text, sizeof(op->text), "%.16s%s%.46s", in->mnemonic,
		 in->op_str[0] ? " " : "", in->op_str);
	for (int i = 0; i < in->detail->x86.op_count; i++)
		if (in->detail->x86.operands[i].type == X86_OP_MEM) {
			mem = &in->detail->x86.operands[i];
			break;
		}
	if (is_no_access(in->id)) {
		op->skip = AS_LEA;
	} else if (!mem) {
		op->skip = AS_NO_MEM;
	} else if (mem->mem.segment == X86_REG_FS || mem->mem.segment == X86_REG_GS) {
		op->skip = AS_SEGMENT;
	} else {
		op->skip = AS_OK;
		op->disp = mem->mem.disp;
		op->scale = mem->mem.scale ? mem->mem.scale : 1;
		op->size = mem->size;
		op->read = mem_access(in, mem) & CS_AC_READ;
		op->write = mem_access(in, mem) & CS_AC_WRITE;
		if (!op->read && !op->write)
			op->read = true;
		if (mem->mem.base == X86_REG_RIP) {
			op->rip = true;
		} else if (mem->mem.base != X86_REG_INVALID) {
			op->base = decode__reg_family(mem->mem.base);
			if (op->base < 0 || op->base == AS_IP)
				op->skip = AS_UNSUPPORTED;
		}
		if (mem->mem.index != X86_REG_INVALID) {
			op->index = decode__reg_family(mem->mem.index);
			if (op->index < 0 || op->index == AS_IP)
				op->skip = AS_UNSUPPORTED;
		}
		op->cas = in->id == X86_INS_CMPXCHG || in->id == X86_INS_CMPXCHG8B ||
			  in->id == X86_INS_CMPXCHG16B;
		op->atomic = in->detail->x86.prefix[0] == X86_PREFIX_LOCK ||
			     (in->id == X86_INS_XCHG && op->write);
		/* a locked instruction or a CAS owns the line for writing, even if it fails */
		if (op->atomic || op->cas)
			op->read = op->write = true;
		if (op->skip == AS_OK && !cs_regs_access(h, in, rr, &nr, rw, &nw))
			for (int i = 0; i < nw; i++) {
				int f = decode__reg_family(rw[i]);

				if (f >= 0 && (f == op->base || f == op->index))
					op->clobbers = true;
			}
		op->chase = op->clobbers && op->read && !op->write && op->size == 8 &&
			    op->base >= 0 && op->index < 0 && nw == 1 &&
			    decode__reg_family(rw[0]) == op->base;
	}
	cs_free(in, 1);
	return 0;
}

/* The constant INSN adds to register family F (add, sub, inc, dec, lea F, [F + d]); false if none. */
static bool moves_by_constant(const cs_insn *in, int f, int64_t *by)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;

	if (x->op_count < 1 || o[0].type != X86_OP_REG || decode__reg_family(o[0].reg) != f ||
	    o[0].size != 8)
		return false;
	switch (in->id) {
	case X86_INS_ADD: case X86_INS_SUB:
		if (x->op_count != 2 || o[1].type != X86_OP_IMM)
			return false;
		*by = in->id == X86_INS_ADD ? o[1].imm : -o[1].imm;
		return true;
	case X86_INS_INC: case X86_INS_DEC:
		*by = in->id == X86_INS_INC ? 1 : -1;
		return true;
	case X86_INS_LEA:
		if (x->op_count != 2 || o[1].type != X86_OP_MEM || o[1].mem.index != X86_REG_INVALID ||
		    o[1].mem.segment != X86_REG_INVALID || decode__reg_family(o[1].mem.base) != f)
			return false;
		*by = o[1].mem.disp;
		return true;
	default:
		return false;
	}
}

int addrsample__decode_back(const uint8_t *code, uint64_t code_addr, uint64_t func_start,
			    uint64_t ip, struct mem_operand *op)
{
	csh h = decode__cs();
	uint64_t at[AS_BACK_MAX + 2], a = func_start, *targets = NULL;
	uint8_t len[AS_BACK_MAX + 2];
	bool branch[AS_BACK_MAX + 2];
	size_t size, nt = 0, ct = 0;
	const uint8_t *c;
	int n = 0, ret = -ENOENT;
	cs_insn *in;

	if (!h || func_start < code_addr || func_start >= ip || !(in = cs_malloc(h)))
		return -ENOENT;
	/* the sweep: the last instructions before ip, and where branches land */
	c = code + (func_start - code_addr);
	size = ip - func_start;
	while (size && decode__next(h, &c, &size, &a, in)) {
		const cs_x86 *x = &in->detail->x86;

		if (n == AS_BACK_MAX + 2) {
			memmove(at, at + 1, sizeof(at[0]) * (n - 1));
			memmove(len, len + 1, sizeof(len[0]) * (n - 1));
			memmove(branch, branch + 1, sizeof(branch[0]) * (n - 1));
			n--;
		}
		at[n] = in->address;
		len[n] = in->size;
		branch[n++] = is_branch(h, in);
		if (cs_insn_group(h, in, CS_GRP_JUMP) && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			if (nt == ct) {
				ct = ct ? ct * 2 : 64;
				targets = xrealloc(targets, ct * sizeof(*targets));
			}
			targets[nt++] = (uint64_t)x->operands[0].imm;
		}
	}
	if (size || a != ip || n < 2)
		goto out;
	/* after a jmp or ret, ip is reached by a jump from elsewhere: no straight run to it */
	if (in->id == X86_INS_JMP || cs_insn_group(h, in, CS_GRP_RET) ||
	    cs_insn_group(h, in, CS_GRP_IRET))
		goto out;
	/* at[n - 1] is the instruction before ip (no access); walk back from the one before it */
	for (int i = n - 2; i >= 0 && n - 1 - i <= AS_BACK_MAX; i--) {
		struct mem_operand m;
		bool landed = false;

		if (branch[i])
			break;
		/* a branch landing after at[i] may have skipped it */
		for (size_t t = 0; t < nt && !landed; t++)
			landed = targets[t] > at[i] && targets[t] < ip;
		if (landed)
			break;
		if (addrsample__decode(code + (at[i] - code_addr), len[i], at[i], &m) || m.skip != AS_OK)
			continue;
		/* what the instructions after it did to its registers */
		for (int j = i + 1; j < n; j++) {
			const uint8_t *cj = code + (at[j] - code_addr);
			size_t sj = len[j];
			uint64_t aj = at[j];
			cs_regs rr, rw;
			uint8_t nr = 0, nw = 0;

			if (!decode__next(h, &cj, &sj, &aj, in) || cs_regs_access(h, in, rr, &nr, rw, &nw)) {
				m.clobbers = true;
				m.chase = false;
				break;
			}
			/*
			 * a call ran code that may change every register the
			 * ABI does not keep (ip is then its return address: the
			 * registers sampled are the callee's leftovers)
			 */
			if (cs_insn_group(h, in, CS_GRP_CALL) &&
			    (decode__caller_saved(m.base) || decode__caller_saved(m.index))) {
				m.clobbers = true;
				m.chase = false;
			}
			for (int k = 0; k < nw; k++) {
				int f = decode__reg_family(rw[k]);
				int64_t by;

				if (f < 0 || (f != m.base && f != m.index))
					continue;
				if (f == m.base && m.base != m.index && moves_by_constant(in, f, &by)) {
					m.adj += by;
				} else {
					m.clobbers = true;
					m.chase = false;
				}
			}
		}
		m.back = (uint8_t)(n - 1 - i);
		*op = m;
		ret = 0;
		break;
	}
out:
	free(targets);
	cs_free(in, 1);
	return ret;
}

/*
 * Of the SAMPLES of an IP that decode to OP, DECODED with an address, those
 * that say OP is hot (a stream probe goes on the hottest).  A load over its
 * own base (mov (%rcx),%ecx) gives no address from the registers sampled
 * after it ran; a probe on the instruction reads them before: all its
 * samples count.  Not so for an access found by walking back over
 * instructions without one (op.back): the IP sampled after those blames
 * them as much (the addss chain after a mulss whose index has moved on);
 * of those, as of every other access, the samples with an address count.
 */
uint64_t addrsample__blamed(const struct mem_operand *op, uint64_t samples, uint64_t decoded)
{
	/* no address to compute at all (a segment base, an unsupported form): all count too */
	return op->skip != AS_OK || (op->clobbers && !op->back) ? samples : decoded;
}

uint64_t addrsample__ea(const struct mem_operand *op, const uint64_t *regs)
{
	uint64_t ea = (uint64_t)op->disp - (uint64_t)op->adj;

	if (op->rip)
		ea += op->insn + op->len;
	else if (op->base >= 0)
		ea += regs[op->base];
	if (op->index >= 0)
		ea += regs[op->index] * (uint64_t)op->scale;
	return ea;
}

/*
 * The sweep from the function's start is the profiler's (symbolizer.c); the
 * sampler, unlike the profiler, also guesses where no function start is known
 * (code without symbols, a start on an unreadable page): it needs an access
 * to decode, and a wrong guess shows as an undecodable or unmapped operand,
 * whereas the profile would charge a wrong source line silently.  The guess:
 * the instruction length that most decodings ending at IP agree on.
 */
int addrsample__prev_insn(const uint8_t *code, uint64_t code_addr, uint64_t ip,
			  uint64_t func_start, uint64_t *insn)
{
	csh h = decode__cs();
	unsigned int votes[16] = { 0 }, best = 0;
	cs_insn *in;

	if (!h || ip <= code_addr)
		return -ENOENT;
	if (!symbolizer__prev_insn_in(code, code_addr, func_start, ip, insn))
		return 0;
	if (!(in = cs_malloc(h)))
		return -ENOENT;
	for (uint64_t off = 1; off <= AS_VOTE_WINDOW && off <= ip - code_addr; off++) {
		const uint8_t *c = code + (ip - off - code_addr);
		size_t sz = off;
		uint64_t a = ip - off;
		unsigned int last = 0;

		while (sz && decode__next(h, &c, &sz, &a, in))
			last = in->size;
		if (!sz && a == ip && last && last < 16)
			votes[last]++;
	}
	cs_free(in, 1);
	for (unsigned int l = 1; l < 16; l++)
		if (votes[l] > votes[best])
			best = l;
	if (!best)
		return -ENOENT;
	*insn = ip - best;
	return 0;
}

/* The target of a direct jump IN, 0 for others. */
uint64_t decode__jump_target(csh h, const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (!cs_insn_group(h, in, CS_GRP_JUMP) || x->op_count != 1 ||
	    x->operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)x->operands[0].imm;
}

/*
 * The innermost loop around HOT: from HOT on (at most AS_LOOP_SCAN bytes),
 * the first jump back to HOT or before it closes [*lo, *hi); with OUTER,
 * the first jump back before HOT (HOT a loop's start: the loop around that
 * one).  0, or -ENOENT.
 */
static int find_loop_from(csh h, cs_insn *in, const uint8_t *code, size_t len,
			  uint64_t code_addr, uint64_t hot, bool outer, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *c = code + (hot - code_addr);
	size_t sz = len - (size_t)(hot - code_addr);
	uint64_t a = hot;

	while (a < hot + AS_LOOP_SCAN && decode__next(h, &c, &sz, &a, in)) {
		uint64_t t = decode__jump_target(h, in);

		if (t && (outer ? t < hot : t <= hot) && t >= code_addr &&
		    hot - t <= AS_LOOP_SCAN) {
			*lo = t;
			*hi = a;
			return 0;
		}
		if (cs_insn_group(h, in, CS_GRP_RET) ||
		    (cs_insn_group(h, in, CS_GRP_JUMP) && !t && in->id == X86_INS_JMP))
			break;	/* left the function, or an indirect jump: no loop known */
	}
	return -ENOENT;
}

static int find_loop(csh h, cs_insn *in, const uint8_t *code, size_t len, uint64_t code_addr,
		     uint64_t hot, uint64_t *lo, uint64_t *hi)
{
	return find_loop_from(h, in, code, len, code_addr, hot, false, lo, hi);
}

int addrsample__loop_range(const uint8_t *code, size_t len, uint64_t code_addr, uint64_t hot,
			   uint64_t *lo, uint64_t *hi)
{
	csh h = decode__cs();
	cs_insn *in;
	int err;

	if (!h || hot < code_addr || hot >= code_addr + len)
		return -ENOENT;
	in = cs_malloc(h);
	if (!in)
		return -ENOMEM;
	err = find_loop(h, in, code, len, code_addr, hot, lo, hi);
	cs_free(in, 1);
	return err ? -ENOENT : 0;
}

int addrsample__loop_stores(const uint8_t *code, size_t len, uint64_t code_addr, uint64_t hot,
			    uint64_t *lo, uint64_t *hi, uint64_t *stores, int max)
{
	csh h = decode__cs();
	cs_insn *in;
	const uint8_t *c;
	uint64_t a;
	size_t sz;
	int n = 0, nread = 0;
	x86_op_mem read[16];	/* loads whose registers have not moved since */

	if (!h || hot < code_addr || hot >= code_addr + len)
		return -ENOENT;
	in = cs_malloc(h);
	if (!in)
		return -ENOMEM;
	if (find_loop(h, in, code, len, code_addr, hot, lo, hi)) {
		cs_free(in, 1);
		return -ENOENT;
	}
	c = code + (*lo - code_addr);
	sz = (size_t)(*hi - *lo);
	a = *lo;
	while (n < max && decode__next(h, &c, &sz, &a, in)) {
		const cs_x86 *x = &in->detail->x86;
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;

		/* a register moved since a load: what it read is another element */
		if (!cs_regs_access(h, in, rr, &nr, rw, &nw))
			for (int k = 0; k < nw; k++)
				for (int r = 0; r < nread; r++)
					if (decode__reg_family(rw[k]) >= 0 &&
					    (decode__reg_family(rw[k]) == decode__reg_family(read[r].base) ||
					     decode__reg_family(rw[k]) == decode__reg_family(read[r].index)))
						read[r--] = read[--nread];
		if (is_no_access(in->id) || x->prefix[0] == X86_PREFIX_LOCK)
			continue;
		for (int i = 0; i < x->op_count; i++) {
			const cs_x86_op *m = &x->operands[i];
			bool rmw = false;

			if (m->type != X86_OP_MEM)
				continue;
			if (!(mem_access(in, m) & CS_AC_WRITE)) {
				if (nread < (int)(sizeof(read) / sizeof(read[0])))
					read[nread++] = m->mem;
				break;
			}
			/*
			 * the element the loop read just before: its line is in
			 * the cache already, a non-temporal store saves nothing
			 */
			for (int r = 0; r < nread && !rmw; r++)
				rmw = !memcmp(&read[r], &m->mem, sizeof(m->mem));
			/* not a spill, not a global scalar (RIP-relative takes no index) */
			if (!(mem_access(in, m) & CS_AC_READ) && !rmw &&
			    decode__reg_family(m->mem.base) != AS_SP && m->mem.base != X86_REG_RIP &&
			    m->mem.segment == X86_REG_INVALID)
				stores[n++] = in->address;
			break;
		}
	}
	cs_free(in, 1);
	return n;
}

/*
 * What instruction IN does to register family REG: 0 when it leaves it
 * alone, 1 when it adds a constant (*delta: add/sub of an immediate, inc,
 * dec, lea reg,[reg+disp]), -1 when it writes it otherwise.
 */
int decode__reg_step(csh h, const cs_insn *in, int reg, int64_t *delta)
{
	const cs_x86 *x = &in->detail->x86;
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;
	bool written = false;

	if (cs_regs_access(h, in, rr, &nr, rw, &nw))
		return -1;
	for (int i = 0; i < nw; i++)
		written |= decode__reg_family(rw[i]) == reg;
	if (!written)
		return 0;
	if (x->op_count < 1 || x->operands[0].type != X86_OP_REG ||
	    decode__reg_family(x->operands[0].reg) != reg || x->operands[0].size != 8)
		return -1;
	switch (in->id) {
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (x->op_count != 2 || x->operands[1].type != X86_OP_IMM)
			return -1;
		*delta = in->id == X86_INS_ADD ? x->operands[1].imm : -x->operands[1].imm;
		return 1;
	case X86_INS_INC:
	case X86_INS_DEC:
		*delta = in->id == X86_INS_INC ? 1 : -1;
		return 1;
	case X86_INS_LEA:
		if (x->op_count != 2 || x->operands[1].type != X86_OP_MEM ||
		    x->operands[1].mem.index != X86_REG_INVALID ||
		    x->operands[1].mem.base == X86_REG_INVALID ||
		    decode__reg_family(x->operands[1].mem.base) != reg)
			return -1;
		*delta = x->operands[1].mem.disp;
		return 1;
	default:
		return -1;
	}
}

/*
 * The loop's accesses through OP's base (and index), their displacements
 * taken relative to the base's value at OP: a loop that bumps its pointer
 * by a constant between two accesses (add $4 after the first load of
 * three) reaches base+8 after the bump at OP's base+12.  Where the base is
 * written otherwise, what comes after is relative to another value: only
 * the accesses between the same two such writes as OP count.
 */
/*
 * The loop around OP's instruction (find_loop) for a decoded access
 * through a base register, and an instruction buffer (*IN, cs_free()d by
 * the caller) to walk it with.  0, -ENOENT (no such access or loop) or
 * -ENOMEM.
 */
static int loop_around(csh h, const uint8_t *code, size_t len, uint64_t code_addr,
		       const struct mem_operand *op, cs_insn **in, uint64_t *lo, uint64_t *hi)
{
	if (!h || op->skip != AS_OK || op->base < 0 || op->rip || op->insn < code_addr ||
	    op->insn >= code_addr + len)
		return -ENOENT;
	*in = cs_malloc(h);
	if (!*in)
		return -ENOMEM;
	if (find_loop(h, *in, code, len, code_addr, op->insn, lo, hi)) {
		cs_free(*in, 1);
		return -ENOENT;
	}
	return 0;
}

/*
 * The loop enclosing [*LO, *HI) (a loop around HOT): the jumps after *HI,
 * up to AS_LOOP_SCAN bytes past HOT, back into it or before it.  A walk
 * whose test skips most elements (if (e->state != BOUND) continue) closes
 * an inner loop around that one test; the element's other accesses lie in
 * the enclosing one.  Stops at a return or an indirect jump.
 */
static void widen_loop(csh h, cs_insn *in, const uint8_t *code, size_t len,
		       uint64_t code_addr, uint64_t hot, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *c = code + (*hi - code_addr);
	size_t sz = len - (size_t)(*hi - code_addr);
	uint64_t a = *hi;

	while (a < hot + AS_LOOP_SCAN && decode__next(h, &c, &sz, &a, in)) {
		uint64_t t = decode__jump_target(h, in);

		if (t && t <= hot && t >= code_addr && hot - t <= AS_LOOP_SCAN) {
			if (t < *lo)
				*lo = t;
			*hi = a;
		}
		if (cs_insn_group(h, in, CS_GRP_RET) ||
		    (cs_insn_group(h, in, CS_GRP_JUMP) && !t && in->id == X86_INS_JMP))
			break;
	}
}

static int siblings_in(csh h, cs_insn *in, const uint8_t *code, uint64_t code_addr,
		       uint64_t lo, uint64_t hi, const struct mem_operand *op, int64_t *disp,
		       uint8_t *size, int max, int64_t *bump, bool *lea_indexed)
{
	struct {
		int64_t disp;
		uint8_t size;
		int gen;
	} seen[64];
	const uint8_t *c;
	uint64_t a;
	size_t sz;
	int n = 0, nr_seen = 0, gen = 0, op_gen = -1;
	int64_t adj = 0, op_adj = 0;
	bool lea_idx = false, op_lea_idx = false;

	c = code + (lo - code_addr);
	sz = (size_t)(hi - lo);
	a = lo;
	while (nr_seen < (int)ARRAY_SIZE(seen) && decode__next(h, &c, &sz, &a, in)) {
		const cs_x86 *x = &in->detail->x86;
		int64_t d = 0;
		int step;

		if (in->address == op->insn) {
			op_gen = gen;
			op_adj = adj;
			op_lea_idx = lea_idx;
		}
		for (int i = 0; i < x->op_count && !is_no_access(in->id); i++) {
			const cs_x86_op *m = &x->operands[i];
			int base, index;

			if (m->type != X86_OP_MEM || m->mem.segment != X86_REG_INVALID)
				continue;
			base = m->mem.base == X86_REG_INVALID ? -1 : decode__reg_family(m->mem.base);
			index = m->mem.index == X86_REG_INVALID ? -1 : decode__reg_family(m->mem.index);
			/*
			 * the same pointer: with no index, any access through it
			 * (one indexed into an array member: the member's start);
			 * with one, the same index and scale (the same element)
			 */
			if (base != op->base || (op->index >= 0 && (index != op->index ||
			    (m->mem.scale ? m->mem.scale : 1) != op->scale)))
				continue;
			if (nr_seen < (int)ARRAY_SIZE(seen)) {
				seen[nr_seen].disp = m->mem.disp + adj;
				seen[nr_seen].size = m->size;
				seen[nr_seen++].gen = gen;
			}
		}
		step = decode__reg_step(h, in, op->base, &d);
		if (step > 0) {
			adj += d;
		} else if (step < 0) {
			gen++;
			adj = 0;
			lea_idx = in->id == X86_INS_LEA && x->op_count == 2 &&
				  x->operands[1].type == X86_OP_MEM &&
				  x->operands[1].mem.index != X86_REG_INVALID;
		}
		if (op->index >= 0 && decode__reg_step(h, in, op->index, &d)) {
			/* the element moved: what follows is another one */
			gen++;
			adj = 0;
		}
	}
	if (bump)
		*bump = op_gen >= 0 ? op_adj : 0;
	if (lea_indexed)
		*lea_indexed = op_gen >= 0 && op_lea_idx;
	for (int i = 0; i < nr_seen && n < max; i++) {
		int64_t rel = seen[i].disp - op_adj;
		int k;

		if (seen[i].gen != op_gen)
			continue;
		for (k = 0; k < n && !(disp[k] == rel && size[k] == seen[i].size); k++)
			;
		if (k == n) {
			disp[n] = rel;
			size[n++] = seen[i].size;
		}
	}
	return n;
}

/*
 * OP's siblings in its innermost loop; where that loop reaches the pointer
 * at OP alone, in the loop enclosing it (widen_loop), whose other accesses
 * through the same pointer value say where in the element it points.
 */
int addrsample__loop_siblings(const uint8_t *code, size_t len, uint64_t code_addr,
			      const struct mem_operand *op, int64_t *disp, uint8_t *size, int max,
			      int64_t *bump, bool *lea_indexed)
{
	csh h = decode__cs();
	cs_insn *in;
	uint64_t lo, hi, wlo, whi;
	int n, err;

	if ((err = loop_around(h, code, len, code_addr, op, &in, &lo, &hi)))
		return err;
	n = siblings_in(h, in, code, code_addr, lo, hi, op, disp, size, max, bump, lea_indexed);
	wlo = lo;
	whi = hi;
	if (n < 2 && max >= 2) {
		widen_loop(h, in, code, len, code_addr, op->insn, &wlo, &whi);
		if (wlo < lo || whi > hi)
			n = siblings_in(h, in, code, code_addr, wlo, whi, op, disp, size, max,
					bump, lea_indexed);
	}
	cs_free(in, 1);
	return n;
}

int addrsample__loop_step(const uint8_t *code, size_t len, uint64_t code_addr,
			  const struct mem_operand *op, int64_t *step)
{
	csh h = decode__cs();
	cs_insn *in;
	const uint8_t *c;
	uint64_t a, lo, hi;
	size_t sz;
	int64_t base_adj = 0, index_adj = 0;
	bool other = false;
	int err;

	if ((err = loop_around(h, code, len, code_addr, op, &in, &lo, &hi)))
		return err;
	c = code + (lo - code_addr);
	sz = (size_t)(hi - lo);
	a = lo;
	while (!other && decode__next(h, &c, &sz, &a, in)) {
		int64_t d = 0;
		int r = decode__reg_step(h, in, op->base, &d);

		if (r < 0)
			other = true;
		else if (r > 0)
			base_adj += d;
		if (op->index >= 0 && op->index != op->base) {
			d = 0;
			r = decode__reg_step(h, in, op->index, &d);
			if (r < 0)
				other = true;
			else if (r > 0)
				index_adj += d;
		}
	}
	cs_free(in, 1);
	if (other)
		return -ENOENT;
	*step = base_adj + index_adj * (op->index >= 0 ? (op->scale ? op->scale : 1) : 0);
	return *step ? 0 : -ENOENT;
}

/* A load of a whole pointer from memory into a register: mov, or a conditional move. */
static bool is_pointer_load(const cs_insn *in, const cs_x86_op **src)
{
	const cs_x86 *x = &in->detail->x86;

	if (x->op_count != 2 || x->operands[0].type != X86_OP_REG || x->operands[0].size != 8)
		return false;
	if (in->id != X86_INS_MOV && !(in->id >= X86_INS_CMOVA && in->id <= X86_INS_CMOVS))
		return false;
	*src = &x->operands[1];
	return true;
}

/*
 * One pass over the loop [lo, hi): registers holding BASE plus a constant
 * (*alias), loaded through those or through loaded ones (*loaded); whether
 * BASE was written with a loaded value (*chained) or otherwise (*other).
 */
static void chain_pass(csh h, cs_insn *in, const uint8_t *code, uint64_t code_addr,
		       uint64_t lo, uint64_t hi, int base, uint32_t *alias, uint32_t *loaded,
		       bool *chained, bool *other)
{
	const uint8_t *c = code + (lo - code_addr);
	size_t sz = (size_t)(hi - lo);
	uint64_t a = lo;

	while (decode__next(h, &c, &sz, &a, in)) {
		const cs_x86_op *src;
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;
		int dst = -1;
		bool from_chain = false, copy_alias = false;

		if (cs_regs_access(h, in, rr, &nr, rw, &nw)) {
			*other = true;
			return;
		}
		if (is_pointer_load(in, &src)) {
			dst = decode__reg_family(in->detail->x86.operands[0].reg);
			if (src->type == X86_OP_MEM && src->mem.segment == X86_REG_INVALID &&
			    src->mem.base != X86_REG_INVALID && src->mem.base != X86_REG_RIP) {
				int b = decode__reg_family(src->mem.base);

				from_chain = b >= 0 && ((*alias | *loaded) & (1u << b));
			} else if (src->type == X86_OP_REG) {
				int r = decode__reg_family(src->reg);

				from_chain = r >= 0 && (*loaded & (1u << r));
				copy_alias = r >= 0 && (*alias & (1u << r)) && in->id == X86_INS_MOV;
			}
		} else if (in->id == X86_INS_LEA && in->detail->x86.operands[1].mem.index ==
			   X86_REG_INVALID && in->detail->x86.operands[0].size == 8) {
			int b = in->detail->x86.operands[1].mem.base == X86_REG_INVALID ? -1 :
				decode__reg_family(in->detail->x86.operands[1].mem.base);

			dst = decode__reg_family(in->detail->x86.operands[0].reg);
			copy_alias = b >= 0 && (*alias & (1u << b)) && b != base;
			from_chain = b >= 0 && (*loaded & (1u << b)) &&
				     in->detail->x86.operands[1].mem.disp == 0;
		}
		for (int k = 0; k < nw; k++) {
			int f = decode__reg_family(rw[k]);

			if (f < 0 || f == AS_IP || f == AS_SP)
				continue;
			if (f == base) {
				if (f == dst && from_chain)
					*chained = true;
				else
					*other = true;
				continue;
			}
			*alias &= ~(1u << f);
			*loaded &= ~(1u << f);
			if (f == dst && from_chain)
				*loaded |= 1u << f;
			else if (f == dst && copy_alias)
				*alias |= 1u << f;
		}
	}
}

/* A memory operand's shape: base and index register families, scale, displacement. */
struct slot {
	int base, index, scale;
	int64_t disp;
};

static bool slot_of(const cs_x86_op *m, struct slot *s)
{
	if (m->type != X86_OP_MEM || m->mem.segment != X86_REG_INVALID ||
	    m->mem.base == X86_REG_INVALID || m->mem.base == X86_REG_RIP)
		return false;
	s->base = decode__reg_family(m->mem.base);
	s->index = m->mem.index == X86_REG_INVALID ? -1 : decode__reg_family(m->mem.index);
	s->scale = m->mem.index == X86_REG_INVALID ? 0 : m->mem.scale;
	s->disp = m->mem.disp;
	return s->base >= 0;
}

static bool same_slot(const struct slot *a, const struct slot *b)
{
	return a->base == b->base && a->index == b->index && a->scale == b->scale &&
	       a->disp == b->disp;
}

/*
 * Slots that [lo, hi) advances along a chain: a pointer loaded from the
 * slot, a pointer loaded through it (or through what that loaded), stored
 * back into a slot of the same shape: cur[t] = cur[t]->next, the heads of a
 * k-way merge kept in an array, or a list pointer kept on the stack.  Their
 * shapes in CHAINED (at most MAX); how many.
 */
static int slot_chains(csh h, cs_insn *in, const uint8_t *code, uint64_t code_addr,
		       uint64_t lo, uint64_t hi, struct slot *chained, int max)
{
	const uint8_t *c;
	size_t sz;
	uint64_t a;
	struct slot from[AS_NR_REGS];	/* the slot a register's chain started at */
	uint32_t holds = 0;			/* registers with a slot's pointer ... */
	uint32_t through = 0;			/* ... or one loaded through it */
	int n = 0;

	/*
	 * twice: a rotated loop stores back (pos[k] = r->next) before, in
	 * address order, it loads the slot (r = pos[k]) for the next pass
	 */
	for (int pass = 0; pass < 2; pass++) {
		c = code + (lo - code_addr);
		sz = (size_t)(hi - lo);
		a = lo;
		while (n < max && decode__next(h, &c, &sz, &a, in)) {
			const cs_x86 *x = &in->detail->x86;
			const cs_x86_op *src;
			cs_regs rr, rw;
			uint8_t nr = 0, nw = 0;
			struct slot sl;
			int dst = -1, b;
			uint32_t set_holds = 0, set_through = 0;

			if (cs_regs_access(h, in, rr, &nr, rw, &nw))
				break;
			if (in->id == X86_INS_MOV && x->op_count == 2 && x->operands[1].type == X86_OP_REG &&
			    x->operands[1].size == 8 && slot_of(&x->operands[0], &sl)) {
				int r = decode__reg_family(x->operands[1].reg);

				/* the store back: into the shape the chain began at */
				if (r >= 0 && r < AS_NR_REGS && (through & (1u << r)) && same_slot(&from[r], &sl)) {
					bool dup = false;

					for (int k = 0; k < n; k++)
						dup |= same_slot(&chained[k], &sl);
					if (!dup)
						chained[n++] = sl;
				}
			} else if (is_pointer_load(in, &src) && slot_of(src, &sl)) {
				dst = decode__reg_family(x->operands[0].reg);
				b = sl.base;
				if (dst < 0 || dst >= AS_NR_REGS)
					dst = -1;
				else if ((holds | through) & (1u << b)) {
					from[dst] = from[b];
					set_through = 1u << dst;
				} else {
					from[dst] = sl;
					set_holds = 1u << dst;
				}
			}
			for (int k = 0; k < nw; k++) {
				int f = decode__reg_family(rw[k]);

				if (f < 0)
					continue;
				holds &= ~(1u << f);
				through &= ~(1u << f);
			}
			holds |= set_holds;
			through |= set_through;
		}
	}
	return n;
}

/*
 * The one shape of memory the loop [lo, hi) loads BASE from, when every
 * write to BASE there is such a load (*S); false otherwise.  The access at
 * INSN may load over its own base (mov (%rcx),%ecx): the next pass reloads
 * it from the slot.
 */
static bool base_from_slot(csh h, cs_insn *in, const uint8_t *code, uint64_t code_addr,
			   uint64_t lo, uint64_t hi, uint64_t insn, int base, struct slot *s)
{
	const uint8_t *c = code + (lo - code_addr);
	size_t sz = (size_t)(hi - lo);
	uint64_t a = lo;
	bool any = false;

	while (decode__next(h, &c, &sz, &a, in)) {
		const cs_x86_op *src;
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;
		struct slot sl;

		if (cs_regs_access(h, in, rr, &nr, rw, &nw))
			return false;
		for (int k = 0; k < nw && in->address != insn; k++) {
			if (decode__reg_family(rw[k]) != base)
				continue;
			if (!is_pointer_load(in, &src) || in->id != X86_INS_MOV ||
			    !slot_of(src, &sl) || sl.base == base || sl.index == base ||
			    (any && !same_slot(&sl, s)))
				return false;
			*s = sl;
			any = true;
		}
	}
	return any;
}

/*
 * Whether OP's base is loaded from a slot that the loop around it, or the
 * loop around that one, advances along a chain (slot_chains).
 */
static bool slot_chained(csh h, cs_insn *in, const uint8_t *code, size_t len,
			 uint64_t code_addr, const struct mem_operand *op, uint64_t lo, uint64_t hi)
{
	struct slot s = { 0 }, ch[8];
	uint64_t olo, ohi;
	int n;

	if (!base_from_slot(h, in, code, code_addr, lo, hi, op->insn, op->base, &s))
		return false;
	n = slot_chains(h, in, code, code_addr, lo, hi, ch, 8);
	for (int k = 0; k < n; k++)
		if (same_slot(&ch[k], &s))
			return true;
	if (find_loop_from(h, in, code, len, code_addr, lo, true, &olo, &ohi))
		return false;
	n = slot_chains(h, in, code, code_addr, olo, ohi, ch, 8);
	for (int k = 0; k < n; k++)
		if (same_slot(&ch[k], &s))
			return true;
	return false;
}

/*
 * Whether PRED holds for an instruction of the loop around OP (as
 * loop_around finds it); false when no loop is found.
 */
static bool loop_any(const uint8_t *code, size_t len, uint64_t code_addr,
		     const struct mem_operand *op,
		     bool (*pred)(const cs_insn *in, const struct mem_operand *op))
{
	csh h = decode__cs();
	cs_insn *in;
	const uint8_t *c;
	uint64_t lo, hi, a;
	size_t sz;
	bool any = false;

	if (loop_around(h, code, len, code_addr, op, &in, &lo, &hi))
		return false;
	c = code + (lo - code_addr);
	sz = (size_t)(hi - lo);
	a = lo;
	while (!any && decode__next(h, &c, &sz, &a, in))
		any = pred(in, op);
	cs_free(in, 1);
	return any;
}

/* A 64-bit load into OP's base register. */
static bool loads_base(const cs_insn *in, const struct mem_operand *op)
{
	const cs_x86 *x = &in->detail->x86;

	return in->id == X86_INS_MOV && x->op_count == 2 &&
	       x->operands[0].type == X86_OP_REG && x->operands[0].size == 8 &&
	       decode__reg_family(x->operands[0].reg) == op->base && x->operands[1].type == X86_OP_MEM;
}

bool addrsample__loop_reloads_base(const uint8_t *code, size_t len, uint64_t code_addr,
				   const struct mem_operand *op)
{
	return op->base >= 0 && loop_any(code, len, code_addr, op, loads_base);
}

static int cmp_span(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

uint32_t addrsample__span_union(const int64_t *disp, const uint8_t *size, int n)
{
	int64_t span[64][2], end = INT64_MIN, fill = 0;

	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++) {
		span[i][0] = disp[i];
		span[i][1] = disp[i] + (size[i] ? size[i] : 1);
	}
	if (n > 0)
		qsort(span, (size_t)n, sizeof(span[0]), cmp_span);
	for (int i = 0; i < n; i++) {
		if (span[i][1] <= end)
			continue;
		fill += span[i][1] - (span[i][0] > end ? span[i][0] : end);
		end = span[i][1];
	}
	return (uint32_t)fill;
}

uint32_t addrsample__loop_fill(const uint8_t *code, size_t len, uint64_t code_addr,
			       const struct mem_operand *op)
{
	int64_t disp[32];
	uint8_t size[32];
	int n = addrsample__loop_siblings(code, len, code_addr, op, disp, size, 32, NULL, NULL);

	return n > 0 ? addrsample__span_union(disp, size, n) : 0;
}

/* A repeated string store: rep stos, rep movs. */
static bool string_store(const cs_insn *in, const struct mem_operand *op)
{
	const cs_x86 *x = &in->detail->x86;

	(void)op;
	/* F3 only: F2 0F 10 is SSE's movsd, which capstone also calls MOVSD */
	return x->prefix[0] == X86_PREFIX_REP &&
	       (in->id == X86_INS_STOSB || in->id == X86_INS_STOSW ||
		in->id == X86_INS_STOSD || in->id == X86_INS_STOSQ ||
		in->id == X86_INS_MOVSB || in->id == X86_INS_MOVSW ||
		in->id == X86_INS_MOVSD || in->id == X86_INS_MOVSQ);
}

bool addrsample__loop_bulk(const uint8_t *code, size_t len, uint64_t code_addr,
			   const struct mem_operand *op)
{
	return loop_any(code, len, code_addr, op, string_store);
}

bool addrsample__loop_chained(const uint8_t *code, size_t len, uint64_t code_addr,
			      const struct mem_operand *op)
{
	csh h = decode__cs();
	cs_insn *in;
	uint64_t lo, hi;
	uint32_t alias, loaded = 0;
	bool chained = false, other = false;

	if (op->base == AS_SP || loop_around(h, code, len, code_addr, op, &in, &lo, &hi))
		return false;
	/* twice: what the loop's end loaded is what its start reads */
	alias = 1u << op->base;
	chain_pass(h, in, code, code_addr, lo, hi, op->base, &alias, &loaded, &chained, &other);
	alias |= 1u << op->base;
	chained = other = false;
	chain_pass(h, in, code, code_addr, lo, hi, op->base, &alias, &loaded, &chained, &other);
	/* the pointer kept in memory between steps: cur[t] = cur[t]->next */
	if (!chained && other && slot_chained(h, in, code, len, code_addr, op, lo, hi)) {
		chained = true;
		other = false;
	}
	cs_free(in, 1);
	return chained && !other;
}

bool addrsample__call_chained(const uint8_t *code, size_t len, uint64_t code_addr,
			      const struct mem_operand *op)
{
	static const int args[] = { AS_DI, AS_SI, AS_DX, AS_CX, AS_R8, AS_R9 };
	static const int clobbered[] = { AS_AX, AS_CX, AS_DX, AS_SI, AS_DI,
					 AS_R8, AS_R9, AS_R10, AS_R11 };
	int ident[AS_NR_REGS];		/* the incoming argument a register holds, -1 */
	int via[AS_NR_REGS];		/* ... the one it was loaded through, -1 */
	int base_ident = -1;
	uint32_t passed = 0;		/* arguments passed on loaded through themselves */
	csh h = decode__cs();
	cs_insn *in;
	const uint8_t *c = code;
	size_t sz = len;
	uint64_t a = code_addr;

	if (!h || op->skip != AS_OK || op->base < 0 || op->base >= AS_NR_REGS || op->rip ||
	    op->insn < code_addr || op->insn >= code_addr + len || !(in = cs_malloc(h)))
		return false;
	for (int r = 0; r < AS_NR_REGS; r++)
		ident[r] = via[r] = -1;
	for (int k = 0; k < (int)ARRAY_SIZE(args); k++)
		ident[args[k]] = k;
	while (decode__next(h, &c, &sz, &a, in)) {
		const cs_x86 *x = &in->detail->x86;
		const cs_x86_op *src;
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;
		int dst = -1, new_ident = -1, new_via = -1;

		if (in->address == op->insn)
			base_ident = ident[op->base];
		if ((in->id == X86_INS_CALL || in->id == X86_INS_JMP) && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_IMM) {
			if ((uint64_t)x->operands[0].imm == code_addr)
				for (int k = 0; k < (int)ARRAY_SIZE(args); k++)
					if (via[args[k]] == k)
						passed |= 1u << k;
			if (in->id == X86_INS_CALL)
				for (size_t k = 0; k < ARRAY_SIZE(clobbered); k++)
					ident[clobbered[k]] = via[clobbered[k]] = -1;
			continue;
		}
		if (cs_regs_access(h, in, rr, &nr, rw, &nw))
			break;
		if (in->id == X86_INS_MOV && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[0].size == 8 && x->operands[1].type == X86_OP_REG) {
			int r = decode__reg_family(x->operands[1].reg);

			dst = decode__reg_family(x->operands[0].reg);
			if (r >= 0 && r < AS_NR_REGS) {
				new_ident = ident[r];
				new_via = via[r];
			}
		} else if (is_pointer_load(in, &src) && in->id == X86_INS_MOV &&
			   src->type == X86_OP_MEM && src->mem.base != X86_REG_INVALID &&
			   src->mem.base != X86_REG_RIP && src->mem.segment == X86_REG_INVALID) {
			int b = decode__reg_family(src->mem.base);

			dst = decode__reg_family(x->operands[0].reg);
			if (b >= 0 && b < AS_NR_REGS)
				new_via = ident[b];
		}
		for (int k = 0; k < nw; k++) {
			int f = decode__reg_family(rw[k]);

			if (f < 0 || f >= AS_NR_REGS || f == AS_SP || f == AS_IP)
				continue;
			ident[f] = f == dst ? new_ident : -1;
			via[f] = f == dst ? new_via : -1;
		}
	}
	cs_free(in, 1);
	return base_ident >= 0 && (passed & (1u << base_ident));
}

static int cmp_jump_to(const void *a, const void *b)
{
	const struct as_jump *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

size_t addrsample__jumps(const uint8_t *code, size_t len, uint64_t code_addr, struct as_jump **out)
{
	csh h = decode__cs();
	cs_insn *in;
	const uint8_t *c = code;
	uint64_t a = code_addr;
	struct as_jump *j = NULL;
	size_t sz = len, n = 0, cap = 0;

	*out = NULL;
	if (!h || !(in = cs_malloc(h)))
		return 0;
	while (sz) {
		uint64_t at = a, to;

		if (!decode__next(h, &c, &sz, &a, in)) {
			/* data or padding between functions: step a byte */
			c++;
			sz--;
			a++;
			continue;
		}
		if (!(to = decode__jump_target(h, in)))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			j = xrealloc(j, cap * sizeof(*j));
		}
		j[n].from = at;
		j[n++].to = to;
	}
	cs_free(in, 1);
	if (n)
		qsort(j, n, sizeof(*j), cmp_jump_to);
	*out = j;
	return n;
}

bool addrsample__jump_lands(const struct as_jump *j, size_t n, uint64_t after, uint64_t upto,
			    uint64_t from_below)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first target past AFTER */
		size_t mid = (lo + hi) / 2;

		if (j[mid].to <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && j[lo].to <= upto; lo++)
		if (j[lo].from < from_below)
			return true;
	return false;
}

size_t addrsample__jump_targets(const uint8_t *code, size_t len, uint64_t code_addr,
				uint64_t **out)
{
	struct as_jump *j;
	size_t n = addrsample__jumps(code, len, code_addr, &j);

	*out = n ? xmalloc(n * sizeof(**out)) : NULL;
	for (size_t i = 0; i < n; i++)
		(*out)[i] = j[i].to;
	free(j);
	return n;
}

bool addrsample__decoder_ready(void)
{
	return decode__cs() != 0;
}

bool addrsample__stored_back(const uint8_t *code, size_t len, uint64_t code_addr,
			     const struct mem_operand *op)
{
	csh h = decode__cs();
	cs_insn *in;
	const uint8_t *c = code;
	uint64_t a = code_addr;
	size_t sz = len;
	bool found = false;

	if (!h || op->skip != AS_OK || !op->read || op->write || op->rip || op->clobbers)
		return false;
	in = cs_malloc(h);
	if (!in)
		return false;
	for (int n = 0; n < AS_STORE_MAX && decode__next(h, &c, &sz, &a, in); n++) {
		const cs_x86 *x = &in->detail->x86;
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;
		bool moved = false;

		if (is_branch(h, in))
			break;
		for (int i = 0; i < x->op_count; i++) {
			const cs_x86_op *m = &x->operands[i];
			int base = m->mem.base == X86_REG_INVALID ? -1 : decode__reg_family(m->mem.base);
			int index = m->mem.index == X86_REG_INVALID ? -1 : decode__reg_family(m->mem.index);

			if (m->type != X86_OP_MEM || !(mem_access(in, m) & CS_AC_WRITE))
				continue;
			if (base == op->base && index == op->index && m->mem.disp == op->disp &&
			    (index < 0 || (m->mem.scale ? m->mem.scale : 1) == op->scale) &&
			    m->size == op->size && m->mem.segment == X86_REG_INVALID)
				found = true;
		}
		if (found)
			break;
		if (cs_regs_access(h, in, rr, &nr, rw, &nw))
			break;
		for (int k = 0; k < nw; k++) {
			int f = decode__reg_family(rw[k]);

			if (f >= 0 && (f == op->base || f == op->index))
				moved = true;
		}
		if (moved)
			break;
	}
	cs_free(in, 1);
	return found;
}
