// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bumps a few global counters (RIP-relative accesses, in .data) over and
 * over: run several times from one shell, each process has them where its
 * own load address puts them.  Usage: global_sum ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>

static volatile long tally[4] = { 1, 2, 3, 4 };

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 50000000;

	for (long r = 0; r < rounds; r++) {
		tally[0] += r;
		tally[2] ^= tally[0];
	}
	printf("%ld %ld\n", tally[0], tally[2]);
	return 0;
}
