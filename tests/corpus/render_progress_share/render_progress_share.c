// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tile renderer with two worker threads and a progress bar.  Each worker
 * shades the rows of its own tiles (a small gradient kernel on a tile that
 * stays in L1) and publishes, after every row, how far it has got: rows
 * done, pixels shaded and a running checksum, in its slot of a progress
 * table that the main thread polls for the bar.  The slots are volatile so
 * the poller sees fresh values without locks, the way such code is often
 * written before C11 atomics: each update is a load and a store.
 *
 * The table is allocated with the heap's cache-line alignment.  With -DBAD
 * a slot is 24 bytes and both workers' slots share one line, so every row
 * published takes the line away from the other core; otherwise each slot
 * is padded to a line of its own.
 *
 * Usage: render_progress_share [FRAMES]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NWORKERS 2
#define TILE 32			/* a tile is TILE x TILE pixels */
#define TILES 64		/* tiles per worker and frame */

struct progress {
#ifndef BAD
	_Alignas(64)
#endif
	uint64_t rows;
	uint64_t pixels;
	uint64_t checksum;
};

static volatile struct progress *table;
static volatile int done;

struct worker {
	int id;
	long frames;
	float tile[TILE][TILE];
};

static void *render(void *p)
{
	struct worker *w = p;
	volatile struct progress *me = &table[w->id];

	for (long f = 0; f < w->frames; f++) {
		for (int t = 0; t < TILES; t++) {
			for (int y = 0; y < TILE; y++) {
				float acc = 0;

				for (int x = 0; x < TILE; x++) {
					w->tile[y][x] = (float)(x * (t + 1) + y) * 0.5f + (float)f;
					acc += w->tile[y][x];
				}
				me->rows++;
				me->pixels += TILE;
				me->checksum += (uint64_t)acc;
			}
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long frames = argc > 1 ? atol(argv[1]) : 40000;
	struct worker *w[NWORKERS];
	pthread_t t[NWORKERS];
	uint64_t total = 0, rows = 0, sum = 0;
	int running = NWORKERS;

	if (posix_memalign((void **)&table, 64, NWORKERS * sizeof(*table)))
		return 1;
	for (int i = 0; i < NWORKERS; i++) {
		table[i].rows = table[i].pixels = table[i].checksum = 0;
		w[i] = calloc(1, sizeof(*w[i]));
		if (!w[i])
			return 1;
		w[i]->id = i;
		w[i]->frames = frames;
	}
	total = (uint64_t)frames * TILES * TILE * NWORKERS;
	for (int i = 0; i < NWORKERS; i++)
		if (pthread_create(&t[i], NULL, render, w[i]))
			return 1;
	/* the progress bar: a poll every 50 ms until every row is in */
	while (running) {
		struct timespec ts = { 0, 50000000 };

		nanosleep(&ts, NULL);
		rows = 0;
		for (int i = 0; i < NWORKERS; i++)
			rows += table[i].rows;
		fprintf(stderr, "\r%3d%%", (int)(rows * 100 / total));
		running = rows < total;
	}
	for (int i = 0; i < NWORKERS; i++) {
		pthread_join(t[i], NULL);
		sum += table[i].checksum + table[i].pixels;
		free(w[i]);
	}
	fprintf(stderr, "\n");
	printf("checksum %llu\n", (unsigned long long)sum);
	free((void *)table);
	return 0;
}
