// SPDX-License-Identifier: GPL-2.0-only
/*
 * A newline scan in AVX2 whose hot loop compares memory with vpcmpeqb
 * (VEX 0f 74) and stores each mask with vmovdqu (VEX 0f 7f), then a
 * scalar pass over the masks.  It prints a checksum of everything it
 * computed, so that a run under memadvise can be compared with a run
 * without it.  Exits 77 where the CPU has no AVX2.
 *
 * Usage: vec_scan [MIB [ROUNDS]]
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((target("avx2"), noinline))
static uint64_t scan(const uint8_t *src, uint8_t *masks, size_t n)
{
	__m256i nl = _mm256_set1_epi8('\n');
	uint64_t lines = 0;

	for (size_t i = 0; i < n; i += 32) {
		__m256i eq;

		/* the memory forms, written out so that the compiler keeps them */
		__asm__ volatile("vpcmpeqb (%1), %2, %0" : "=x"(eq) : "r"(src + i), "x"(nl));
		__asm__ volatile("vmovdqu %1, (%0)" : : "r"(masks + i), "x"(eq) : "memory");
		lines += (uint64_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(eq));
	}
	return lines;
}

__attribute__((noinline))
static uint64_t fold(const uint8_t *masks, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ masks[i]) * 1099511628211ULL;
	return h;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 32;
	int rounds = argc > 2 ? atoi(argv[2]) : 40;
	size_t n = mib << 20;
	uint8_t *src = aligned_alloc(64, n), *masks = aligned_alloc(64, n);
	uint64_t sum = 0;
	uint32_t x = 2463534242u;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		fprintf(stderr, "vec_scan: no AVX2 on this CPU\n");
		return 77;
	}
	if (!src || !masks)
		return 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		src[i] = (x & 63) == 0 ? '\n' : (uint8_t)('a' + x % 26);
	}
	for (int r = 0; r < rounds; r++) {
		sum = sum * 31 + scan(src, masks, n);
		if (r % 8 == 0)
			sum ^= fold(masks, n);
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
