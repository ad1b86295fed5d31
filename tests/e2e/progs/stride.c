// SPDX-License-Identifier: GPL-2.0-only
/*
 * Strided reads over an array of longs (MIB MiB, 64 by default): STRIDE
 * bytes apart (a multiple of 8), PASSES passes.  The inner loop is the
 * line marked HOT.  With DEP 1 (0 by default) each read waits for the one
 * before it (the next index depends on the sum so far), so a pass runs at
 * the memory's latency rather than its bandwidth and takes longer.
 * Usage: stride [STRIDE [PASSES [MIB [DEP]]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long stride = argc > 1 ? atol(argv[1]) : 256, passes = argc > 2 ? atol(argv[2]) : 40;
	long mib = argc > 3 ? atol(argv[3]) : 64, dep = argc > 4 ? atol(argv[4]) : 0;
	long zero = argc > 99; /* 0, but not to the compiler: the dependence stays */
	long n = (mib << 20) / (long)sizeof(long), step = stride / (long)sizeof(long), sum = 0;
	long *a = malloc(n * sizeof(*a));

	if (!a || step <= 0)
		return 1;
	memset(a, 1, n * sizeof(*a));
	for (long p = 0; p < passes; p++) {
		if (!dep)
			for (long i = 0; i < n; i += step)
				sum += a[i]; /* HOT */
		else
			for (long i = 0; i < n; i += step + (sum & zero))
				sum += a[i]; /* HOT (DEP) */
		__asm__ volatile("" : : : "memory");
	}
	printf("%ld\n", sum);
	return 0;
}
