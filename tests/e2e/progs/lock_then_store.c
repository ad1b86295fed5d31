// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two threads take two spin locks (each in its own cache line) in turn for
 * MS milliseconds (400 by default), then write a plain counter in each
 * lock's line for a quarter of that.  Each line is written most by the
 * lock's exchange (line XCHG), and last by the plain store (line STORE).
 * Usage: lock_then_store [MS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static struct slot {
	int lock;
	long count;
	volatile long after[2];
} __attribute__((aligned(64))) slots[2];

static double t_lock, t_store;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	long id = (long)arg, n = 0;

	while (now() < t_lock) {
		for (int i = 0; i < 1000; i++) {
			struct slot *s = &slots[(n + i) & 1];

			while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)) /* XCHG */
				;
			s->count++;
			__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
		}
		n++;
	}
	while (now() < t_store)
		for (int i = 0; i < 1000; i++)
			slots[i & 1].after[id] = i; /* STORE */
	return NULL;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400;
	pthread_t t[2];

	t_lock = now() + ms / 1e3;
	t_store = t_lock + ms / 4e3;
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", slots[0].count, slots[1].count);
	return 0;
}
