// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function given a container (struct store) that sums the records its
 * member points to: struct rec, with 14 bytes of holes in 32, is not the
 * type of any variable of the function, only of its parameter's member.
 * Usage: store_holes [REPS]
 */
#include <stdio.h>
#include <stdlib.h>

struct rec {
	char flag; /* 7 bytes of hole after it */
	long value;
	char tag; /* and 7 more */
	long weight;
};

struct store {
	struct rec *recs;
	size_t n;
};

__attribute__((noinline)) static long total(const struct store *st, long k)
{
	long s = 0;

	for (size_t i = 0; i < st->n; i++)
		s += st->recs[i].value * st->recs[i].weight + st->recs[i].flag + st->recs[i].tag + k; /* HOT */
	return s;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 100;
	struct store st = { calloc(1 << 20, sizeof(struct rec)), 1 << 20 };
	long s = 0;

	if (!st.recs)
		return 1;
	for (size_t i = 0; i < st.n; i++) {
		st.recs[i].flag = (char)i;
		st.recs[i].value = (long)i;
		st.recs[i].tag = (char)(i >> 3);
		st.recs[i].weight = (long)(i & 7);
	}
	for (int r = 0; r < reps; r++)
		s += total(&st, r);
	printf("%ld\n", s);
	return 0;
}
