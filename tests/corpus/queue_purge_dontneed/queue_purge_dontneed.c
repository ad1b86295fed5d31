/*
 * queue_purge_dontneed: a message broker consumes batches of messages
 * into a 16 MiB staging arena, indexes them, and after each batch hands the
 * arena's pages back to the kernel with madvise(MADV_DONTNEED) to keep its
 * resident size low. The next batch writes the same addresses again, so
 * every batch takes 4096 fresh zero-fill page faults. GOOD keeps the arena
 * resident and only resets its fill pointer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA	(16ul << 20)
#define MSGMAX	512

struct arena {
	char *base;
	size_t used;
};

static void *arena__alloc(struct arena *a, size_t n)
{
	void *p;

	n = (n + 15) & ~15ul;
	if (a->used + n > ARENA)
		return NULL;
	p = a->base + a->used;
	a->used += n;
	return p;
}

static void arena__reset(struct arena *a)
{
#ifdef BAD
	if (madvise(a->base, ARENA, MADV_DONTNEED))
		perror("madvise");
#endif
	a->used = 0;
}

static __attribute__((noinline)) uint64_t consume_batch(struct arena *a, uint32_t *rng)
{
	uint64_t sum = 0;
	char *msg;

	for (;;) {
		uint32_t x = *rng, len;

		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		*rng = x;
		len = 64 + x % (MSGMAX - 64);
		msg = arena__alloc(a, len);
		if (!msg)
			break;
		for (uint32_t i = 0; i < len; i += 8)	/* receive */
			memcpy(msg + i, &x, 4);
		sum += (unsigned char)msg[len / 2] + len;	/* index */
	}
	arena__reset(a);
	return sum;
}

int main(int argc, char **argv)
{
	int batches = argc > 1 ? atoi(argv[1]) : 80;
	struct arena a = { NULL, 0 };
	uint32_t rng = 2463534242u;
	uint64_t check = 0;

	a.base = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a.base == MAP_FAILED)
		return 1;
	for (int b = 0; b < batches; b++)
		check += consume_batch(&a, &rng);
	printf("checksum %llu\n", (unsigned long long)check);
	munmap(a.base, ARENA);
	return 0;
}
