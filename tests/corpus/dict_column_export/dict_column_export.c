// SPDX-License-Identifier: GPL-2.0-only
/*
 * dict_column_export: the export path of a column store.  A trade table of
 * 8M rows keeps its instrument column dictionary-encoded (one byte per
 * row, a code into a 256-entry dictionary of 32-byte instrument
 * descriptors); an export expands the column into a 256 MiB buffer of
 * fixed-width 32-byte rows that is handed to the network writer and never
 * read again by this process.  Each export uses the descriptors valid on
 * its trading day, and many exports run back to back.
 * BAD writes the rows with ordinary stores: each output line is first read
 * from memory (a read for ownership) and later written back, and the
 * 256 MiB (8 times L3) push the dictionary, the codes and everything else
 * out of the cache on the way.
 * GOOD writes the same rows with non-temporal stores (_mm_stream_si128,
 * then _mm_sfence before the buffer is handed over): the lines are
 * combined in write-combining buffers and go to memory without being read
 * or cached.
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS		(8u * 1024 * 1024)
#define EXPORTS		160
#define NCODES		256

struct instrument {
	int64_t price_ticks;
	int64_t lot_size;
	uint32_t venue;
	uint32_t currency;
	uint64_t isin_hash;
};

_Static_assert(sizeof(struct instrument) == 32, "32-byte export rows");

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Expands the column into out; returns the sum of the prices for the log. */
static __attribute__((noinline)) uint64_t column_export(const uint8_t *codes,
							const struct instrument *dict,
							struct instrument *out)
{
	uint64_t total = 0;

	for (size_t i = 0; i < ROWS; i++) {
		const struct instrument *d = &dict[codes[i]];

		total += (uint64_t)d->price_ticks;
#ifdef BAD
		out[i] = *d;
#else
		__m128i lo = _mm_load_si128((const __m128i *)d);
		__m128i hi = _mm_load_si128((const __m128i *)d + 1);

		_mm_stream_si128((__m128i *)&out[i], lo);
		_mm_stream_si128((__m128i *)&out[i] + 1, hi);
#endif
	}
#ifndef BAD
	_mm_sfence();
#endif
	return total;
}

int main(void)
{
	uint8_t *codes = malloc(ROWS);
	struct instrument *dict = aligned_alloc(64, NCODES * sizeof(*dict));
	struct instrument *out = aligned_alloc(64, (size_t)ROWS * sizeof(*out));
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

	if (!codes || !dict || !out)
		return 1;
	for (size_t i = 0; i < ROWS; i++)
		codes[i] = (uint8_t)(rnd(&x) % NCODES);
	for (int e = 0; e < EXPORTS; e++) {
		for (int c = 0; c < NCODES; c++) {	/* the descriptors of this day */
			dict[c].price_ticks = (int64_t)(c * 1000 + 17) * (e + 3) / 2;
			dict[c].lot_size = 100;
			dict[c].venue = (uint32_t)c % 7;
			dict[c].currency = 978;
			dict[c].isin_hash = rnd(&x);
		}
		sum += column_export(codes, dict, out);
	}
	printf("%llu\n", (unsigned long long)sum);
	free(out);
	free(dict);
	free(codes);
	return 0;
}
