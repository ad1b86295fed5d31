// SPDX-License-Identifier: GPL-2.0-only
/*
 * A two-sided order book of a matching engine.  One thread takes the
 * incoming bids, the other the incoming asks; each publishes its side's
 * sequence number, best price and volume after every order so that market
 * data readers can take a consistent snapshot.  With -DBAD both sides' fields
 * share one cache line; otherwise each side starts on a line of its own.
 *
 * Usage: order_book_seq [ORDERS_PER_SIDE]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef BAD
#define SIDE_START
#else
#define SIDE_START _Alignas(64)
#endif

struct book {
	SIDE_START uint64_t bid_seq;
	uint64_t best_bid;
	uint64_t bid_volume;
	SIDE_START uint64_t ask_seq;
	uint64_t best_ask;
	uint64_t ask_volume;
};

static _Alignas(64) struct book book = { .best_ask = UINT64_MAX };

struct side_arg {
	int is_bid;
	long orders;
	uint64_t seed;
	uint64_t crossed;
};

static inline uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Publish one side: plain stores, seen by readers, never kept in a register. */
#define PUBLISH(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define PEEK(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static void *match_side(void *p)
{
	struct side_arg *a = p;
	uint64_t seed = a->seed, crossed = 0;

	for (long i = 0; i < a->orders; i++) {
		uint64_t r = xorshift(&seed);
		uint64_t price = 10000 + (r & 1023), qty = 1 + ((r >> 10) & 63);

		if (a->is_bid) {
			if (price > PEEK(book.best_bid) || (r >> 20 & 255) == 0)
				PUBLISH(book.best_bid, price);
			PUBLISH(book.bid_volume, PEEK(book.bid_volume) + qty);
			PUBLISH(book.bid_seq, PEEK(book.bid_seq) + 1);
		} else {
			if (price < PEEK(book.best_ask) || (r >> 20 & 255) == 0)
				PUBLISH(book.best_ask, price);
			PUBLISH(book.ask_volume, PEEK(book.ask_volume) + qty);
			PUBLISH(book.ask_seq, PEEK(book.ask_seq) + 1);
		}
		crossed += (r & 0xfff) == 7;
	}
	a->crossed = crossed;
	return NULL;
}

int main(int argc, char **argv)
{
	long orders = argc > 1 ? atol(argv[1]) : 600000000;
	struct side_arg side[2] = {
		{ .is_bid = 1, .orders = orders, .seed = 0x9e3779b97f4a7c15ull },
		{ .is_bid = 0, .orders = orders, .seed = 0xd1b54a32d192ed03ull },
	};
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, match_side, &side[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("checksum %llu\n", (unsigned long long)(book.bid_seq + book.ask_seq + book.best_bid +
							book.best_ask + book.bid_volume +
							book.ask_volume + side[0].crossed +
							side[1].crossed));
	return 0;
}
