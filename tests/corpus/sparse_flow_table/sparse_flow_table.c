/*
 * sparse_flow_table: a NAT gateway keeps per-flow state in an
 * open-addressing hash table of 64-byte slots; every packet is rewritten
 * by its flow entry to the key of the next flow it is forwarded on (the
 * translated tuple), which is looked up next, so lookups form a chain. BAD sizes the table for the
 * peak it was configured for (4M slots, 256 MiB) while 32768 flows are
 * live, so the live slots are scattered over ~32000 different pages and
 * nearly every packet's lookup needs a page walk (2048-entry L2 DTLB).
 * GOOD sizes the table to the live set at a load factor of 1/2 (65536
 * slots, 4 MiB, 1024 pages). Both touch the same number of cache lines
 * (32768 x 64 bytes = 2 MiB, above L2, inside L3).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LIVE	32768
#ifdef BAD
#define SLOTS	(1u << 22)
#else
#define SLOTS	(1u << 16)
#endif

struct flow {
	uint64_t key;		/* 0 = empty */
	uint64_t packets;
	uint64_t bytes;
	uint64_t xlate;		/* key of the translated flow */
	uint32_t last_seen;
	uint32_t tcp_flags;
	uint64_t pad[3];
};

_Static_assert(sizeof(struct flow) == 64, "one line per slot");

static inline uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static struct flow *flow_lookup(struct flow *tab, uint64_t key)
{
	uint32_t i = mix(key) & (SLOTS - 1);

	while (tab[i].key && tab[i].key != key)
		i = (i + 1) & (SLOTS - 1);
	tab[i].key = key;
	return &tab[i];
}

static __attribute__((noinline)) uint64_t forward_burst(struct flow *tab, uint64_t *key, int n)
{
	uint64_t sum = 0;

	for (int p = 0; p < n; p++) {
		struct flow *f = flow_lookup(tab, *key);

		f->packets++;
		f->bytes += 64 + (p & 1023);
		f->last_seen = p;
		sum += f->packets;
		*key = f->xlate;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long bursts = argc > 1 ? atol(argv[1]) : 1000;
	struct flow *tab = calloc(SLOTS, sizeof(*tab));
	uint64_t *keys = malloc(LIVE * sizeof(*keys));
	uint32_t rng = 2463534242u;
	uint64_t key;
	uint64_t check = 0;

	if (!tab || !keys)
		return 1;
	for (int i = 0; i < LIVE; i++)
		keys[i] = 0x0a000000ull * 65536 + (uint64_t)i * 2654435761u + 1;
	for (int i = LIVE - 1; i > 0; i--) {	/* translation: one random cycle */
		rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
		uint32_t j = rng % i;
		uint64_t t = keys[i];

		keys[i] = keys[j];
		keys[j] = t;
	}
	for (int i = 0; i < LIVE; i++)
		flow_lookup(tab, keys[i])->xlate = keys[(i + 1) % LIVE];
	key = keys[0];
	for (long b = 0; b < bursts; b++)
		check += forward_burst(tab, &key, 8192);
	printf("checksum %llu\n", (unsigned long long)check);
	free(tab);
	free(keys);
	return 0;
}
