// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two forked processes, each writing its own counter of one struct, at the
 * same address in both.  'private': the struct is a global, each process
 * has its own copy (nothing is shared); 'shared': it is in a MAP_SHARED
 * mapping made before the fork, one copy for both (false sharing across
 * processes).  Usage: fork_counters private|shared [MS]
 * Each child stores to its counter for MS milliseconds of its own CPU time
 * (default 400): a count of writes took 24 ms on a core that forwards a
 * store to the next load at once, and 300 on others, and 400 ms of wall time
 * gave the two children 0.2 s of CPU on a loaded host; the samples a run
 * gives follow its CPU time, not its writes nor the clock.  The loop only
 * stores: the samples of an increment, (*c)++, land after its load (a read)
 * 96% of the time where the children run at once and 99.7% where they take
 * turns on a CPU (Zen 4 guest), so the shared line showed only where both
 * children's few sampled writes happened to be caught, and the private
 * copies were "not shared" because one write was sampled in all.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct counters {
	volatile long a; /* written by the first child */
	volatile long b; /* written by the second */
} counters;

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void work(volatile long *c, long ms)
{
	double end = cpu_ms() + ms;

	do {
		for (long i = 0; i < (1L << 20); i++)
			*c = i; /* HOT */
	} while (cpu_ms() < end);
}

int main(int argc, char **argv)
{
	struct counters *c = &counters;
	long ms = argc > 2 ? atol(argv[2]) : 400;

	if (argc < 2 || (strcmp(argv[1], "private") && strcmp(argv[1], "shared")))
		return 2;
	if (!strcmp(argv[1], "shared")) {
		c = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			return 1;
	}
	for (int k = 0; k < 2; k++)
		if (fork() == 0) {
			work(k ? &c->b : &c->a, ms);
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	return 0;
}
