// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pointer chase over a random cycle of 64-byte nodes (latency bound).
 * Usage: chase NODES STEPS [ADDRFILE]: writes the array's range to ADDRFILE.
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *next;
	long pad[7];
};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1 << 20, steps = argc > 2 ? atol(argv[2]) : 20000000;
	struct node *a = malloc(n * sizeof(*a)), *p;
	long *perm = malloc(n * sizeof(*perm));
	unsigned long x = 88172645463325252UL;

	if (!a || !perm)
		return 1;
	for (long i = 0; i < n; i++)
		perm[i] = i;
	for (long i = n - 1; i > 0; i--) {
		long j;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		j = (long)(x % (unsigned long)(i + 1));
		long t = perm[i]; perm[i] = perm[j]; perm[j] = t;
	}
	for (long i = 0; i < n; i++)
		a[perm[i]].next = &a[perm[(i + 1) % n]];
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");

		if (!f)
			return 1;
		fprintf(f, "%lx %lx\n", (unsigned long)a, (unsigned long)(a + n));
		fclose(f);
	}
	p = &a[perm[0]];
	for (long s = 0; s < steps; s++)
		p = p->next;
	printf("%p\n", (void *)p);
	return 0;
}
