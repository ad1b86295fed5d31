// SPDX-License-Identifier: GPL-2.0-only
/*
 * The erasure-coding stage of an object store's write path: each incoming
 * object is cut into stripes of 10 data blocks of 4 KiB, and for every
 * stripe 4 parity blocks are computed with a Reed-Solomon code over
 * GF(2^8) (a Cauchy matrix), so that any 4 of the 14 blocks can be lost.
 * The multiplication is one 64 KiB table, gf_mul[c][x] = c * x, built once
 * at start; a parity byte is the XOR of table lookups indexed by the data.
 *
 * Clean control: the lookups are indexed by the data, but each
 * (parity, data block) pair uses one 256-byte row of the table, and the
 * 40 rows of the matrix (10 KiB) stay in L1.  The stripe buffer (56 KiB,
 * blocks 4 KiB apart) is reused for every stripe and stays in L2; the
 * encode walks one data block and one parity block at a time, front to
 * back.  The time is in the byte lookups, not in memory.
 *
 * Usage: clean_ec_stripe_encode [STRIPES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K	10		/* data blocks */
#define M	4		/* parity blocks */
#define BLK	4096

static uint8_t gf_mul[256][256];
static uint8_t coef[M][K];

struct stripe {
	uint8_t data[K][BLK];
	uint8_t parity[M][BLK];
};

static uint8_t gf_mul_slow(uint8_t a, uint8_t b)
{
	uint8_t p = 0;

	while (b) {
		if (b & 1)
			p ^= a;
		a = (uint8_t)((a << 1) ^ (a & 0x80 ? 0x1d : 0));	/* x^8+x^4+x^3+x^2+1 */
		b >>= 1;
	}
	return p;
}

static void gf_init(void)
{
	uint8_t inv[256] = { 0 };

	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++)
			gf_mul[a][b] = gf_mul_slow((uint8_t)a, (uint8_t)b);
	for (int a = 1; a < 256; a++)
		for (int b = 1; b < 256; b++)
			if (gf_mul[a][b] == 1)
				inv[a] = (uint8_t)b;
	/* Cauchy matrix: 1 / (x_i + y_j) with x_i = K + i, y_j = j */
	for (int i = 0; i < M; i++)
		for (int j = 0; j < K; j++)
			coef[i][j] = inv[(K + i) ^ j];
}

static uint64_t rng = 0x9fb21c651e98df25ull;

/* The next stripe of the object as it arrives from the client. */
static void receive(struct stripe *s)
{
	for (int d = 0; d < K; d++) {
		uint64_t *w = (uint64_t *)s->data[d];

		for (int i = 0; i < BLK / 8; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			w[i] = rng;
		}
	}
}

static __attribute__((noinline)) void encode(struct stripe *s)
{
	memset(s->parity, 0, sizeof(s->parity));
	for (int p = 0; p < M; p++) {
		uint8_t *par = s->parity[p];

		for (int d = 0; d < K; d++) {
			const uint8_t *row = gf_mul[coef[p][d]];
			const uint8_t *src = s->data[d];

			for (int i = 0; i < BLK; i++)
				par[i] ^= row[src[i]];
		}
	}
}

int main(int argc, char **argv)
{
	long stripes = argc > 1 ? atol(argv[1]) : 20000;
	struct stripe *s = aligned_alloc(64, sizeof(*s));
	uint64_t sum = 0;

	if (!s)
		return 1;
	gf_init();
	for (long n = 0; n < stripes; n++) {
		receive(s);
		encode(s);
		for (int p = 0; p < M; p++) {
			const uint64_t *w = (const uint64_t *)s->parity[p];
			uint64_t h = 0;

			for (int i = 0; i < BLK / 8; i++)
				h = (h ^ w[i]) * 0x100000001b3ull;
			sum = sum * 1000003 + h;
		}
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	free(s);
	return 0;
}
