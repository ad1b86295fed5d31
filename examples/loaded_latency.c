// SPDX-License-Identifier: GPL-2.0-only
/*
 * loaded_latency: memory latency under load, in the manner of Intel MLC's
 * --loaded_latency (used by the 2020s course project). The main thread
 * measures load-to-use latency with a random pointer chase over a large
 * buffer while the other threads stream reads through their own buffers,
 * waiting --delay iterations of an empty loop between cache lines. Small
 * delays mean high injected bandwidth and, through queueing, higher latency.
 *
 * Labels: none (measurement workload)
 */
#include <getopt.h>

#include "ex_common.h"

struct l {
	struct l *n;
	long pad[7];
};

struct injector {
	const uint64_t *buf;
	size_t words;
	int cpu;
	uint64_t lines;
	uint64_t sum;
};

static volatile int cur_delay, stop;
static pthread_barrier_t ready;

static void *inject(void *p)
{
	struct injector *in = p;
	uint64_t s = 0;

	ex_pin(in->cpu);
	for (size_t i = 0; i < in->words; i += 512)
		s += in->buf[i];
	pthread_barrier_wait(&ready);
	while (!stop) {
		for (size_t i = 0; i < in->words && !stop; i += 8) {
			s += in->buf[i];
			__atomic_store_n(&in->lines, in->lines + 1, __ATOMIC_RELAXED);
			for (int d = cur_delay; d > 0; d--)
				__asm__ volatile("");
		}
	}
	in->sum = s;
	return NULL;
}

static __attribute__((noinline)) struct l *chase(struct l *p, long steps)
{
	while (steps--)
		p = p->n;
	return p;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: loaded_latency [OPTIONS]\n"
		"Pointer-chase latency while other threads inject read traffic (MLC-style).\n"
		"\n"
		"  -t, --threads N    injector threads (default: CPUs - 1)\n"
		"  -d, --delay LIST   comma-separated delays (default: the MLC list 0..20000)\n"
		"  -w, --ws SIZE      chase and injector buffer size each (default 256M)\n"
		"  -m, --ms N         milliseconds per delay value (default 200)\n"
		"  -h, --help         show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result delay=... latency_ns=... mb_per_s=...'\n"
		"on stderr (MB = 10^6 bytes, injected reads only).\n"
		"\n"
		"Examples:\n"
		"  loaded_latency\n"
		"  loaded_latency --delay 0,200,20000 --ws 64M\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "threads", required_argument, NULL, 't' }, { "delay", required_argument, NULL, 'd' },
		{ "ws", required_argument, NULL, 'w' },	     { "ms", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },	     { NULL, 0, NULL, 0 },
	};
	char delays_buf[256] = "0,2,8,15,50,100,200,300,400,500,700,1000,1300,1700,2500,3500,"
			       "5000,9000,20000";
	int c, ninj = ex_nr_cpus() - 1, ms = 200;
	uint64_t ws = 256u << 20, sum = 0;

	while ((c = getopt_long(argc, argv, "t:d:w:m:h", lopts, NULL)) != -1) {
		switch (c) {
		case 't': ninj = (int)ex_parse_long("loaded_latency", "--threads", optarg, 0, 63); break;
		case 'd': snprintf(delays_buf, sizeof(delays_buf), "%s", optarg); break;
		case 'w':
			if ((ws = ex_parse_size(optarg)) < (1 << 16))
				ex_die("loaded_latency", "bad --ws size (64K or more)");
			break;
		case 'm': ms = (int)ex_parse_long("loaded_latency", "--ms", optarg, 1, 100000); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("loaded_latency", "unexpected argument");

	uint64_t n = ws / sizeof(struct l);
	struct l *arr = ex_map(n * sizeof(struct l));
	uint32_t *next = malloc(n * sizeof(*next));
	struct injector inj[64];
	pthread_t tid[64];

	if (!next)
		ex_die("loaded_latency", "out of memory");
	ex_single_cycle(next, n, 99);
	for (uint64_t i = 0; i < n; i++)
		arr[i].n = &arr[next[i]];
	free(next);
	ex_pin(0);

	cur_delay = 20000;
	pthread_barrier_init(&ready, NULL, ninj + 1);
	for (int t = 0; t < ninj; t++) {
		uint64_t *buf = ex_map(ws);

		memset(buf, 1, ws);
		inj[t] = (struct injector){ .buf = buf, .words = ws / 8, .cpu = t + 1 };
		if (pthread_create(&tid[t], NULL, inject, &inj[t]))
			ex_die("loaded_latency", "cannot create thread");
	}
	pthread_barrier_wait(&ready);

	struct l *p = chase(arr, 100000);
	for (char *tok = strtok(delays_buf, ","); tok; tok = strtok(NULL, ",")) {
		int delay = (int)ex_parse_long("loaded_latency", "--delay", tok, 0, 1 << 30);
		uint64_t lines0 = 0, lines1 = 0, steps = 0, t0, t1;

		cur_delay = delay;
		p = chase(p, 20000); /* let the injectors settle on the new delay */
		for (int t = 0; t < ninj; t++)
			lines0 += __atomic_load_n(&inj[t].lines, __ATOMIC_RELAXED);
		t0 = t1 = ex_now_ns();
		while (t1 - t0 < (uint64_t)ms * 1000000) {
			p = chase(p, 20000);
			steps += 20000;
			t1 = ex_now_ns();
		}
		for (int t = 0; t < ninj; t++)
			lines1 += __atomic_load_n(&inj[t].lines, __ATOMIC_RELAXED);
		fprintf(stderr, "result delay=%d injectors=%d latency_ns=%.2f mb_per_s=%.1f\n", delay, ninj,
			(double)(t1 - t0) / (double)steps,
			(double)(lines1 - lines0) * EX_CLS / ((double)(t1 - t0) / 1e3));
	}
	stop = 1;
	for (int t = 0; t < ninj; t++) {
		pthread_join(tid[t], NULL);
		sum += inj[t].sum & 0xffff;
	}
	printf("checksum %llu\n", (unsigned long long)(sum + (uint64_t)(p - arr) % 2));
	return 0;
}
