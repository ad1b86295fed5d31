// SPDX-License-Identifier: GPL-2.0-only
/*
 * One program per bound, for the verdict: bounds MODE SECONDS
 *   syscall  getppid() in a loop (kernel)
 *   compute  a multiply-add recurrence in registers (compute)
 *   sleep    nanosleep (idle)
 *   walk     a pointer chase over 128 MiB of 64-byte nodes (memory)
 *   lock     four threads taking one mutex for a short critical section:
 *            one holds it while the others wait (locks)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct node {
	struct node *next;
	long pad[7];
};

static long walk(void)
{
	long n = (128L << 20) / sizeof(struct node), steps = 0;
	struct node *a = malloc(n * sizeof(*a)), *p;
	long *perm = malloc(n * sizeof(*perm));
	unsigned long x = 88172645463325252UL;
	double end;

	if (!a || !perm)
		return -1;
	for (long i = 0; i < n; i++)
		perm[i] = i;
	for (long i = n - 1; i > 0; i--) {
		long j, t;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		j = (long)(x % (unsigned long)(i + 1));
		t = perm[i]; perm[i] = perm[j]; perm[j] = t;
	}
	for (long i = 0; i < n; i++)
		a[perm[i]].next = &a[perm[(i + 1) % n]];
	free(perm);
	p = &a[0];
	end = now() + seconds;
	while (now() < end) {
		for (int k = 0; k < 100000; k++)
			p = p->next;
		steps++;
	}
	printf("%p %ld\n", (void *)p, steps);
	return 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long shared_work;

static void *locker(void *arg)
{
	double end = now() + seconds;

	(void)arg;
	while (now() < end) {
		pthread_mutex_lock(&mu);
		/* a critical section long enough for the other thread to block */
		for (int i = 0; i < 20000; i++)
			shared_work++;
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "compute";
	double end;

	seconds = argc > 2 ? atof(argv[2]) : 1.0;
	end = now() + seconds;
	if (!strcmp(mode, "syscall")) {
		long n = 0;

		while (now() < end)
			for (int i = 0; i < 1000; i++, n++)
				syscall(SYS_getppid);
		printf("%ld\n", n);
	} else if (!strcmp(mode, "compute")) {
		unsigned long x = 1;

		while (now() < end)
			for (int i = 0; i < 1000000; i++)
				x = x * 6364136223846793005UL + 1442695040888963407UL;
		printf("%lu\n", x);
	} else if (!strcmp(mode, "sleep")) {
		struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };

		nanosleep(&ts, NULL);
	} else if (!strcmp(mode, "walk")) {
		return walk() ? 1 : 0;
	} else if (!strcmp(mode, "lock")) {
		pthread_t t[4];

		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, locker, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		printf("%lu\n", shared_work);
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
