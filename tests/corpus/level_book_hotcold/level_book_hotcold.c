// SPDX-License-Identifier: GPL-2.0-only
/*
 * A market-data feed handler keeps a 64 K-level book per venue; each level
 * carries its price, displayed and hidden quantity and order count, plus
 * audit fields (venue codes, timestamps, last trade, a memo) used only by
 * reporting.  Every update the handler recomputes the notional of the
 * whole book: sum of price * (displayed + hidden).  With -DBAD a level is
 * one 128-byte struct and the loop reads 16 bytes from the middle of each
 * (the compiler keeps its pointer at the price member and steps it by 128);
 * otherwise price and quantities live in a parallel array of 16-byte hot
 * records.
 *
 * Usage: level_book_hotcold [UPDATES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLEVELS (64 * 1024)

#ifdef BAD
struct level {
	uint64_t level_id;
	char venue[8];
	uint64_t created_ns;
	uint64_t updated_ns;
	double price;
	uint32_t shown_qty;
	uint32_t hidden_qty;
	uint32_t orders;
	uint32_t flags;
	uint64_t last_trade_ns;
	char memo[64];
};

_Static_assert(sizeof(struct level) == 128, "two lines per level");
static struct level *book;
#define HOT(i) (&book[i])
#define COLD(i) (&book[i])
#else
struct level_hot {
	double price;
	uint32_t shown_qty;
	uint32_t hidden_qty;
};

struct level {
	uint64_t level_id;
	char venue[8];
	uint64_t created_ns;
	uint64_t updated_ns;
	uint32_t orders;
	uint32_t flags;
	uint64_t last_trade_ns;
	char memo[56];
};

static struct level_hot *hot;
static struct level *book;
#define HOT(i) (&hot[i])
#define COLD(i) (&book[i])
#endif

static double book_notional(void)
{
	double n = 0;

	for (int i = 0; i < NLEVELS; i++)
		n += HOT(i)->price * (double)(HOT(i)->shown_qty + HOT(i)->hidden_qty);
	return n;
}

int main(int argc, char **argv)
{
	long updates = argc > 1 ? atol(argv[1]) : 15000;
	double sum = 0;

	book = calloc(NLEVELS, sizeof(*book));
#ifndef BAD
	hot = calloc(NLEVELS, sizeof(*hot));
	if (!hot)
		return 1;
#endif
	if (!book)
		return 1;
	for (int i = 0; i < NLEVELS; i++) {
		COLD(i)->level_id = (uint64_t)i;
		memcpy(COLD(i)->venue, "XLON", 5);
		HOT(i)->price = 50.0 + (i % 800) * 0.05;
		HOT(i)->shown_qty = 100 + i % 300;
		HOT(i)->hidden_qty = (uint32_t)(i % 7) * 50;
	}
	for (long u = 0; u < updates; u++) {
		sum += book_notional();
		HOT(u % NLEVELS)->shown_qty = 100 + (uint32_t)(u % 500);
	}
	printf("checksum %.1f %llu\n", sum, (unsigned long long)COLD(3)->level_id);
	return 0;
}
