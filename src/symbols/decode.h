/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86-64 decoder of data-address sampling (capstone): the memory
 * operand of an instruction (struct mem_operand, model/addr.h) and its
 * effective address from sampled registers.
 */
#ifndef __MA_SYMBOLS_DECODE_H
#define __MA_SYMBOLS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/addr.h"

/* The decoder could be opened (capstone has x86-64): false means no decoding. */
bool addrsample__decoder_ready(void);

#define AS_VOTE_WINDOW 40	/* bytes tried before the IP without a symbol */

/*
 * The instruction starts of LEN bytes of CODE at START, appended to *V (*N
 * used of *CAP): each decoded instruction's start, then the end of the last
 * one decoded (it stops at the first that does not decode).  Decoded
 * through the decoder's cache, which the sampler's sweeps then find.
 * -ENOTSUP without a decoder.
 */
int decode__insn_starts(const uint8_t *code, size_t len, uint64_t start, uint64_t **v,
			size_t *n, size_t *cap);

/* Decodes the one instruction at code[0..len) placed at address addr. 0 or -EINVAL. */
int addrsample__decode(const uint8_t *code, size_t len, uint64_t addr, struct mem_operand *op);
/* Effective address from sampled registers (regs indexed by enum as_reg). */
uint64_t addrsample__ea(const struct mem_operand *op, const uint64_t *regs);
/*
 * Address of the instruction that ends exactly at ip.  code holds the bytes
 * [code_addr, ip); func_start (0 = unknown) is where a linear sweep may start.
 * Without it, or when the sweep does not land on ip, decoding starts at each
 * of the 40 bytes before ip and the last instruction's length is voted on.
 * 0 or -ENOENT.
 */
int addrsample__prev_insn(const uint8_t *code, uint64_t code_addr, uint64_t ip,
			  uint64_t func_start, uint64_t *insn);
/*
 * Where the instruction before ip has no memory operand: the last access
 * before it in the same straight run of code, at most AS_BACK_MAX
 * instructions back, swept from func_start (code holds [code_addr, ip)),
 * unless the instruction before ip is a jmp or ret (ip is then reached by a jump).
 * The run may hold no branch, and no branch seen in the sweep may land
 * inside it.  A base register the instructions after the access moved by a
 * constant (add, sub, inc, dec, lea) is moved back (op->adj); one they
 * changed otherwise makes the address approximate (op->clobbers).
 * 0 with *op filled, or -ENOENT.
 */
#define AS_BACK_MAX 4
/*
 * Whether the load OP is stored back: within the AS_STORE_MAX instructions
 * after it (code holds them, from the one right after the load, at
 * code_addr), with no branch and no write to its base or index between, an
 * instruction writes the same operand (base, index, scale, displacement and
 * size): a read-modify-write done as a load and a store (s->n += x on a
 * volatile or an -O0 build).  Its line is written, as a locked add's is.
 */
/*
 * Where OP's base register came from: the last instruction before OP (in a
 * sweep of CODE, LEN bytes of the function from its start FSTART) that sets
 * the base is lea base, [from + disp] (no index, another register, not the
 * stack or instruction pointer) or a pointer loaded, mov base, qword ptr
 * [from + load_disp], and after it only constants are added to the base
 * (disp).  The value must reach OP on every path: no other write to the
 * base, nor to a lea's source (a call writes the caller-saved ones), from
 * there to OP, and every jump landing between them comes from OP or after
 * it (a loop around OP) over code that writes neither; no indirect jump in
 * the function.  0 with *O set; -ENOENT when unknown.
 */
struct base_origin {
	int from;		/* enum as_reg */
	bool loaded;		/* the base is a pointer loaded from [from + load_disp] */
	int64_t load_disp;
	int64_t disp;		/* what the base is past from's value (lea), or the loaded pointer */
	uint64_t at;		/* the instruction that set it */
};
int addrsample__base_origin(const uint8_t *code, size_t len, uint64_t fstart,
			    const struct mem_operand *op, struct base_origin *o);

#define AS_STORE_MAX 8
bool addrsample__stored_back(const uint8_t *code, size_t len, uint64_t code_addr,
			     const struct mem_operand *op);
/*
 * The stores of the innermost loop around the instruction at HOT: from HOT
 * on (at most AS_LOOP_SCAN bytes), the first jump back to HOT or before it
 * closes the loop [target, end); its instructions, decoded from the target,
 * that write memory without reading it, other than through the stack
 * pointer (spills) or RIP-relative (global scalars), or to the element a
 * load of the loop read through the same registers unmoved (its line is
 * cached already), go to STORES (addresses, at most MAX).  CODE holds the
 * bytes from CODE_ADDR on.  The count, or -ENOENT when no loop closes.
 */
#define AS_LOOP_SCAN 1024	/* 1 KiB either side: an unrolled record loop is 723 bytes */
/*
 * The innermost loop around the instruction at HOT, found as
 * addrsample__loop_stores finds it: [*LO, *HI), 0; -ENOENT when no jump
 * back closes one within AS_LOOP_SCAN bytes.
 */
int addrsample__loop_range(const uint8_t *code, size_t len, uint64_t code_addr, uint64_t hot,
			   uint64_t *lo, uint64_t *hi);
int addrsample__loop_stores(const uint8_t *code, size_t len, uint64_t code_addr, uint64_t hot,
			    uint64_t *lo, uint64_t *hi, uint64_t *stores, int max);
/*
 * The memory operands of that loop (around OP's instruction) with OP's base
 * register and, if OP has one, its index register and scale (without one,
 * an access indexed from the same base reaches an array member at its
 * displacement): their displacements and sizes, distinct,
 * OP's own among them; the count, or -ENOENT.  What the loop reaches through
 * the same pointer: the other members of the object the samples hit.  The
 * displacements are relative to the base's value at OP: a constant added to
 * the base between two accesses (add $4 after the first of three loads) is
 * taken into account.  *BUMP (when not NULL) is what the loop added to the
 * base from its top (or from the base's last other write) to OP: the offset
 * of OP's access from where the base pointed on the loop's first pass.
 * *LEA_INDEXED (when not NULL): the base was last set, in the loop before
 * OP, by a lea with an index register: OP reaches an array's element.
 */
int addrsample__loop_siblings(const uint8_t *code, size_t len, uint64_t code_addr,
			      const struct mem_operand *op, int64_t *disp, uint8_t *size, int max,
			      int64_t *bump, bool *lea_indexed);
/*
 * What one pass of the loop around OP (found as addrsample__loop_stores
 * finds it) adds to the address OP reaches, when it moves OP's base and
 * index registers only by constants (add, sub, inc, lea off the register
 * itself): the walk's step in bytes (*STEP, nonzero), known from the code
 * whatever the samples caught.  -ENOENT otherwise (a register loaded or
 * computed, or neither moved).
 */
int addrsample__loop_step(const uint8_t *code, size_t len, uint64_t code_addr,
			  const struct mem_operand *op, int64_t *step);
/*
 * Whether the loop around OP loads OP's base register from memory (a
 * pointer of an array of arrays, ch[k], loaded for each k): then OP walks
 * several arrays in turn, each pass.
 */
bool addrsample__loop_reloads_base(const uint8_t *code, size_t len, uint64_t code_addr,
				   const struct mem_operand *op);
/*
 * The bytes the loop around OP reaches through OP's pointer in one pass:
 * the union of its accesses' [displacement, + size) through that base
 * (addrsample__loop_siblings), 0 when the loop is not found.  Eight 16-byte
 * stores a pass of a copy loop that steps 128 bytes fill 128.
 */
uint32_t addrsample__loop_fill(const uint8_t *code, size_t len, uint64_t code_addr,
			       const struct mem_operand *op);
/* The bytes the N spans [DISP[i], + SIZE[i]) cover together (overlaps once). */
uint32_t addrsample__span_union(const int64_t *disp, const uint8_t *size, int n);
/*
 * Whether the loop around OP (as addrsample__loop_stores finds it) also
 * stores with a repeated string instruction (rep stos, rep movs: an inlined
 * memset or memcpy): it writes bytes no displacement names, so what it
 * reaches of an object is not known from its accesses' displacements.
 */
bool addrsample__loop_bulk(const uint8_t *code, size_t len, uint64_t code_addr,
			   const struct mem_operand *op);
/*
 * Whether the loop around OP (found as addrsample__loop_stores finds it)
 * moves OP's base register only to a pointer loaded through it: p = p->next,
 * n = n->child[i], or through a register copied from it or loaded in turn
 * (p = p->a->b), plain or by a conditional move.  Each access then waits
 * for the load before it: a dependent chain, the loop cannot run ahead.  A
 * base also moved any other way (an add, a reload from the stack, a call's
 * result) is not one.
 */
bool addrsample__loop_chained(const uint8_t *code, size_t len, uint64_t code_addr,
			      const struct mem_operand *op);
/*
 * Whether OP's base is a pointer argument of the function that CODE holds
 * whole (from its start, CODE_ADDR), which the function passes on to
 * itself loaded through that same argument: eval(n) reads n->kind, then
 * calls eval(n->left) (or jumps back to its start with it, a tail call).
 * Each call's node comes from the node before: a dependent chain over calls,
 * a recursive tree or list walk.  Decoded in address order, not along the
 * branches.
 */
bool addrsample__call_chained(const uint8_t *code, size_t len, uint64_t code_addr,
			      const struct mem_operand *op);
/* A direct jump: the instruction's address and where it goes. */
struct as_jump {
	uint64_t from, to;
};

/*
 * The direct jumps in CODE (the bytes from CODE_ADDR on, decoded in order),
 * sorted by target, in *OUT (malloc'd; NULL when none).  The count.
 */
size_t addrsample__jumps(const uint8_t *code, size_t len, uint64_t code_addr, struct as_jump **out);
/* Whether one of the N jumps J (as sorted there) at an address below FROM_BELOW lands in (AFTER, UPTO]. */
bool addrsample__jump_lands(const struct as_jump *j, size_t n, uint64_t after, uint64_t upto,
			    uint64_t from_below);
/*
 * The targets of the direct jumps in CODE (the bytes from CODE_ADDR on,
 * decoded in order), sorted, in *OUT (malloc'd; NULL when none): a sample
 * at one may have come from the jump, and the instruction before it in
 * memory tells nothing of what ran.  The count.
 */
size_t addrsample__jump_targets(const uint8_t *code, size_t len, uint64_t code_addr,
				uint64_t **out);
/* Of an IP's samples (DECODED with an address), those that blame OP. */
uint64_t addrsample__blamed(const struct mem_operand *op, uint64_t samples, uint64_t decoded);

int addrsample__decode_back(const uint8_t *code, uint64_t code_addr, uint64_t func_start,
			    uint64_t ip, struct mem_operand *op);

#endif
