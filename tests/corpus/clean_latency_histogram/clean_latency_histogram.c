// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_latency_histogram: the latency histogram of a load balancer's
 * health checker.  Each round decodes a batch of 4096 response times
 * (microseconds, from a recorded trace regenerated here by a PRNG) into a
 * buffer and folds them into 8192 log-linear buckets (32 KiB of counters,
 * in L1/L2).  The fold reads its settings from the checker's
 * configuration, a 72-byte struct with holes (a shift, twelve alarm
 * limits, a mode byte, a scale and a tag), once per batch, before the
 * loop.
 * Clean control: the time goes to decoding and to counter increments that
 * hit the cache; the configuration is read a few hundred times per second
 * and its layout costs nothing.  Accesses through the uint32_t pointers of
 * the loop (the batch and the buckets) are no member of the configuration,
 * whatever member sits at their displacement.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH	4096
#define BUCKETS	8192
#define ROUNDS	60000

struct check_cfg {
	uint32_t shift;		/* sub-bucket bits */
	uint32_t limits[12];	/* alarm thresholds per bucket group */
	char mode;
	double scale;
	char tag;
};

_Static_assert(sizeof(struct check_cfg) == 72, "two lines, 8 bytes of holes");

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_latency(void)
{
	/* a long-tailed distribution: mostly hundreds of us, some tens of ms */
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	uint32_t r = (uint32_t)rng;
	uint32_t base = 80 + (r & 511);

	return (r >> 28) == 0 ? base << ((r >> 20) & 7) : base;
}

static __attribute__((noinline)) void decode_batch(uint32_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = next_latency();
}

/* the log-linear bucket of a latency: an exponent and SHIFT bits below it */
static inline uint32_t bucket_of(uint32_t us, uint32_t shift)
{
	uint32_t e = 31u - (uint32_t)__builtin_clz(us | 1u);
	uint32_t sub = e > shift ? (us >> (e - shift)) & ((1u << shift) - 1) : us & ((1u << shift) - 1);

	return ((e << shift) | sub) & (BUCKETS - 1);
}

static __attribute__((noinline)) uint64_t fold_batch(const struct check_cfg *cfg,
						     const uint32_t *lat, size_t n, uint32_t *hist)
{
	uint32_t shift = cfg->shift;
	uint64_t alarms = 0;
	uint32_t limit = cfg->limits[cfg->mode & 7];

	for (size_t i = 0; i < n; i++) {
		hist[bucket_of(lat[i], shift)]++;
		alarms += lat[i] > limit;
	}
	return alarms;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : ROUNDS;
	struct check_cfg *cfg = calloc(1, sizeof(*cfg));
	uint32_t *lat = malloc(BATCH * sizeof(*lat));
	uint32_t *hist = calloc(BUCKETS, sizeof(*hist));
	uint64_t alarms = 0, total = 0;

	if (!cfg || !lat || !hist || rounds <= 0)
		return 1;
	cfg->shift = 6;
	for (int k = 0; k < 12; k++)
		cfg->limits[k] = 5000u << (k & 3);
	cfg->mode = 2;
	cfg->scale = 1e-6;
	cfg->tag = 'h';
	for (long r = 0; r < rounds; r++) {
		decode_batch(lat, BATCH);
		alarms += fold_batch(cfg, lat, BATCH, hist);
	}
	for (int b = 0; b < BUCKETS; b++)
		total += hist[b];
	printf("samples %llu alarms %llu scale %g\n", (unsigned long long)total,
	       (unsigned long long)alarms, cfg->scale);
	free(hist);
	free(lat);
	free(cfg);
	return 0;
}
