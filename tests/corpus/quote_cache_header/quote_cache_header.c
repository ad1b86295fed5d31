// SPDX-License-Identifier: GPL-2.0-only
/*
 * A market-data gateway keeps the last top-of-book quote of every
 * instrument in one shared cache: a small cache header followed by an array
 * of 32-byte quotes (instrument id, sequence number, bid, ask and the sizes
 * at both).  A risk task marks random positions to market: it reads a
 * quote's prices and sizes, takes the size-weighted mid and folds it into a
 * running valuation.  The cache is cache-line aligned; with -DBAD the header
 * is the 16 bytes it needs, so the quotes start at offset 16 and every
 * other one (those at offset 48 of a line) straddles two lines; otherwise
 * the header is padded to a full line and every quote lies in one line.
 *
 * Usage: quote_cache_header [MARKS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NQUOTES (640u * 1024u)

struct cache_hdr {
	uint32_t magic;
	uint32_t nquotes;
	uint64_t epoch;
#ifndef BAD
	uint8_t pad[48];
#endif
};

struct quote {
	uint32_t instrument;
	uint32_t seq;
	int64_t bid;
	int64_t ask;
	uint32_t bid_size;
	uint32_t ask_size;
};

_Static_assert(sizeof(struct quote) == 32, "32-byte quotes");
#ifdef BAD
_Static_assert(sizeof(struct cache_hdr) == 16, "16-byte header");
#else
_Static_assert(sizeof(struct cache_hdr) == 64, "one-line header");
#endif

struct quote_cache {
	struct cache_hdr hdr;
	struct quote q[];
};

static struct quote_cache *cache;

static uint64_t mark_to_market(const struct quote_cache *c, long marks)
{
	uint32_t state = 0x9e3779b9u;
	uint64_t value = 0;

	for (long n = 0; n < marks; n++) {
		const struct quote *q;
		int64_t mid, skew;

		state ^= state << 13;
		state ^= state >> 17;
		state ^= state << 5;
		q = &c->q[((uint64_t)state * c->hdr.nquotes) >> 32];
		if (q->ask <= q->bid)
			continue;
		mid = (q->bid + q->ask) / 2;
		skew = (int64_t)q->bid_size - (int64_t)q->ask_size;
		value += (uint64_t)(mid + skew * (q->ask - q->bid) / 64) ^ q->instrument;
	}
	return value;
}

int main(int argc, char **argv)
{
	long marks = argc > 1 ? atol(argv[1]) : 90000000;
	uint64_t value;

	cache = aligned_alloc(64, sizeof(struct quote_cache) +
			      (size_t)NQUOTES * sizeof(struct quote));
	if (!cache)
		return 1;
	cache->hdr.magic = 0x51554f54;
	cache->hdr.nquotes = NQUOTES;
	cache->hdr.epoch = 1;
	for (uint32_t i = 0; i < NQUOTES; i++) {
		struct quote *q = &cache->q[i];
		int64_t px = 100000 + (int64_t)(i * 2654435761u % 900000);

		q->instrument = i + 1;
		q->seq = i * 7;
		q->bid = px;
		q->ask = px + 1 + i % 25;
		q->bid_size = 100 + i % 900;
		q->ask_size = 100 + (i * 31) % 900;
	}
	value = mark_to_market(cache, marks);
	printf("checksum %llu\n", (unsigned long long)value);
	free(cache);
	return 0;
}
