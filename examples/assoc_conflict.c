// SPDX-License-Identifier: GPL-2.0-only
/*
 * assoc_conflict: a short circular list whose elements are --stride bytes
 * apart (section 6.2.1, Fig 6.5). With a stride of 4096 every element has
 * the same L1d set index (address bits 6-11), so once the list is longer
 * than the L1d associativity each access misses L1d; a stride of
 * 4096 + 64 spreads the elements over different sets. --sweep lengths
 * 1..N shows the knee, which is the L1d associativity.
 *
 * Labels: assoc_conflict
 */
#include <getopt.h>

#include "ex_common.h"

struct elem {
	struct elem *n;
};

static __attribute__((noinline)) struct elem *follow(struct elem *p, long steps)
{
	while (steps--)
		p = p->n;
	return p;
}

static double measure(char *base, long stride, int count, int reps, long steps, uint64_t *sum)
{
	double t[64];
	struct elem *p;

	for (int i = 0; i < count; i++)
		((struct elem *)(base + (size_t)i * stride))->n =
			(struct elem *)(base + (size_t)((i + 1) % count) * stride);
	p = follow((struct elem *)base, steps / 4);
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = ex_now_ns();

		p = follow(p, steps);
		t[r] = (double)(ex_now_ns() - t0) / (double)steps;
	}
	*sum += (uint64_t)((char *)p - base) / (uint64_t)stride;
	double med = ex_median(t, reps);
	fprintf(stderr, "result stride=%ld count=%d ns_per_elem=%.3f min=%.3f max=%.3f\n", stride, count,
		med, t[0], t[reps - 1]);
	return med;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: assoc_conflict [OPTIONS]\n"
		"Follows a list of elements --stride bytes apart (section 6.2.1, Fig 6.5).\n"
		"\n"
		"  -s, --stride N    bytes between elements: 4096 (same set, default) or 4160\n"
		"  -c, --count N     list length (default 32)\n"
		"  -S, --sweep N     measure every length from 1 to N\n"
		"  -k, --steps N     elements visited per measurement (default 4000000)\n"
		"  -R, --reps N      repetitions, median reported (default 5)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result stride=... count=... ns_per_elem=...'\n"
		"on stderr.\n"
		"\n"
		"Examples:\n"
		"  assoc_conflict --stride 4096 --sweep 32\n"
		"  assoc_conflict --stride 4160 --count 32\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "stride", required_argument, NULL, 's' }, { "count", required_argument, NULL, 'c' },
		{ "sweep", required_argument, NULL, 'S' },  { "steps", required_argument, NULL, 'k' },
		{ "reps", required_argument, NULL, 'R' },   { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long stride = 4096, steps = 4000000;
	int c, count = 32, sweep = 0, reps = 5;
	uint64_t sum = 0;

	while ((c = getopt_long(argc, argv, "s:c:S:k:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 's': stride = ex_parse_long("assoc_conflict", "--stride", optarg, 8, 1L << 24); break;
		case 'c': count = (int)ex_parse_long("assoc_conflict", "--count", optarg, 1, 4096); break;
		case 'S': sweep = (int)ex_parse_long("assoc_conflict", "--sweep", optarg, 1, 4096); break;
		case 'k': steps = ex_parse_long("assoc_conflict", "--steps", optarg, 1, 1L << 36); break;
		case 'R': reps = (int)ex_parse_long("assoc_conflict", "--reps", optarg, 1, 64); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("assoc_conflict", "unexpected argument");
	if (stride % 8)
		ex_die("assoc_conflict", "--stride must be a multiple of 8");

	int most = sweep ? sweep : count;
	char *base = ex_map((size_t)stride * most + EX_PAGE);

	if (sweep)
		for (int k = 1; k <= sweep; k++)
			measure(base, stride, k, reps, steps, &sum);
	else
		measure(base, stride, count, reps, steps, &sum);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
