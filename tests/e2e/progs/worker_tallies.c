/*
 * Two workers classify numbers and keep their tallies in one global array,
 * a row each: three counters of 8 bytes, so both rows share a cache line
 * (false sharing on a global no struct describes).  -DPAD gives each row a
 * line of its own.  Usage: worker_tallies [MILLIONS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 2

#ifdef PAD
static struct {
	_Alignas(64) unsigned long c[3];
} tallies[WORKERS];
#define TALLY(w, k) tallies[w].c[k]
#else
static unsigned long tallies[WORKERS][3] __attribute__((aligned(64)));
#define TALLY(w, k) tallies[w][k]
#endif

static long per_worker;

static void *work(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1);

	for (long i = 0; i < per_worker; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		TALLY(w, x % 3)++;
		/* the compiler must store each count: another thread could read it */
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[WORKERS];
	unsigned long sum = 0;

	per_worker = (argc > 1 ? atol(argv[1]) : 150) * 1000000L;
	for (int w = 0; w < WORKERS; w++)
		pthread_create(&t[w], NULL, work, (void *)(intptr_t)w);
	for (int w = 0; w < WORKERS; w++)
		pthread_join(t[w], NULL);
	for (int w = 0; w < WORKERS; w++)
		for (int k = 0; k < 3; k++)
			sum += TALLY(w, k);
	printf("%lu\n", sum);
	return 0;
}
