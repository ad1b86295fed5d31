// SPDX-License-Identifier: GPL-2.0-only
/*
 * The middle end of a JIT for a query language: a function's body is a
 * doubly linked list of IR instructions, LLVM style.  The front end emits
 * the instructions one by one, but inlining and code motion insert each
 * new instruction after an arbitrary existing one, so the order of the
 * list has nothing to do with the order the nodes were allocated in.
 * Then the optimisation pipeline runs its passes, each one a walk of the
 * whole list: strength reduction, a dead-code marking pass, a value-hash
 * pass for common-subexpression candidates, and the renumbering of the
 * instructions; the pipeline runs twice (the second time after more
 * code was inlined elsewhere).
 *
 * BAD: the passes walk the nodes where the builder left them: each step
 *      follows a next pointer to a node somewhere else among 1 M nodes
 *      (80 MB of heap) and waits for it before it knows where the
 *      following one is.
 * GOOD: once the body is built, the nodes are copied into one pool in
 *      list order and relinked (what a compacting "finalize" step does),
 *      so the same walks go through memory front to back.
 *
 * Usage: ir_insn_list_passes [INSNS [ROUNDS]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_CONST, OP_ADD, OP_SUB, OP_MUL, OP_SHL, OP_LOAD, OP_STORE, OP_CMP, OP_BR, OP_NOP, NOPS };

struct insn {
	struct insn *next;
	struct insn *prev;
	uint32_t id;
	uint16_t op;
	uint16_t flags;		/* 1: dead, 2: has side effects */
	uint32_t src[2];	/* operand value ids */
	int64_t imm;
	uint32_t block;
	uint32_t line;
	uint64_t vhash;
	uint32_t uses;
	uint32_t type;
};

struct func {
	struct insn head;	/* sentinel */
	size_t n;
};

static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void insert_after(struct insn *pos, struct insn *in)
{
	in->prev = pos;
	in->next = pos->next;
	pos->next->prev = in;
	pos->next = in;
}

/* Emit n instructions, each after a random one already emitted. */
static struct insn **build(struct func *fn, size_t n)
{
	struct insn **all = malloc(n * sizeof(*all));

	fn->head.next = fn->head.prev = &fn->head;
	fn->n = n;
	for (size_t i = 0; i < n; i++) {
		struct insn *in = malloc(sizeof(*in));
		uint64_t r = next_rand();

		memset(in, 0, sizeof(*in));
		in->op = (uint16_t)(r % NOPS);
		in->src[0] = (uint32_t)((r >> 8) % (i + 1));
		in->src[1] = (uint32_t)((r >> 32) % (i + 1));
		in->imm = (r >> 50) % 5 ? (int64_t)(1u << ((r >> 20) % 12)) : (int64_t)((r >> 24) & 0xfff);
		in->flags = in->op == OP_STORE || in->op == OP_BR ? 2 : 0;
		in->line = (uint32_t)i;
		in->type = (uint32_t)(r >> 60);
		insert_after(i ? all[(r >> 40) % i] : &fn->head, in);
		all[i] = in;
	}
	return all;
}

#ifndef BAD
/* Finalize: move the nodes into one pool in list order. */
static struct insn *compact(struct func *fn, struct insn **all)
{
	struct insn *pool = malloc(fn->n * sizeof(*pool)), *prev = &fn->head;
	size_t k = 0;

	for (struct insn *in = fn->head.next; in != &fn->head; in = in->next) {
		pool[k] = *in;
		pool[k].prev = prev;
		prev->next = &pool[k];
		prev = &pool[k];
		k++;
	}
	prev->next = &fn->head;
	fn->head.prev = prev;
	for (size_t i = 0; i < fn->n; i++)
		free(all[i]);
	return pool;
}
#endif

/* x * 2^k  ->  x << k */
static __attribute__((noinline)) uint32_t strength_reduce(struct func *fn)
{
	uint32_t changed = 0;

	for (struct insn *in = fn->head.next; in != &fn->head; in = in->next)
		if (in->op == OP_MUL && in->imm > 0 && !(in->imm & (in->imm - 1))) {
			in->op = OP_SHL;
			in->imm = __builtin_ctzll((uint64_t)in->imm);
			changed++;
		}
	return changed;
}

/* A cheap dead-code marking: no uses and no side effects. */
static __attribute__((noinline)) uint32_t mark_dead(struct func *fn, uint32_t *uses)
{
	uint32_t dead = 0;

	for (struct insn *in = fn->head.next; in != &fn->head; in = in->next) {
		in->uses = uses[in->line];
		if (!in->uses && !(in->flags & 2) && in->op != OP_NOP) {
			in->flags |= 1;
			dead++;
		}
	}
	return dead;
}

static __attribute__((noinline)) uint64_t value_hash(struct func *fn)
{
	uint64_t h = 0;

	for (struct insn *in = fn->head.next; in != &fn->head; in = in->next) {
		uint64_t v = ((uint64_t)in->op << 48) ^ ((uint64_t)in->src[0] << 24) ^ in->src[1];

		v ^= (uint64_t)in->imm * 0x9e3779b97f4a7c15ull;
		v ^= v >> 29;
		in->vhash = v;
		h = h * 0x100000001b3ull + (v ^ in->flags);
	}
	return h;
}

static __attribute__((noinline)) uint32_t renumber(struct func *fn)
{
	uint32_t id = 0, block = 0;

	for (struct insn *in = fn->head.next; in != &fn->head; in = in->next) {
		in->id = id++;
		in->block = block;
		block += in->op == OP_BR;
	}
	return block;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 2;
	struct func fn;
	struct insn **all = build(&fn, n);
	uint32_t *uses = calloc(n, sizeof(*uses));
	uint64_t sum = 0;

	if (!all || !uses)
		return 1;
	for (size_t i = 0; i < n; i++) {
		uses[all[i]->src[0]]++;
		uses[all[i]->src[1]]++;
	}
#ifndef BAD
	struct insn *pool = compact(&fn, all);
#endif
	for (int r = 0; r < rounds; r++) {
		sum = sum * 1000003 + strength_reduce(&fn);
		sum = sum * 1000003 + mark_dead(&fn, uses);
		sum = sum * 1000003 + value_hash(&fn);
		sum = sum * 1000003 + renumber(&fn);
		/* the next round sees a few more uses (new code inlined elsewhere) */
		for (size_t i = 0; i < n / 64; i++)
			uses[next_rand() % n]++;
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
