// SPDX-License-Identifier: GPL-2.0-only
/* Touches N distinct anonymous pages once each: N page faults. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, page = sysconf(_SC_PAGESIZE);
	unsigned sleep_ms = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	if (sleep_ms)
		usleep(sleep_ms * 1000);
	return 0;
}
