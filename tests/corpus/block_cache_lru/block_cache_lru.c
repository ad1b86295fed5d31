/*
 * block_cache_lru: a storage engine caches 65536 disk blocks of 4 KiB and
 * keeps them on an LRU list; to find eviction victims the cleaner walks
 * the list from the cold end and reads each block's flags and pin count.
 * BAD keeps the list header in front of the block's payload (struct buf:
 * 64-byte header + 4 KiB data), so every step of the walk lands on a
 * different page: 65536 pages, far beyond the 64-entry L1 and 2048-entry
 * L2 data TLBs. GOOD keeps the headers in a separate packed array (64 per
 * page, 1024 pages) that points at the blocks; the walk order is the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NBLOCK	65536
#define BLKSZ	4096

struct bhead {
	struct bhead *older;
	uint64_t lba;
	uint32_t flags;
	uint32_t pins;
	void *data;
	uint64_t stamp;
	uint64_t pad[3];
};

_Static_assert(sizeof(struct bhead) == 64, "one line per header");

#ifdef BAD
struct buf {
	struct bhead h;
	char data[BLKSZ];
};
#else
struct buf {
	char data[BLKSZ];
};
#endif

struct cache {
	struct buf *blocks;		/* NBLOCK buffers */
	struct bhead *coldest;
#ifndef BAD
	struct bhead *heads;		/* packed, separate from the data */
#endif
};

static struct bhead *cache__head(struct cache *c, uint32_t i)
{
#ifdef BAD
	return &c->blocks[i].h;
#else
	return &c->heads[i];
#endif
}

static int cache__init(struct cache *c)
{
	uint32_t *order = malloc(NBLOCK * sizeof(*order));
	uint64_t x = 0x9e3779b97f4a7c15ull;

	c->blocks = aligned_alloc(BLKSZ, (size_t)NBLOCK * sizeof(struct buf));
#ifndef BAD
	c->heads = aligned_alloc(64, NBLOCK * sizeof(struct bhead));
	if (!c->heads)
		return -1;
#endif
	if (!c->blocks || !order)
		return -1;
	for (uint32_t i = 0; i < NBLOCK; i++) {
		order[i] = i;
		c->blocks[i].data[BLKSZ - 1] = (char)i;	/* block payload */
	}
	for (uint32_t i = NBLOCK - 1; i > 0; i--) {	/* LRU order: random */
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		uint32_t j = x % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < NBLOCK; i++) {
		struct bhead *h = cache__head(c, order[i]);

		h->older = cache__head(c, order[(i + 1) % NBLOCK]);
		h->lba = order[i] * 8ull;
		h->flags = order[i] % 3 == 0;		/* dirty */
		h->pins = order[i] % 5 == 0;
		h->data = c->blocks[order[i]].data;
		h->stamp = i;
	}
	c->coldest = cache__head(c, order[0]);
	free(order);
	return 0;
}

/* Walk the LRU list from the cold end and count clean unpinned victims. */
static __attribute__((noinline)) uint64_t cache__scan(struct cache *c, long steps)
{
	struct bhead *h = c->coldest;
	uint64_t victims = 0;

	while (steps--) {
		if (!h->flags && !h->pins)
			victims += h->lba;
		h->stamp++;
		h = h->older;
	}
	c->coldest = h;
	return victims;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	struct cache c;
	uint64_t check = 0;

	if (cache__init(&c))
		return 1;
	for (long r = 0; r < rounds; r++)
		check += cache__scan(&c, NBLOCK / 2);
	printf("checksum %llu\n", (unsigned long long)check);
	return 0;
}
