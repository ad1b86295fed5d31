/*
 * graph_random_walk: the sampling stage of a graph-embedding trainer
 * (DeepWalk style) generates random walks over a social graph of 16M
 * vertices with 4 neighbours each (256 MiB adjacency array). Every step
 * reads a random neighbour of the current vertex, so each step is one
 * dependent load at a random place among 65536 4 KiB pages: nearly every
 * step misses the data TLBs and waits for a page walk on top of the cache
 * miss. BAD allocates the adjacency with plain mmap (THP is in "madvise"
 * mode here); GOOD maps it 2 MiB aligned and calls madvise(MADV_HUGEPAGE)
 * before building the graph, so it needs 128 TLB entries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NV	(1u << 24)
#define DEG	4
#define HUGE_SZ	(2ul << 20)

static uint32_t *adj_map(size_t bytes)
{
#ifdef BAD
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#else
	char *p = mmap(NULL, bytes + HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (madvise(a, bytes, MADV_HUGEPAGE))
		perror("madvise");
	return (uint32_t *)a;
#endif
}

/* One walk of 'len' steps from 'start'; returns the vertex it ends on. */
static __attribute__((noinline)) uint32_t walk(const uint32_t *adj, uint32_t start, int len,
					       uint64_t *rng, uint64_t *visits)
{
	uint32_t v = start;
	uint64_t x = *rng;

	for (int s = 0; s < len; s++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		v = adj[(size_t)v * DEG + (x & (DEG - 1))];
		*visits += v & 1;
	}
	*rng = x;
	return v;
}

int main(int argc, char **argv)
{
	long walks = argc > 1 ? atol(argv[1]) : 150000;
	uint32_t *adj = adj_map((size_t)NV * DEG * sizeof(uint32_t));
	uint64_t x = 0xda942042e4dd58b5ull, visits = 0, check = 0;

	if (!adj)
		return 1;
	for (size_t e = 0; e < (size_t)NV * DEG; e++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		adj[e] = (uint32_t)(x >> 40);		/* 24 bits: a vertex id */
	}
	for (long w = 0; w < walks; w++)
		check += walk(adj, (uint32_t)(w * 2654435761u) & (NV - 1), 80, &x, &visits);
	printf("checksum %llu %llu\n", (unsigned long long)check, (unsigned long long)visits);
	return 0;
}
