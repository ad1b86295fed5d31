// SPDX-License-Identifier: GPL-2.0-only
/*
 * A bill-of-materials explosion: every part of a product tree sits in one
 * array, children after their parent, and each part names its parent by
 * index.  A planning pass walks the array in order and sets each part's
 * units needed to its parent's times the quantity the parent takes, and
 * adds up what the parts cost; the next pass plans a different number of
 * products, as a what-if run does.  Every member of the part is used on
 * every pass: the parent's units read at random through the parent index
 * (some compilers load it into the index register itself, which leaves a
 * sample there no address), the rest in order.  A clean control: nothing
 * to split, nothing to pack (24 bytes, no holes), the 12 MiB array walked
 * in order.
 *
 * Usage: clean_tree_rollup [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NPARTS (512 * 1024)

struct part {
	int64_t need;		/* units needed for the products planned */
	int64_t stock;		/* units on the shelf */
	uint32_t parent;	/* index of the assembly it goes into */
	uint16_t qty;		/* how many of it the parent takes */
	uint16_t price;		/* its own price, in cents */
};

static struct part *parts;

static int64_t explode(int64_t products)
{
	int64_t cost = 0;

	parts[0].need = products;
	for (uint32_t i = 1; i < NPARTS; i++) {
		struct part *p = &parts[i];
		int64_t up = parts[p->parent].need;

		/* a part the parent takes none of still needs one spare */
		p->need = up ? up * p->qty : 1;
		/* only what is not on the shelf is bought */
		if (p->need > p->stock)
			cost += (p->need - p->stock) * p->price;
	}
	return cost;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 2500;
	uint32_t rng = 2024;
	int64_t total = 0;

	parts = malloc(NPARTS * sizeof(*parts));
	if (!parts)
		return 1;
	parts[0] = (struct part){ .need = 0, .parent = 0, .qty = 1, .price = 0 };
	for (uint32_t i = 1; i < NPARTS; i++) {
		rng = rng * 1103515245u + 12345u;
		/* the parent: one of the 64 parts before it (a deep tree, kept local) */
		parts[i].parent = i - 1 - (rng >> 16) % (i < 64 ? i : 64);
		parts[i].qty = 1 + (rng >> 8) % 2;
		parts[i].price = 1 + (rng >> 20) % 500;
		parts[i].stock = (rng >> 12) % 3;
	}
	for (long k = 0; k < passes; k++)
		total += explode(1 + k % 10) & 0xffff;
	printf("%lld\n", (long long)total);
	return 0;
}
