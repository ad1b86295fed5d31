/*
 * kv_store_thp: an in-memory key-value cache serves GETs from a 256 MiB
 * open-addressing table of 16-byte slots (key, value offset) at random
 * keys. Each GET lands on a random page of 65536 4 KiB pages, far beyond
 * the reach of the data TLBs, so nearly every GET also pays a page walk.
 * BAD allocates the table with plain mmap (transparent huge pages are in
 * "madvise" mode here, so it stays on 4 KiB pages); GOOD maps it 2 MiB
 * aligned and asks for huge pages with madvise(MADV_HUGEPAGE) before the
 * first touch, so the same table needs 128 TLB entries instead of 65536.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define SLOTS		(1ul << 24)	/* 16M slots x 16 bytes = 256 MiB */
#define HUGE_SZ		(2ul << 20)

struct slot {
	uint64_t key;
	uint64_t val;
};

static struct slot *table__map(size_t bytes)
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
	return (struct slot *)a;
#endif
}

static inline uint64_t hash(uint64_t k)
{
	k ^= k >> 31;
	k *= 0x7fb5d329728ea185ull;
	k ^= k >> 27;
	return k;
}

static __attribute__((noinline)) uint64_t serve_gets(const struct slot *t, uint64_t *rng, long n)
{
	uint64_t hits = 0, x = *rng;

	for (long i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		uint64_t key = (x % (SLOTS / 2)) + 1;
		uint64_t s = hash(key) & (SLOTS - 1);

		while (t[s].key && t[s].key != key)
			s = (s + 1) & (SLOTS - 1);
		hits += t[s].val;
	}
	*rng = x;
	return hits;
}

int main(int argc, char **argv)
{
	long gets = argc > 1 ? atol(argv[1]) : 40000000;
	struct slot *t = table__map(SLOTS * sizeof(struct slot));
	uint64_t rng = 88172645463325252ull, check = 0;

	if (!t)
		return 1;
	for (uint64_t k = 1; k <= SLOTS / 2; k++) {	/* load: half full */
		uint64_t s = hash(k) & (SLOTS - 1);

		while (t[s].key)
			s = (s + 1) & (SLOTS - 1);
		t[s].key = k;
		t[s].val = k & 0xff;
	}
	check = serve_gets(t, &rng, gets);
	printf("checksum %llu\n", (unsigned long long)check);
	return 0;
}
