// SPDX-License-Identifier: GPL-2.0-only
/* clock_gettime in a loop for SECONDS (default 1): most samples in the vDSO. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end;
	struct timespec ts;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n++;
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	printf("%ld\n", n);
	return 0;
}
