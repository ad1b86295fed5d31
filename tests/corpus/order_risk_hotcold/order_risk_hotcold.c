// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pre-trade risk check of a trading gateway.  Before each new order the
 * gateway recomputes the open exposure of the account: the sum of price x
 * open quantity over the resting orders (32 K of them).  The order also
 * carries its identifiers, client and venue strings, timestamps and a free
 * text, used by reporting.  With -DBAD an order is one 128-byte struct and
 * the exposure loop reads a whole line per order for 16 bytes; otherwise price,
 * open quantity and side are kept in a parallel array of 16-byte records
 * (struct order_hot) and the rest stays in struct order.
 *
 * Usage: order_risk_hotcold [CHECKS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NORDERS (32 * 1024)

#ifdef BAD
struct order {
	uint64_t order_id;
	double price;
	uint32_t open_qty;
	int32_t side;
	char client[24];
	char venue[8];
	uint64_t created_ns;
	uint64_t updated_ns;
	char text[56];
};

_Static_assert(sizeof(struct order) == 128, "two lines per order");
static struct order *orders;
#define HOT(i) (&orders[i])
#define COLD(i) (&orders[i])
#else
struct order_hot {
	double price;
	uint32_t open_qty;
	int32_t side;
};

struct order {
	uint64_t order_id;
	char client[24];
	char venue[8];
	uint64_t created_ns;
	uint64_t updated_ns;
	char text[56];
};

static struct order_hot *hot;
static struct order *orders;
#define HOT(i) (&hot[i])
#define COLD(i) (&orders[i])
#endif

static double open_exposure(void)
{
	double e = 0;

	for (int i = 0; i < NORDERS; i++)
		e += HOT(i)->price * HOT(i)->open_qty * HOT(i)->side;
	return e;
}

int main(int argc, char **argv)
{
	long checks = argc > 1 ? atol(argv[1]) : 45000;
	double limit = 1e12, sum = 0;
	long rejected = 0;

	orders = calloc(NORDERS, sizeof(*orders));
#ifndef BAD
	hot = calloc(NORDERS, sizeof(*hot));
	if (!hot)
		return 1;
#endif
	if (!orders)
		return 1;
	for (int i = 0; i < NORDERS; i++) {
		COLD(i)->order_id = 1000000 + (uint64_t)i;
		HOT(i)->price = 100.0 + (i % 500) * 0.01;
		HOT(i)->open_qty = 100 + i % 900;
		HOT(i)->side = (i & 1) ? 1 : -1;
		snprintf(COLD(i)->client, sizeof(COLD(i)->client), "ACCT%05d", i % 977);
		memcpy(COLD(i)->venue, "XNAS", 5);
	}
	for (long c = 0; c < checks; c++) {
		double e = open_exposure();

		if (e > limit)
			rejected++;
		sum += e;
		/* the new order rests in the book: one slot changes */
		HOT(c % NORDERS)->open_qty = 100 + (uint32_t)(c % 700);
	}
	printf("checksum %.1f %ld %llu\n", sum, rejected, (unsigned long long)COLD(7)->order_id);
	free(orders);
#ifndef BAD
	free(hot);
#endif
	return 0;
}
