/*
 * kv_store_thp: the online feature store of a recommender serves GETs of
 * 64-byte user records by user id from a 1 GiB table (16M records),
 * restored sequentially from a snapshot at start. The ids of the requests
 * are random, so every GET lands on a random page among 262144 4 KiB
 * pages, far beyond the reach of the data TLBs (and the page tables, 2 MiB
 * of them, do not stay in L2 either): nearly every GET pays a page walk
 * on top of its cache miss. BAD maps the table with plain mmap (THP is in
 * "madvise" mode here, so it stays on 4 KiB pages); GOOD maps it 2 MiB
 * aligned and calls madvise(MADV_HUGEPAGE) before the restore, so the
 * table needs 512 TLB entries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NREC		(1ul << 24)	/* 16M records x 64 bytes = 1 GiB */
#define HUGE_SZ		(2ul << 20)

struct user_rec {
	uint64_t user;
	uint32_t score;
	uint32_t flags;
	uint64_t feat[6];
};

_Static_assert(sizeof(struct user_rec) == 64, "one line per record");

static struct user_rec *table__map(size_t bytes)
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
	return (struct user_rec *)a;
#endif
}

static void table__restore(struct user_rec *t)
{
	for (uint64_t i = 0; i < NREC; i++) {
		t[i].user = i;
		t[i].score = (uint32_t)(i * 2654435761u) >> 24;
		t[i].flags = i & 3;
		for (int k = 0; k < 6; k++)
			t[i].feat[k] = i ^ k;
	}
}

static __attribute__((noinline)) uint64_t serve_gets(const struct user_rec *t, uint64_t *rng,
						      long n)
{
	uint64_t sum = 0, x = *rng;

	for (long i = 0; i < n; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		const struct user_rec *r = &t[x & (NREC - 1)];

		if (r->flags != 3)
			sum += r->score + r->feat[0];
	}
	*rng = x;
	return sum;
}

int main(int argc, char **argv)
{
	long gets = argc > 1 ? atol(argv[1]) : 60000000;
	struct user_rec *t = table__map(NREC * sizeof(struct user_rec));
	uint64_t rng = 88172645463325252ull, check;

	if (!t)
		return 1;
	table__restore(t);
	check = serve_gets(t, &rng, gets);
	printf("checksum %llu\n", (unsigned long long)check);
	return 0;
}
