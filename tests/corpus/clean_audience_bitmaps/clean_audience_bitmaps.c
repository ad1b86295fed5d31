// SPDX-License-Identifier: GPL-2.0-only
/*
 * The audience planner of an ad server: 16 M user ids, and 48 audience
 * segments (country, device, age band, interests, opt-out lists), each a
 * bitmap of 2 MiB with one bit per user, 96 MiB in all.  For every
 * campaign the planner evaluates its targeting rule
 *
 *     all_of[0] AND all_of[1] AND all_of[2] AND (any_of[0] OR any_of[1])
 *     AND NOT none_of
 *
 * over the whole user range, one shard of 65536 users (8 KiB of each
 * bitmap) at a time, and reports the reach, the number of shards with
 * enough users to serve from, and the best shard.
 *
 * A clean control: every bitmap is walked front to back, a 64-bit word at
 * a time, and every byte of every line fetched is used; the six bitmaps of
 * a rule are read together at the same word index, so the segments are
 * staggered by 5 cache lines in the arena and never meet in one cache set.
 * The arena is allocated and filled once, on 2 MiB pages (madvise), and
 * only read afterwards; the evaluation writes a 1 KiB per-shard table that
 * is reused for every campaign.  No pointers are followed, no threads.
 *
 * Usage: clean_audience_bitmaps [CAMPAIGNS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define USERS		(16u << 20)
#define WORDS		(USERS / 64)		/* 256 Ki words, 2 MiB per segment */
#define NSEG		48
#define SHARD_WORDS	1024u			/* 65536 users, 8 KiB per segment */
#define NSHARD		(WORDS / SHARD_WORDS)	/* 256 */
#define SEG_STAGGER	(5 * 64)		/* gap between segments: 5 lines */
#define SEG_PITCH	((size_t)WORDS * 8 + SEG_STAGGER)
#define HUGE_PAGE	(2u << 20)

/* segment ids by kind */
#define SEG_COUNTRY	0	/* 8 countries */
#define SEG_DEVICE	8	/* 4 device classes */
#define SEG_AGE		12	/* 6 age bands */
#define SEG_INTEREST	18	/* 24 interests */
#define SEG_OPTOUT	42	/* 6 opt-out / consent lists */

struct rule {				/* 16 bytes, no padding */
	uint16_t all_of[3];
	uint16_t any_of[2];
	uint16_t none_of;
	uint32_t min_shard_reach;	/* users a shard needs to be served from */
};

struct plan {
	uint64_t reach;
	uint32_t live_shards;
	uint32_t best_shard;
};

static const uint64_t *seg[NSEG];
static uint32_t shard_reach[NSHARD];	/* reused by every campaign */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint32_t popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (uint32_t)((x * 0x0101010101010101ULL) >> 56);
}

/* The segments as the nightly export would leave them: random members at a given density. */
static uint8_t *load_segments(void)
{
	size_t bytes = ((NSEG * SEG_PITCH) + HUGE_PAGE - 1) & ~((size_t)HUGE_PAGE - 1);
	uint8_t *arena = aligned_alloc(HUGE_PAGE, bytes);

	if (!arena)
		return NULL;
	madvise(arena, bytes, MADV_HUGEPAGE);
	for (int s = 0; s < NSEG; s++) {
		uint64_t *bm = (uint64_t *)(arena + (size_t)s * SEG_PITCH);
		uint64_t st = 0x5eed0000u + (uint64_t)s;
		int kind = s % 4;	/* density 1/2, 1/4, 3/4 or 1/8 */

		for (uint32_t w = 0; w < WORDS; w++) {
			uint64_t x = splitmix(&st);

			if (kind == 1)
				x &= splitmix(&st);
			else if (kind == 2)
				x |= splitmix(&st);
			else if (kind == 3)
				x &= splitmix(&st) & splitmix(&st);
			bm[w] = x;
		}
		seg[s] = bm;
	}
	return arena;
}

static void make_rules(struct rule *r, long n)
{
	uint64_t st = 0xad5eed;

	for (long i = 0; i < n; i++) {
		uint64_t x = splitmix(&st);
		uint16_t i0 = (uint16_t)(x >> 16 & 0xffff) % 24, i1 = (uint16_t)(x >> 32 & 0xffff) % 23;

		r[i].all_of[0] = (uint16_t)(SEG_COUNTRY + (x & 7));
		r[i].all_of[1] = (uint16_t)(SEG_DEVICE + (x >> 3 & 3));
		r[i].all_of[2] = (uint16_t)(SEG_AGE + (x >> 5 & 0xff) % 6);
		r[i].any_of[0] = (uint16_t)(SEG_INTEREST + i0);
		r[i].any_of[1] = (uint16_t)(SEG_INTEREST + (i1 >= i0 ? i1 + 1 : i1));
		r[i].none_of = (uint16_t)(SEG_OPTOUT + (x >> 48 & 0xff) % 6);
		r[i].min_shard_reach = 200 + (uint32_t)(x >> 56) * 4;
	}
}

static struct plan evaluate(const struct rule *r)
{
	const uint64_t *a0 = seg[r->all_of[0]], *a1 = seg[r->all_of[1]], *a2 = seg[r->all_of[2]];
	const uint64_t *b0 = seg[r->any_of[0]], *b1 = seg[r->any_of[1]], *n = seg[r->none_of];
	struct plan p = { 0, 0, 0 };

	for (uint32_t sh = 0; sh < NSHARD; sh++) {
		uint32_t c = 0;

		for (uint32_t w = sh * SHARD_WORDS; w < (sh + 1) * SHARD_WORDS; w++)
			c += popcount64(a0[w] & a1[w] & a2[w] & (b0[w] | b1[w]) & ~n[w]);
		shard_reach[sh] = c;
	}
	for (uint32_t sh = 0; sh < NSHARD; sh++) {
		p.reach += shard_reach[sh];
		p.live_shards += shard_reach[sh] >= r->min_shard_reach;
		if (shard_reach[sh] > shard_reach[p.best_shard])
			p.best_shard = sh;
	}
	return p;
}

int main(int argc, char **argv)
{
	long campaigns = argc > 1 ? atol(argv[1]) : 4000;
	struct rule *rules = malloc((size_t)campaigns * sizeof(*rules));
	uint8_t *arena = load_segments();
	uint64_t sum = 0;

	if (!rules || !arena)
		return 1;
	make_rules(rules, campaigns);
	for (long i = 0; i < campaigns; i++) {
		struct plan p = evaluate(&rules[i]);

		sum = sum * 31 + p.reach;
		sum ^= (uint64_t)p.live_shards << 40 | (uint64_t)p.best_shard << 20;
	}
	printf("checksum %llu\n", (unsigned long long)sum);
	free(arena);
	free(rules);
	return 0;
}
