// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampled profile (model/sampling.h) -> hot line and function entities, page
 * faults per line, and region entities with their huge-page state.
 */
#include <stdio.h>
#include <string.h>

#include "rules/bind_int.h"
#include "model/sampling.h"

/*
 * A faulting line's region, labelled as region_label() labels a data
 * address's: a line the data-address sampler saw no decoded access of
 * (its samples were in the fault handler) still names where it faulted.
 */
static void fault_region_label(const struct sampling_region *g, char *buf, size_t len)
{
	switch (g->kind) {
	case REGION_HEAP: snprintf(buf, len, "heap"); break;
	case REGION_STACK: snprintf(buf, len, "stack"); break;
	case REGION_ANON: snprintf(buf, len, "anon"); break;
	case REGION_FILE: snprintf(buf, len, "file %.180s", g->path); break;
	default: snprintf(buf, len, "%.180s", g->path); break;
	}
}

/* Hot lines and functions of event 0, with the time one sample stands for. */
static void sampling_bind_hotspots(struct binder *b, const struct sampling *p)
{
	struct factbase *fb = b->fb;

	if (p->nr_events > 0 && p->events[0].samples > 0) {
		const struct sampling_event *ev = &p->events[0];

		factbase__mark(fb, EV_HOTSPOTS, true, NULL);
		b->total_samples = (double)ev->samples;
		factbase__set(fb, -1, "run.samples", (double)ev->samples, ev->tier);
		factbase__set(fb, -1, "run.threads", p->nr_threads, TIER_SOFTWARE);
		if (!strcmp(ev->unit, "ns") && ev->samples) {
			b->period_ns = ev->est_events / (double)ev->samples;
			factbase__set(fb, -1, "run.sample_period_ns", b->period_ns, ev->tier);
		}
		for (int i = 0; i < p->nr_lines; i++) {
			const struct sampling_hotsum *h = &p->lines[i];
			int idx;

			if (h->ev != 0 || h->share < 0.005)
				continue;
			idx = binder__line_entity(b, h->function, h->file, h->line);
			if (idx < 0)
				continue;
			factbase__set(fb, idx, "line.samples", (double)h->samples, ev->tier);
			factbase__set(fb, idx, "line.share", h->share, ev->tier);
		}
		for (int i = 0; i < p->nr_funcs; i++) {
			const struct sampling_hotsum *h = &p->funcs[i];
			struct entity e = { .scope = SCOPE_FUNCTION, .parent = -1 };
			int idx;

			if (h->ev != 0 || h->tid || h->share < 0.005 || !h->function[0])
				continue;
			bind__base_function(h->function, e.function, sizeof(e.function));
			snprintf(e.file, sizeof(e.file), "%s", h->file);
			e.line = h->line;
			idx = factbase__add(fb, &e);
			if (idx < 0)
				continue;
			factbase__set(fb, idx, "function.samples", (double)h->samples, ev->tier);
			factbase__set(fb, idx, "function.share", h->share, ev->tier);
		}
	} else {
		factbase__mark(fb, EV_HOTSPOTS, false, "no code samples were taken");
	}
}

/*
 * Faults per faulted page of a region, a lower bound: its faults over its
 * pages (more faults than pages is re-faulting, whatever was sampled), or
 * where the samples saw pages fault twice, the estimate from the repeats
 * (sampling__faults_per_page).  First touch gives 1, or 2 where a read
 * mapped the zero page before the first write copied it.
 */
static double region_refaults(const struct sampling_region *g)
{
	double est = sampling__faults_per_page(g->fault_samples, g->pages_faulted,
					       g->fault_sampled, true);
	double pages = (double)g->size / 4096;

	if (pages >= 1 && g->faults / pages > est)
		est = g->faults / pages;
	return est;
}

/* Page faults per line, with the region they were in. */
static void sampling_bind_faults(struct binder *b, const struct sampling *p)
{
	struct factbase *fb = b->fb;

	if (p->faults_measured) {
		double wall = b->r->target.wall_ns / 1e9;

		factbase__mark(fb, EV_FAULTS, true, NULL);
		factbase__set(fb, -1, "run.faults", (double)p->faults, TIER_SOFTWARE);
		if (wall > 0)
			factbase__set(fb, -1, "run.faults_per_s", p->faults / wall, TIER_SOFTWARE);
		for (int i = 0; i < p->nr_sites; i++) {
			const struct sampling_fault_site *s = &p->sites[i];
			double have = 0;
			int idx = binder__line_entity(b, s->loc.function, s->loc.file, s->loc.line);

			if (idx < 0)
				continue;
			factbase__get(fb, idx, "line.faults", &have, NULL);
			factbase__set(fb, idx, "line.faults", have + (double)s->count, TIER_SOFTWARE);
			/* the region its faults were in, unless data addresses name one */
			if (!fb->ents[idx].region[0] && s->region >= 0 && s->region < p->nr_regions)
				fault_region_label(&p->regions[s->region], fb->ents[idx].region,
						   sizeof(fb->ents[idx].region));
			if (s->region >= 0 && s->region < p->nr_regions)
				factbase__set(fb, idx, "line.refaults",
					      region_refaults(&p->regions[s->region]), TIER_SOFTWARE);
			if (!fb->ents[idx].region_alloc && s->region >= 0 && s->region < p->nr_regions)
				fb->ents[idx].region_alloc = p->regions[s->region].alloc;
			if (p->faults)
				factbase__set(fb, idx, "line.fault_share",
					      (have + (double)s->count) / (double)p->faults, TIER_SOFTWARE);
		}
	} else {
		factbase__mark(fb, EV_FAULTS, false, "page faults were not traced");
	}
}

/* Regions large or faulted enough to be worth a rule, with their huge-page state. */
static void sampling_bind_regions(struct binder *b, const struct sampling *p)
{
	struct factbase *fb = b->fb;

	if (p->nr_regions > 0) {
		factbase__mark(fb, EV_REGIONS, true, NULL);
		for (int i = 0; i < p->nr_regions; i++) {
			const struct sampling_region *g = &p->regions[i];
			struct entity e = { .scope = SCOPE_REGION, .parent = -1 };
			int idx;

			if (!g->large && g->faults < 64)
				continue;
			if (g->kind == REGION_HEAP)
				snprintf(e.region, sizeof(e.region), "heap 0x%llx-0x%llx",
					 (unsigned long long)g->start, (unsigned long long)g->end);
			else if (g->kind == REGION_ANON)
				snprintf(e.region, sizeof(e.region), "anon 0x%llx-0x%llx",
					 (unsigned long long)g->start, (unsigned long long)g->end);
			else
				snprintf(e.region, sizeof(e.region), "%.190s",
					 g->path[0] ? g->path : sampling__region_kind_name(g->kind));
			e.region_start = g->start;
			e.region_len = g->size;
			e.region_alloc = g->alloc;
			idx = factbase__add(fb, &e);
			if (idx < 0)
				continue;
			factbase__set(fb, idx, "region.size", (double)g->size, TIER_SOFTWARE);
			factbase__set(fb, idx, "region.anon",
				      g->kind == REGION_ANON || g->kind == REGION_HEAP,
				      TIER_SOFTWARE);
			if (g->has_smaps) {
				factbase__set(fb, idx, "region.thp_bytes", (double)g->anon_huge,
					      TIER_SOFTWARE);
				if (g->thp_eligible >= 0)
					factbase__set(fb, idx, "region.thp_eligible", g->thp_eligible,
						      TIER_SOFTWARE);
			}
			factbase__set(fb, idx, "region.aligned_2m", g->aligned_2m, TIER_SOFTWARE);
			if (p->faults_measured) {
				factbase__set(fb, idx, "region.faults", (double)g->faults, TIER_SOFTWARE);
				factbase__set(fb, idx, "region.write_faults", (double)g->writes,
					      TIER_SOFTWARE);
				factbase__set(fb, idx, "region.major_faults", (double)g->major,
					      TIER_SOFTWARE);
				factbase__set(fb, idx, "region.refaults", region_refaults(g),
					      TIER_SOFTWARE);
				if (g->size)
					factbase__set(fb, idx, "region.faults_per_mib",
						      g->faults / (g->size / 1048576.0), TIER_SOFTWARE);
			}
		}
	} else {
		factbase__mark(fb, EV_REGIONS, false, "no memory regions were captured");
	}
}

/*
 * The lock words the threads slept on (short futex lock waits), one entity
 * each: named by the variable holding it where the symbol table has one,
 * located at its declaration.
 */
static void sampling_bind_locks(struct binder *b, const struct sampling *p)
{
	struct factbase *fb = b->fb;
	double wall = b->r->target.wall_ns / 1e9;

	if (!p->sys_measured) {
		factbase__mark(fb, EV_SYSCALLS, false, "system calls were not traced");
		return;
	}
	factbase__mark(fb, EV_SYSCALLS, true, NULL);
	factbase__set(fb, -1, "run.lock_wait_s", p->futex_lock_ns / 1e9, TIER_SOFTWARE);
	factbase__set(fb, -1, "run.runnable_s", p->runq_ns / 1e9, TIER_SOFTWARE);
	for (int i = 0; i < p->nr_locks; i++) {
		const struct sampling_lock *l = &p->locks[i];
		struct entity e = { .scope = SCOPE_LOCK, .parent = -1 };
		const char *base = strrchr(l->mapping, '/');
		int idx;

		if (l->name[0])
			snprintf(e.member, sizeof(e.member), "%s", l->name);
		else
			snprintf(e.member, sizeof(e.member), "the lock at %#llx",
				 (unsigned long long)l->uaddr);
		snprintf(e.decl_file, sizeof(e.decl_file), "%s", l->decl_file);
		e.decl_line = l->decl_line;
		snprintf(e.file, sizeof(e.file), "%s", l->decl_file);
		e.line = l->decl_line;
		snprintf(e.region, sizeof(e.region), "%.190s", base ? base + 1 : l->mapping);
		e.region_start = l->uaddr;
		idx = factbase__add(fb, &e);
		if (idx < 0)
			continue;
		factbase__set(fb, idx, "lock.wait_s", l->wait_ns / 1e9, TIER_SOFTWARE);
		factbase__set(fb, idx, "lock.waits", (double)l->waits, TIER_SOFTWARE);
		factbase__set(fb, idx, "lock.threads", l->threads, TIER_SOFTWARE);
		if (wall > 0)
			factbase__set(fb, idx, "lock.waits_per_s", l->waits / wall, TIER_SOFTWARE);
		factbase__set(fb, idx, "lock.named", l->name[0] != 0, TIER_SOFTWARE);
	}
}

void bind__sampling(struct binder *b)
{
	const struct sampling *p = b->r->sampling;

	if (!p)
		return;
	sampling_bind_hotspots(b, p);
	sampling_bind_faults(b, p);
	sampling_bind_regions(b, p);
	sampling_bind_locks(b, p);
}
