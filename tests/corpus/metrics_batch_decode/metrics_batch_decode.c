// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics_batch_decode: the ingest gateway of a metrics service.  Each
 * incoming batch carries 512K points delta- and varint-encoded (here one
 * recorded batch, replayed); the gateway decodes them into a 4 MiB array
 * of (timestamp delta, value) pairs, computes the batch's rollups (sum, min, max, points above the
 * alert level) and drops the decoded array.  At start it sets
 * M_MMAP_THRESHOLD to 1 MiB, as services do to give big buffers back to
 * the kernel between bursts instead of keeping them in the heap.
 * BAD allocates the decode array per batch with malloc and frees it after:
 * above the threshold, each malloc is a fresh mmap and each free a munmap,
 * so every batch faults in (and zeroes) 1024 new pages before it can
 * write them.
 * GOOD allocates the decode array once and reuses it for every batch: the
 * pages are faulted once, at the first batch.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define POINTS		(512 * 1024)
#define BATCHES		700
#define ENC_BYTES	(2 * 1024 * 1024)

struct point {
	uint32_t dt_ms;
	int32_t value;
};

struct rollup {
	int64_t sum;
	int32_t min, max;
	uint32_t alerts;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static size_t varint_put(uint8_t *p, uint32_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t varint_get(const uint8_t *p, uint32_t *v)
{
	size_t n = 0;
	int shift = 0;

	*v = 0;
	do {
		*v |= (uint32_t)(p[n] & 0x7f) << shift;
		shift += 7;
	} while (p[n++] & 0x80);
	return n;
}

/* One batch as it arrives on the wire: zigzag deltas of time and value. */
static size_t batch_encode(uint8_t *enc, uint64_t *x)
{
	size_t n = 0;

	for (int i = 0; i < POINTS; i++) {
		int32_t dv = (int32_t)(rnd(x) % 201) - 100;

		n += varint_put(enc + n, 1000 + (uint32_t)(rnd(x) % 64));
		n += varint_put(enc + n, ((uint32_t)dv << 1) ^ (uint32_t)(dv >> 31));
	}
	return n;
}

static __attribute__((noinline)) void batch_decode(const uint8_t *enc, struct point *pts)
{
	int32_t value = 0;

	for (int i = 0; i < POINTS; i++) {
		uint32_t dt, zz;

		enc += varint_get(enc, &dt);
		enc += varint_get(enc, &zz);
		value += (int32_t)(zz >> 1) ^ -(int32_t)(zz & 1);
		pts[i].dt_ms = dt;
		pts[i].value = value;
	}
}

static void batch_rollup(const struct point *pts, struct rollup *r)
{
	r->sum = 0;
	r->min = INT32_MAX;
	r->max = INT32_MIN;
	r->alerts = 0;
	for (int i = 0; i < POINTS; i++) {
		r->sum += pts[i].value;
		r->min = pts[i].value < r->min ? pts[i].value : r->min;
		r->max = pts[i].value > r->max ? pts[i].value : r->max;
		r->alerts += pts[i].value > 2000;
	}
}

static __attribute__((noinline)) void batch_ingest(const uint8_t *enc, struct point *scratch,
						   struct rollup *r)
{
#ifdef BAD
	struct point *pts = malloc(POINTS * sizeof(*pts));

	if (!pts)
		abort();
#else
	struct point *pts = scratch;
#endif
	batch_decode(enc, pts);
	batch_rollup(pts, r);
#ifdef BAD
	free(pts);
#endif
	(void)scratch;
}

int main(void)
{
	uint8_t *enc = malloc(ENC_BYTES);
	struct point *scratch = NULL;
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

	mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
#ifndef BAD
	scratch = malloc(POINTS * sizeof(*scratch));
	if (!scratch)
		return 1;
#endif
	if (!enc)
		return 1;
	batch_encode(enc, &x);
	for (int b = 0; b < BATCHES; b++) {
		struct rollup r;

		batch_ingest(enc, scratch, &r);
		sum += (uint64_t)r.sum + (uint64_t)r.min + (uint64_t)r.max + r.alerts + (uint64_t)b;
	}
	printf("%llu\n", (unsigned long long)sum);
	free(scratch);
	free(enc);
	return 0;
}
