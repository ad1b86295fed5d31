// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel's page-faults event costs a first-touch fault, split
 * into its parts, inside one process: slices of work (fresh anonymous
 * pages, written once, unmapped) timed in pairs, one half with the event
 * in the given state and one without, the order of each pair alternating.
 * The median of the pairs' ratios is the cost, free of what makes two runs
 * of a program in a guest differ (see toggle.c).
 *
 *   exists    an event open on another task (a sleeping child), disabled,
 *             against no event at all: what every fault on the system pays
 *             once any page-faults event exists, whatever it does.  The
 *             event is opened and closed around its half of each pair.
 *   counting  counting on this process, enabled against disabled (the
 *             event exists in both halves): what perf stat adds.
 *   sampling  sampling at 4000 Hz (frequency mode), enabled against
 *             disabled: what a sampling event such as memadvise's adds.
 *   no-sample sampling with a period no run reaches, enabled against
 *             disabled: the part of the above that is not the samples.
 *
 * usage: fault_event [PAIRS]
 *   prints one line per part: "NAME MEDIAN Q25 Q75", or "NAME error ..."
 *   when the event cannot be opened (perf_event_paranoid, no perf events).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLICE_BUFS 4
#define SLICE_BYTES (8u << 20)
#define MAX_PAIRS 4000

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Time of one slice: SLICE_BUFS fresh buffers, each page written once. */
static double slice(void)
{
	double t = now_ns();

	for (int b = 0; b < SLICE_BUFS; b++) {
		volatile char *p = mmap(NULL, SLICE_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("fault_event: mmap");
			exit(1);
		}
		for (size_t i = 0; i < SLICE_BYTES; i += 4096)
			p[i] = 1;
		munmap((void *)p, SLICE_BYTES);
	}
	return now_ns() - t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int open_event(struct perf_event_attr *a, pid_t pid)
{
	return (int)syscall(SYS_perf_event_open, a, pid, -1, -1, 0);
}

static void print_ratios(const char *name, double *r, int pairs)
{
	qsort(r, pairs, sizeof(*r), cmp_double);
	printf("%s %.4f %.4f %.4f\n", name, r[pairs / 2], r[pairs / 4], r[3 * pairs / 4]);
	fflush(stdout);
}

/* The event on a sleeping child, opened for one half of each pair. */
static void part_exists(int pairs, double *r)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.disabled = 1,
	};
	pid_t kid = fork();

	if (kid < 0) {
		printf("exists error fork: %s\n", strerror(errno));
		return;
	}
	if (!kid) {
		pause();
		_exit(0);
	}
	for (int i = 0; i < pairs; i++) {
		double with, without;
		int fd;

		if (i & 1) {
			without = slice();
			usleep(2000);
		}
		fd = open_event(&a, kid);
		if (fd < 0) {
			printf("exists error perf_event_open: %s\n", strerror(errno));
			goto out;
		}
		/* what opening leaves behind settles before the slice */
		usleep(2000);
		with = slice();
		close(fd);
		usleep(2000);
		if (!(i & 1))
			without = slice();
		r[i] = with / without;
	}
	print_ratios("exists", r, pairs);
out:
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
}

/* The event on this process, enabled for one half of each pair. */
static void part_enabled(const char *name, struct perf_event_attr *a, int pairs, double *r)
{
	int fd = open_event(a, 0);

	if (fd < 0) {
		printf("%s error perf_event_open: %s\n", name, strerror(errno));
		return;
	}
	for (int i = 0; i < pairs; i++) {
		double on, off;

		if (i & 1) {
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			on = slice();
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			off = slice();
		} else {
			off = slice();
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			on = slice();
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		}
		r[i] = on / off;
	}
	close(fd);
	print_ratios(name, r, pairs);
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 300;
	static double r[MAX_PAIRS];
	struct perf_event_attr counting = {
		.size = sizeof(counting),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.disabled = 1,
		.inherit = 1,
	};
	struct perf_event_attr sampling = counting, no_sample = counting;

	if (pairs < 4 || pairs > MAX_PAIRS) {
		fprintf(stderr, "usage: fault_event [PAIRS (4-%d)]\n", MAX_PAIRS);
		return 2;
	}
	sampling.freq = 1;
	sampling.sample_freq = 4000;
	no_sample.sample_period = 1ULL << 60;
	slice(); /* the first slice maps the process's own pages */
	part_exists(pairs, r);
	part_enabled("counting", &counting, pairs, r);
	part_enabled("sampling", &sampling, pairs, r);
	part_enabled("no-sample", &no_sample, pairs, r);
	return 0;
}
