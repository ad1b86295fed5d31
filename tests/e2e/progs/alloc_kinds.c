// SPDX-License-Identifier: GPL-2.0-only
/*
 * 64 MiB from one allocator, every page touched, then random reads over it
 * for SECONDS: alloc_kinds malloc|mmap|static [SECONDS].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define SIZE (64UL << 20)

static char table[SIZE];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "malloc";
	double end = now() + (argc > 2 ? atof(argv[2]) : 1.0);
	unsigned long x = 88172645463325252UL, sum = 0;
	char *p;

	if (!strcmp(mode, "malloc"))
		p = malloc(SIZE);
	else if (!strcmp(mode, "mmap"))
		p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		p = table;
	if (!p || p == MAP_FAILED)
		return 1;
	for (unsigned long i = 0; i < SIZE; i += 4096)
		p[i] = (char)i;
	/*
	 * Random 8-byte reads whose address stays live after the load, so a
	 * sampled register set still holds the address read (a load into its
	 * own address register would overwrite it).
	 */
	while (now() < end)
		for (int k = 0; k < 100000; k++) {
			volatile unsigned long *a;

			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			a = (volatile unsigned long *)p + x % (SIZE / 8);
			sum += *a;
			__asm__ volatile("" : : "r"(a)); /* the address stays live */
		}
	printf("%lu\n", sum);
	return 0;
}
