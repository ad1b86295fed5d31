// SPDX-License-Identifier: GPL-2.0-only
/*
 * Column walk of a row-major image: col_walk PITCH ROWS PASSES.  Each read
 * steps one row pitch; with a pitch of 4096 bytes every line of a column
 * falls in one L1d set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long pitch = argc > 1 ? atol(argv[1]) : 4096, rows = argc > 2 ? atol(argv[2]) : 1024;
	long passes = argc > 3 ? atol(argv[3]) : 3000;
	char *m = aligned_alloc(4096, (size_t)(pitch * rows));
	double s = 0;

	if (!m)
		return 1;
	memset(m, 0, (size_t)(pitch * rows));
	for (long p = 0; p < passes; p++)
		for (long c = 0; c < 512; c += 8)
			for (long r = 0; r < rows; r++)
				s += *(double *)(m + r * pitch + c); /* HOT */
	printf("%g\n", s);
	return 0;
}
