// SPDX-License-Identifier: GPL-2.0-only
/*
 * The failing targets of tests/stress/stress.py: one program, the way it
 * fails chosen by its first argument.  Each touches memory for MS
 * milliseconds first, so that memadvise has something to measure and a
 * signal has a run to land in.
 *
 *   target segv MS          SIGSEGV (a store to address 0)
 *   target abort MS         abort(): SIGABRT
 *   target work MS [CODE]   exits CODE (default 0)
 *   target exec MS CODE     execs itself as 'work MS CODE'
 *   target threads MS N     N threads touch memory, then exit 0
 *   target children MS N    forks N children that exit at once; reaps them all
 *   target chroot MS DIR    chroot(DIR), setgid/setuid(65534), then exits 4
 *   target closefds MS      closes stdin, stdout and stderr, then exits 0
 *   target ignint MS        ignores SIGINT, then exits 0
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Walks a 4 MiB buffer with a page stride, then a cache-line stride, for MS ms. */
static void work(double ms)
{
	static __thread volatile char *buf;
	size_t len = 4 << 20;
	double end = now_ms() + ms;

	if (!buf)
		buf = malloc(len);
	if (!buf)
		exit(70);
	do {
		for (size_t i = 0; i < len; i += 4096)
			buf[i]++;
		for (size_t i = 0; i < len; i += 64)
			buf[i] += (char)i;
	} while (now_ms() < end);
}

static void *thread_main(void *arg)
{
	work(*(double *)arg);
	return NULL;
}

static int threads(double ms, int n)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));

	if (!t)
		return 70;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, &ms))
			return 71;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int children(double ms, int n)
{
	int bad = 0;

	work(ms / 2);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 71;
		if (pid == 0)
			_exit(0);
		/* reap as we go: 1000 zombies at once would be a test of its own */
		if (i % 50 == 49)
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;
	}
	for (;;) {
		int st;
		pid_t pid = wait(&st);

		if (pid < 0)
			break;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	work(ms / 2);
	return bad ? 72 : 0;
}

int main(int argc, char **argv)
{
	double ms = argc > 2 ? atof(argv[2]) : 300;

	if (argc < 2)
		return 64;
	if (!strcmp(argv[1], "segv")) {
		work(ms);
		*(volatile int *)(long)(argc - 3 > 100 ? argc : 0) = 1;
		return 73;
	}
	if (!strcmp(argv[1], "abort")) {
		work(ms);
		abort();
	}
	if (!strcmp(argv[1], "work")) {
		work(ms);
		return argc > 3 ? atoi(argv[3]) : 0;
	}
	if (!strcmp(argv[1], "exec") && argc > 3) {
		char *args[] = { argv[0], "work", argv[2], argv[3], NULL };

		work(ms / 2);
		execv("/proc/self/exe", args);
		return 74;
	}
	if (!strcmp(argv[1], "threads") && argc > 3)
		return threads(ms, atoi(argv[3]));
	if (!strcmp(argv[1], "children") && argc > 3)
		return children(ms, atoi(argv[3]));
	if (!strcmp(argv[1], "chroot") && argc > 3) {
		if (chroot(argv[3]) || chdir("/"))
			return 75;
		if (setgid(65534) || setuid(65534))
			return 76;
		work(ms);
		return 4;
	}
	if (!strcmp(argv[1], "closefds")) {
		close(0);
		close(1);
		close(2);
		work(ms);
		return 0;
	}
	if (!strcmp(argv[1], "ignint")) {
		signal(SIGINT, SIG_IGN);
		work(ms);
		return 0;
	}
	return 64;
}
