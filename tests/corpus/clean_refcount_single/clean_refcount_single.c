// SPDX-License-Identifier: GPL-2.0-only
/*
 * A single-threaded media pipeline that passes reference-counted frame
 * buffers between its stages (decode, scale, encode), as libraries that are
 * thread-safe by default do: every hand-over takes and drops a reference
 * with an atomic add.  Only one thread ever runs, so the atomics are never
 * contended and the lines stay in this core's cache.  A clean control.
 *
 * Usage: clean_refcount_single [FRAMES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NBUF 16
#define PIXELS 64

struct frame_buf {
	int refcount;
	uint32_t seq;
	uint16_t pixels[PIXELS];
};

static struct frame_buf pool[NBUF];

static struct frame_buf *buf_get(struct frame_buf *b)
{
	__atomic_fetch_add(&b->refcount, 1, __ATOMIC_RELAXED);
	return b;
}

static void buf_put(struct frame_buf *b)
{
	__atomic_fetch_sub(&b->refcount, 1, __ATOMIC_ACQ_REL);
}

static uint64_t stage_scale(struct frame_buf *b)
{
	uint64_t s = 0;

	for (int i = 0; i < PIXELS; i += 2) {
		b->pixels[i / 2] = (uint16_t)((b->pixels[i] + b->pixels[i + 1]) >> 1);
		s += b->pixels[i / 2];
	}
	return s;
}

static uint64_t run_pipeline(long frames)
{
	uint64_t sum = 0;

	for (long f = 0; f < frames; f++) {
		struct frame_buf *b = buf_get(&pool[f % NBUF]);

		b->seq = (uint32_t)f;
		for (int i = 0; i < PIXELS; i++)
			b->pixels[i] = (uint16_t)(f * 3 + i);
		buf_get(b);		/* to the scaler */
		sum += stage_scale(b);
		buf_put(b);
		buf_get(b);		/* to the encoder */
		sum += b->pixels[0] ^ b->seq;
		buf_put(b);
		buf_put(b);
	}
	return sum;
}

int main(int argc, char **argv)
{
	long frames = argc > 1 ? atol(argv[1]) : 64000000;
	uint64_t sum = run_pipeline(frames);
	int leaked = 0;

	for (int i = 0; i < NBUF; i++)
		leaked += pool[i].refcount;
	printf("checksum %llu %d\n", (unsigned long long)sum, leaked);
	return 0;
}
