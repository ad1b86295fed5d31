// SPDX-License-Identifier: GPL-2.0-only
/*
 * A thread pool computes the exposure of an 8-bit grey image through a tone
 * curve, one 32-pixel block per job.  Two workers take the next job from a
 * shared atomic cursor.
 * With -DBAD every block is claimed with its own fetch-and-add (a few dozen
 * nanoseconds of work per atomic on a line both threads write); otherwise a
 * worker claims 256 blocks at a time, as OpenMP's dynamic schedule with a
 * chunk size does.
 *
 * Usage: job_dispatch_counter [FRAMES]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WIDTH 1024
#define HEIGHT 256
#define BLOCK 32
#define NBLOCKS (WIDTH * HEIGHT / BLOCK)

#ifdef BAD
#define CHUNK 1
#else
#define CHUNK 256
#endif

static uint8_t image[WIDTH * HEIGHT];
static uint8_t curve[256];
static unsigned long next_block;
static unsigned long frame_end;

struct worker {
	uint64_t sum;
};

/* The block's toned luminance, for the frame's exposure statistics. */
static void tone_block(const uint8_t *px, uint64_t *sum)
{
	uint64_t s = 0;

	for (int i = 0; i < BLOCK; i++)
		s += curve[px[i]];
	*sum += s;
}

static void *tone_worker(void *p)
{
	struct worker *w = p;
	unsigned long end = __atomic_load_n(&frame_end, __ATOMIC_RELAXED);
	uint64_t sum = 0;

	for (;;) {
		unsigned long b = __atomic_fetch_add(&next_block, CHUNK, __ATOMIC_RELAXED);

		if (b >= end)
			break;
		for (unsigned long k = b; k < b + CHUNK && k < end; k++)
			tone_block(&image[(k % NBLOCKS) * BLOCK], &sum);
	}
	w->sum = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	long frames = argc > 1 ? atol(argv[1]) : 40000;
	struct worker w[2] = { { 0 } };
	pthread_t t[2];

	for (int i = 0; i < 256; i++)
		curve[i] = (uint8_t)(255.0 * (i / 255.0) * (i / 255.0) + 0.5);
	for (int i = 0; i < WIDTH * HEIGHT; i++)
		image[i] = (uint8_t)(i * 31 + (i >> 10));
	/* All frames form one job range: the pool is started once. */
	frame_end = (unsigned long)frames * NBLOCKS;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, tone_worker, &w[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("checksum %llu\n", (unsigned long long)(w[0].sum + w[1].sum));
	return 0;
}
