// SPDX-License-Identifier: GPL-2.0-only
/*
 * branches: a data-dependent branch the predictor cannot learn (section
 * 6.2.2 on branch prediction and hints, Appendix A.2). The loop adds the
 * values above a threshold; with --data random the branch goes either way
 * at random, with --data sorted it changes direction once. Both variants
 * add the same values, so they print the same checksum.
 *
 * Labels: branches
 */
#include <getopt.h>

#include "ex_common.h"

static __attribute__((noinline)) long sum_above(const int *v, long n, int threshold)
{
	long total = 0;

	for (long i = 0; i < n; i++) {
		if (v[i] >= threshold) {
			total += v[i];
			__asm__ volatile("" : "+r"(total)); /* keeps a branch: no cmov, no vectors */
		}
	}
	return total;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: branches [OPTIONS]\n"
		"Sums the values above a threshold; the branch is random or predictable\n"
		"(section 6.2.2).\n"
		"\n"
		"  -d, --data D      random (default) or sorted\n"
		"  -n, --count N     values (default 4000000)\n"
		"  -R, --reps N      repetitions, median reported (default 5)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result data=... ns_per_elem=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  branches --data random\n"
		"  branches --data sorted --count 1000000\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "data", required_argument, NULL, 'd' }, { "count", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'R' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, sorted = 0, reps = 5;
	long n = 4000000, total = 0;
	uint64_t st = 12345;
	double t[64];

	while ((c = getopt_long(argc, argv, "d:n:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!strcmp(optarg, "sorted"))
				sorted = 1;
			else if (strcmp(optarg, "random"))
				ex_die("branches", "--data must be random or sorted");
			break;
		case 'n': n = ex_parse_long("branches", "--count", optarg, 1, 1L << 30); break;
		case 'R': reps = (int)ex_parse_long("branches", "--reps", optarg, 1, 64); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("branches", "unexpected argument");

	int *v = ex_map(n * sizeof(*v));
	for (long i = 0; i < n; i++)
		v[i] = (int)ex_rand_below(&st, 256);
	if (sorted)
		qsort(v, n, sizeof(*v), cmp_int);
	for (int r = 0; r <= reps; r++) {
		uint64_t t0 = ex_now_ns();

		total = sum_above(v, n, 128);
		if (r)
			t[r - 1] = (double)(ex_now_ns() - t0) / (double)n;
	}
	double med = ex_median(t, reps);
	fprintf(stderr, "result data=%s count=%ld ns_per_elem=%.3f min=%.3f max=%.3f\n",
		sorted ? "sorted" : "random", n, med, t[0], t[reps - 1]);
	printf("checksum %ld\n", total);
	return 0;
}
