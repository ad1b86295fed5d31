// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlb: TLB saturation (the French TLB study "depassement-tlb" vs
 * "sans-depassement-tlb", and Fig 3.12). A table points at N 64-byte
 * entries, chained in a random single cycle through their 'next' index.
 *	--layout page    each entry on a page of its own (N pages, N TLB entries)
 *	--layout packed  entries contiguous (N * 64 bytes, N / 64 pages)
 * With --layout page the in-page offset of entry i is (i * 64) mod 4096 by
 * default (--offset varied), so the entries fall into all L1d sets and an
 * L1 set conflict cannot pass for a TLB miss; --offset zero puts all of them
 * at offset 0 as the original program did.
 *
 * Labels: tlb
 */
#include <getopt.h>

#include "ex_common.h"

struct entry {
	int next;
	char padding[EX_CLS - sizeof(int)];
};

_Static_assert(sizeof(struct entry) == 64, "one line per entry");

static __attribute__((noinline)) int chase(struct entry *const *table, long steps)
{
	int i = 0;

	while (steps--)
		i = table[i]->next;
	return i;
}

static double measure(int pages, int packed, int zero_offset, int reps, long min_steps,
		      uint64_t *sum)
{
	size_t bytes = packed ? (size_t)pages * sizeof(struct entry) : (size_t)pages * EX_PAGE;
	char *mem = ex_map(bytes + EX_PAGE);
	struct entry **table = malloc(pages * sizeof(*table));
	uint32_t *next = malloc(pages * sizeof(*next));
	long steps = (long)pages * 8 > min_steps ? (long)pages * 8 : min_steps;
	double t[64];

	if (!table || !next)
		ex_die("tlb", "out of memory");
	for (int i = 0; i < pages; i++) {
		size_t off = packed ? (size_t)i * sizeof(struct entry)
				    : (size_t)i * EX_PAGE +
					      (zero_offset ? 0 : ((size_t)i * EX_CLS) % EX_PAGE);
		table[i] = (struct entry *)(mem + off);
	}
	if (pages > 1)
		ex_single_cycle(next, pages, 0xdeadbeef);
	else
		next[0] = 0;
	for (int i = 0; i < pages; i++)
		table[i]->next = (int)next[i];
	int last = chase(table, pages); /* warm up */
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = ex_now_ns();

		last += chase(table, steps);
		t[r] = (double)(ex_now_ns() - t0) / (double)steps;
	}
	double med = ex_median(t, reps);
	fprintf(stderr, "result layout=%s offset=%s pages=%d ns_per_access=%.3f min=%.3f max=%.3f\n",
		packed ? "packed" : "page", zero_offset ? "zero" : "varied", pages, med, t[0],
		t[reps - 1]);
	*sum += (uint64_t)last;
	munmap(mem, bytes + EX_PAGE);
	free(table);
	free(next);
	return med;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tlb [OPTIONS]\n"
		"Random walk over N entries, one per page or packed (TLB saturation study).\n"
		"\n"
		"  -l, --layout L    page (one entry per page, default) or packed\n"
		"  -o, --offset O    varied (default: entry i at (i*64) mod 4096) or zero\n"
		"  -n, --pages N     number of entries (default 16384)\n"
		"  -s, --sweep MIN:MAX  every power of two from MIN to MAX entries\n"
		"  -k, --steps N     minimum accesses per measurement (default 2000000)\n"
		"  -R, --reps N      repetitions, median reported (default 3)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result layout=... pages=... ns_per_access=...'\n"
		"on stderr.\n"
		"\n"
		"Examples:\n"
		"  tlb --layout page --sweep 4:16384\n"
		"  tlb --layout packed --pages 16384\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "layout", required_argument, NULL, 'l' }, { "offset", required_argument, NULL, 'o' },
		{ "pages", required_argument, NULL, 'n' },  { "sweep", required_argument, NULL, 's' },
		{ "steps", required_argument, NULL, 'k' },  { "reps", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 },
	};
	int c, packed = 0, zero = 0, pages = 16384, lo = 0, hi = 0, reps = 3;
	long steps = 2000000;
	uint64_t sum = 0;

	while ((c = getopt_long(argc, argv, "l:o:n:s:k:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (!strcmp(optarg, "packed"))
				packed = 1;
			else if (strcmp(optarg, "page"))
				ex_die("tlb", "--layout must be page or packed");
			break;
		case 'o':
			if (!strcmp(optarg, "zero"))
				zero = 1;
			else if (strcmp(optarg, "varied"))
				ex_die("tlb", "--offset must be varied or zero");
			break;
		case 'n': pages = (int)ex_parse_long("tlb", "--pages", optarg, 1, 1 << 24); break;
		case 's': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				ex_die("tlb", "--sweep wants MIN:MAX");
			*colon = 0;
			lo = (int)ex_parse_long("tlb", "--sweep", optarg, 1, 1 << 24);
			hi = (int)ex_parse_long("tlb", "--sweep", colon + 1, lo, 1 << 24);
			break;
		}
		case 'k': steps = ex_parse_long("tlb", "--steps", optarg, 1, 1L << 36); break;
		case 'R': reps = (int)ex_parse_long("tlb", "--reps", optarg, 1, 64); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("tlb", "unexpected argument");
	if (lo)
		for (long p = lo; p <= hi; p *= 2)
			measure((int)p, packed, zero, reps, steps, &sum);
	else
		measure(pages, packed, zero, reps, steps, &sum);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
