// SPDX-License-Identifier: GPL-2.0-only
/* Stride statistics of the exact addresses an instruction was sampled at. */
#include <math.h>
#include <stdlib.h>

#include "collect/addr/addrsample.h"
#include "base/util.h"

static uint64_t abs64(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

/* The span of a walk: the range of the positions its deltas add up to. */
static uint64_t walk_span(const int64_t *deltas, size_t n)
{
	int64_t pos = 0, lo = 0, hi = 0;

	for (size_t i = 0; i < n; i++) {
		pos += deltas[i];
		lo = pos < lo ? pos : lo;
		hi = pos > hi ? pos : hi;
	}
	return (uint64_t)(hi - lo);
}

int64_t addrsample__stride(const int64_t *deltas, size_t n, double *frac)
{
	uint64_t *g, best = 0, nonzero = 0, mult = 0, neg = 0, steps = 0;
	uint64_t span = walk_span(deltas, n);
	size_t ng = 0, run = 0, best_run = 0;

	*frac = 0;
	g = xcalloc(n + 1, sizeof(*g));
	for (size_t i = 0; i < n; i++) {
		if (!deltas[i])
			continue;
		nonzero++;
		/* the direction: from steps, not from the jumps back of a walk run again */
		if (abs64(deltas[i]) * 2 < span) {
			steps++;
			neg += deltas[i] < 0;
		}
		if (i + 1 < n && deltas[i + 1])
			g[ng++] = gcd64(abs64(deltas[i]), abs64(deltas[i + 1]));
	}
	if (!ng && nonzero) {
		for (size_t i = 0; i < n; i++)
			if (deltas[i])
				g[ng++] = abs64(deltas[i]);
	}
	qsort(g, ng, sizeof(*g), cmp_u64);
	for (size_t i = 0; i < ng; i++) {
		run = (i && g[i] == g[i - 1]) ? run + 1 : 1;
		if (run > best_run) {
			best_run = run;
			best = g[i];
		}
	}
	/*
	 * A clock that ticks as regularly as the loop runs can take most
	 * samples an even number of steps apart: the commonest gcd is then
	 * twice the stride.  Pairs whose gcd is a proper divisor of it prove
	 * the stride divides that too; one that a fifth of the pairs show is
	 * taken (a walk in steps of 2s never shows s).
	 */
	if (best) {
		uint64_t div = 0;
		size_t div_run = 0;

		run = 0;
		for (size_t i = 0; i < ng; i++) {
			run = (i && g[i] == g[i - 1]) ? run + 1 : 1;
			if (g[i] < best && best % g[i] == 0 && run > div_run &&
			    run * 5 >= ng && run >= 2) {
				div_run = run;
				div = g[i];
			}
		}
		if (div)
			best = div;
	}
	free(g);
	if (!best)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (deltas[i] && abs64(deltas[i]) % best == 0)
			mult++;
	*frac = (double)mult / (double)nonzero;
	if (!steps) /* all jumps: count them all */
		for (size_t i = 0; i < n; i++)
			if (deltas[i]) {
				steps++;
				neg += deltas[i] < 0;
			}
	return neg * 2 > steps ? -(int64_t)best : (int64_t)best;
}

double addrsample__monotonic(const int64_t *deltas, size_t n, int64_t stride)
{
	size_t nonzero = 0, same = 0;
	uint64_t span = walk_span(deltas, n);

	for (size_t i = 0; i < n; i++) {
		bool back = (deltas[i] < 0) != (stride < 0);

		if (!deltas[i])
			continue;
		/*
		 * A jump back over half the span or more is a new pass of a walk
		 * that repeats (a loop over an array, run again): not a step
		 * against the stride.  The slower the sampling, the more of them.
		 */
		if (back && abs64(deltas[i]) * 2 >= span)
			continue;
		nonzero++;
		same += !back;
	}
	return nonzero ? (double)same / (double)nonzero : 0.0;
}

double addrsample__cyclic_z(const int64_t *deltas, size_t n)
{
	uint64_t span = walk_span(deltas, n);
	double c = 0, sn = 0, r;
	size_t used = 0;

	if (!span)
		return 0;
	for (size_t i = 0; i < n; i++) {
		double ph = fmod((double)deltas[i], (double)span) / (double)span;

		if (!deltas[i])
			continue;
		c += cos(2 * M_PI * ph);
		sn += sin(2 * M_PI * ph);
		used++;
	}
	if (!used)
		return 0;
	/*
	 * A sweep moves one way between samples: its phases gather about a
	 * mean away from zero.  A walk that stays near where it was (random
	 * within a window that drifts, as a merge sort's early passes or a
	 * tree search's upper levels) gathers about zero, half forward and
	 * half back: no sweep.  The mean must stand two circular standard
	 * deviations off zero, so that about 98% of the steps go its way.
	 */
	r = sqrt(c * c + sn * sn) / (double)used;
	if (r <= 0 || r >= 1)
		return r >= 1 && fabs(atan2(sn, c)) > 1e-9 ? (double)used : 0;
	if (fabs(atan2(sn, c)) < 2 * sqrt(-2 * log(r)))
		return 0;
	/* Rayleigh: n R^2, exponentially distributed with mean 1 for uniform phases */
	return (c * c + sn * sn) / (double)used;
}
