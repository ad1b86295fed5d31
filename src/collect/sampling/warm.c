// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbolising while the target runs (see prof_warm_symbols).
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/util.h"

#include "sampler.skel.h"

/*
 * Symbolising while the target runs.  The libdwfl sessions, DWARF and
 * build-id cache that finish needs are built here, on memadvise's CPU while
 * the program runs on another, instead of after it exits: 3-5 ms of a short
 * run's wall time with small programs, far more with big libraries.  Each
 * pass reads the hot-spot and fault-site maps, ranks them as finish will and
 * resolves, within WARM_BUDGET_NS, what is not cached yet; prof_maps_for() hands
 * out the same snapshot then and at the end, so finish finds the sessions.
 * The first pass runs WARM_FIRST_NS into the run (a shorter run is
 * symbolised at the end, as before), then every WARM_EVERY_NS.
 */
struct warm_ent {
	pid_t pid;
	uint64_t ip, weight, kernel;
	int ev;
};

static int cmp_warm(const void *a, const void *b)
{
	const struct warm_ent *x = a, *y = b;

	return x->weight < y->weight ? 1 : x->weight > y->weight ? -1 : 0;
}

static void warm_push(struct warm_ent **a, int *n, int *cap, struct warm_ent e)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*a = xrealloc(*a, *cap * sizeof(**a));
	}
	(*a)[(*n)++] = e;
}

void prof_warm_symbols(struct prof_state *st)
{
	struct warm_ent *hot = NULL, *sites = NULL;
	int nh = 0, ns = 0, hcap = 0, scap = 0, i = 0, j = 0;
	uint64_t totals[PROF_MAX_EVENTS] = { 0 }, faults = 0, t0 = now_ns();
	struct map_iter it;
	struct prof_hot_key hk;
	struct prof_hot_val hv;
	struct prof_fault_site_key fk;
	struct prof_fault_val fv;
	struct sampling_loc loc;

	if (!st->sym)
		st->sym = symbolizer__new();
	prof_map_iter_init(&it, bpf_map__fd(st->skel->maps.hot), sizeof(hk), sizeof(hv));
	while (prof_map_iter_next(&it, &hk, &hv)) {
		int ev = (int)hk.ev < st->nr_evs ? (int)hk.ev : 0;

		warm_push(&hot, &nh, &hcap, (struct warm_ent){ (pid_t)hk.tgid, hk.ip, hv.samples,
							       hv.kernel_samples, ev });
		totals[ev] += hv.samples;
	}
	prof_map_iter_init(&it, bpf_map__fd(st->skel->maps.fault_sites), sizeof(fk), sizeof(fv));
	while (prof_map_iter_next(&it, &fk, &fv)) {
		warm_push(&sites, &ns, &scap,
			  (struct warm_ent){ (pid_t)fk.tgid, fk.ip, fv.count, fk.kernel, 0 });
		faults += fv.count;
	}
	prof_sort_array(hot, nh, sizeof(*hot), cmp_warm);
	prof_sort_array(sites, ns, sizeof(*sites), cmp_warm);
	while ((i < nh || j < ns) && now_ns() - t0 < WARM_BUDGET_NS) {
		/* the heavier of the next hot spot and the next fault site first */
		if (i < nh && (j >= ns || hot[i].weight * (faults ? faults : 1) >=
						  sites[j].weight * (totals[hot[i].ev] ? totals[hot[i].ev] : 1))) {
			const struct warm_ent *e = &hot[i];
			const struct procmaps *m = prof_maps_for(st, e->pid, e->ip);
			uint64_t ip = e->ip;

			if (prof_charge_prev(st->evs[e->ev].info.precise, e->kernel, e->weight))
				symbolizer__prev_insn(st->sym, m, e->ip, &ip);
			symbolizer__resolve(st->sym, m, ip, false,
					    prof_hot_detail(i, e->weight, totals[e->ev]), &loc);
			i++;
		} else {
			const struct warm_ent *e = &sites[j];

			symbolizer__resolve(st->sym, prof_maps_for(st, e->pid, e->ip), e->ip, e->kernel,
					    prof_site_detail(j, e->weight, faults), &loc);
			j++;
		}
	}
	pr_debug("profile: symbolised %d of %d hot spots and %d of %d fault sites while running in %.1f ms",
		 i, nh, j, ns, (now_ns() - t0) / 1e6);
	free(hot);
	free(sites);
}
