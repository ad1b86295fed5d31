// SPDX-License-Identifier: GPL-2.0-only
/*
 * station_hourly_columns: the quality-control job of a weather network.
 * A year of hourly temperatures from 4100 stations is kept as it arrived:
 * one row per hour (8760 rows) holding every station's reading, row-major
 * floats, 137 MiB.  For each of several alert thresholds the job computes
 * every station's mean and its number of hours above the threshold.
 * BAD walks the table station by station: each step goes down one column,
 * 16400 bytes (four pages) further, so every load touches a new line and a
 * new page and uses 4 bytes of the 64 it fetched; the lines of one column
 * do not stay in L1 or L2 until the next 15 stations want them.
 * GOOD walks the table hour by hour, row by row, and keeps the per-station
 * sums and counts in arrays (4100 entries each, in L2): every fetched line
 * is used whole and the prefetcher streams the rows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define STATIONS	4100
#define HOURS		8760
#define PASSES		12

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#ifdef BAD
static __attribute__((noinline)) void station_stats(const float *t, float limit,
						    double *mean, uint32_t *hot)
{
	for (int s = 0; s < STATIONS; s++) {
		double sum = 0;
		uint32_t n = 0;

		for (int h = 0; h < HOURS; h++) {
			float v = t[(size_t)h * STATIONS + s];

			sum += v;
			n += v > limit;
		}
		mean[s] = sum / HOURS;
		hot[s] = n;
	}
}
#else
static __attribute__((noinline)) void station_stats(const float *t, float limit,
						    double *mean, uint32_t *hot)
{
	for (int s = 0; s < STATIONS; s++) {
		mean[s] = 0;
		hot[s] = 0;
	}
	for (int h = 0; h < HOURS; h++) {
		const float *row = &t[(size_t)h * STATIONS];

		for (int s = 0; s < STATIONS; s++) {
			mean[s] += row[s];
			hot[s] += row[s] > limit;
		}
	}
	for (int s = 0; s < STATIONS; s++)
		mean[s] /= HOURS;
}
#endif

int main(void)
{
	float *t = malloc((size_t)HOURS * STATIONS * sizeof(*t));
	double *mean = malloc(STATIONS * sizeof(*mean));
	uint32_t *hot = malloc(STATIONS * sizeof(*hot));
	uint64_t x = 0x2545f4914f6cdd1dull;
	double sum = 0;

	if (!t || !mean || !hot)
		return 1;
	for (int h = 0; h < HOURS; h++)	/* the readings as they arrived */
		for (int s = 0; s < STATIONS; s++)
			t[(size_t)h * STATIONS + s] = (float)(s % 40) - 10.0f +
				(float)((h / 24) % 365) / 20.0f + (float)(rnd(&x) % 100) / 10.0f;
	for (int p = 0; p < PASSES; p++) {
		station_stats(t, 20.0f + 5.0f * p, mean, hot);
		for (int s = 0; s < STATIONS; s++)
			sum += mean[s] + hot[s];
	}
	printf("%.3f\n", sum);
	free(hot);
	free(mean);
	free(t);
	return 0;
}
