// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay_packed_snapshots: the statistics backend of a match-replay viewer.
 * A round's replay holds one snapshot per player per server tick (64
 * players, 256 ticks, tick-major, a team's 32 players side by side), about
 * 720 KiB: it stays in L2.  Viewers ask for a team and a tick range ("where
 * was team B's centre of mass between ticks 40 and 190, how much damage did
 * it deal, how many of its players were alive"); each request walks the
 * team's snapshots of that range in order and sums six members of each.
 * BAD keeps the snapshots as the replay file stores them, a packed 45-byte
 * record: its five 8-byte members sit at offsets 1, 9, 17, 25 and 33 of a
 * record whose start wanders through every byte offset of a line, so about
 * one 8-byte load in nine straddles two cache lines (and now and then two
 * pages) and needs two cache accesses.
 * GOOD stores the same members in a naturally aligned 48-byte struct,
 * largest first, as the loader would unpack them: no load crosses a line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PLAYERS		64
#define TICKS		256
#define REQUESTS	700000

#ifdef BAD
struct __attribute__((packed)) snapshot {
	uint8_t kind;
	uint64_t tick;
	int64_t pos_x;
	int64_t pos_y;
	int64_t pos_z;
	uint64_t damage;	/* dealt this tick */
	uint16_t player;
	uint8_t health;
	uint8_t team;
};
_Static_assert(sizeof(struct snapshot) == 45, "replay file layout");
#else
struct snapshot {
	uint64_t tick;
	int64_t pos_x;
	int64_t pos_y;
	int64_t pos_z;
	uint64_t damage;	/* dealt this tick */
	uint16_t player;
	uint8_t kind;
	uint8_t health;
	uint8_t team;
};
_Static_assert(sizeof(struct snapshot) == 48, "aligned layout");
#endif

struct request_stats {
	int64_t sum_x, sum_y, sum_z;	/* the team's centroid and height, times n */
	uint64_t damage;
	uint64_t alive;		/* player-ticks with health left */
	uint64_t ticks;		/* sum of ticks, to check the range */
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int64_t step(uint64_t *x)
{
	return (int64_t)(rnd(x) % 2049) - 1024;
}

/* The round as the game server recorded it: everyone moves a little each tick. */
static void replay_record(struct snapshot *s, uint64_t *x)
{
	for (int t = 0; t < TICKS; t++) {
		for (int p = 0; p < PLAYERS; p++) {
			struct snapshot *c = &s[t * PLAYERS + p];
			const struct snapshot *prev = t ? c - PLAYERS : NULL;

			c->kind = 1;
			c->tick = 100000 + t;
			c->player = p;
			c->team = p / (PLAYERS / 2);
			c->pos_x = prev ? prev->pos_x + step(x) * 4 : (int64_t)(rnd(x) % (400 << 10));
			c->pos_y = prev ? prev->pos_y + step(x) * 4 : (int64_t)(rnd(x) % (600 << 10));
			c->pos_z = prev ? prev->pos_z + step(x) : 0;
			c->damage = rnd(x) % 16 == 0 ? rnd(x) % 90 : 0;
			c->health = (uint8_t)(rnd(x) % 8 ? 1 + rnd(x) % 100 : 0);
		}
	}
}

/* One request: a team's players between two ticks, in replay order. */
static __attribute__((noinline)) void request_scan(const struct snapshot *s, int team,
						   int first, int last,
						   struct request_stats *st)
{
	int64_t sum_x = 0, sum_y = 0, sum_z = 0;
	uint64_t damage = 0, alive = 0, ticks = 0;

	for (int t = first; t <= last; t++) {
		const struct snapshot *c = &s[t * PLAYERS + team * (PLAYERS / 2)];

		for (int p = 0; p < PLAYERS / 2; p++, c++) {
			sum_x += c->pos_x;
			sum_y += c->pos_y;
			sum_z += c->pos_z;
			damage += c->damage;
			alive += c->health != 0;
			ticks += c->tick;
		}
	}
	st->sum_x = sum_x;
	st->sum_y = sum_y;
	st->sum_z = sum_z;
	st->damage = damage;
	st->alive = alive;
	st->ticks = ticks;
}

int main(void)
{
	struct snapshot *s = malloc((size_t)TICKS * PLAYERS * sizeof(*s));
	uint64_t x = 0x9e3779b97f4a7c15ull, sum = 0;
	struct request_stats st;

	if (!s)
		return 1;
	replay_record(s, &x);
	for (int r = 0; r < REQUESTS; r++) {
		int first = rnd(&x) % (TICKS / 2);
		int last = first + TICKS / 4 + rnd(&x) % (TICKS / 4);

		request_scan(s, r & 1, first, last, &st);
		sum += (uint64_t)(st.sum_x / (last - first + 1)) ^ (uint64_t)st.sum_y ^
		       ((uint64_t)st.sum_z << 8) ^ (st.damage << 16) ^ (st.alive << 40) ^ st.ticks;
	}
	printf("%llu\n", (unsigned long long)sum);
	free(s);
	return 0;
}
