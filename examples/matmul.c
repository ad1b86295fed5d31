// SPDX-License-Identifier: GPL-2.0-only
/*
 * matmul: the four matrix-multiplication variants of section 6.2.1 and
 * Table 6.2 (Appendix A.1) on N x N doubles.
 *	naive       res[i][j] += mul1[i][k] * mul2[k][j]   (mul2 walked by column)
 *	transposed  copy mul2 transposed first, then walk both rows
 *	tiled       SM x SM blocks, SM = cache line / sizeof(double), no copy
 *	vector      tiled with SSE2 (or AVX2 when the CPU has it) in the inner loop
 * Inputs are small integers, so every variant computes the same exact
 * result and prints the same checksum.
 *
 * Labels: matmul
 */
#include <getopt.h>
#include <immintrin.h>

#include "ex_common.h"

#define SM (EX_CLS / sizeof(double))
_Static_assert(SM == 8, "the vector kernels assume 64-byte lines");

static int n;
static double *mul1, *mul2, *res, *tmp;

#define M(a, i, j) ((a)[(size_t)(i) * n + (j)])

static __attribute__((noinline)) void mm_naive(void)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++)
				M(res, i, j) += M(mul1, i, k) * M(mul2, k, j);
}

static __attribute__((noinline)) void mm_transposed(void)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			M(tmp, i, j) = M(mul2, j, i);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++)
				M(res, i, j) += M(mul1, i, k) * M(tmp, j, k);
}

/*
 * Requires n % SM == 0 (checked in main). One SM x SM block of res is
 * updated from one block of mul1 and one of mul2, all three in L1d; the
 * SM results of a row stay in registers while k2 runs.
 */
static __attribute__((noinline)) void mm_tiled(void)
{
	for (int i = 0; i < n; i += SM)
		for (int k = 0; k < n; k += SM)
			for (int j = 0; j < n; j += SM) {
				double *restrict rres = &M(res, i, j);
				const double *restrict rmul1 = &M(mul1, i, k);

				for (int i2 = 0; i2 < (int)SM; i2++, rres += n, rmul1 += n) {
					const double *restrict rmul2 = &M(mul2, k, j);
					double acc[SM];

					for (int j2 = 0; j2 < (int)SM; j2++)
						acc[j2] = rres[j2];
					for (int k2 = 0; k2 < (int)SM; k2++, rmul2 += n)
#pragma GCC unroll 8
						for (int j2 = 0; j2 < (int)SM; j2++)
							acc[j2] += rmul1[k2] * rmul2[j2];
					for (int j2 = 0; j2 < (int)SM; j2++)
						rres[j2] = acc[j2];
				}
			}
}

/* The tiled loop with SSE2 intrinsics, two doubles per instruction (Appendix A.1). */
static __attribute__((noinline)) void mm_vector_sse2(void)
{
	for (int i = 0; i < n; i += SM)
		for (int k = 0; k < n; k += SM)
			for (int j = 0; j < n; j += SM) {
				double *restrict rres = &M(res, i, j);
				const double *restrict rmul1 = &M(mul1, i, k);

				for (int i2 = 0; i2 < (int)SM; i2++, rres += n, rmul1 += n) {
					const double *restrict rmul2 = &M(mul2, k, j);
					__m128d r0 = _mm_loadu_pd(&rres[0]), r1 = _mm_loadu_pd(&rres[2]);
					__m128d r2 = _mm_loadu_pd(&rres[4]), r3 = _mm_loadu_pd(&rres[6]);

					_mm_prefetch((const char *)&rmul1[n], _MM_HINT_NTA);
					for (int k2 = 0; k2 < (int)SM; k2++, rmul2 += n) {
						__m128d a = _mm_set1_pd(rmul1[k2]);

						r0 = _mm_add_pd(r0, _mm_mul_pd(a, _mm_loadu_pd(&rmul2[0])));
						r1 = _mm_add_pd(r1, _mm_mul_pd(a, _mm_loadu_pd(&rmul2[2])));
						r2 = _mm_add_pd(r2, _mm_mul_pd(a, _mm_loadu_pd(&rmul2[4])));
						r3 = _mm_add_pd(r3, _mm_mul_pd(a, _mm_loadu_pd(&rmul2[6])));
					}
					_mm_storeu_pd(&rres[0], r0);
					_mm_storeu_pd(&rres[2], r1);
					_mm_storeu_pd(&rres[4], r2);
					_mm_storeu_pd(&rres[6], r3);
				}
			}
}

/* Same blocking, four doubles per instruction; only called when the CPU has AVX2. */
static __attribute__((noinline, target("avx2"))) void mm_vector_avx2(void)
{
	for (int i = 0; i < n; i += SM)
		for (int k = 0; k < n; k += SM)
			for (int j = 0; j < n; j += SM) {
				double *restrict rres = &M(res, i, j);
				const double *restrict rmul1 = &M(mul1, i, k);

				for (int i2 = 0; i2 < (int)SM; i2++, rres += n, rmul1 += n) {
					const double *restrict rmul2 = &M(mul2, k, j);
					__m256d r0 = _mm256_loadu_pd(&rres[0]), r1 = _mm256_loadu_pd(&rres[4]);

					_mm_prefetch((const char *)&rmul1[n], _MM_HINT_NTA);
					for (int k2 = 0; k2 < (int)SM; k2++, rmul2 += n) {
						__m256d a = _mm256_set1_pd(rmul1[k2]);

						r0 = _mm256_add_pd(r0, _mm256_mul_pd(a, _mm256_loadu_pd(&rmul2[0])));
						r1 = _mm256_add_pd(r1, _mm256_mul_pd(a, _mm256_loadu_pd(&rmul2[4])));
					}
					_mm256_storeu_pd(&rres[0], r0);
					_mm256_storeu_pd(&rres[4], r1);
				}
			}
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: matmul [OPTIONS]\n"
		"Multiplies two N x N double matrices (paper section 6.2.1, Table 6.2).\n"
		"\n"
		"  -v, --variant V   naive (default), transposed, tiled or vector\n"
		"  -n, --size N      matrix order, a multiple of %zu (default 1000)\n"
		"  -S, --sse2        vector variant: use SSE2 even when AVX2 is present\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result variant=... ns=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  matmul --variant naive\n"
		"  matmul --variant tiled --size 512\n",
		SM);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "variant", required_argument, NULL, 'v' }, { "size", required_argument, NULL, 'n' },
		{ "sse2", no_argument, NULL, 'S' },	     { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *variants[] = { "naive", "transposed", "tiled", "vector" };
	int c, v = 0, sse2 = 0;
	const char *isa = "scalar";
	double sum = 0;

	n = 1000;
	while ((c = getopt_long(argc, argv, "v:n:Sh", lopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			for (v = 0; v < 4 && strcmp(optarg, variants[v]); v++)
				;
			if (v == 4)
				ex_die("matmul", "--variant must be naive, transposed, tiled or vector");
			break;
		case 'n': n = (int)ex_parse_long("matmul", "--size", optarg, (long)SM, 8192); break;
		case 'S': sse2 = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("matmul", "unexpected argument");
	if (n % SM)
		ex_die("matmul", "--size must be a multiple of the cache line in doubles");

	size_t bytes = (size_t)n * n * sizeof(double);
	mul1 = ex_map(bytes);
	mul2 = ex_map(bytes);
	res = ex_map(bytes);
	tmp = ex_map(bytes);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			M(mul1, i, j) = (double)((i + 2 * j) % 7);
			M(mul2, i, j) = (double)((3 * i + j) % 5);
		}

	uint64_t t0 = ex_now_ns();
	switch (v) {
	case 0: mm_naive(); break;
	case 1: mm_transposed(); break;
	case 2: mm_tiled(); break;
	default:
		if (!sse2 && __builtin_cpu_supports("avx2")) {
			isa = "avx2";
			mm_vector_avx2();
		} else {
			isa = "sse2";
			mm_vector_sse2();
		}
		break;
	}
	uint64_t ns = ex_now_ns() - t0;

	for (size_t i = 0; i < (size_t)n * n; i++)
		sum += res[i] * (double)(i % 13 + 1);
	fprintf(stderr, "result variant=%s n=%d isa=%s ns=%llu ns_per_madd=%.4f\n", variants[v], n, isa,
		(unsigned long long)ns, (double)ns / ((double)n * n * n));
	printf("checksum %.0f\n", sum);
	return 0;
}
