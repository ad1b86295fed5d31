// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hot loop in a function inlined into another, itself inlined into main:
 * the line marked HOT is in sum_scaled, called from sum_twice.
 * Usage: inlined [REPS]
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1L << 20)

static inline __attribute__((always_inline)) long sum_scaled(const long *a, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += a[i] * 3 + (a[i] >> 2); /* HOT */
	return s;
}

static inline __attribute__((always_inline)) long sum_twice(const long *a, long n)
{
	return sum_scaled(a, n) + sum_scaled(a + 1, n - 1);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 300;
	long *a = calloc(N, sizeof(*a)), s = 0;

	if (!a)
		return 1;
	for (long i = 0; i < N; i++)
		a[i] = i;
	for (int r = 0; r < reps; r++)
		s += sum_twice(a, N);
	printf("%ld\n", s);
	return 0;
}
