// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-process cost of a profiler's events: a workload that, once a
 * profiler is attached to it (memadvise run -p, perf record -p), takes the
 * profiler's perf_event file descriptors (pidfd_getfd) and switches them
 * off and on around slices of its own work, 2 x PAIRS slices, the order of
 * each pair alternating.  The median of the pairs' on/off time ratios is
 * the cost of the events and of what the kernel runs on them (BPF programs,
 * ring-buffer output), free of what makes two runs of a program in a guest
 * differ by 10-40 % (the physical pages it gets, the host's load): both
 * halves of a pair run in one process, 20 ms apart.  What the profiler does
 * in user space meanwhile runs in both halves and is not in the ratio.
 *
 * usage: toggle faults|compute PAIRS
 *   prints its pid, reads the profiler's pid on stdin, measures, prints
 *   "ratio MEDIAN Q25 Q75 FDS".
 * Descriptors whose count does not move over a slice of work are left
 * alone: an event the profiler switched off itself (memadvise's cpu-clock
 * once the scheduler tick samples in its place), or one the work does not
 * reach (switching it would change nothing).
 * memadvise's tick sampler, a BPF program and no perf event, is switched
 * with them (its 'live' flag).
 * With TOGGLE_FD=K in the environment only the K-th of the profiler's
 * perf_event descriptors (in fd order) is switched, the others stay on:
 * the cost of that one event (which is which: strace -e perf_event_open).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N 384
#define MAX_FDS 1024

static double A[N * N], B[N * N], C[N * N];
static volatile double sink;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One slice of work: 4096 first-touch faults, or 5.9 M multiply-adds. */
static void work(int faults)
{
	if (faults) {
		size_t sz = 16 << 20;
		char *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(1);
		madvise(p, sz, MADV_NOHUGEPAGE);
		for (size_t o = 0; o < sz; o += 4096)
			p[o] = 1;
		munmap(p, sz);
		return;
	}
	for (int i = 0; i < 40; i++)
		for (int j = 0; j < N; j++) {
			double t = 0;

			for (int k = 0; k < N; k++)
				t += A[i * N + k] * B[k * N + j];
			C[i * N + j] = t;
		}
	sink += C[N + 1];
}

/*
 * memadvise's tick sampler (bpf/tick.bpf.c) is no perf event: it counts
 * while the u32 'live' at the start of its object's .bss map is 1 (the
 * tracing object's, see the Makefile).  TICK_FD is that map, duplicated
 * from the profiler, -1 when there is none.
 */
static int tick_fd = -1;
static uint8_t tick_bss[64];

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static bool is_tick_bss(int fd)
{
	struct bpf_map_info info = { 0 };
	union bpf_attr a = { 0 };
	uint32_t key = 0;

	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) || strcmp(info.name, "tracing_.bss") ||
	    info.value_size > sizeof(tick_bss) || info.value_size < 4)
		return false;
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)tick_bss;
	/* 'live' is 1 once the tick samples: then it is the first word */
	return !sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) && *(uint32_t *)tick_bss == 1;
}

static void tick_live(bool on)
{
	union bpf_attr a = { 0 };
	uint32_t key = 0;

	if (tick_fd < 0)
		return;
	*(uint32_t *)tick_bss = on;
	a.map_fd = tick_fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)tick_bss;
	sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

/* The perf_event descriptors of process PID, duplicated into this one. */
static int grab_fds(int pid, int *fds)
{
	char dir[64], path[340], link[64];
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (pidfd < 0 || !d)
		return -1;
	while ((de = readdir(d)) && n < MAX_FDS) {
		ssize_t l;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l < 0)
			continue;
		link[l] = '\0';
		if (!strcmp(link, "anon_inode:bpf-map") && tick_fd < 0) {
			fd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
			if (fd >= 0 && is_tick_bss(fd))
				tick_fd = fd;
			else if (fd >= 0)
				close(fd);
			continue;
		}
		if (strcmp(link, "anon_inode:[perf_event]"))
			continue;
		fd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(de->d_name), 0);
		if (fd >= 0)
			fds[n++] = fd;
	}
	closedir(d);
	close(pidfd);
	return n;
}

int main(int argc, char **argv)
{
	int faults = argc > 1 && !strcmp(argv[1], "faults");
	int pairs = argc > 2 ? atoi(argv[2]) : 300, fds[MAX_FDS], nfds, pid;
	double *r;
	const char *only_env = getenv("TOGGLE_FD");
	int only = only_env ? atoi(only_env) : -1;

	if (pairs < 4)
		return 2;
	for (int i = 0; i < N * N; i++)
		A[i] = B[i] = i * 1e-6;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (scanf("%d", &pid) != 1)
		return 2;
	nfds = grab_fds(pid, fds);
	if (nfds <= 0 || only >= nfds) {
		printf("error %d perf_event descriptors in pid %d (TOGGLE_FD %d)\n", nfds, pid, only);
		return 1;
	}
	r = calloc(pairs, sizeof(*r));
	{
		/* the count first, then what read_format adds (times, id) */
		uint64_t before[MAX_FDS], buf[8];
		int live = 0;

		for (int k = 0; k < nfds; k++)
			before[k] = read(fds[k], buf, sizeof(buf)) >= 8 ? buf[0] : ~0ULL;
		work(faults); /* warm */
		for (int k = 0; k < nfds; k++)
			if (read(fds[k], buf, sizeof(buf)) >= 8 && buf[0] != before[k] &&
			    (only < 0 || k == only))
				fds[live++] = fds[k];
		nfds = live;
		only = -1;
		if (!nfds && tick_fd < 0) {
			printf("error no perf_event descriptor of pid %d counts\n", pid);
			return 1;
		}
	}
	for (int i = 0; i < pairs; i++) {
		double t[2];

		for (int h = 0; h < 2; h++) {
			int on = h ^ (i & 1);
			double s;

			for (int k = 0; k < nfds; k++)
				if (only < 0 || k == only)
					ioctl(fds[k], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
					      0);
			tick_live(on);
			s = now_ns();
			work(faults);
			t[on] = now_ns() - s;
		}
		r[i] = t[1] / t[0];
	}
	for (int k = 0; k < nfds; k++)
		ioctl(fds[k], PERF_EVENT_IOC_ENABLE, 0);
	tick_live(true);
	qsort(r, pairs, sizeof(*r), cmp_double);
	printf("ratio %.4f %.4f %.4f %d\n", r[pairs / 2], r[pairs / 4], r[3 * pairs / 4], nfds + (tick_fd >= 0));
	return 0;
}
