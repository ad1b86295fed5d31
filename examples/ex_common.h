/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the calibration workloads in examples/: clock, sizes,
 * a seeded random generator, single-cycle shuffles, medians and the
 * machine-readable "result" line that 'memadvise calibrate' parses.
 *
 * Output protocol of every example:
 *   stdout: "checksum N" (identical for variants that compute the same thing)
 *   stderr: "result key=value ..." lines, one per measurement
 */
#ifndef __MA_EX_COMMON_H
#define __MA_EX_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define EX_CLS 64
#define EX_PAGE 4096UL

static inline uint64_t ex_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread: excludes time spent descheduled or stolen by the host. */
static inline uint64_t ex_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void ex_die(const char *prog, const char *msg)
{
	fprintf(stderr, "%s: error: %s\n", prog, msg);
	fprintf(stderr, "%s: hint: run '%s --help' for usage\n", prog, prog);
	exit(2);
}

/* "4096", "64K", "2M", "1G" (binary units) -> bytes; 0 on bad input. */
static inline uint64_t ex_parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	return *end ? 0 : v;
}

static inline long ex_parse_long(const char *prog, const char *what, const char *s, long min,
				 long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		char msg[160];

		snprintf(msg, sizeof(msg), "bad %s '%s' (%ld..%ld)", what, s, min, max);
		ex_die(prog, msg);
	}
	return v;
}

/* xorshift64*: deterministic, seedable, good enough for shuffles. */
static inline uint64_t ex_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline uint64_t ex_rand_below(uint64_t *state, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)ex_rand(state) * n) >> 64);
}

/* Sattolo's algorithm: a random permutation that is one single cycle. */
static inline void ex_single_cycle(uint32_t *next, uint64_t n, uint64_t seed)
{
	uint32_t *order = malloc(n * sizeof(*order));
	uint64_t st = seed | 1;

	if (!order) {
		perror("malloc");
		exit(1);
	}
	for (uint64_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = ex_rand_below(&st, i);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	/* order[] is a random sequence; link each element to the next one. */
	for (uint64_t i = 0; i < n; i++)
		next[order[i]] = order[(i + 1) % n];
	free(order);
}

/* Anonymous, page-aligned, zeroed memory (never from the heap's arena). */
static inline void *ex_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static inline int ex_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v in place; returns the median. */
static inline double ex_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), ex_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* CPUs this process may run on (its affinity mask, which a cgroup may narrow). */
static inline int ex_nr_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/*
 * Pins the calling thread to the (cpu % allowed)-th CPU of the process's
 * affinity mask; keeps the mask if that fails. Returns the CPU or -1.
 */
static inline int ex_pin(int cpu)
{
	cpu_set_t allowed, set;
	int k, want;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) || !CPU_COUNT(&allowed))
		return -1;
	want = cpu % CPU_COUNT(&allowed);
	for (k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &allowed) && want-- == 0)
			break;
	CPU_ZERO(&set);
	CPU_SET(k, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1 : k;
}

/* Keeps a value alive without a store the optimiser could drop. */
#define ex_keep(x) __asm__ volatile("" : "+r"(x))

#endif
