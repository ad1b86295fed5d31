// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naive matrix multiply: the inner loop walks b down a column (a stride of
 * one row).  Usage: matmul [N] [EXIT]: exits with EXIT (default 0).
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, rc = argc > 2 ? atoi(argv[2]) : 0;
	double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
	double *c = calloc((size_t)n * n, sizeof(double));

	if (!a || !b || !c)
		return 1;
	for (int i = 0; i < n * n; i++) {
		a[i] = i % 7;
		b[i] = i % 5;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;

			for (int k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j]; /* HOT */
			c[i * n + j] = s;
		}
	printf("%g\n", c[n + 1]);
	return rc;
}
