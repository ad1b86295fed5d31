// SPDX-License-Identifier: GPL-2.0-only
/*
 * branch: a data-dependent branch over random or sorted data (section 6.2.2,
 * 7.4, Appendix A.2: branches laid out for the common path).  The loop adds
 * the values at or above a threshold; on random data the branch goes either
 * way at random and is mispredicted about half the time, on sorted data it
 * changes direction once.  The sum is the same either way.
 */
#include <getopt.h>

#include "ex_common.h"

static __attribute__((noinline)) long sum_above(const int *v, long n, int threshold)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		if (v[i] >= threshold) {
			sum += v[i];
			__asm__ volatile("" : "+r"(sum)); /* keep the branch: no cmov */
		}
	}
	return sum;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: branch [OPTIONS]\n"
		"Adds the values above a threshold with a branch, over random or sorted data\n"
		"(paper sections 6.2.2, 7.4, Appendix A.2).\n"
		"\n"
		"  -o, --order O     random (mispredicted half the time, default) or sorted\n"
		"  -n, --count N     number of values (default 1000000)\n"
		"  -r, --reps N      passes over the data (default 20)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result order=... ns_per_elem=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  branch --order random\n"
		"  branch --order sorted --count 100000\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "order", required_argument, NULL, 'o' }, { "count", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },  { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, sorted = 0;
	long n = 1000000, reps = 20, sum = 0;
	uint64_t t0, seed = 0x9e3779b97f4a7c15ull;
	int *v;

	while ((c = getopt_long(argc, argv, "o:n:r:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "sorted"))
				sorted = 1;
			else if (strcmp(optarg, "random"))
				ex_die("branch", "--order must be random or sorted");
			break;
		case 'n': n = ex_parse_long("branch", "--count", optarg, 1, 1L << 28); break;
		case 'r': reps = ex_parse_long("branch", "--reps", optarg, 1, 1000); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc)
		ex_die("branch", "unexpected argument");
	v = malloc(n * sizeof(*v));
	if (!v)
		ex_die("branch", "out of memory");
	for (long i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		v[i] = (int)(seed % 256);
	}
	if (sorted) { /* counting sort: the same values in order, with few branches */
		long count[256] = { 0 }, k = 0;

		for (long i = 0; i < n; i++)
			count[v[i]]++;
		for (int x = 0; x < 256; x++)
			for (long j = 0; j < count[x]; j++)
				v[k++] = x;
	}
	t0 = ex_now_ns();
	for (long r = 0; r < reps; r++)
		sum += sum_above(v, n, 128);
	fprintf(stderr, "result order=%s ns_per_elem=%.3f\n", sorted ? "sorted" : "random",
		(double)(ex_now_ns() - t0) / ((double)n * reps));
	printf("checksum %ld\n", sum);
	free(v);
	return 0;
}
