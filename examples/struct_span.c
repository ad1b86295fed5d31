// SPDX-License-Identifier: GPL-2.0-only
/*
 * struct_span: the two fields a loop needs lie in one cache line or in two
 * (section 6.2.1, Figs 6.2/6.3). 'struct foo' (72 bytes) keeps 'a' in its
 * first line and 'b' in its second; 'struct foo_packed' moves 'b' into the
 * hole after 'a' and fits one 64-byte line. The loop visits the elements
 * in memory order (seq) or in a random order (random) taken from an index
 * array, so the loads of different elements overlap and the cost is the
 * number of lines moved: two per element for struct foo, one when packed.
 *
 * Labels: struct_span, struct_holes
 */
#include <getopt.h>

#include "ex_common.h"

struct foo {
	struct foo *next;
	int a;
	long fill[6];
	int b;
};

struct foo_packed {
	struct foo_packed *next;
	int a;
	int b;
	long fill[6];
};

_Static_assert(sizeof(struct foo) == 72, "struct foo spans two lines");
_Static_assert(sizeof(struct foo_packed) == 64, "struct foo_packed fits one line");

static __attribute__((noinline)) long sum_split(const struct foo *arr, const uint32_t *order,
						long n)
{
	long total = 0;

	for (long i = 0; i < n; i++) {
		const struct foo *e = &arr[order[i]];

		total += e->a + e->b;
	}
	return total;
}

static __attribute__((noinline)) long sum_packed(const struct foo_packed *arr,
						 const uint32_t *order, long n)
{
	long total = 0;

	for (long i = 0; i < n; i++) {
		const struct foo_packed *e = &arr[order[i]];

		total += e->a + e->b;
	}
	return total;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: struct_span [OPTIONS]\n"
		"Sums two fields per element; they share a cache line or not (section 6.2.1).\n"
		"\n"
		"  -l, --layout L    split (struct foo, default) or packed (struct foo_packed)\n"
		"  -r, --order O     seq (default) or random\n"
		"  -w, --ws SIZE     working set (default 64M)\n"
		"  -R, --reps N      repetitions, median reported (default 3)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result layout=... ns_per_elem=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  struct_span --layout split --order random\n"
		"  struct_span --layout packed --ws 1M\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "layout", required_argument, NULL, 'l' }, { "order", required_argument, NULL, 'r' },
		{ "ws", required_argument, NULL, 'w' },	    { "reps", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 },
	};
	int c, packed = 0, random = 0, reps = 3;
	uint64_t ws = 64u << 20;
	double t[64];
	long total = 0;

	while ((c = getopt_long(argc, argv, "l:r:w:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (!strcmp(optarg, "packed"))
				packed = 1;
			else if (strcmp(optarg, "split"))
				ex_die("struct_span", "--layout must be split or packed");
			break;
		case 'r':
			if (!strcmp(optarg, "random"))
				random = 1;
			else if (strcmp(optarg, "seq"))
				ex_die("struct_span", "--order must be seq or random");
			break;
		case 'w':
			if (!(ws = ex_parse_size(optarg)))
				ex_die("struct_span", "bad --ws size");
			break;
		case 'R': reps = (int)ex_parse_long("struct_span", "--reps", optarg, 1, 64); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("struct_span", "unexpected argument");

	/* Both layouts hold the same number of elements: the one that fits in ws as struct foo. */
	uint64_t n = ws / sizeof(struct foo);
	if (n < 2)
		n = 2;
	uint32_t *next = malloc(n * sizeof(*next)), *order = malloc(n * sizeof(*order));
	if (!next || !order)
		ex_die("struct_span", "out of memory");
	if (random)
		ex_single_cycle(next, n, 42);
	else
		for (uint64_t i = 0; i < n; i++)
			next[i] = (uint32_t)((i + 1) % n);
	for (uint64_t i = 0, k = 0; i < n; i++, k = next[k])
		order[i] = (uint32_t)k;

	struct foo *fs = NULL;
	struct foo_packed *fp = NULL;
	if (packed) {
		fp = ex_map(n * sizeof(*fp));
		for (uint64_t i = 0; i < n; i++) {
			fp[i].next = &fp[next[i]];
			fp[i].a = (int)(i % 1000);
			fp[i].b = (int)(i % 7);
		}
	} else {
		fs = ex_map(n * sizeof(*fs));
		for (uint64_t i = 0; i < n; i++) {
			fs[i].next = &fs[next[i]];
			fs[i].a = (int)(i % 1000);
			fs[i].b = (int)(i % 7);
		}
	}
	for (int r = 0; r <= reps; r++) {
		uint64_t t0 = ex_now_ns();
		long s = packed ? sum_packed(fp, order, (long)n) : sum_split(fs, order, (long)n);

		if (r) /* the first pass only warms up */
			t[r - 1] = (double)(ex_now_ns() - t0) / (double)n;
		total = s;
	}
	double med = ex_median(t, reps);
	fprintf(stderr,
		"result layout=%s order=%s ws=%llu elems=%llu ns_per_elem=%.3f min=%.3f max=%.3f\n",
		packed ? "packed" : "split", random ? "random" : "seq", (unsigned long long)ws,
		(unsigned long long)n, med, t[0], t[reps - 1]);
	printf("checksum %ld\n", total);
	return 0;
}
