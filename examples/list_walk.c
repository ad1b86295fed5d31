// SPDX-License-Identifier: GPL-2.0-only
/*
 * list_walk: the list-walk framework of "What Every Programmer Should Know
 * About Memory" section 3.3.2 (Figs 3.10-3.17): an array of
 *	struct l { struct l *n; long pad[NPAD]; };
 * chained into one circular list in memory order (seq) or in a random
 * single cycle (random), then walked with one of three operations:
 *	follow   only follow n
 *	inc      increment pad[0] of the current element
 *	addnext  add pad[0] of the next element to pad[0] of the current one
 * The time per list element over a working-set sweep shows the cache
 * levels; random order shows load-to-use latency per level.
 *
 * Labels: pointer_chase
 */
#include <getopt.h>

#include "ex_common.h"

/* NPAD is chosen at run time, so pad is a flexible array member. */
struct l {
	struct l *n;
	long pad[];
};

enum op { OP_FOLLOW, OP_INC, OP_ADDNEXT };
static const char *op_names[] = { "follow", "inc", "addnext" };

struct opts {
	enum op op;
	int random;
	int npad;
	uint64_t steps;
	int reps;
	int hugepage;
	double budget_ms;
};

static inline struct l *elem(char *base, size_t esz, uint64_t i)
{
	return (struct l *)(base + i * esz);
}

static struct l *build(char *base, size_t esz, uint64_t n, int random)
{
	if (random) {
		uint32_t *next = malloc(n * sizeof(*next));

		if (!next) {
			perror("malloc");
			exit(1);
		}
		ex_single_cycle(next, n, 0x9e3779b97f4a7c15ull ^ n);
		for (uint64_t i = 0; i < n; i++)
			elem(base, esz, i)->n = elem(base, esz, next[i]);
		free(next);
	} else {
		for (uint64_t i = 0; i < n; i++)
			elem(base, esz, i)->n = elem(base, esz, (i + 1) % n);
	}
	return elem(base, esz, 0);
}

static __attribute__((noinline)) struct l *walk_follow(struct l *p, uint64_t k)
{
	while (k--)
		p = p->n;
	return p;
}

static __attribute__((noinline)) struct l *walk_inc(struct l *p, uint64_t k)
{
	while (k--) {
		p->pad[0]++;
		p = p->n;
	}
	return p;
}

static __attribute__((noinline)) struct l *walk_addnext(struct l *p, uint64_t k)
{
	while (k--) {
		p->pad[0] += p->n->pad[0];
		p = p->n;
	}
	return p;
}

static struct l *walk(enum op op, struct l *p, uint64_t k)
{
	switch (op) {
	case OP_INC: return walk_inc(p, k);
	case OP_ADDNEXT: return walk_addnext(p, k);
	default: return walk_follow(p, k);
	}
}

/* Measures one working-set size; returns a checksum contribution. */
static uint64_t measure(const struct opts *o, uint64_t ws)
{
	size_t esz = sizeof(struct l) + (size_t)o->npad * sizeof(long);
	uint64_t n = ws / esz, steps, sum = 0;
	size_t bytes;
	double t[64];
	char *base;
	struct l *p;

	if (n < 2)
		n = 2;
	bytes = (n * esz + EX_PAGE - 1) & ~(EX_PAGE - 1);
	base = ex_map(bytes);
	if (o->hugepage)
		madvise(base, bytes, MADV_HUGEPAGE);
	p = build(base, esz, n, o->random);
	steps = o->steps;
	/* Warm up: one pass, at most 'steps' elements (TLB, caches, page tables). */
	uint64_t warm = n < steps ? n : steps, t0 = ex_now_ns();

	p = walk(o->op, p, warm);
	if (o->budget_ms > 0) {
		/* Scale the steps so one repetition takes about budget_ms. */
		double per = (double)(ex_now_ns() - t0) / (double)warm;
		double want = o->budget_ms * 1e6 / (per > 0.1 ? per : 0.1);

		if (want < (double)steps)
			steps = want < 65536 ? 65536 : (uint64_t)want;
	}
	for (int r = 0; r < o->reps; r++) {
		uint64_t t0 = ex_now_ns();

		p = walk(o->op, p, steps);
		t[r] = (double)(ex_now_ns() - t0) / (double)steps;
	}
	double med = ex_median(t, o->reps);
	fprintf(stderr,
		"result ws=%llu npad=%d elem=%zu op=%s order=%s ns_per_elem=%.3f min=%.3f max=%.3f "
		"reps=%d steps=%llu\n",
		(unsigned long long)ws, o->npad, esz, op_names[o->op], o->random ? "random" : "seq",
		med, t[0], t[o->reps - 1], o->reps, (unsigned long long)steps);
	/* inc: the number of visits, the same for seq and random; follow: 0. */
	if (o->npad > 0)
		for (uint64_t i = 0; i < n; i++)
			sum += (uint64_t)elem(base, esz, i)->pad[0];
	ex_keep(p);
	munmap(base, bytes);
	return sum;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: list_walk [OPTIONS]\n"
		"Walks a circular list of 'struct l { struct l *n; long pad[NPAD]; }' elements\n"
		"and prints the time per element (paper section 3.3.2, Figs 3.10-3.17).\n"
		"\n"
		"  -o, --op OP         follow (default), inc or addnext\n"
		"  -r, --order ORDER   seq (default) or random (one random cycle)\n"
		"  -n, --npad N        pad words per element: 0 (8 B), 7 (64 B), 15, 31 (default 0)\n"
		"  -w, --ws SIZE       working set, e.g. 1K, 16M, 512M (default 16M)\n"
		"  -s, --sweep MIN:MAX sweep working sets from MIN to MAX (powers of two)\n"
		"  -f, --fine          with --sweep, also measure 1.5 x each power of two\n"
		"  -k, --steps N       elements visited per measurement (default 4194304)\n"
		"  -R, --reps N        repetitions, median reported (default 3)\n"
		"  -b, --budget MS     shorten --steps so one repetition takes about MS ms\n"
		"  -H, --hugepage      madvise(MADV_HUGEPAGE) on the array\n"
		"  -h, --help          show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result ws=... ns_per_elem=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  list_walk --order random --npad 7 --sweep 1K:256M\n"
		"  list_walk --op inc --npad 15 --ws 4M\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "op", required_argument, NULL, 'o' },	  { "order", required_argument, NULL, 'r' },
		{ "npad", required_argument, NULL, 'n' }, { "ws", required_argument, NULL, 'w' },
		{ "sweep", required_argument, NULL, 's' }, { "fine", no_argument, NULL, 'f' },
		{ "steps", required_argument, NULL, 'k' }, { "reps", required_argument, NULL, 'R' },
		{ "hugepage", no_argument, NULL, 'H' },	  { "budget", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .op = OP_FOLLOW, .steps = 1u << 22, .reps = 3 };
	uint64_t ws = 16u << 20, lo = 0, hi = 0, sum = 0;
	int c, fine = 0;

	while ((c = getopt_long(argc, argv, "o:r:n:w:s:fk:R:b:Hh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			for (o.op = 0; o.op < 3 && strcmp(optarg, op_names[o.op]); o.op++)
				;
			if (o.op == 3)
				ex_die("list_walk", "--op must be follow, inc or addnext");
			break;
		case 'r':
			if (!strcmp(optarg, "random"))
				o.random = 1;
			else if (strcmp(optarg, "seq"))
				ex_die("list_walk", "--order must be seq or random");
			break;
		case 'n': o.npad = (int)ex_parse_long("list_walk", "--npad", optarg, 0, 1023); break;
		case 'w':
			if (!(ws = ex_parse_size(optarg)))
				ex_die("list_walk", "bad --ws size");
			break;
		case 's': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				ex_die("list_walk", "--sweep wants MIN:MAX");
			*colon = 0;
			lo = ex_parse_size(optarg);
			hi = ex_parse_size(colon + 1);
			if (!lo || hi < lo)
				ex_die("list_walk", "bad --sweep range");
			break;
		}
		case 'f': fine = 1; break;
		case 'k': o.steps = (uint64_t)ex_parse_long("list_walk", "--steps", optarg, 1, 1L << 40); break;
		case 'R': o.reps = (int)ex_parse_long("list_walk", "--reps", optarg, 1, 64); break;
		case 'H': o.hugepage = 1; break;
		case 'b': o.budget_ms = (double)ex_parse_long("list_walk", "--budget", optarg, 1, 100000); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("list_walk", "unexpected argument");
	if (o.op != OP_FOLLOW && o.npad < 1)
		ex_die("list_walk", "--op inc and addnext need --npad 1 or more");
	if (lo) {
		for (uint64_t w = lo; w <= hi; w *= 2) {
			sum += measure(&o, w);
			if (fine && w + w / 2 <= hi)
				sum += measure(&o, w + w / 2);
		}
	} else {
		sum = measure(&o, ws);
	}
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
