// SPDX-License-Identifier: GPL-2.0-only
/*
 * Access patterns with a known signature for data-address sampling.
 * Usage: access MODE [ROUNDS]
 *   conflict  walk down a column of a matrix whose rows are 4096 bytes
 *             apart: every line maps to the same L1D set      (R7)
 *   split     8-byte loads at offset 60 of each line: each one
 *             crosses into the next line                        (R6)
 *   cas       two threads incrementing one counter with a CAS loop (R13)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 4096
double m[ROWS][512];
static long rounds = 200;
static volatile long counter;

static void *cas_worker(void *arg)
{
	for (long i = 0; i < rounds * 100000; i++) {
		long old;

		do
			old = counter;
		while (!__sync_bool_compare_and_swap(&counter, old, old + 1)); /* HOT_CAS */
	}
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "conflict";
	double sum = 0;

	if (argc > 2)
		rounds = atol(argv[2]);
	if (!strcmp(mode, "conflict")) {
		for (int i = 0; i < ROWS; i++)
			m[i][i & 511] = argc;
		for (long r = 0; r < rounds * 50; r++)
			for (int i = 0; i < ROWS; i++)
				sum += m[i][r & 7]; /* HOT_CONFLICT */
	} else if (!strcmp(mode, "split")) {
		size_t size = 64 << 20;
		char *buf = aligned_alloc(64, size);
		long s = 0;

		memset(buf, 1, size);
		for (long r = 0; r < rounds / 10 + 1; r++)
			for (size_t off = 60; off + 8 < size; off += 64) {
				long v;

				memcpy(&v, buf + off, sizeof(v));
				s += v; /* HOT_SPLIT (the load is folded into the add) */
			}
		sum = (double)s;
	} else if (!strcmp(mode, "cas")) {
		pthread_t t[2];

		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, cas_worker, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		sum = (double)counter;
	} else {
		return 2;
	}
	printf("%g\n", sum);
	return 0;
}
