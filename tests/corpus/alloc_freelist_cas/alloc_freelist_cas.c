// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fixed-size block allocator with lock-free free lists (a Treiber stack
 * whose head holds a block index and an ABA tag, swapped with a 64-bit CAS).
 * Two threads allocate a block, fill it as a message would be built, and
 * free it again.  With -DBAD both threads share one global free list, so
 * every allocation and every free is a CAS on the same head; otherwise each
 * thread owns a free list (aligned to a line of its own) and its CAS never
 * meets the other thread's.
 *
 * Usage: alloc_freelist_cas [OPS_PER_THREAD]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NBLOCKS 4096
#define BLOCK_WORDS 8
#define NIL 0xffffffffu

struct block {
	uint32_t next;
	uint32_t len;
	uint64_t words[BLOCK_WORDS - 1];
};

struct freelist {
	_Alignas(64) uint64_t head;	/* tag << 32 | index */
};

static struct block *blocks;
static struct freelist pool[2];

static uint32_t pool_pop(struct freelist *fl)
{
	uint64_t old = __atomic_load_n(&fl->head, __ATOMIC_ACQUIRE), new;

	do {
		uint32_t idx = (uint32_t)old;

		if (idx == NIL)
			return NIL;
		new = ((old >> 32) + 1) << 32 | __atomic_load_n(&blocks[idx].next, __ATOMIC_RELAXED);
	} while (!__atomic_compare_exchange_n(&fl->head, &old, new, 1, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return (uint32_t)old;
}

static void pool_push(struct freelist *fl, uint32_t idx)
{
	uint64_t old = __atomic_load_n(&fl->head, __ATOMIC_RELAXED), new;

	do {
		__atomic_store_n(&blocks[idx].next, (uint32_t)old, __ATOMIC_RELAXED);
		new = ((old >> 32) + 1) << 32 | idx;
	} while (!__atomic_compare_exchange_n(&fl->head, &old, new, 1, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

struct worker {
	int id;
	long ops;
	uint64_t sum;
};

static void *alloc_loop(void *p)
{
	struct worker *w = p;
	uint64_t sum = 0;
#ifdef BAD
	struct freelist *fl = &pool[0];
#else
	struct freelist *fl = &pool[w->id];
#endif

	for (long i = 0; i < w->ops; i++) {
		uint32_t b = pool_pop(fl);

		if (b == NIL)
			continue;
		blocks[b].len = (uint32_t)(i & 63);
		for (int k = 0; k < BLOCK_WORDS - 1; k++)
			blocks[b].words[k] = (uint64_t)i * (k + 1);
		sum += blocks[b].words[i & 3] + b;
		pool_push(fl, b);
	}
	w->sum = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	long ops = argc > 1 ? atol(argv[1]) : 200000000;
	struct worker w[2] = { { .id = 0, .ops = ops }, { .id = 1, .ops = ops } };
	pthread_t t[2];

	blocks = aligned_alloc(64, NBLOCKS * sizeof(*blocks));
	if (!blocks)
		return 1;
	/* Blocks 0..N/2-1 on list 0 and the rest on list 1 (BAD uses list 0 only). */
	pool[0].head = pool[1].head = NIL;
	for (uint32_t i = 0; i < NBLOCKS; i++)
		pool_push(&pool[i < NBLOCKS / 2 ? 0 : 1], i);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, alloc_loop, &w[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("checksum %llu\n", (unsigned long long)(w[0].sum + w[1].sum));
	free(blocks);
	return 0;
}
