// SPDX-License-Identifier: GPL-2.0-only
/*
 * One known hot source line: hot_loop()'s loop body (marked HOT) takes
 * nearly all the CPU time; cold_loop() takes a tenth of it.
 * Usage: hot_line [ITERATIONS_MILLIONS] [threads: 1|2]
 * With 2 threads, the second thread runs cold_loop only (threads differ).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long iters;
static volatile double sink;

/* Called by the loops so that they are not leaf functions and keep a frame. */
__attribute__((noinline)) static void keep(double v)
{
	sink = v;
}

__attribute__((noinline)) static double hot_loop(long n)
{
	double x = 1.0;

	for (long i = 0; i < n; i++) x = x * 1.0000001 + 1e-9; /* HOT */
	keep(x);
	return x;
}

__attribute__((noinline)) static double cold_loop(long n)
{
	double y = 2.0;

	for (long i = 0; i < n; i++)
		y = y * 0.9999999 + 1e-9;
	keep(y);
	return y;
}

static void *other(void *arg)
{
	double *out = arg;

	*out = cold_loop(iters);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t;
	double a, b = 0;

	iters = (argc > 1 ? atol(argv[1]) : 100) * 1000000L;
	if (threads > 1 && pthread_create(&t, NULL, other, &b))
		return 1;
	a = hot_loop(iters) + cold_loop(iters / 10);
	if (threads > 1)
		pthread_join(t, NULL);
	printf("%g %g\n", a, b);
	return 0;
}
