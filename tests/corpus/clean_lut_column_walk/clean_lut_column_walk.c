// SPDX-License-Identifier: GPL-2.0-only
/*
 * A colour-grading step for video: every pixel's (r, g, b) goes through a
 * 3-D lookup table of 16 x 16 x 16 entries of 4 bytes (16 KiB), indexed
 * blue-major, so neighbouring pixels that differ in blue walk the table
 * with a stride of 1 KiB.  The table stays in L1 (32 KiB) whatever the
 * stride; the frame and its graded copy are 64 KiB each and stay in L2.  A clean control: a strided
 * walk over a small table is not a problem.
 *
 * Usage: clean_lut_column_walk [FRAMES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LUT_N 16
#define NPIX (16 * 1024)

static uint32_t lut[LUT_N][LUT_N][LUT_N];	/* [b][g][r] */
static uint32_t frame[NPIX];
static uint32_t graded[NPIX];

static uint64_t grade_frame(uint32_t shift)
{
	uint64_t sum = 0;

	for (int i = 0; i < NPIX; i++) {
		uint32_t px = frame[i] + shift;
		uint32_t r = px >> 4 & 15, g = px >> 12 & 15, b = px >> 20 & 15;

		graded[i] = (frame[i] & 0xff000000u) | (lut[b][g][r] & 0x00ffffffu);
		sum += graded[i] >> 24 ^ lut[b][g][r] >> 24;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long frames = argc > 1 ? atol(argv[1]) : 120000;
	uint64_t sum = 0;

	for (int b = 0; b < LUT_N; b++)
		for (int g = 0; g < LUT_N; g++)
			for (int r = 0; r < LUT_N; r++)
				lut[b][g][r] = (uint32_t)(r * 17) | (uint32_t)(g * 17) << 8 |
					       (uint32_t)(b * 17) << 16 | (uint32_t)((r + g + b) & 255) << 24;
	/* blue changes fastest across the row: the table is walked by its first index */
	for (int i = 0; i < NPIX; i++)
		frame[i] = (uint32_t)(i % LUT_N) << 20 | (uint32_t)(i / LUT_N % 256) << 8;
	for (long f = 0; f < frames; f++)
		sum += grade_frame((uint32_t)f << 20);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
