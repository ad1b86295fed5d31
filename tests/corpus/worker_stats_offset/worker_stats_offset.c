// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tile encoder's worker pool.  Two workers each take jobs from their own
 * queue; a job is one 4x4 tile of a grayscale frame, compared with the same
 * tile of the previous frame: an unchanged tile is skipped, a changed one
 * is delta-coded and hashed.  Each worker keeps its statistics (tiles,
 * output bytes, skips, a running hash, tile cost sum, min and max, flushes,
 * the last tile done) in a 64-byte record of its own and updates it on
 * every job.  The pool allocates its header and the records in one
 * line-aligned block.  With -DBAD the header is the 8 bytes it needs, so
 * record i starts at offset 8 + 64 * i: every record straddles two lines
 * and the tail of record 0 shares a line with the head of record 1, which
 * both workers then write on every job; otherwise the header is padded to
 * a full line and every record fills exactly one.  struct worker_stats is
 * the same in both.
 *
 * Usage: worker_stats_offset [JOBS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS 2
#define FRAME_W 64
#define FRAME_H 64
#define TILE 4
#define TILES_X (FRAME_W / TILE)
#define NTILES ((FRAME_W / TILE) * (FRAME_H / TILE))

#ifdef BAD
#define HDR_SIZE 8
#else
#define HDR_SIZE 64
#endif

struct pool_hdr {
	uint32_t magic;
	uint32_t nworkers;
};

struct worker_stats {
	uint64_t tiles;
	uint64_t bytes_out;
	uint64_t skipped;
	uint64_t hash;
	uint32_t min_cost;
	uint32_t max_cost;
	uint64_t cost_sum;
	uint64_t flushes;
	uint64_t last_tile;
};

_Static_assert(sizeof(struct pool_hdr) == 8, "8-byte pool header");
_Static_assert(sizeof(struct worker_stats) == 64, "one line per record");

struct worker {
	int id;
	long jobs;
	volatile struct worker_stats *stats;
	uint8_t cur[FRAME_H][FRAME_W];
	uint8_t ref[FRAME_H][FRAME_W];
};

static uint8_t *pool;

static struct worker_stats *stats_at(int i)
{
	return (struct worker_stats *)(pool + HDR_SIZE + (size_t)i * sizeof(struct worker_stats));
}

static void frames_fill(struct worker *w, uint32_t seed)
{
	for (int y = 0; y < FRAME_H; y++)
		for (int x = 0; x < FRAME_W; x++) {
			seed = seed * 1664525u + 1013904223u;
			w->ref[y][x] = (uint8_t)(x + y + (seed >> 28));
			/* about one tile in eight changes between frames */
			w->cur[y][x] = w->ref[y][x] + (((x / TILE + y / TILE) & 7) == 0 ?
						       (uint8_t)(seed >> 24) : 0);
		}
}

static void *encode_tiles(void *p)
{
	struct worker *w = p;
	volatile struct worker_stats *s = w->stats;
	uint32_t tile = (uint32_t)w->id * 37;

	for (long n = 0; n < w->jobs; n++) {
		int tx = tile % TILES_X * TILE, ty = tile / TILES_X * TILE;
		uint32_t sad = 0, h = 2166136261u;

		for (int y = ty; y < ty + TILE; y++) {
			uint32_t row = 0;

			for (int x = tx; x < tx + TILE; x++) {
				int d = w->cur[y][x] - w->ref[y][x];

				sad += (uint32_t)(d < 0 ? -d : d);
				row = row << 8 | (uint8_t)d;
			}
			h = (h ^ row) * 16777619u;
		}
		s->tiles++;
		if (sad == 0) {
			s->skipped++;
		} else {
			s->bytes_out += 4 + sad / 16;
			s->hash = (s->hash ^ h) * 0x100000001b3ull;
		}
		s->cost_sum += sad;
		if (sad < s->min_cost)
			s->min_cost = sad;
		if (sad > s->max_cost)
			s->max_cost = sad;
		if ((n & 255) == 255)
			s->flushes++;
		s->last_tile = tile;
		tile = (tile + 97) % NTILES;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long jobs = argc > 1 ? atol(argv[1]) : 80000000;
	struct worker *w[NWORKERS];
	pthread_t t[NWORKERS];
	struct pool_hdr *hdr;
	uint64_t sum = 0;

	pool = aligned_alloc(64, 64 + NWORKERS * sizeof(struct worker_stats));
	if (!pool)
		return 1;
	hdr = (struct pool_hdr *)pool;
	hdr->magic = 0x54494c45;
	hdr->nworkers = NWORKERS;
	for (int i = 0; i < NWORKERS; i++) {
		struct worker_stats *s = stats_at(i);

		memset(s, 0, sizeof(*s));
		s->min_cost = UINT32_MAX;
		w[i] = malloc(sizeof(*w[i]));
		if (!w[i])
			return 1;
		w[i]->id = i;
		w[i]->jobs = jobs;
		w[i]->stats = s;
		frames_fill(w[i], 7 + i);
	}
	for (int i = 0; i < NWORKERS; i++)
		if (pthread_create(&t[i], NULL, encode_tiles, w[i]))
			return 1;
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NWORKERS; i++) {
		const struct worker_stats *s = stats_at(i);

		sum += s->tiles + s->bytes_out * 3 + s->skipped * 5 + s->hash + s->cost_sum +
		       s->min_cost + s->max_cost + s->flushes + s->last_tile;
		free(w[i]);
	}
	printf("checksum %llu\n", (unsigned long long)sum);
	free(pool);
	return 0;
}
