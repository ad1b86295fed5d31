// SPDX-License-Identifier: GPL-2.0-only
/*
 * huge_pages: the random Follow walk (NPAD=0) over a large working set with
 * 4 KiB pages or with transparent huge pages requested through
 * madvise(MADV_HUGEPAGE) (section 7.5, Fig 7.9: "38% faster for the 512MB
 * working set size"). The result line reports how much of the array the
 * kernel really backed with huge pages (AnonHugePages).
 *
 * Labels: huge_pages
 */
#include <getopt.h>

#include "ex_common.h"

#define HUGE_SZ (2UL << 20)

struct l {
	struct l *n;
};

static __attribute__((noinline)) struct l *follow(struct l *p, long steps)
{
	while (steps--)
		p = p->n;
	return p;
}

/* Sum of AnonHugePages over this process, in KiB (0 when unknown). */
static long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: huge_pages [OPTIONS]\n"
		"Random pointer chase with or without transparent huge pages (section 7.5).\n"
		"\n"
		"  -t, --thp MODE    off (4 KiB pages, default) or on (madvise MADV_HUGEPAGE)\n"
		"  -w, --ws SIZE     working set (default 512M)\n"
		"  -k, --steps N     elements visited per measurement (default 4000000)\n"
		"  -R, --reps N      repetitions, median reported (default 3)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result thp=... ns_per_elem=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  huge_pages --thp off\n"
		"  huge_pages --thp on --ws 64M\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "thp", required_argument, NULL, 't' },   { "ws", required_argument, NULL, 'w' },
		{ "steps", required_argument, NULL, 'k' }, { "reps", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },	   { NULL, 0, NULL, 0 },
	};
	int c, thp = 0, reps = 3;
	uint64_t ws = 512u << 20;
	long steps = 4000000;
	double t[64];

	while ((c = getopt_long(argc, argv, "t:w:k:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "on"))
				thp = 1;
			else if (strcmp(optarg, "off"))
				ex_die("huge_pages", "--thp must be on or off");
			break;
		case 'w':
			if (!(ws = ex_parse_size(optarg)))
				ex_die("huge_pages", "bad --ws size");
			break;
		case 'k': steps = ex_parse_long("huge_pages", "--steps", optarg, 1, 1L << 36); break;
		case 'R': reps = (int)ex_parse_long("huge_pages", "--reps", optarg, 1, 64); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("huge_pages", "unexpected argument");

	uint64_t n = ws / sizeof(struct l);
	if (n < 2)
		n = 2;
	size_t bytes = (n * sizeof(struct l) + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	/* Over-allocate to start the array on a 2 MiB boundary in both variants. */
	char *raw = ex_map(bytes + HUGE_SZ);
	struct l *arr = (struct l *)(((uintptr_t)raw + HUGE_SZ - 1) & ~(HUGE_SZ - 1));

	if (thp)
		madvise(arr, bytes, MADV_HUGEPAGE);

	uint32_t *next = malloc(n * sizeof(*next));
	if (!next)
		ex_die("huge_pages", "out of memory");
	ex_single_cycle(next, n, 1234567);
	for (uint64_t i = 0; i < n; i++)
		arr[i].n = &arr[next[i]];
	free(next);

	struct l *p = follow(arr, steps);
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = ex_now_ns();

		p = follow(p, steps);
		t[r] = (double)(ex_now_ns() - t0) / (double)steps;
	}
	double med = ex_median(t, reps);
	fprintf(stderr, "result thp=%s ws=%llu ns_per_elem=%.3f min=%.3f max=%.3f anon_huge_kb=%ld\n",
		thp ? "on" : "off", (unsigned long long)ws, med, t[0], t[reps - 1], anon_huge_kb());
	printf("checksum %llu\n", (unsigned long long)(p - arr));
	return 0;
}
