// SPDX-License-Identifier: GPL-2.0-only
/*
 * spectrum_waterfall: the spectrum monitor of a software-defined radio. The
 * receiver's FFT engine hands over blocks of 1024 complex bins (16 blocks in
 * flight, 129 KiB, in L2). For every block the monitor applies a 4-term
 * Blackman-Harris window in the frequency domain (a 7-tap kernel across
 * neighbouring bins), takes the power of each bin, applies the per-bin
 * calibration and AGC gains and converts the result to dB with a polynomial
 * log2. The 1024 dB values form one 4 KiB row of the waterfall, a 256 MiB ring
 * (65536 rows) that the display process reads; the monitor never reads a row
 * back. BAD writes each group of four values with _mm_store_ps: every ring
 * line is read for ownership and the rows stream through the caches. GOOD
 * writes the same values with _mm_stream_ps and issues one _mm_sfence per
 * row, so the ring bypasses the caches.
 */
#include <emmintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NBIN	1024
#define GUARD	4			/* wrapped bins each side, keeps bin 0 16-byte aligned */
#define NBLK	16
#define RINGSZ	(256ul << 20)
#define NROW	(RINGSZ / (NBIN * sizeof(float)))

/* frequency-domain 4-term Blackman-Harris: a0, -a1/2, a2/2, -a3/2 */
#define BH0	0.35875f
#define BH1	(-0.48829f / 2)
#define BH2	(0.14128f / 2)
#define BH3	(-0.01168f / 2)

struct rx_block {
	float re[NBIN + 2 * GUARD];
	float im[NBIN + 2 * GUARD];
};

struct monitor {
	struct rx_block *blk;		/* NBLK blocks from the FFT engine */
	float *cal;			/* NBIN per-bin gains */
	float *ring;			/* RINGSZ bytes, NROW rows of NBIN */
	size_t row;			/* rows written so far */
};

/*
 * The windowed value of bins k..k+3 of one component; X points at bin 0.
 * The neighbours k-3..k+6 come from three aligned loads and shuffles, so no
 * load straddles a cache line.
 */
static inline __m128 bh_window(const float *x, int k)
{
	__m128 a = _mm_load_ps(x + k - 4), c = _mm_load_ps(x + k), d = _mm_load_ps(x + k + 4);
	__m128 u = _mm_shuffle_ps(a, c, _MM_SHUFFLE(0, 0, 3, 3));	/* a3 a3 c0 c0 */
	__m128 w = _mm_shuffle_ps(c, d, _MM_SHUFFLE(0, 0, 3, 3));	/* c3 c3 d0 d0 */
	__m128 m1 = _mm_shuffle_ps(u, c, _MM_SHUFFLE(2, 1, 2, 0));	/* bins k-1..k+2 */
	__m128 m2 = _mm_shuffle_ps(a, c, _MM_SHUFFLE(1, 0, 3, 2));	/* bins k-2..k+1 */
	__m128 m3 = _mm_shuffle_ps(a, u, _MM_SHUFFLE(2, 0, 2, 1));	/* bins k-3..k */
	__m128 p1 = _mm_shuffle_ps(c, w, _MM_SHUFFLE(2, 0, 2, 1));	/* bins k+1..k+4 */
	__m128 p2 = _mm_shuffle_ps(c, d, _MM_SHUFFLE(1, 0, 3, 2));	/* bins k+2..k+5 */
	__m128 p3 = _mm_shuffle_ps(w, d, _MM_SHUFFLE(2, 1, 2, 0));	/* bins k+3..k+6 */
	__m128 y = _mm_mul_ps(_mm_set1_ps(BH0), c);

	y = _mm_add_ps(y, _mm_mul_ps(_mm_set1_ps(BH1), _mm_add_ps(m1, p1)));
	y = _mm_add_ps(y, _mm_mul_ps(_mm_set1_ps(BH2), _mm_add_ps(m2, p2)));
	y = _mm_add_ps(y, _mm_mul_ps(_mm_set1_ps(BH3), _mm_add_ps(m3, p3)));
	return y;
}

/* 10 * log10(p) for four positive powers: exponent plus a polynomial log2(1 + t). */
static inline __m128 to_db(__m128 p)
{
	__m128i bits = _mm_castps_si128(p);
	__m128 e = _mm_cvtepi32_ps(_mm_sub_epi32(_mm_srli_epi32(bits, 23), _mm_set1_epi32(127)));
	__m128 t = _mm_sub_ps(_mm_castsi128_ps(_mm_or_si128(_mm_and_si128(bits,
				_mm_set1_epi32(0x007fffff)), _mm_set1_epi32(0x3f800000))),
			      _mm_set1_ps(1.0f));
	__m128 l = _mm_set1_ps(0.0458708f);

	l = _mm_add_ps(_mm_mul_ps(l, t), _mm_set1_ps(-0.1943904f));
	l = _mm_add_ps(_mm_mul_ps(l, t), _mm_set1_ps(0.4153978f));
	l = _mm_add_ps(_mm_mul_ps(l, t), _mm_set1_ps(-0.7086749f));
	l = _mm_add_ps(_mm_mul_ps(l, t), _mm_set1_ps(1.4418251f));
	l = _mm_add_ps(_mm_mul_ps(l, t), e);
	return _mm_mul_ps(l, _mm_set1_ps(3.0103000f));	/* 10 * log10(2) */
}

/* One waterfall row from block B, at AGC gain G; returns the sum of its values. */
static __attribute__((noinline)) double spectrum__row(struct monitor *mon, const struct rx_block *b,
						      float g)
{
	float *out = mon->ring + (mon->row % NROW) * NBIN;
	__m128 gain = _mm_set1_ps(g), eps = _mm_set1_ps(1e-12f);
	__m128 lo = _mm_set1_ps(-150.0f), hi = _mm_set1_ps(30.0f);
	__m128 acc = _mm_setzero_ps();
	float lane[4];

	for (int k = 0; k < NBIN; k += 4) {
		__m128 yr = bh_window(b->re + GUARD, k), yi = bh_window(b->im + GUARD, k);
		__m128 p = _mm_add_ps(_mm_add_ps(_mm_mul_ps(yr, yr), _mm_mul_ps(yi, yi)), eps);
		__m128 v;

		p = _mm_mul_ps(p, _mm_mul_ps(gain, _mm_load_ps(mon->cal + k)));
		v = _mm_min_ps(_mm_max_ps(to_db(p), lo), hi);
		acc = _mm_add_ps(acc, v);
#ifdef BAD
		_mm_store_ps(out + k, v);
#else
		_mm_stream_ps(out + k, v);
#endif
	}
#ifndef BAD
	_mm_sfence();
#endif
	mon->row++;
	_mm_storeu_ps(lane, acc);
	return (double)lane[0] + lane[1] + lane[2] + lane[3];
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* Noise plus a few carriers per block, with the ends wrapped into the guards. */
static void fill_blocks(struct rx_block *blk)
{
	uint32_t s = 12345;

	for (int n = 0; n < NBLK; n++) {
		float *re = blk[n].re + GUARD, *im = blk[n].im + GUARD;

		for (int k = 0; k < NBIN; k++) {
			re[k] = (lcg(&s) / 16777216.0f - 0.5f) * 0.01f;
			im[k] = (lcg(&s) / 16777216.0f - 0.5f) * 0.01f;
		}
		for (int j = 0; j < 6; j++) {
			int k = (int)(lcg(&s) % NBIN);
			float a = 0.2f + (float)(lcg(&s) % 1000) / 1000.0f;
			float ph = (float)(lcg(&s) % 6283) / 1000.0f;

			re[k] += a * cosf(ph);
			im[k] += a * sinf(ph);
		}
		for (int j = 1; j <= GUARD; j++) {
			re[-j] = re[NBIN - j];
			im[-j] = im[NBIN - j];
			re[NBIN - 1 + j] = re[j - 1];
			im[NBIN - 1 + j] = im[j - 1];
		}
	}
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? atol(argv[1]) : 1100000;
	struct monitor mon;
	double check = 0;

	mon.blk = aligned_alloc(64, NBLK * sizeof(struct rx_block));
	mon.cal = aligned_alloc(64, NBIN * sizeof(float));
	mon.ring = aligned_alloc(4096, RINGSZ);
	mon.row = 0;
	if (!mon.blk || !mon.cal || !mon.ring)
		return 1;
	fill_blocks(mon.blk);
	for (int k = 0; k < NBIN; k++)
		mon.cal[k] = 1.0f + 0.25f * cosf(k * (6.2831853f / NBIN));
	for (long r = 0; r < rows; r++)
		check += spectrum__row(&mon, &mon.blk[r % NBLK], 1.0f + 0.01f * (r % 64));
	printf("checksum %.3f\n", check);
	free(mon.ring);
	free(mon.cal);
	free(mon.blk);
	return 0;
}
