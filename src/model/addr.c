// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/addr.h"
#include "base/util.h"

bool addr_ip__strided(const struct addr_ip *ip)
{
	return ip->stride && ip->stride_deltas >= 8 && ip->stride_frac >= 0.8 &&
	       ip->stride_monotonic >= 0.8;
}

double addr_ip__order_sigma(const struct addr_ip *ip)
{
	if (!ip->stride_deltas)
		return 0;
	return (ip->stride_monotonic - 0.5) * 2 * sqrt((double)ip->stride_deltas);
}

bool addr_ip__in_order(const struct addr_ip *ip)
{
	return (ip->stride_deltas >= 8 && addr_ip__order_sigma(ip) >= 2.5 &&
		ip->stride_monotonic >= 2.0 / 3) ||
	       addr_ip__cyclic(ip);
}

bool addr_ip__cyclic(const struct addr_ip *ip)
{
	/*
	 * Rayleigh's n R^2 of 9 or more: uniform phases give it 1e-4 of the
	 * time in theory; random walks here gave up to 5.7 (5 runs of a 1 GiB
	 * table, 270-290 deltas), so the margin is kept.  A sweep whose speed
	 * varies much from pass to pass gathers less (4-13 seen on a 36 MB
	 * row sweep) and may stay below it: then it looks random, as before.
	 */
	return ip->stride_deltas >= 16 && ip->cyclic_z >= 9;
}

/* The N whose uniform draws, S of them, repeat REP times on average (REP < S). */
static double span_from_repeats(double s, double rep)
{
	double want = s / (s - rep), lo = 1e-9, hi = 1e3;

	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (mid / -expm1(-mid) < want)
			lo = mid;
		else
			hi = mid;
	}
	return s / ((lo + hi) / 2);
}

double addr__random_span(uint64_t s, uint64_t d)
{
	double rep;

	if (!s || !d || d > s)
		return 0;
	rep = (double)(s - d);
	rep += 2 * sqrt(rep) + 1;
	if (rep >= (double)s)
		return (double)d;
	return span_from_repeats((double)s, rep);
}

double addr__random_span_max(uint64_t s, uint64_t d)
{
	double rep;

	if (!s || !d || d > s)
		return INFINITY;
	rep = (double)(s - d);
	rep -= 2 * sqrt(rep) + 1;
	if (rep <= 0)
		return INFINITY;
	return span_from_repeats((double)s, rep);
}

double addr__span_lower(uint64_t s, uint64_t d, uint64_t f1, uint64_t f2)
{
	double uni = addr__random_span(s, d), chao, var, r;

	if (!f2)
		return uni;
	/* Chao (1984), with its variance (Chao 1987) */
	r = (double)f1 / (double)f2;
	chao = (double)d + (double)f1 * (double)f1 / (2.0 * (double)f2);
	var = (double)f2 * (r * r * r * r / 4 + r * r * r + r * r / 2);
	chao -= 2 * sqrt(var);
	return chao > uni ? chao : uni;
}

void addr_profile__free(struct addr_report *p)
{
	if (!p)
		return;
	free(p->ips);
	free(p->regions);
	free(p->shared);
	free(p->read_lines);
	free(p);
}

size_t addr_report__reads_in(const struct addr_report *p, uint64_t lo, uint64_t hi)
{
	if (!p || !p->nr_read_lines || hi < lo)
		return 0;
	return u64_lower_bound(p->read_lines, p->nr_read_lines, hi + 1) -
	       u64_lower_bound(p->read_lines, p->nr_read_lines, lo);
}

static uint64_t written_bytes(const struct addr_line *l)
{
	uint64_t w = 0;

	for (int k = 0; k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++)
		w |= l->t[k].wmask;
	return w;
}

static bool foreign_reader(const struct addr_line *l, int k)
{
	return !l->t[k].writes && l->t[k].reads >= AS_SHARED_MIN_SAMPLES &&
	       !(l->t[k].rmask & written_bytes(l));
}

int addr_line__writers(const struct addr_line *l)
{
	int n = 0;

	for (int k = 0; k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++)
		n += l->t[k].writes > 0;
	return n;
}

int addr_line__foreign_readers(const struct addr_line *l, uint64_t *reads)
{
	int n = 0;

	if (reads)
		*reads = 0;
	for (int k = 0; k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++)
		if (foreign_reader(l, k)) {
			n++;
			if (reads)
				*reads += l->t[k].reads;
		}
	return n;
}

bool addr_line__shared(const struct addr_line *l)
{
	int writers = addr_line__writers(l);

	if (writers >= 2)
		return true;
	for (int k = 0; writers == 1 && k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++)
		if (l->t[k].writes && l->t[k].writes < AS_SHARED_MIN_SAMPLES)
			return false;
	return writers == 1 && addr_line__foreign_readers(l, NULL) > 0;
}

bool addr_line__one_object(const struct addr_line *l)
{
	const char *name = NULL;
	/* with two writers or more, what they wrote decides, as it always did */
	bool readers = addr_line__writers(l) == 1;

	for (int k = 0; k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++) {
		if (!l->t[k].writes && !(readers && foreign_reader(l, k)))
			continue;
		if (!l->t[k].object[0] || (name && strcmp(name, l->t[k].object)))
			return false;
		name = l->t[k].object;
	}
	return name != NULL;
}

static uint64_t line_writes(const struct addr_line *l)
{
	uint64_t w = 0;

	for (int i = 0; i < l->nr_threads; i++)
		w += l->t[i].writes;
	return w;
}

int addr_line__cmp_writes(const void *a, const void *b)
{
	uint64_t x = line_writes(a), y = line_writes(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

void addr_ip__rebase(struct addr_ip *ip)
{
	if (!ip->op.from_base)
		return;
	ip->op.disp += ip->op.from_disp;
	for (int k = 0; k < ip->nr_sib && k < ADDR_SIBLINGS; k++)
		ip->sib_disp[k] += ip->op.from_disp;
	ip->op.from_disp = 0;
	/* a lea's source holds the object's address; a loaded pointer's is kept for the binder */
	if (!ip->op.from_load) {
		ip->op.base = ip->op.from_base - 1;
		ip->op.from_base = 0;
	}
}

void addr_ip__note_base(struct addr_ip *ip, uint64_t origin)
{
	for (uint32_t k = 0; k < ip->origin_bases; k++)
		if (ip->bases[k] == origin)
			return;
	if (ip->origin_bases < AS_ORIGIN_BASES)
		ip->bases[ip->origin_bases++] = origin;
}
