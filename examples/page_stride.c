// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_stride: the multi-core page-stride study (McGinnis & Zagorsky 2011).
 * Each thread touches pages of a region of L pages ("stride length") in a
 * pseudo-random order: it reads or writes a word on the page, or takes the
 * page's pthread mutex or spinlock around the write. Every thread makes the
 * same number of touches whatever L is, so small L means that threads meet
 * on the same page often: the chance that another of T threads touches the
 * same page is 1 - (1 - 1/L)^(T-1).
 *	--memory global   all threads share one region (contended for small L)
 *	--memory local    each thread has a region of its own
 *	--affinity same | different | none | one (one thread doing one share)
 * --sweep MIN:MAX runs every power-of-two L; comparing global/same with
 * global/different over L gives the contention threshold of the study.
 *
 * Labels: page_stride
 */
#include <getopt.h>

#include "ex_common.h"

struct page_slot {
	pthread_mutex_t lock;
	int spin;
	long data;
};

enum op { OP_READ, OP_WRITE, OP_MUTEX, OP_SPIN };
static const char *op_names[] = { "read", "write", "mutex", "spin" };
enum aff { AFF_SAME, AFF_DIFFERENT, AFF_NONE, AFF_ONE };
static const char *aff_names[] = { "same", "different", "none", "one" };

struct worker_arg {
	char *region;
	long pages;
	long touches;
	enum op op;
	int cpu; /* -1: no pinning */
	uint64_t seed;
	long sum;
	pthread_barrier_t *start;
};

static inline struct page_slot *slot_of(char *region, long page)
{
	/* Vary the in-page offset so the slots do not all share one L1d set. */
	return (struct page_slot *)(region + page * EX_PAGE + (page * EX_CLS) % EX_PAGE);
}

static void spin_lock(int *s)
{
	while (__atomic_exchange_n(s, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(s, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static void spin_unlock(int *s)
{
	__atomic_store_n(s, 0, __ATOMIC_RELEASE);
}

static void *worker(void *p)
{
	struct worker_arg *a = p;
	uint64_t st = a->seed;
	long sum = 0, mask = a->pages - 1;

	if (a->cpu >= 0)
		ex_pin(a->cpu);
	pthread_barrier_wait(a->start);
	for (long k = 0; k < a->touches; k++) {
		struct page_slot *s = slot_of(a->region, (long)(ex_rand(&st) >> 20) & mask);

		switch (a->op) {
		case OP_READ: sum += *(volatile long *)&s->data; break;
		case OP_WRITE: (*(volatile long *)&s->data)++; break;
		case OP_MUTEX:
			pthread_mutex_lock(&s->lock);
			s->data++;
			pthread_mutex_unlock(&s->lock);
			break;
		case OP_SPIN:
			spin_lock(&s->spin);
			s->data++;
			spin_unlock(&s->spin);
			break;
		}
	}
	a->sum = sum;
	return NULL;
}

static long run(long pages, int nthreads, enum op op, enum aff aff, int global, long touches,
		double *ns_per_touch)
{
	int nt = aff == AFF_ONE ? 1 : nthreads;
	int regions = global ? 1 : nt;
	size_t bytes = (size_t)pages * EX_PAGE * regions;
	char *mem = ex_map(bytes);
	struct worker_arg args[64];
	pthread_t tid[64];
	pthread_barrier_t start;
	long total = 0;

	for (long i = 0; i < pages * regions; i++) {
		struct page_slot *s = slot_of(mem + (i / pages) * pages * EX_PAGE, i % pages);

		pthread_mutex_init(&s->lock, NULL);
		s->data = 0;
	}
	pthread_barrier_init(&start, NULL, nt + 1);
	for (int t = 0; t < nt; t++) {
		args[t] = (struct worker_arg){
			.region = mem + (global ? 0 : (size_t)t * pages * EX_PAGE),
			.pages = pages,
			.touches = touches,
			.op = op,
			.cpu = aff == AFF_NONE ? -1 : aff == AFF_DIFFERENT ? t : 0,
			.seed = 0x1234567ull * (t + 1),
			.start = &start,
		};
		if (pthread_create(&tid[t], NULL, worker, &args[t]))
			ex_die("page_stride", "cannot create thread");
	}
	pthread_barrier_wait(&start);
	uint64_t t0 = ex_now_ns();
	for (int t = 0; t < nt; t++)
		pthread_join(tid[t], NULL);
	uint64_t ns = ex_now_ns() - t0;

	for (long i = 0; i < pages * regions; i++)
		total += slot_of(mem + (i / pages) * pages * EX_PAGE, i % pages)->data;
	for (int t = 0; t < nt; t++)
		total += args[t].sum;
	*ns_per_touch = (double)ns / (double)touches;
	fprintf(stderr,
		"result op=%s affinity=%s memory=%s threads=%d pages=%ld contention=%.4f ns=%llu "
		"ns_per_touch=%.3f\n",
		op_names[op], aff_names[aff], global ? "global" : "local", nt, pages,
		global && nt > 1 ? 1 - __builtin_pow(1 - 1.0 / pages, nt - 1) : 0.0,
		(unsigned long long)ns, *ns_per_touch);
	munmap(mem, bytes);
	return total;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: page_stride [OPTIONS]\n"
		"Threads touch pages of a region of L pages (multi-core page-stride study).\n"
		"\n"
		"  -o, --op OP        read, write (default), mutex or spin\n"
		"  -a, --affinity A   same (all on CPU 0), different (default), none or one\n"
		"  -m, --memory M     global (one shared region, default) or local\n"
		"  -t, --threads N    threads (default: number of CPUs)\n"
		"  -L, --stride L     region length in pages, a power of two (default 64)\n"
		"  -s, --sweep MIN:MAX  every power of two L from MIN to MAX\n"
		"  -n, --touches N    page touches per thread (default 4000000)\n"
		"  -h, --help         show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result op=... pages=... ns_per_touch=...' on\n"
		"stderr.\n"
		"\n"
		"Examples:\n"
		"  page_stride --op spin --memory global --stride 4\n"
		"  page_stride --op write --affinity same --sweep 2:32768\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "op", required_argument, NULL, 'o' },	     { "affinity", required_argument, NULL, 'a' },
		{ "memory", required_argument, NULL, 'm' },  { "threads", required_argument, NULL, 't' },
		{ "stride", required_argument, NULL, 'L' },  { "sweep", required_argument, NULL, 's' },
		{ "touches", required_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum op op = OP_WRITE;
	enum aff aff = AFF_DIFFERENT;
	int c, global = 1, nthreads = ex_nr_cpus();
	long pages = 64, lo = 0, hi = 0, touches = 4000000, sum = 0;
	double ns;

	while ((c = getopt_long(argc, argv, "o:a:m:t:L:s:n:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			for (op = 0; op < 4 && strcmp(optarg, op_names[op]); op++)
				;
			if (op == 4)
				ex_die("page_stride", "--op must be read, write, mutex or spin");
			break;
		case 'a':
			for (aff = 0; aff < 4 && strcmp(optarg, aff_names[aff]); aff++)
				;
			if (aff == 4)
				ex_die("page_stride", "--affinity must be same, different, none or one");
			break;
		case 'm':
			if (!strcmp(optarg, "local"))
				global = 0;
			else if (strcmp(optarg, "global"))
				ex_die("page_stride", "--memory must be global or local");
			break;
		case 't': nthreads = (int)ex_parse_long("page_stride", "--threads", optarg, 1, 64); break;
		case 'L': pages = ex_parse_long("page_stride", "--stride", optarg, 1, 1L << 20); break;
		case 's': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				ex_die("page_stride", "--sweep wants MIN:MAX");
			*colon = 0;
			lo = ex_parse_long("page_stride", "--sweep", optarg, 1, 1L << 20);
			hi = ex_parse_long("page_stride", "--sweep", colon + 1, lo, 1L << 20);
			break;
		}
		case 'n': touches = ex_parse_long("page_stride", "--touches", optarg, 1, 1L << 36); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("page_stride", "unexpected argument");
	if ((pages & (pages - 1)) || (lo & (lo - 1)))
		ex_die("page_stride", "the stride length must be a power of two");
	if (lo)
		for (long L = lo; L <= hi; L *= 2)
			sum += run(L, nthreads, op, aff, global, touches, &ns);
	else
		sum = run(pages, nthreads, op, aff, global, touches, &ns);
	printf("checksum %ld\n", sum);
	return 0;
}
