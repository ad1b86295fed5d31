// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two fault phases, one after the other: first_touch() faults NA pages, then
 * storm() faults NB pages.  A short phase before a storm is what a sampled
 * fault profile gets wrong when a sample's period is taken at its word.
 */
#include <stdlib.h>
#include <sys/mman.h>

static char *map(long n)
{
	char *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * 4096, MADV_NOHUGEPAGE);
	return p;
}

__attribute__((noinline)) static void first_touch(char *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * 4096] = 1;
}

__attribute__((noinline)) static void storm(char *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * 4096] = 2;
}

int main(int argc, char **argv)
{
	long na = argc > 1 ? atol(argv[1]) : 5000, nb = argc > 2 ? atol(argv[2]) : 50000;
	char *a = map(na), *b = map(nb);

	first_touch(a, na);
	storm(b, nb);
	return 0;
}
