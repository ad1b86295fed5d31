// SPDX-License-Identifier: GPL-2.0-only
/*
 * A deduplicating backup tool fingerprints a 48 MiB staging buffer in 4 KiB
 * chunks with a rolling checksum, once per candidate chunk boundary shift:
 * every pass reads the whole buffer in order, start to end, and there are
 * many passes.  A clean control: a pass takes about as long as the
 * profiler's sampling period, so its samples land anywhere in the buffer,
 * but the walk is sequential (the prefetchers serve it, one TLB miss per
 * 1024 words): no huge-page, TLB or stride advice applies.
 *
 * Usage: clean_dedup_sweeps [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS (12u << 20)	/* 48 MiB of 32-bit words */
#define CHUNK 1024		/* words per 4 KiB chunk */

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 250;
	uint32_t *buf = malloc((size_t)WORDS * sizeof(*buf)), x = 1;
	uint64_t fp = 0;

	if (!buf)
		return 1;
	for (uint32_t i = 0; i < WORDS; i++) {
		x = x * 1664525u + 1013904223u;
		buf[i] = x >> 8;
	}
	for (long p = 0; p < passes; p++) {
		uint32_t shift = (uint32_t)p % 7, a = 1, b = 0;

		for (uint32_t i = 0; i < WORDS; i++) {
			a += buf[i] >> shift;
			b += a;
			if ((i & (CHUNK - 1)) == CHUNK - 1) {
				fp ^= ((uint64_t)b << 32 | a) * 0x9e3779b97f4a7c15ULL;
				a = 1;
				b = 0;
			}
		}
	}
	printf("%llx\n", (unsigned long long)fp);
	free(buf);
	return 0;
}
