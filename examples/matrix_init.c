// SPDX-License-Identifier: GPL-2.0-only
/*
 * matrix_init: initialise an N x N int matrix (section 6.1, Table 6.1)
 * row-wise (inner loop walks a row: sequential) or column-wise (inner loop
 * walks a column: stride of one row), with normal stores or non-temporal
 * stores (movnti, SSE2) that bypass the caches.
 *
 * Labels: matrix_init_order, matrix_init_nt
 */
#include <getopt.h>
#include <immintrin.h>

#include "ex_common.h"

static __attribute__((noinline)) void init_row(int *m, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			m[(size_t)i * n + j] = i + j;
}

static __attribute__((noinline)) void init_col(int *m, int n)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			m[(size_t)i * n + j] = i + j;
}

static __attribute__((noinline)) void init_row_nt(int *m, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			_mm_stream_si32(&m[(size_t)i * n + j], i + j);
	_mm_sfence();
}

static __attribute__((noinline)) void init_col_nt(int *m, int n)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			_mm_stream_si32(&m[(size_t)i * n + j], i + j);
	_mm_sfence();
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: matrix_init [OPTIONS]\n"
		"Initialises an N x N int matrix (paper section 6.1, Table 6.1).\n"
		"\n"
		"  -o, --order O     row (sequential, default) or col (stride of one row)\n"
		"  -s, --store S     normal (default) or nt (non-temporal movnti)\n"
		"  -n, --size N      matrix order (default 3000)\n"
		"  -R, --reps N      repetitions, median reported (default 5)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result order=... ns=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  matrix_init --order col\n"
		"  matrix_init --order row --store nt\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "order", required_argument, NULL, 'o' }, { "store", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'n' },  { "reps", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },	   { NULL, 0, NULL, 0 },
	};
	int c, n = 3000, col = 0, nt = 0, reps = 5;
	double t[64];
	uint64_t sum = 0;

	while ((c = getopt_long(argc, argv, "o:s:n:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "col"))
				col = 1;
			else if (strcmp(optarg, "row"))
				ex_die("matrix_init", "--order must be row or col");
			break;
		case 's':
			if (!strcmp(optarg, "nt"))
				nt = 1;
			else if (strcmp(optarg, "normal"))
				ex_die("matrix_init", "--store must be normal or nt");
			break;
		case 'n': n = (int)ex_parse_long("matrix_init", "--size", optarg, 1, 65536); break;
		case 'R': reps = (int)ex_parse_long("matrix_init", "--reps", optarg, 1, 64); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("matrix_init", "unexpected argument");

	int *m = ex_map((size_t)n * n * sizeof(int));

	memset(m, 0xff, (size_t)n * n * sizeof(int)); /* fault the pages in first */
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = ex_now_ns();

		if (col)
			nt ? init_col_nt(m, n) : init_col(m, n);
		else
			nt ? init_row_nt(m, n) : init_row(m, n);
		t[r] = (double)(ex_now_ns() - t0);
	}
	double med = ex_median(t, reps);
	for (size_t i = 0; i < (size_t)n * n; i++)
		sum += (uint64_t)m[i] * (i % 7 + 1);
	fprintf(stderr, "result order=%s store=%s n=%d ns=%.0f min=%.0f max=%.0f mb_per_s=%.1f\n",
		col ? "col" : "row", nt ? "nt" : "normal", n, med, t[0], t[reps - 1],
		(double)n * n * sizeof(int) / med * 1e3);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
