// SPDX-License-Identifier: GPL-2.0-only
/*
 * atomic_inc: threads increment one shared counter (section 6.4.2, Fig 6.12)
 *	add        __atomic_add_fetch   (lock add / xadd, cannot fail)
 *	fetch-add  __atomic_fetch_add   (lock xadd, returns the old value)
 *	cas        load, add, compare-and-swap, retry on failure
 *	local      each thread counts privately and adds its total once (the fix)
 * Every variant ends with the same total.
 *
 * Labels: atomic_cas
 */
#include <getopt.h>

#include "ex_common.h"

#define MAX_THREADS 64

struct shared_counter {
	long value;
} __attribute__((aligned(EX_CLS)));

struct shared_counter counter;

enum op { OP_ADD, OP_FETCH_ADD, OP_CAS, OP_LOCAL };
static const char *op_names[] = { "add", "fetch-add", "cas", "local" };

struct worker_arg {
	enum op op;
	long iters;
	int cpu;
	long retries;
	pthread_barrier_t *start;
	uint64_t ns, cpu_ns;
};

static __attribute__((noinline)) long inc_cas(struct shared_counter *c, long iters)
{
	long retries = 0;

	for (long i = 0; i < iters; i++) {
		long old = __atomic_load_n(&c->value, __ATOMIC_RELAXED);

		while (!__atomic_compare_exchange_n(&c->value, &old, old + 1, 0, __ATOMIC_SEQ_CST,
						    __ATOMIC_RELAXED))
			retries++;
	}
	return retries;
}

static __attribute__((noinline)) void inc_add(struct shared_counter *c, long iters)
{
	for (long i = 0; i < iters; i++)
		__atomic_add_fetch(&c->value, 1, __ATOMIC_SEQ_CST);
}

static __attribute__((noinline)) long inc_fetch_add(struct shared_counter *c, long iters)
{
	long last = 0;

	for (long i = 0; i < iters; i++)
		last = __atomic_fetch_add(&c->value, 1, __ATOMIC_SEQ_CST);
	return last;
}

static __attribute__((noinline)) void inc_local(struct shared_counter *c, long iters)
{
	long mine = 0;

	for (long i = 0; i < iters; i++) {
		mine++;
		ex_keep(mine);
	}
	__atomic_add_fetch(&c->value, mine, __ATOMIC_SEQ_CST);
}

static void *worker(void *p)
{
	struct worker_arg *a = p;
	uint64_t t0, c0;
	long r;

	ex_pin(a->cpu);
	pthread_barrier_wait(a->start);
	t0 = ex_now_ns();
	c0 = ex_thread_cpu_ns();
	switch (a->op) {
	case OP_ADD: inc_add(&counter, a->iters); break;
	case OP_FETCH_ADD: r = inc_fetch_add(&counter, a->iters); ex_keep(r); break;
	case OP_CAS: a->retries = inc_cas(&counter, a->iters); break;
	default: inc_local(&counter, a->iters); break;
	}
	a->ns = ex_now_ns() - t0;
	a->cpu_ns = ex_thread_cpu_ns() - c0;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: atomic_inc [OPTIONS]\n"
		"Threads increment one shared counter (paper section 6.4.2, Fig 6.12).\n"
		"\n"
		"  -o, --op OP       add, fetch-add, cas (default) or local\n"
		"  -t, --threads N   threads, one per CPU round-robin (default 2)\n"
		"  -i, --iters N     increments per thread (default 5000000)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result op=... ns_per_inc=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  atomic_inc --op cas --threads 2\n"
		"  atomic_inc --op local --threads 2\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "op", required_argument, NULL, 'o' },	   { "threads", required_argument, NULL, 't' },
		{ "iters", required_argument, NULL, 'i' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct worker_arg args[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	pthread_barrier_t start;
	enum op op = OP_CAS;
	int c, nthreads = 2;
	long iters = 5000000, retries = 0;
	uint64_t slowest = 0, slowest_cpu = 0;

	while ((c = getopt_long(argc, argv, "o:t:i:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			for (op = 0; op < 4 && strcmp(optarg, op_names[op]); op++)
				;
			if (op == 4)
				ex_die("atomic_inc", "--op must be add, fetch-add, cas or local");
			break;
		case 't': nthreads = (int)ex_parse_long("atomic_inc", "--threads", optarg, 1, MAX_THREADS); break;
		case 'i': iters = ex_parse_long("atomic_inc", "--iters", optarg, 1, 1L << 40); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("atomic_inc", "unexpected argument");

	pthread_barrier_init(&start, NULL, nthreads);
	for (int t = 0; t < nthreads; t++) {
		args[t] = (struct worker_arg){ .op = op, .iters = iters, .cpu = t, .start = &start };
		if (t && pthread_create(&tid[t], NULL, worker, &args[t]))
			ex_die("atomic_inc", "cannot create thread");
	}
	worker(&args[0]);
	for (int t = 1; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < nthreads; t++) {
		if (args[t].ns > slowest)
			slowest = args[t].ns;
		if (args[t].cpu_ns > slowest_cpu)
			slowest_cpu = args[t].cpu_ns;
		retries += args[t].retries;
	}
	if (counter.value != iters * nthreads) {
		fprintf(stderr, "atomic_inc: error: counter is %ld, expected %ld\n", counter.value,
			iters * nthreads);
		return 1;
	}
	fprintf(stderr,
		"result op=%s threads=%d ns=%llu ns_per_inc=%.3f cpu_ns_per_inc=%.3f cas_retries=%ld\n",
		op_names[op], nthreads, (unsigned long long)slowest, (double)slowest / (double)iters,
		(double)slowest_cpu / (double)iters, retries);
	printf("checksum %ld\n", counter.value);
	return 0;
}
