// SPDX-License-Identifier: GPL-2.0-only
/*
 * hot_cold: the 'struct order' example of section 6.2.1. The hot loop sums
 * the price of unpaid orders; with --layout mixed every order also carries
 * its cold buyer fields in the same 64-byte object, so the loop moves a
 * whole line per order. --layout split keeps { price, paid } in one array
 * and the cold fields in another, four orders per line.
 *
 * Labels: hot_cold
 */
#include <getopt.h>
#include <stdbool.h>

#include "ex_common.h"

struct order {
	double price;
	bool paid;
	const char *buyer[5];
	long buyer_id;
};

/* The fix: the fields the hot loop reads, apart from the rest. */
struct order_hot {
	double price;
	bool paid;
};

struct order_cold {
	const char *buyer[5];
	long buyer_id;
};

static const char *names[] = { "ada", "bob", "cy", "dee", "eve" };

static __attribute__((noinline)) double unpaid_total(const struct order *o, long n)
{
	double total = 0;

	for (long i = 0; i < n; i++)
		if (!o[i].paid)
			total += o[i].price;
	return total;
}

static __attribute__((noinline)) double unpaid_total_split(const struct order_hot *o, long n)
{
	double total = 0;

	for (long i = 0; i < n; i++)
		if (!o[i].paid)
			total += o[i].price;
	return total;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hot_cold [OPTIONS]\n"
		"Sums the price of unpaid orders (section 6.2.1, 'struct order').\n"
		"\n"
		"  -l, --layout L    mixed (struct order, default) or split (hot/cold arrays)\n"
		"  -n, --orders N    number of orders (default 4000000)\n"
		"  -R, --reps N      repetitions, median reported (default 5)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result layout=... ns_per_order=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  hot_cold --layout mixed\n"
		"  hot_cold --layout split --orders 100000\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "layout", required_argument, NULL, 'l' }, { "orders", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'R' },   { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, split = 0, reps = 5;
	long n = 4000000;
	double t[64], total = 0;

	while ((c = getopt_long(argc, argv, "l:n:R:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (!strcmp(optarg, "split"))
				split = 1;
			else if (strcmp(optarg, "mixed"))
				ex_die("hot_cold", "--layout must be mixed or split");
			break;
		case 'n': n = ex_parse_long("hot_cold", "--orders", optarg, 1, 1L << 32); break;
		case 'R': reps = (int)ex_parse_long("hot_cold", "--reps", optarg, 1, 64); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("hot_cold", "unexpected argument");

	struct order *orders = NULL;
	struct order_hot *hot = NULL;
	struct order_cold *cold = NULL;

	if (split) {
		hot = ex_map(n * sizeof(*hot));
		cold = ex_map(n * sizeof(*cold));
	} else {
		orders = ex_map(n * sizeof(*orders));
	}
	for (long i = 0; i < n; i++) {
		double price = (double)(i % 1000) / 4;
		bool paid = (i * 2654435761u) % 3 == 0;

		if (split) {
			hot[i] = (struct order_hot){ .price = price, .paid = paid };
			for (int k = 0; k < 5; k++)
				cold[i].buyer[k] = names[(i + k) % 5];
			cold[i].buyer_id = i;
		} else {
			orders[i].price = price;
			orders[i].paid = paid;
			for (int k = 0; k < 5; k++)
				orders[i].buyer[k] = names[(i + k) % 5];
			orders[i].buyer_id = i;
		}
	}
	for (int r = 0; r <= reps; r++) {
		uint64_t t0 = ex_now_ns();

		total = split ? unpaid_total_split(hot, n) : unpaid_total(orders, n);
		if (r)
			t[r - 1] = (double)(ex_now_ns() - t0) / (double)n;
	}
	double med = ex_median(t, reps);
	fprintf(stderr,
		"result layout=%s orders=%ld bytes_per_order=%zu ns_per_order=%.3f min=%.3f max=%.3f\n",
		split ? "split" : "mixed", n, split ? sizeof(*hot) : sizeof(*orders), med, t[0],
		t[reps - 1]);
	printf("checksum %.2f\n", total);
	return 0;
}
