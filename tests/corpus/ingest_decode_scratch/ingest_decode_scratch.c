// SPDX-License-Identifier: GPL-2.0-only
/*
 * ingest_decode_scratch: the write path of a metrics ingest gateway.
 * Each request carries a batch of 64 time series, each a 64-bit base
 * value followed by 16-bit deltas.  The handler decodes the batch into a
 * scratch array of 64-bit samples (2-4 MiB, by the batch), computes each
 * series' min, max, sum and number of spikes, and folds the result into
 * the ingest digest.  At start-up the gateway lowers glibc's mmap
 * threshold to 256 KiB so that a burst of big batches does not leave the
 * heap bloated.
 * BAD: the handler mallocs the scratch array for every request and frees
 * it at the end; above the mmap threshold every malloc is a fresh mmap and
 * every free a munmap, so each request faults the whole scratch in again
 * (500-1000 zero-filled pages).
 * GOOD: the scratch array belongs to the worker and is kept between
 * requests, grown only when a batch is larger than any before.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SERIES		64
#define BODIES		16
#define MIN_PER_SERIES	4096
#define MAX_PER_SERIES	8192
#define SPIKE		3000
#define ALPHA		0.01

struct batch {
	uint32_t per_series;			/* samples per series */
	int64_t base[SERIES];
	int16_t *delta;				/* SERIES * per_series */
};

struct series_stat {
	int64_t min, max, sum;
	uint32_t spikes;
	uint32_t anomalies;
	double ewma;
};

struct worker {
	int64_t *scratch;
	size_t cap;				/* samples */
	uint64_t digest;
	uint64_t requests;
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void make_body(struct batch *b)
{
	b->per_series = MIN_PER_SERIES + (uint32_t)(next_rand() % (MAX_PER_SERIES - MIN_PER_SERIES + 1));
	b->delta = malloc((size_t)SERIES * b->per_series * sizeof(int16_t));
	if (!b->delta)
		exit(1);
	for (int s = 0; s < SERIES; s++) {
		b->base[s] = (int64_t)(next_rand() % 1000000);
		for (uint32_t i = 0; i < b->per_series; i++) {
			uint64_t r = next_rand();
			int d = (int)(r & 255) - 128;

			if ((r >> 8 & 1023) == 0)
				d *= 40;		/* a spike now and then */
			b->delta[(size_t)s * b->per_series + i] = (int16_t)d;
		}
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static void handle_request(struct worker *w, const struct batch *b)
{
	size_t n = (size_t)SERIES * b->per_series;
	struct series_stat st[SERIES];
	int64_t *samples;

#ifdef BAD
	samples = malloc(n * sizeof(*samples));
	if (!samples)
		exit(1);
#else
	if (n > w->cap) {
		free(w->scratch);
		w->scratch = malloc(n * sizeof(*w->scratch));
		if (!w->scratch)
			exit(1);
		w->cap = n;
	}
	samples = w->scratch;
#endif
	/* decode: running sums of the deltas, series after series */
	for (int s = 0; s < SERIES; s++) {
		const int16_t *d = b->delta + (size_t)s * b->per_series;
		int64_t *out = samples + (size_t)s * b->per_series;
		int64_t v = b->base[s];

		for (uint32_t i = 0; i < b->per_series; i++) {
			v += d[i];
			out[i] = v;
		}
	}
	/* aggregate each decoded series */
	for (int s = 0; s < SERIES; s++) {
		const int64_t *v = samples + (size_t)s * b->per_series;
		int64_t mn = v[0], mx = v[0], sum = 0;
		uint32_t spikes = 0;

		for (uint32_t i = 0; i < b->per_series; i++) {
			mn = v[i] < mn ? v[i] : mn;
			mx = v[i] > mx ? v[i] : mx;
			sum += v[i];
			if (i && (v[i] - v[i - 1] > SPIKE || v[i - 1] - v[i] > SPIKE))
				spikes++;
		}
		st[s].min = mn;
		st[s].max = mx;
		st[s].sum = sum;
		st[s].spikes = spikes;
	}
	/* anomaly score: distance from an exponentially weighted mean */
	for (int s = 0; s < SERIES; s++) {
		const int64_t *v = samples + (size_t)s * b->per_series;
		double mean = (double)v[0], var = 0.0;
		uint32_t anomalies = 0;

		for (uint32_t i = 1; i < b->per_series; i++) {
			double d = (double)v[i] - mean;

			mean += ALPHA * d;
			var = (1.0 - ALPHA) * (var + ALPHA * d * d);
			if (d * d > 16.0 * var + 1.0)
				anomalies++;
		}
		st[s].anomalies = anomalies;
		st[s].ewma = mean;
	}
	for (int s = 0; s < SERIES; s++)
		w->digest = mix(w->digest, (uint64_t)st[s].min ^ (uint64_t)st[s].max << 1 ^
				(uint64_t)st[s].sum << 2 ^ st[s].spikes ^
				(uint64_t)st[s].anomalies << 32 ^ (uint64_t)(int64_t)st[s].ewma << 3);
	w->requests++;
#ifdef BAD
	free(samples);
#endif
}

int main(int argc, char **argv)
{
	long requests = argc > 1 ? atol(argv[1]) : 800;
	static struct batch body[BODIES];
	struct worker w = { 0 };

	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	for (int i = 0; i < BODIES; i++)
		make_body(&body[i]);
	for (long r = 0; r < requests; r++)
		handle_request(&w, &body[(r * 7) % BODIES]);
	printf("checksum %016llx\n", (unsigned long long)(w.digest ^ w.requests));
	return 0;
}
