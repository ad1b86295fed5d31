// SPDX-License-Identifier: GPL-2.0-only
/*
 * unaligned: the Increment list walk over 64-byte elements that start on a
 * cache-line boundary (--offset 0) or deliberately misplaced (--offset 60,
 * so the 'n' pointer of every element straddles two lines and 'val' sits in
 * the next line) - section 6.2.1, Fig 6.4. 'struct node' is packed so the
 * compiler accepts any placement.
 *
 * Labels: unaligned
 */
#include <getopt.h>

#include "ex_common.h"

struct __attribute__((packed)) node {
	struct node *n;
	long val;
	long pad[6];
};

_Static_assert(sizeof(struct node) == 64, "one line per element when aligned");

static __attribute__((noinline)) struct node *walk_inc(struct node *p, long steps)
{
	while (steps--) {
		p->val++;
		p = p->n;
	}
	return p;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: unaligned [OPTIONS]\n"
		"Increment walk over aligned or misaligned list elements (section 6.2.1, Fig 6.4).\n"
		"\n"
		"  -o, --offset N    byte offset of the element array from a line start:\n"
		"                    0 (aligned, default) or 60 (every pointer crosses a line)\n"
		"  -r, --order O     seq (default) or random\n"
		"  -w, --ws SIZE     working set (default 1M)\n"
		"  -R, --reps N      repetitions, median reported (default 3)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result offset=... ns_per_elem=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  unaligned --offset 60\n"
		"  unaligned --offset 0 --order random --ws 64M\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "offset", required_argument, NULL, 'o' }, { "order", required_argument, NULL, 'r' },
		{ "ws", required_argument, NULL, 'w' },	    { "reps", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 },
	};
	int c, random = 0, reps = 3;
	long offset = 0;
	uint64_t ws = 1u << 20, sum = 0;
	double t[256];

	while ((c = getopt_long(argc, argv, "o:r:w:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': offset = ex_parse_long("unaligned", "--offset", optarg, 0, 63); break;
		case 'r':
			if (!strcmp(optarg, "random"))
				random = 1;
			else if (strcmp(optarg, "seq"))
				ex_die("unaligned", "--order must be seq or random");
			break;
		case 'w':
			if (!(ws = ex_parse_size(optarg)))
				ex_die("unaligned", "bad --ws size");
			break;
		case 'R': reps = (int)ex_parse_long("unaligned", "--reps", optarg, 1, 256); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("unaligned", "unexpected argument");

	uint64_t n = ws / sizeof(struct node);
	if (n < 2)
		n = 2;
	char *raw = ex_map(n * sizeof(struct node) + EX_CLS);
	struct node *nodes = (struct node *)(raw + offset);
	uint32_t *next = malloc(n * sizeof(*next));

	if (!next)
		ex_die("unaligned", "out of memory");
	if (random)
		ex_single_cycle(next, n, 7);
	else
		for (uint64_t i = 0; i < n; i++)
			next[i] = (uint32_t)((i + 1) % n);
	for (uint64_t i = 0; i < n; i++)
		nodes[i].n = &nodes[next[i]];

	struct node *p = walk_inc(nodes, (long)n); /* warm up */
	long steps = n < (1u << 22) ? (1L << 22) : (long)n;
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = ex_now_ns();

		p = walk_inc(p, steps);
		t[r] = (double)(ex_now_ns() - t0) / (double)steps;
	}
	double med = ex_median(t, reps);
	for (uint64_t i = 0; i < n; i++)
		sum += (uint64_t)nodes[i].val;
	fprintf(stderr, "result offset=%ld order=%s ws=%llu ns_per_elem=%.3f min=%.3f max=%.3f\n", offset,
		random ? "random" : "seq", (unsigned long long)ws, med, t[0], t[reps - 1]);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
