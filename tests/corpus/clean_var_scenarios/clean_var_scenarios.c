// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_var_scenarios: the overnight value-at-risk job of a trading desk.
 * At start-up it loads the day's tick returns of 64 instruments (64 MiB of
 * floats, written once) and estimates their covariance in one pass, then
 * factors it (Cholesky).  The run itself is a Monte Carlo simulation on two
 * threads: each draws 64 standard normals per scenario from a 16 KiB
 * inverse-CDF table, correlates them through the 32 KiB Cholesky factor and
 * prices the 8 books through the instruments' exposure table (64 x 8
 * doubles, read one book column at a time, a 64-byte stride over 4 KiB).
 * Each thread keeps its results in its own stats record, aligned to a cache
 * line of its own.
 * A clean control: after the one-time load the hot loops work on tables
 * that stay in L1 and L2, and no line is written by both threads.
 *
 * Usage: clean_var_scenarios [SCENARIOS_PER_THREAD]
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NINST	64
#define NBOOKS	8
#define NTICKS	262144
#define NQ	4096		/* inverse-CDF table points */
#define NBINS	32		/* loss histogram */

struct desk_stats {
	_Alignas(64) uint64_t scenarios;
	uint64_t breaches;		/* scenarios whose total loss passed the limit */
	double pnl_sum[NBOOKS];
	double pnl_sq[NBOOKS];
	double worst[NBOOKS];
	uint32_t loss_hist[NBINS];
};

static double chol[NINST][NINST];	/* lower triangle used */
static double expo[NINST][NBOOKS];	/* position of each book in each instrument */
static float inv_cdf[NQ + 1];
static struct desk_stats stats[2];
static double loss_limit;

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static double norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* The standard normal quantile of p, by Newton steps on the CDF. */
static double norm_quantile(double p)
{
	double z = 0;

	for (int i = 0; i < 60; i++) {
		double step = (norm_cdf(z) - p) / (exp(-0.5 * z * z) / sqrt(2 * M_PI));

		z -= step;
		if (fabs(step) < 1e-12)
			break;
	}
	return z;
}

static void load_ticks(float *ret)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	double beta[NINST];

	for (int i = 0; i < NINST; i++)
		beta[i] = 0.3 + (double)(rnd(&x) % 1000) / 1000.0;
	for (size_t t = 0; t < NTICKS; t++) {
		double market = (double)(rnd(&x) % 20001) / 10000.0 - 1.0;

		for (int i = 0; i < NINST; i++) {
			double own = (double)(rnd(&x) % 20001) / 10000.0 - 1.0;

			ret[t * NINST + i] = (float)(1e-4 * (beta[i] * market + own));
		}
	}
}

static void covariance(const float *ret, double cov[NINST][NINST])
{
	double mean[NINST] = { 0 };

	for (size_t t = 0; t < NTICKS; t++) {
		const float *r = &ret[t * NINST];

		for (int i = 0; i < NINST; i++) {
			mean[i] += r[i];
			for (int j = 0; j <= i; j++)
				cov[i][j] += (double)r[i] * r[j];
		}
	}
	for (int i = 0; i < NINST; i++)
		mean[i] /= NTICKS;
	for (int i = 0; i < NINST; i++)
		for (int j = 0; j <= i; j++)
			cov[i][j] = cov[i][j] / NTICKS - mean[i] * mean[j];
}

static int cholesky(double a[NINST][NINST])
{
	for (int j = 0; j < NINST; j++) {
		double d = a[j][j];

		for (int k = 0; k < j; k++)
			d -= chol[j][k] * chol[j][k];
		if (d <= 0)
			return -1;
		chol[j][j] = sqrt(d);
		for (int i = j + 1; i < NINST; i++) {
			double s = a[i][j];

			for (int k = 0; k < j; k++)
				s -= chol[i][k] * chol[j][k];
			chol[i][j] = s / chol[j][j];
		}
	}
	return 0;
}

struct worker {
	int id;
	long nscen;
};

static void *simulate(void *p)
{
	const struct worker *w = p;
	struct desk_stats *s = &stats[w->id];
	uint64_t x = 0x2545f4914f6cdd1dull * (uint64_t)(w->id + 1);
	double z[NINST], y[NINST];

	for (long n = 0; n < w->nscen; n++) {
		double total = 0;

		for (int i = 0; i < NINST; i++) {
			uint64_t u = rnd(&x);
			uint32_t k = (uint32_t)(u >> 52);		/* 12 bits: the table point */
			double f = (double)(u & 0xfffff) / 0x100000;	/* 20 bits: between points */

			z[i] = inv_cdf[k] + f * (inv_cdf[k + 1] - inv_cdf[k]);
		}
		for (int i = 0; i < NINST; i++) {
			double acc = 0;

			for (int j = 0; j <= i; j++)
				acc += chol[i][j] * z[j];
			y[i] = acc;
		}
		for (int b = 0; b < NBOOKS; b++) {
			double pnl = 0;

			for (int i = 0; i < NINST; i++)
				pnl += expo[i][b] * y[i];
			s->pnl_sum[b] += pnl;
			s->pnl_sq[b] += pnl * pnl;
			if (pnl < s->worst[b])
				s->worst[b] = pnl;
			total += pnl;
		}
		int bin = (int)(-total / loss_limit * (NBINS / 2));

		s->loss_hist[bin < 0 ? 0 : bin >= NBINS ? NBINS - 1 : bin]++;
		s->breaches += -total > loss_limit;
		s->scenarios++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long nscen = argc > 1 ? atol(argv[1]) : 1000000;
	static double cov[NINST][NINST];
	float *ret = malloc((size_t)NTICKS * NINST * sizeof(*ret));
	uint64_t x = 0x853c49e6748fea9bull;

	if (!ret)
		return 1;
	load_ticks(ret);
	covariance(ret, cov);
	for (int i = 0; i < NINST; i++)	/* a day of ticks: scale to a day's horizon */
		for (int j = 0; j <= i; j++)
			cov[i][j] *= 390;
	if (cholesky(cov))
		return 1;
	for (int k = 0; k <= NQ; k++) {
		double p = (k + 0.5) / (NQ + 1);

		inv_cdf[k] = (float)norm_quantile(p);
	}
	for (int i = 0; i < NINST; i++)
		for (int b = 0; b < NBOOKS; b++)
			expo[i][b] = (double)(rnd(&x) % 2000001) - 1000000.0;
	loss_limit = 30000;

	pthread_t t[2];
	struct worker w[2];

	for (int i = 0; i < 2; i++) {
		w[i] = (struct worker){ .id = i, .nscen = nscen };
		if (pthread_create(&t[i], NULL, simulate, &w[i]))
			return 1;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);

	uint64_t breaches = 0, n = 0;
	double worst = 0;

	for (int i = 0; i < 2; i++) {
		n += stats[i].scenarios;
		breaches += stats[i].breaches;
		for (int b = 0; b < NBOOKS; b++)
			if (stats[i].worst[b] < worst)
				worst = stats[i].worst[b];
	}
	printf("%llu scenarios, %llu breaches, worst book %.0f\n", (unsigned long long)n,
	       (unsigned long long)breaches, worst);
	free(ret);
	return 0;
}
