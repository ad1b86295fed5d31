/*
 * Two record types with a counter at the same offset, updated by one
 * routine through an untyped pointer: the compiler emits one store for
 * both, and the types of the routine's variables cannot tell which struct
 * a sample is in.
 */
#include <stdio.h>
#include <stdlib.h>

struct order_rec {
	long id;
	long hits;
	char note[112];
	double price;
};

struct quote_rec {
	long key;
	long hits;
	char venue[112];
	double bid;
};

__attribute__((noinline)) void bump(void *recs, int is_order, size_t n, size_t rounds)
{
	struct order_rec *o = recs;
	struct quote_rec *q = recs;

	for (size_t r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++) {
			if (is_order)
				o[i].hits++;
			else
				q[i].hits++;
		}
}

int main(int argc, char **argv)
{
	size_t n = 1 << 18, rounds = argc > 1 ? (size_t)atol(argv[1]) : 60;
	struct order_rec *o = calloc(n, sizeof(*o));
	struct quote_rec *q = calloc(n, sizeof(*q));
	double s = 0;

	if (!o || !q)
		return 1;
	bump(o, 1, n, rounds);
	bump(q, 0, n, rounds);
	for (size_t i = 0; i < n; i++)
		s += o[i].price + q[i].bid + o[i].hits;
	printf("%g\n", s);
	return 0;
}
