// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two threads, each writing its own counter of one global struct: the
 * counters share a cache line (false sharing).  Usage: fshare [ITERS [MS]]
 * (MS: the second thread starts writing that many milliseconds late)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct counters {
	volatile long a; /* written by thread 0 */
	volatile long b; /* written by thread 1 */
} counters;

static long iters = 50000000, late_ms;

static void *worker(void *arg)
{
	volatile long *c = arg ? &counters.b : &counters.a;

	if (arg && late_ms) {
		struct timespec d = { late_ms / 1000, late_ms % 1000 * 1000000L };

		nanosleep(&d, NULL);
	}
	for (long i = 0; i < iters; i++)
		(*c)++; /* WRITE */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		iters = atol(argv[1]);
	if (argc > 2)
		late_ms = atol(argv[2]);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", counters.a, counters.b);
	return 0;
}
