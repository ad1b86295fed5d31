/*
 * rpc_mmap_scratch: two worker threads of an RPC server decode requests.
 * Each request needs a 256 KiB scratch area for decompression; BAD maps
 * it with mmap and unmaps it with munmap for every request, so every
 * request takes 64 zero-fill page faults, and every munmap also takes the
 * process-wide mmap lock and flushes the TLB of the other worker. GOOD
 * gives each worker one scratch area, mapped once and reused.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define SCRATCH	(256ul << 10)
#define NWORKER	2

struct worker {
	pthread_t tid;
	long requests;
	uint64_t sum;
	char *scratch;		/* GOOD: mapped once per worker */
};

static char *scratch_get(struct worker *w)
{
#ifdef BAD
	char *p = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)w;
	return p == MAP_FAILED ? NULL : p;
#else
	return w->scratch;
#endif
}

static void scratch_put(char *p)
{
#ifdef BAD
	munmap(p, SCRATCH);
#else
	(void)p;
#endif
}

/* "Decompress" a request into the scratch area and checksum the result. */
static __attribute__((noinline)) uint64_t handle_request(struct worker *w, uint32_t seed)
{
	char *buf = scratch_get(w);
	uint64_t sum = 0;
	uint32_t x = seed | 1;

	if (!buf)
		abort();
	for (size_t i = 0; i < SCRATCH; i += 16) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		buf[i] = (char)x;
	}
	for (size_t i = 0; i < SCRATCH; i += 256)
		sum += (unsigned char)buf[i];
	scratch_put(buf);
	return sum;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (long r = 0; r < w->requests; r++)
		w->sum += handle_request(w, (uint32_t)(r * 2654435761u));
	return NULL;
}

int main(int argc, char **argv)
{
	long requests = argc > 1 ? atol(argv[1]) : 3000;
	struct worker w[NWORKER];
	uint64_t check = 0;

	for (int i = 0; i < NWORKER; i++) {
		w[i].requests = requests;
		w[i].sum = 0;
		w[i].scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (w[i].scratch == MAP_FAILED)
			return 1;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]))
			return 1;
	}
	for (int i = 0; i < NWORKER; i++) {
		pthread_join(w[i].tid, NULL);
		check += w[i].sum;
	}
	printf("checksum %llu\n", (unsigned long long)check);
	return 0;
}
