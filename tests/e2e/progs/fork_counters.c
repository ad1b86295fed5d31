// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two forked processes, each writing its own counter of one struct, at the
 * same address in both.  'private': the struct is a global, each process
 * has its own copy (nothing is shared); 'shared': it is in a MAP_SHARED
 * mapping made before the fork, one copy for both (false sharing across
 * processes).  Usage: fork_counters private|shared [ITERS]
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct counters {
	volatile long a; /* written by the first child */
	volatile long b; /* written by the second */
} counters;

static void work(volatile long *c, long iters)
{
	for (long i = 0; i < iters; i++)
		(*c)++; /* HOT */
}

int main(int argc, char **argv)
{
	struct counters *c = &counters;
	long iters = argc > 2 ? atol(argv[2]) : 100000000;

	if (argc < 2 || (strcmp(argv[1], "private") && strcmp(argv[1], "shared")))
		return 2;
	if (!strcmp(argv[1], "shared")) {
		c = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			return 1;
	}
	for (int k = 0; k < 2; k++)
		if (fork() == 0) {
			work(k ? &c->b : &c->a, iters);
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	return 0;
}
