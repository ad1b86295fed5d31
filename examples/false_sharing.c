// SPDX-License-Identifier: GPL-2.0-only
/*
 * false_sharing: threads each increment their own counter (section 6.4.1,
 * Appendix A.3, Figs 6.10/6.11). With --layout shared the counters are
 * adjacent 'struct counters' objects in one cache line, so every increment
 * takes the line away from the other cores; with --layout padded each
 * counter has a line of its own. Each thread owns its counter, so the final
 * values are exact either way. The increments are atomic by default (A.3's
 * default, atomic=1): a locked add must own the line. --op plain uses
 * ordinary increments, which today's store buffers mostly hide.
 * --storage global uses the file-scope arrays shared_counters and
 * padded_counters (symbols for watchpoints) instead of heap memory.
 *
 * Labels: false_sharing, false_sharing_global
 */
#include <getopt.h>

#include "ex_common.h"

#define MAX_THREADS 64

struct counters {
	long count;
};

/* One counter per cache line: the fix. */
struct padded_counters {
	struct counters c;
	char pad[EX_CLS - sizeof(struct counters)];
} __attribute__((aligned(EX_CLS)));

struct counters shared_counters[MAX_THREADS] __attribute__((aligned(EX_CLS)));
struct padded_counters padded_counters[MAX_THREADS];

struct worker_arg {
	struct counters *c;
	long iters;
	int cpu;
	int plain;
	pthread_barrier_t *start;
	uint64_t ns, cpu_ns;
};

static __attribute__((noinline)) void count_up(struct counters *c, long iters, int plain)
{
	if (plain) {
		for (long i = 0; i < iters; i++) {
			c->count++;
			__asm__ volatile("" : "+m"(c->count)); /* one load and store per increment */
		}
		return;
	}
	for (long i = 0; i < iters; i++)
		__atomic_fetch_add(&c->count, 1, __ATOMIC_RELAXED);
}

static void *worker(void *p)
{
	struct worker_arg *a = p;
	uint64_t t0, c0;

	ex_pin(a->cpu);
	pthread_barrier_wait(a->start);
	t0 = ex_now_ns();
	c0 = ex_thread_cpu_ns();
	count_up(a->c, a->iters, a->plain);
	a->ns = ex_now_ns() - t0;
	a->cpu_ns = ex_thread_cpu_ns() - c0;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: false_sharing [OPTIONS]\n"
		"Threads increment one counter each; the counters share a cache line or not\n"
		"(paper section 6.4.1, Appendix A.3).\n"
		"\n"
		"  -t, --threads N     threads, one per CPU round-robin (default 2)\n"
		"  -l, --layout L      shared (one line, default) or padded (a line each)\n"
		"  -s, --storage S     heap (default) or global (file-scope arrays)\n"
		"  -o, --op OP         atomic (default, locked add) or plain (load, add, store)\n"
		"  -i, --iters N       increments per thread (default 20000000)\n"
		"  -h, --help          show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result layout=... ns_per_inc=...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  false_sharing --threads 2 --layout shared\n"
		"  false_sharing --threads 2 --layout padded --storage global\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "threads", required_argument, NULL, 't' }, { "layout", required_argument, NULL, 'l' },
		{ "storage", required_argument, NULL, 's' }, { "iters", required_argument, NULL, 'i' },
		{ "op", required_argument, NULL, 'o' },	     { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, nthreads = 2, padded = 0, global = 0, plain = 0;
	long iters = 20000000;
	struct counters *slot[MAX_THREADS];
	struct worker_arg args[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	pthread_barrier_t start;
	void *heap = NULL;

	while ((c = getopt_long(argc, argv, "t:l:s:i:o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			nthreads = (int)ex_parse_long("false_sharing", "--threads", optarg, 1, MAX_THREADS);
			break;
		case 'l':
			if (!strcmp(optarg, "padded"))
				padded = 1;
			else if (strcmp(optarg, "shared"))
				ex_die("false_sharing", "--layout must be shared or padded");
			break;
		case 's':
			if (!strcmp(optarg, "global"))
				global = 1;
			else if (strcmp(optarg, "heap"))
				ex_die("false_sharing", "--storage must be heap or global");
			break;
		case 'o':
			if (!strcmp(optarg, "plain"))
				plain = 1;
			else if (strcmp(optarg, "atomic"))
				ex_die("false_sharing", "--op must be atomic or plain");
			break;
		case 'i': iters = ex_parse_long("false_sharing", "--iters", optarg, 1, 1L << 40); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("false_sharing", "unexpected argument");

	if (global) {
		for (int t = 0; t < nthreads; t++)
			slot[t] = padded ? &padded_counters[t].c : &shared_counters[t];
	} else if (padded) {
		struct padded_counters *pc;

		if (posix_memalign(&heap, EX_CLS, nthreads * sizeof(*pc)))
			ex_die("false_sharing", "out of memory");
		pc = memset(heap, 0, nthreads * sizeof(*pc));
		for (int t = 0; t < nthreads; t++)
			slot[t] = &pc[t].c;
	} else {
		struct counters *sc;

		if (posix_memalign(&heap, EX_CLS, nthreads * sizeof(*sc)))
			ex_die("false_sharing", "out of memory");
		sc = memset(heap, 0, nthreads * sizeof(*sc));
		for (int t = 0; t < nthreads; t++)
			slot[t] = &sc[t];
	}

	pthread_barrier_init(&start, NULL, nthreads);
	for (int t = 0; t < nthreads; t++) {
		args[t] = (struct worker_arg){ .c = slot[t], .iters = iters, .cpu = t, .plain = plain,
					   .start = &start };
		if (t && pthread_create(&tid[t], NULL, worker, &args[t]))
			ex_die("false_sharing", "cannot create thread");
	}
	worker(&args[0]);
	for (int t = 1; t < nthreads; t++)
		pthread_join(tid[t], NULL);

	uint64_t slowest = 0, slowest_cpu = 0, sum = 0;
	for (int t = 0; t < nthreads; t++) {
		if (args[t].ns > slowest)
			slowest = args[t].ns;
		if (args[t].cpu_ns > slowest_cpu)
			slowest_cpu = args[t].cpu_ns;
		if (slot[t]->count != iters) {
			fprintf(stderr, "false_sharing: error: counter %d is %ld, expected %ld\n", t,
				slot[t]->count, iters);
			return 1;
		}
		sum += (uint64_t)slot[t]->count;
	}
	fprintf(stderr, "result layout=%s storage=%s op=%s threads=%d ns=%llu ns_per_inc=%.3f "
		"cpu_ns_per_inc=%.3f\n",
		padded ? "padded" : "shared", global ? "global" : "heap", plain ? "plain" : "atomic",
		nthreads,
		(unsigned long long)slowest, (double)slowest / (double)iters,
		(double)slowest_cpu / (double)iters);
	printf("checksum %llu\n", (unsigned long long)sum);
	free(heap);
	return 0;
}
