// SPDX-License-Identifier: GPL-2.0-only
/*
 * cms_heavy_hitters: the flow accountant of a DDoS scrubber.  Every
 * packet's 5-tuple is hashed into a count-min sketch of 4 rows x 16M
 * 32-bit counters (256 MiB, sized for a low error on a 100 Gb/s link) with
 * a conservative update: the four counters are read, and only those equal
 * to the minimum are raised.  A flow whose estimate crosses a threshold is
 * reported once to a small heavy-hitter table.  The traffic is a mix of a
 * few thousand elephant flows and a long tail of mice, so the counters
 * touched by consecutive packets are spread at random over the whole
 * sketch: every packet touches four random pages among 65536.
 * BAD: the sketch is one plain anonymous mapping (transparent huge pages
 * are in "madvise" mode here, so it is backed by 4 KiB pages).
 * GOOD: the mapping is 2 MiB aligned and madvise(MADV_HUGEPAGE) is called
 * before the sketch is cleared, so 128 huge pages cover it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ROWS		4
#define ROW_BITS	24
#define ROW_LEN		(1u << ROW_BITS)
#define HUGE_SZ		(2ul << 20)
#define HH_SLOTS	4096
#define HH_LIMIT	200
#define ELEPHANTS	4096

struct flow_key {
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint8_t proto;
};

struct sketch {
	uint32_t *cnt;			/* ROWS x ROW_LEN counters */
	uint64_t seed[ROWS];
};

struct heavy {
	uint64_t key;
	uint32_t first_seen;
	uint32_t est;
};

static struct heavy hh[HH_SLOTS];
static unsigned hh_used;

static uint32_t *sketch_alloc(size_t bytes)
{
#ifdef BAD
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#else
	char *p = mmap(NULL, bytes + HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (madvise(a, bytes, MADV_HUGEPAGE))
		perror("madvise");
	return (uint32_t *)a;
#endif
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline uint64_t key_pack(const struct flow_key *k)
{
	return ((uint64_t)k->saddr << 32 | k->daddr) ^
	       mix64((uint64_t)k->sport << 24 | (uint64_t)k->dport << 8 | k->proto);
}

/* Conservative update; returns the flow's new estimate. */
static __attribute__((noinline)) uint32_t sketch_update(struct sketch *s, uint64_t key)
{
	uint32_t *slot[ROWS];
	uint32_t min = UINT32_MAX;

	for (int r = 0; r < ROWS; r++) {
		uint64_t h = mix64(key ^ s->seed[r]);

		slot[r] = &s->cnt[(size_t)r * ROW_LEN + (h & (ROW_LEN - 1))];
		if (*slot[r] < min)
			min = *slot[r];
	}
	for (int r = 0; r < ROWS; r++)
		if (*slot[r] == min)
			*slot[r] = min + 1;
	return min + 1;
}

static void heavy_report(uint64_t key, uint32_t est, uint32_t pkt)
{
	unsigned i = (unsigned)mix64(key) & (HH_SLOTS - 1);

	while (hh[i].key && hh[i].key != key)
		i = (i + 1) & (HH_SLOTS - 1);
	if (hh[i].key)
		return;
	if (hh_used >= HH_SLOTS / 2)
		return;
	hh[i].key = key;
	hh[i].first_seen = pkt;
	hh[i].est = est;
	hh_used++;
}

int main(int argc, char **argv)
{
	long packets = argc > 1 ? atol(argv[1]) : 10000000;
	struct sketch s;
	uint64_t x = 0x9e3779b97f4a7c15ull, sum = 0;
	size_t bytes = (size_t)ROWS * ROW_LEN * sizeof(uint32_t);

	s.cnt = sketch_alloc(bytes);
	if (!s.cnt)
		return 1;
	for (int r = 0; r < ROWS; r++)
		s.seed[r] = mix64(0x5bd1e995ull * (r + 1));
	memset(s.cnt, 0, bytes);

	for (long p = 0; p < packets; p++) {
		struct flow_key k;
		uint32_t est;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		if ((x >> 60) < 3) {		/* 3/16 of the packets: elephants */
			uint32_t e = (uint32_t)(x >> 20) & (ELEPHANTS - 1);

			k.saddr = 0x0a000000u | e;
			k.daddr = 0xc0a80001u;
			k.sport = (uint16_t)(1024 + e);
			k.dport = 443;
		} else {			/* mice: one of 2^36 tuples */
			k.saddr = (uint32_t)x;
			k.daddr = 0xc0a80000u | (uint32_t)((x >> 32) & 0xff);
			k.sport = (uint16_t)(x >> 40);
			k.dport = (uint16_t)(80 + ((x >> 56) & 3));
		}
		k.proto = 6;
		est = sketch_update(&s, key_pack(&k));
		sum += est;
		if (est == HH_LIMIT)
			heavy_report(key_pack(&k), est, (uint32_t)p);
	}
	for (unsigned i = 0; i < HH_SLOTS; i++)
		sum = mix64(sum ^ hh[i].key ^ ((uint64_t)hh[i].first_seen << 32));
	printf("checksum %016llx\n", (unsigned long long)(sum ^ hh_used));
	return 0;
}
