// SPDX-License-Identifier: GPL-2.0-only
/*
 * lock_table: threads update random buckets of one shared table under a
 * mutex (the contention model of D3, the paper's R14):
 *	one       one mutex for the whole table: the threads queue on it
 *	striped   one mutex per stripe of the table, each on its own cache
 *	          line: two threads rarely want the same stripe
 *	private   each thread updates a table of its own, added to the shared
 *	          one once at the end (the fix where the updates commute)
 * Every variant does the same updates and ends with the same checksum.
 *
 * Labels: lock_table
 */
#include <getopt.h>
#include <stdlib.h>

#include "ex_common.h"

#define MAX_THREADS 64
#define BUCKETS 4096
#define STRIPES 64
#define PER_STRIPE (BUCKETS / STRIPES)
#define ROUNDS 8		/* passes over a stripe's buckets per update: the critical section */

struct stripe {
	pthread_mutex_t m;
} __attribute__((aligned(EX_CLS)));

pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
struct stripe stripes[STRIPES];
static long table[BUCKETS];

enum kind { ONE, STRIPED, PRIVATE };

struct worker_arg {
	enum kind kind;
	long iters;
	uint64_t seed;
	pthread_barrier_t *start;
};

/* Updates the buckets of K's stripe in T. */
static __attribute__((noinline)) void update(long *t, long k)
{
	long *b = &t[k / PER_STRIPE * PER_STRIPE];

	for (int r = 0; r < ROUNDS; r++)
		for (int j = 0; j < PER_STRIPE; j++)
			b[j] += (k ^ j) & 7;
}

static void *worker(void *p)
{
	struct worker_arg *a = p;
	uint64_t s = a->seed;
	long *mine = a->kind == PRIVATE ? calloc(BUCKETS, sizeof(long)) : NULL;

	if (a->kind == PRIVATE && !mine)
		ex_die("lock_table", "out of memory");
	pthread_barrier_wait(a->start);
	for (long i = 0; i < a->iters; i++) {
		long k = (long)ex_rand_below(&s, BUCKETS);
		pthread_mutex_t *m = a->kind == STRIPED ? &stripes[k / PER_STRIPE].m : &table_lock;

		if (mine) {
			update(mine, k);
			continue;
		}
		pthread_mutex_lock(m);
		update(table, k);
		pthread_mutex_unlock(m);
	}
	if (mine) {	/* once per thread, with atomic adds: no lock to wait for */
		for (int j = 0; j < BUCKETS; j++)
			__atomic_fetch_add(&table[j], mine[j], __ATOMIC_RELAXED);
		free(mine);
	}
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: lock_table [OPTIONS]\n"
		"Threads update a shared table under one mutex, or under striped mutexes.\n"
		"\n"
		"  -l, --locks KIND  one (default), striped or private\n"
		"  -t, --threads N   threads (default 4)\n"
		"  -i, --iters N     updates per thread (default 400000)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result ...' on stderr.\n"
		"\n"
		"Examples:\n"
		"  lock_table --locks one --threads 4\n"
		"  lock_table --locks private --threads 4\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "locks", required_argument, NULL, 'l' }, { "threads", required_argument, NULL, 't' },
		{ "iters", required_argument, NULL, 'i' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct worker_arg args[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	pthread_barrier_t start;
	static const char *const kinds[] = { "one", "striped", "private" };
	enum kind kind = ONE;
	int c, nthreads = 4;
	long iters = 400000, sum = 0;
	uint64_t t0;

	while ((c = getopt_long(argc, argv, "l:t:i:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			for (kind = ONE; kind <= PRIVATE && strcmp(optarg, kinds[kind]); kind++)
				;
			if (kind > PRIVATE)
				ex_die("lock_table", "--locks must be one, striped or private");
			break;
		case 't': nthreads = (int)ex_parse_long("lock_table", "--threads", optarg, 1, MAX_THREADS); break;
		case 'i': iters = ex_parse_long("lock_table", "--iters", optarg, 1, 1L << 40); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("lock_table", "unexpected argument");
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&stripes[i].m, NULL);
	pthread_barrier_init(&start, NULL, nthreads + 1);
	for (int t = 0; t < nthreads; t++) {
		args[t] = (struct worker_arg){ .kind = kind, .iters = iters,
					       .seed = 0x9e3779b97f4a7c15ULL * (t + 1), .start = &start };
		if (pthread_create(&tid[t], NULL, worker, &args[t]))
			ex_die("lock_table", "cannot create thread");
	}
	pthread_barrier_wait(&start);
	t0 = ex_now_ns();
	for (int t = 0; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	for (int i = 0; i < BUCKETS; i++)
		sum += table[i];
	fprintf(stderr, "result locks=%s threads=%d ns=%llu ns_per_update=%.1f\n",
		kinds[kind], nthreads, (unsigned long long)(ex_now_ns() - t0),
		(double)(ex_now_ns() - t0) / (double)iters);
	printf("checksum %ld\n", sum);
	return 0;
}
