// SPDX-License-Identifier: GPL-2.0-only
/* T threads each touch N pages; then a forked child touches N more. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static long pages;

static void *touch(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, pages * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[64];
	pid_t c;

	pages = argc > 2 ? atol(argv[2]) : 5000;
	for (int i = 0; i < nt && i < 64; i++)
		pthread_create(&t[i], NULL, touch, NULL);
	for (int i = 0; i < nt && i < 64; i++)
		pthread_join(t[i], NULL);
	c = fork();
	if (c == 0) {
		touch(NULL);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	return 0;
}
