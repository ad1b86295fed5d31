// SPDX-License-Identifier: GPL-2.0-only
/* struct sampling: text and JSON emitters, and freeing. */
#include "model/sampling.h"

#include <inttypes.h>
#include <math.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

const char *sampling__region_kind_name(enum sampling_region_kind k)
{
	switch (k) {
	case REGION_HEAP: return "heap";
	case REGION_STACK: return "stack";
	case REGION_ANON: return "anon";
	case REGION_FILE: return "file";
	case REGION_OTHER: return "other";
	}
	return "other";
}

void sampling__free(struct sampling *p)
{
	if (!p)
		return;
	free(p->hot);
	free(p->funcs);
	free(p->lines);
	free(p->thread_funcs);
	free(p->stacks);
	free(p->sites);
	free(p->timeline);
	free(p->regions);
	free(p->locks);
	free(p->procs);
	free(p);
}

/* ---- JSON ------------------------------------------------------------------ */

bool sampling__hot_exe(const struct sampling *p, const char *prefer, char *exe, size_t len,
		      uint64_t *samples, int *procs, uint64_t *total)
{
	struct { const char *exe; uint64_t samples; int procs; } *e;
	int n = 0, best = -1;

	*samples = *total = 0;
	*procs = 0;
	if (!p->nr_events || !p->nr_procs)
		return false;
	e = xcalloc((size_t)p->nr_procs, sizeof(*e));
	/* the first event's samples: with several, each sample is counted once */
	for (int i = 0; i < p->nr_hot; i++) {
		const struct sampling_hotspot *h = &p->hot[i];
		const struct sampler_proc *pr = NULL;
		int k;

		if (h->ev)
			continue;
		*total += h->samples;
		for (k = 0; k < p->nr_procs && !pr; k++)
			if (p->procs[k].pid == h->pid)
				pr = &p->procs[k];
		if (!pr || !pr->exe[0] || strcmp(path_basename(pr->exe), h->loc.module))
			continue;
		for (k = 0; k < n && strcmp(e[k].exe, pr->exe); k++)
			;
		if (k == n)
			e[n++].exe = pr->exe;
		e[k].samples += h->samples;
	}
	for (int k = 0; k < n; k++) {
		for (int i = 0; i < p->nr_procs; i++)
			e[k].procs += !strcmp(p->procs[i].exe, e[k].exe);
		if (best < 0 || e[k].samples > e[best].samples ||
		    (e[k].samples == e[best].samples && prefer && !strcmp(e[k].exe, prefer)))
			best = k;
	}
	if (best >= 0) {
		snprintf(exe, len, "%s", e[best].exe);
		*samples = e[best].samples;
		*procs = e[best].procs;
	}
	free(e);
	return best >= 0;
}

/* ---- text ------------------------------------------------------------------ */


/* S/D for R faults per page, each sampled with probability P. */
static double seen_ratio(double r, double p)
{
	double unseen = p >= 1 ? 0 : exp(r * log1p(-p));

	return r * p / (1 - unseen);
}

double sampling__faults_per_page(uint64_t s, uint64_t d, uint64_t f, bool lower)
{
	double p, want, lo = 1, hi;

	if (!d || !s)
		return 0;
	if (f < s)
		f = s;
	if (lower && s > d && f > s) {	/* sampled: the repeats are a count */
		double rep = (double)(s - d);

		rep -= 2 * sqrt(rep);
		want = rep > 0 ? (double)s / ((double)s - rep) : 1;
	} else {
		want = (double)s / (double)d;
	}
	if (want <= 1)
		return 1;
	p = (double)s / (double)f;
	hi = (double)f / (double)d;
	if (hi <= 1 || seen_ratio(hi, p) <= want)
		return hi > 1 ? hi : 1;
	for (int i = 0; i < 100 && hi - lo > 1e-6 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (seen_ratio(mid, p) < want)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

const char *sampling__region_alloc_name(enum sampling_region_alloc a)
{
	switch (a) {
	case REGION_ALLOC_MALLOC_BRK: return "malloc heap (brk)";
	case REGION_ALLOC_MALLOC_CHUNK: return "malloc block (mmap)";
	case REGION_ALLOC_MALLOC_ARENA: return "malloc heap (thread arena)";
	case REGION_ALLOC_MMAP: return "mmap";
	case REGION_ALLOC_STATIC: return "static (.bss)";
	case REGION_ALLOC_STACK: return "stack";
	case REGION_ALLOC_UNKNOWN: break;
	}
	return "unknown";
}
