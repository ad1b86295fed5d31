// SPDX-License-Identifier: GPL-2.0-only
/*
 * Strided reads over an array of longs (MIB MiB, 64 by default): STRIDE
 * bytes apart (a multiple of 8), PASSES passes.  The inner loop is the
 * line marked HOT.  Usage: stride [STRIDE [PASSES [MIB]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long stride = argc > 1 ? atol(argv[1]) : 256, passes = argc > 2 ? atol(argv[2]) : 40;
	long mib = argc > 3 ? atol(argv[3]) : 64;
	long n = (mib << 20) / (long)sizeof(long), step = stride / (long)sizeof(long), sum = 0;
	long *a = malloc(n * sizeof(*a));

	if (!a || step <= 0)
		return 1;
	memset(a, 1, n * sizeof(*a));
	for (long p = 0; p < passes; p++) {
		for (long i = 0; i < n; i += step)
			sum += a[i]; /* HOT */
		__asm__ volatile("" : : : "memory");
	}
	printf("%ld\n", sum);
	return 0;
}
