// SPDX-License-Identifier: GPL-2.0-only
/*
 * The answer cache of a caching DNS resolver: an open-addressing table of
 * resource records keyed by a hash of (name, type, class), 192 K slots.  A
 * query probes for its record, checks type, class and expiry and returns
 * the address with the remaining TTL.  With -DBAD the record's members are
 * declared in wire-format order (type, expiry, class, ttl, rdlen, name
 * hash, flags, address), so the compiler pads it to 48 bytes (18 of them
 * holes) and the table is 9 MiB; otherwise the same members are declared
 * largest first: 32 bytes, 6 MiB, two records to a line.
 *
 * Usage: dns_cache_holes [QUERIES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NSLOTS (192 * 1024)
#define NRECORDS (NSLOTS / 2)

struct rr {
#ifdef BAD
	uint16_t type;
	uint64_t expiry;
	uint16_t rclass;
	uint32_t ttl;
	uint8_t rdlen;
	uint64_t name_hash;
	uint8_t flags;
	uint32_t addr;
#else
	uint64_t expiry;
	uint64_t name_hash;
	uint32_t ttl;
	uint32_t addr;
	uint16_t type;
	uint16_t rclass;
	uint8_t rdlen;
	uint8_t flags;
#endif
};

static struct rr *cache;

static uint64_t key_hash(uint64_t name, uint16_t type)
{
	uint64_t h = (name * 0x9e3779b97f4a7c15ull) ^ type;

	return (h ^ (h >> 31)) | 1;
}

static void cache_put(uint64_t name, uint16_t type, uint32_t addr, uint64_t now)
{
	uint64_t h = key_hash(name, type), slot = h % NSLOTS;

	while (cache[slot].name_hash)
		slot = (slot + 1) % NSLOTS;
	cache[slot] = (struct rr){ .type = type, .rclass = 1, .ttl = 300, .rdlen = 4,
				   .name_hash = h, .addr = addr, .expiry = now + 300 + name % 600 };
}

static const struct rr *cache_get(uint64_t name, uint16_t type, uint64_t now)
{
	uint64_t h = key_hash(name, type), slot = h % NSLOTS;

	for (;;) {
		const struct rr *r = &cache[slot];

		if (!r->name_hash)
			return NULL;
		if (r->name_hash == h && r->type == type && r->rclass == 1 && r->expiry > now)
			return r;
		slot = (slot + 1) % NSLOTS;
	}
}

int main(int argc, char **argv)
{
	long queries = argc > 1 ? atol(argv[1]) : 45000000;
	uint64_t rng = 0x123456789abcdefull, sum = 0, misses = 0;

	cache = calloc(NSLOTS, sizeof(*cache));
	if (!cache)
		return 1;
	for (uint64_t i = 0; i < NRECORDS; i++)
		cache_put(i, i % 4 ? 1 : 28, (uint32_t)(0x0a000000 + i), 0);
	for (long q = 0; q < queries; q++) {
		const struct rr *r;
		uint64_t name;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		name = rng % (NRECORDS + NRECORDS / 16);
		r = cache_get(name, name % 4 ? 1 : 28, (uint64_t)(q >> 16));
		if (r)
			sum += r->addr + (r->expiry - (uint64_t)(q >> 16)) + r->rdlen + r->flags;
		else
			misses++;
	}
	printf("checksum %llu %llu\n", (unsigned long long)sum, (unsigned long long)misses);
	free(cache);
	return 0;
}
