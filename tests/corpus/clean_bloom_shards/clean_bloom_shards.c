// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_bloom_shards: the duplicate filter of a web crawler's URL frontier.
 * Two threads each own one shard of the frontier: a Bloom filter of 1M
 * bits (128 KiB) with 4 probes per URL hash.  Each thread tests the links
 * found on its shard's pages (120000 distinct URLs, most links point to a
 * page seen before) and inserts the new ones; every
 * thread keeps its statistics in its own shard descriptor, which starts a
 * cache line of its own (_Alignas(64), deliberate padding), and adds them
 * to a global total once, at the end, with an atomic add.
 * Clean control: the filters stay in each core's L2, nothing is shared
 * while the threads run, the one atomic add per thread is uncontended,
 * and the time goes to hashing and to L2 hits.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FILTER_BITS	(1u << 20)
#define PROBES		4
#define URLS		(160u * 1000 * 1000)
#define NSHARDS		2
#define DISTINCT	120000

struct shard {
	_Alignas(64) uint64_t *bits;
	uint64_t tested;
	uint64_t inserted;
	uint64_t seed;
};

static struct shard shards[NSHARDS];
static uint64_t total_new;

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Tests one URL hash and inserts it; returns 1 when it was new. */
static int bloom_add(uint64_t *bits, uint64_t h)
{
	int present = 1;

	for (int k = 0; k < PROBES; k++) {
		uint32_t b = (uint32_t)(h >> (k * 16)) ^ (uint32_t)(h >> 40) * (uint32_t)k;

		b &= FILTER_BITS - 1;
		present &= (int)(bits[b / 64] >> (b % 64)) & 1;
		bits[b / 64] |= 1ull << (b % 64);
	}
	return !present;
}

static void *shard_run(void *arg)
{
	struct shard *s = arg;

	uint64_t x = s->seed;

	for (uint32_t i = 0; i < URLS; i++) {
		/* links to the shard's DISTINCT pages, most of them seen before */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t h = mix(s->seed ^ (x % DISTINCT));

		s->tested++;
		s->inserted += (uint64_t)bloom_add(s->bits, h);
	}
	__atomic_fetch_add(&total_new, s->inserted, __ATOMIC_RELAXED);
	return NULL;
}

int main(void)
{
	pthread_t th[NSHARDS];
	uint64_t sum = 0;

	for (int i = 0; i < NSHARDS; i++) {
		shards[i].bits = calloc(FILTER_BITS / 64, sizeof(uint64_t));
		shards[i].seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		if (!shards[i].bits)
			return 1;
	}
	for (int i = 0; i < NSHARDS; i++)
		if (pthread_create(&th[i], NULL, shard_run, &shards[i]))
			return 1;
	for (int i = 0; i < NSHARDS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < NSHARDS; i++) {
		sum = sum * 31 + shards[i].tested + shards[i].inserted;
		free(shards[i].bits);
	}
	printf("%llu %llu\n", (unsigned long long)sum, (unsigned long long)total_new);
	return 0;
}
