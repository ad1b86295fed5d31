/*
 * kalman_small_table: a tracking filter updates a 48-state Kalman filter
 * for every measurement; the covariance update reads the 48x48 matrix of
 * doubles (18 KiB, row pitch 384 bytes) column by column. Clean control:
 * the strided column walks stay inside L1 (32 KiB), and the 384-byte pitch
 * spreads a column over 16 different L1 sets, so neither the stride nor
 * associativity costs anything.
 */
#include <stdio.h>
#include <stdlib.h>

#define NS	48

struct kf {
	double P[NS][NS];	/* covariance */
	double K[NS];		/* gain */
	double x[NS];
};

static __attribute__((noinline)) void kf__update(struct kf *f, int obs, double z)
{
	double s = f->P[obs][obs] + 1.0;

	for (int i = 0; i < NS; i++)		/* gain: column 'obs' */
		f->K[i] = f->P[i][obs] / s;
	double innov = z - f->x[obs];
	for (int i = 0; i < NS; i++)
		f->x[i] += f->K[i] * innov;
	for (int j = 0; j < NS; j++) {		/* P -= K * row(obs), by column */
		double pj = f->P[obs][j];

		for (int i = 0; i < NS; i++)
			f->P[i][j] -= f->K[i] * pj;
	}
	for (int i = 0; i < NS; i++)		/* process noise keeps P positive */
		f->P[i][i] += 0.01;
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 2000000;
	struct kf *f = calloc(1, sizeof(*f));
	double check = 0;

	if (!f)
		return 1;
	for (int i = 0; i < NS; i++)
		f->P[i][i] = 1.0;
	for (long t = 0; t < steps; t++) {
		int obs = (int)(t % NS);

		kf__update(f, obs, (double)(t % 101) / 100.0);
		check += f->x[obs];
	}
	printf("checksum %.6f\n", check);
	free(f);
	return 0;
}
