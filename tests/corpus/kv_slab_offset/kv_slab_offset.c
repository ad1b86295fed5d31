// SPDX-License-Identifier: GPL-2.0-only
/*
 * The item slabs of a key-value cache.  Items of 48 bytes (key hash, CAS
 * value, expiry, flags, value length, a short inline value) are carved out
 * of 1 MiB slabs after a 16-byte slab header.  GETs look up random items and
 * read the whole item.  With -DBAD items are packed at a 48-byte stride
 * behind the header, so half of them straddle two cache lines; otherwise the
 * slab class rounds the item up to 64 bytes and starts at a line boundary,
 * as memcached's slab classes do, and every item fills one line.
 *
 * Usage: kv_slab_offset [GETS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SLAB_SIZE (1u << 20)
#define NSLABS 8
#define SLAB_HDR 16

#ifdef BAD
#define ITEM_STRIDE 48
#define ITEM_START SLAB_HDR
#else
#define ITEM_STRIDE 64
#define ITEM_START 64
#endif
#define ITEMS_PER_SLAB ((SLAB_SIZE - ITEM_START) / ITEM_STRIDE)

struct slab_header {
	uint32_t slab_class;
	uint32_t nitems;
	uint64_t used;
};

struct item {
	uint64_t key_hash;
	uint64_t cas;
	uint32_t expiry;
	uint16_t flags;
	uint16_t nbytes;
	uint8_t value[24];
};

_Static_assert(sizeof(struct item) == 48, "48-byte items");

static uint8_t *slabs[NSLABS];

static struct item *item_at(uint32_t slab, uint32_t i)
{
	return (struct item *)(slabs[slab] + ITEM_START + (size_t)i * ITEM_STRIDE);
}

static uint64_t serve_gets(long gets)
{
	uint64_t rng = 0x853c49e6748fea9bull, hits = 0;

	for (long n = 0; n < gets; n++) {
		const struct item *it;
		uint64_t v = 0;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		it = item_at((uint32_t)(rng >> 61), (uint32_t)((rng >> 20) % ITEMS_PER_SLAB));
		if (it->expiry < 1000 || it->nbytes > sizeof(it->value))
			continue;
		for (int k = 0; k < it->nbytes; k++)
			v = v * 31 + it->value[k];
		hits += (v ^ it->cas ^ it->key_hash) & 0xffff;
	}
	return hits;
}

int main(int argc, char **argv)
{
	long gets = argc > 1 ? atol(argv[1]) : 14000000;
	uint64_t sum;

	for (uint32_t s = 0; s < NSLABS; s++) {
		struct slab_header *h;

		slabs[s] = aligned_alloc(4096, SLAB_SIZE);
		if (!slabs[s])
			return 1;
		h = (struct slab_header *)slabs[s];
		h->slab_class = 3;
		h->nitems = ITEMS_PER_SLAB;
		h->used = 0;
		for (uint32_t i = 0; i < ITEMS_PER_SLAB; i++) {
			struct item *it = item_at(s, i);

			it->key_hash = (s * 1000003ull + i) * 0xff51afd7ed558ccdull;
			it->cas = i;
			it->expiry = 1000 + i % 5000;
			it->flags = (uint16_t)s;
			it->nbytes = 24;
			for (int k = 0; k < 24; k++)
				it->value[k] = (uint8_t)(i * 13 + k);
		}
	}
	sum = serve_gets(gets);
	for (uint32_t s = 0; s < NSLABS; s++)
		free(slabs[s]);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
