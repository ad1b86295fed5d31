// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline analysis of a sensor recording: 96 MiB of 32-bit samples are
 * generated once at start-up (the first touch faults every page once),
 * then each analysis pass walks the whole array sequentially to compute
 * the mean, the energy, the extremes and the zero crossings.  A clean
 * control: one-time start-up faults are not a fault storm, and a
 * sequential walk that the prefetcher streams is not TLB-bound.
 *
 * Usage: clean_startup_fill [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NSAMPLES (24u * 1024 * 1024)

struct stats {
	int64_t sum;
	uint64_t energy;
	int32_t min, max;
	uint64_t crossings;
};

static void analyse(const int32_t *s, struct stats *st)
{
	int64_t sum = 0;
	uint64_t energy = 0, crossings = 0;
	int32_t mn = INT32_MAX, mx = INT32_MIN;

	for (uint32_t i = 0; i < NSAMPLES; i++) {
		int32_t v = s[i];

		sum += v;
		energy += (uint64_t)((int64_t)v * v) >> 8;
		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
		crossings += i && ((v ^ s[i - 1]) < 0);
	}
	st->sum += sum;
	st->energy += energy;
	st->min = mn;
	st->max = mx;
	st->crossings += crossings;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 60;
	struct stats st = { 0 };
	int32_t *samples = malloc(NSAMPLES * sizeof(*samples));
	uint32_t x = 1;

	if (!samples)
		return 1;
	for (uint32_t i = 0; i < NSAMPLES; i++) {
		x = x * 1664525u + 1013904223u;
		samples[i] = (int32_t)(x >> 16) - 32768 + (int32_t)(i % 4000) - 2000;
	}
	for (long p = 0; p < passes; p++)
		analyse(samples, &st);
	printf("checksum %lld %llu %d %d %llu\n", (long long)st.sum, (unsigned long long)st.energy,
	       st.min, st.max, (unsigned long long)st.crossings);
	free(samples);
	return 0;
}
