// SPDX-License-Identifier: GPL-2.0-only
/*
 * An analytics engine scores rows of a column store: score[r] = sum over
 * 12 feature columns of weight[c] * col[c][r].  The columns are carved out
 * of one arena.  With -DBAD each column takes exactly 64 KiB, so at every
 * row the 12 columns sit at the same address modulo 4096 (one L1d set of 8
 * ways) and evict each other's lines between consecutive rows (3.3.1); the
 * weights beside them are a small table that stays cached.  Otherwise each
 * column is staggered by one more cache line and the columns fall into
 * different sets.
 *
 * Usage: column_scan_weights [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define COLS	12
#define ROWS	(16 * 1024)	/* floats per column: 64 KiB */
#ifdef BAD
#define STAGGER	0
#else
#define STAGGER	16		/* floats: one cache line more per column */
#endif

struct column_store {
	float *arena;
	float *col[COLS];
	float weight[COLS];
	float *score;
};

static int store__init(struct column_store *s)
{
	size_t pitch = ROWS + STAGGER;

	s->arena = aligned_alloc(4096, ((COLS * pitch + ROWS) * sizeof(float) + 4095) & ~4095ul);
	if (!s->arena)
		return -1;
	for (int c = 0; c < COLS; c++) {
		s->col[c] = s->arena + c * pitch;
		s->weight[c] = 1.0f / (float)(c + 1);
		for (int r = 0; r < ROWS; r++)
			s->col[c][r] = (float)((r * (c + 5)) % 101) * 0.01f;
	}
	s->score = s->arena + COLS * pitch;
	return 0;
}

static __attribute__((noinline)) void store__score(struct column_store *s)
{
	for (int r = 0; r < ROWS; r++) {
		float acc = 0;

		for (int c = 0; c < COLS; c++)
			acc += s->weight[c] * s->col[c][r];
		s->score[r] = acc;
	}
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 10000;
	struct column_store s;
	double check = 0;

	if (store__init(&s))
		return 1;
	for (int p = 0; p < passes; p++) {
		s.weight[p % COLS] *= 0.9999f;
		store__score(&s);
		check += s.score[(p * 7919) % ROWS];
	}
	printf("checksum %.4f\n", check);
	free(s.arena);
	return 0;
}
