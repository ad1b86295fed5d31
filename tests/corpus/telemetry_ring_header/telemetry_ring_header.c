// SPDX-License-Identifier: GPL-2.0-only
/*
 * A telemetry store keeps the last sample of each of 512 K metrics in one
 * line-aligned table: a table header (magic, count, epoch, writer and
 * reader positions) followed by 32-byte samples (metric id, flags,
 * timestamp, value, min and max).  A query task reads random samples
 * whole.  With -DBAD the header is the 48 bytes it needs, so the samples
 * begin at offsets 48 and 16 of their lines and every other one straddles
 * two lines; otherwise the header is padded to a full line and every sample
 * lies in one line.
 *
 * Usage: telemetry_ring_header [QUERIES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NMETRICS (512u * 1024u)

struct table_hdr {
	uint32_t magic;
	uint32_t count;
	uint64_t epoch;
	uint64_t write_pos;
	uint64_t read_pos;
	uint64_t generation;
	uint64_t checksum;
#ifndef BAD
	uint8_t pad[16];
#endif
};

struct sample {
	uint32_t metric;
	uint32_t flags;
	uint64_t ts_ns;
	float value;
	float min;
	float max;
	uint32_t count;
};

_Static_assert(sizeof(struct sample) == 32, "32-byte samples");
#ifdef BAD
_Static_assert(sizeof(struct table_hdr) == 48, "48-byte header");
#else
_Static_assert(sizeof(struct table_hdr) == 64, "one-line header");
#endif

struct metric_table {
	struct table_hdr hdr;
	struct sample s[];
};

static __attribute__((noinline)) double run_queries(const struct metric_table *t, long queries)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	double acc = 0;

	for (long q = 0; q < queries; q++) {
		const struct sample *s;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		s = &t->s[(x * 0x2545f4914f6cdd1dull >> 32) % t->hdr.count];
		if (s->flags & 1)
			continue;
		acc += (double)s->value * s->count + (s->max - s->min) + (double)(s->ts_ns & 0xff) +
		       s->metric;
	}
	return acc;
}

int main(int argc, char **argv)
{
	long queries = argc > 1 ? atol(argv[1]) : 150000000;
	struct metric_table *t;
	double r;

	t = aligned_alloc(64, sizeof(*t) + (size_t)NMETRICS * sizeof(struct sample));
	if (!t)
		return 1;
	t->hdr.magic = 0x54454c4d;
	t->hdr.count = NMETRICS;
	t->hdr.epoch = 1;
	for (uint32_t i = 0; i < NMETRICS; i++) {
		struct sample *s = &t->s[i];

		s->metric = i;
		s->flags = (i % 97) == 0;
		s->ts_ns = 1000000ull * i;
		s->value = (float)(i % 1000) * 0.5f;
		s->min = s->value - 1.0f;
		s->max = s->value + 2.0f;
		s->count = 1 + i % 60;
	}
	r = run_queries(t, queries);
	printf("checksum %.1f\n", r);
	free(t);
	return 0;
}
