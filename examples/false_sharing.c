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
 * --op pingpong measures what one such transfer costs: the threads take
 * turns incrementing one counter, so every increment moves the line to
 * another core (ns_per_inc is then the time of one hand-off).
 *
 * The result line also says how much of the run all threads were running at
 * once (overlap, 0..1) and on how many distinct CPUs they ran: a guest whose
 * virtual CPUs the host does not run at the same time shows no ping-pong, and
 * the numbers say so instead of looking like a cheap line.
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

enum op { OP_ATOMIC, OP_PLAIN, OP_PINGPONG };

struct worker_arg {
	struct counters *c;
	long iters;
	int cpu, ran_on;
	int nthreads, self;
	enum op op;
	pthread_barrier_t *start;
	uint64_t t0, t1, cpu_ns;
};

static __attribute__((noinline)) void count_up(struct counters *c, long iters, enum op op)
{
	if (op == OP_PLAIN) {
		for (long i = 0; i < iters; i++) {
			c->count++;
			__asm__ volatile("" : "+m"(c->count)); /* one load and store per increment */
		}
		return;
	}
	for (long i = 0; i < iters; i++)
		__atomic_fetch_add(&c->count, 1, __ATOMIC_RELAXED);
}

/*
 * Takes turns on one counter: thread 'self' of n increments it when
 * count % n == self. Spinning yields now and then, so threads that share a
 * CPU (even under SCHED_FIFO) still make progress.
 */
static __attribute__((noinline)) void hand_off(struct counters *c, long iters, int self, int n)
{
	for (long i = 0; i < iters; i++) {
		long v;
		unsigned spins = 0;

		while ((v = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE)) % n != self)
			if (++spins % 64 == 0)
				sched_yield();
			else
				__builtin_ia32_pause();
		__atomic_store_n(&c->count, v + 1, __ATOMIC_RELEASE);
	}
}

static void *worker(void *p)
{
	struct worker_arg *a = p;
	uint64_t c0;

	ex_pin(a->cpu);
	pthread_barrier_wait(a->start);
	a->t0 = ex_now_ns();
	c0 = ex_thread_cpu_ns();
	if (a->op == OP_PINGPONG)
		hand_off(a->c, a->iters, a->self, a->nthreads);
	else
		count_up(a->c, a->iters, a->op);
	a->t1 = ex_now_ns();
	a->cpu_ns = ex_thread_cpu_ns() - c0;
	a->ran_on = sched_getcpu();
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
		"  -o, --op OP         atomic (default, locked add), plain (load, add, store)\n"
		"                      or pingpong (take turns on one counter: the cost of\n"
		"                      moving a line between cores; --layout is ignored)\n"
		"  -i, --iters N       increments per thread (default 20000000)\n"
		"  -h, --help          show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result layout=... ns_per_inc=... overlap=...\n"
		"cpus=...' on stderr (overlap: share of the run all threads ran at once).\n"
		"\n"
		"Examples:\n"
		"  false_sharing --threads 2 --layout shared\n"
		"  false_sharing --threads 2 --layout padded --storage global\n"
		"  false_sharing --threads 2 --op pingpong --iters 200000\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "threads", required_argument, NULL, 't' }, { "layout", required_argument, NULL, 'l' },
		{ "storage", required_argument, NULL, 's' }, { "iters", required_argument, NULL, 'i' },
		{ "op", required_argument, NULL, 'o' },	     { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, nthreads = 2, padded = 0, global = 0;
	enum op op = OP_ATOMIC;
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
				op = OP_PLAIN;
			else if (!strcmp(optarg, "pingpong"))
				op = OP_PINGPONG;
			else if (strcmp(optarg, "atomic"))
				ex_die("false_sharing", "--op must be atomic, plain or pingpong");
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
			slot[t] = op == OP_PINGPONG ? &sc[0] : &sc[t];
	}
	if (op == OP_PINGPONG && (global || padded))
		ex_die("false_sharing", "--op pingpong takes the default --layout and --storage");

	pthread_barrier_init(&start, NULL, nthreads);
	for (int t = 0; t < nthreads; t++) {
		args[t] = (struct worker_arg){ .c = slot[t], .iters = iters, .cpu = t, .op = op,
					   .nthreads = nthreads, .self = t, .start = &start };
		if (t && pthread_create(&tid[t], NULL, worker, &args[t]))
			ex_die("false_sharing", "cannot create thread");
	}
	worker(&args[0]);
	for (int t = 1; t < nthreads; t++)
		pthread_join(tid[t], NULL);

	uint64_t first_start = args[0].t0, last_start = args[0].t0;
	uint64_t first_end = args[0].t1, last_end = args[0].t1;
	uint64_t slowest = 0, slowest_cpu = 0, sum = 0;
	cpu_set_t used;
	long expect = op == OP_PINGPONG ? iters * nthreads : iters;

	CPU_ZERO(&used);
	for (int t = 0; t < nthreads; t++) {
		struct worker_arg *a = &args[t];

		if (a->t1 - a->t0 > slowest)
			slowest = a->t1 - a->t0;
		if (a->cpu_ns > slowest_cpu)
			slowest_cpu = a->cpu_ns;
		first_start = a->t0 < first_start ? a->t0 : first_start;
		last_start = a->t0 > last_start ? a->t0 : last_start;
		first_end = a->t1 < first_end ? a->t1 : first_end;
		last_end = a->t1 > last_end ? a->t1 : last_end;
		if (a->ran_on >= 0 && a->ran_on < CPU_SETSIZE)
			CPU_SET(a->ran_on, &used);
		if (op == OP_PINGPONG && t)
			continue;
		if (slot[t]->count != expect) {
			fprintf(stderr, "false_sharing: error: counter %d is %ld, expected %ld\n", t,
				slot[t]->count, expect);
			return 1;
		}
		sum += (uint64_t)slot[t]->count;
	}
	/* Time all threads ran at once, over the time any thread ran. */
	double overlap = first_end > last_start && last_end > first_start
				 ? (double)(first_end - last_start) / (double)(last_end - first_start)
				 : 0;
	/* pingpong: one hand-off per increment, all threads' increments in turn. */
	double per = op == OP_PINGPONG ? (double)(last_end - first_start) / (double)expect
				       : (double)slowest / (double)iters;

	fprintf(stderr, "result layout=%s storage=%s op=%s threads=%d ns=%llu ns_per_inc=%.3f "
		"cpu_ns_per_inc=%.3f overlap=%.3f cpus=%d\n",
		padded ? "padded" : "shared", global ? "global" : "heap",
		op == OP_PLAIN ? "plain" : op == OP_PINGPONG ? "pingpong" : "atomic", nthreads,
		(unsigned long long)slowest, per, (double)slowest_cpu / (double)iters, overlap,
		CPU_COUNT(&used));
	printf("checksum %llu\n", (unsigned long long)sum);
	free(heap);
	return 0;
}
