// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process 'memadvise top' drills into, as a report snapshot with a
 * sampling section like run's: its tick samples since the drill began by
 * function and line, its faults by faulting line (every fault, from the
 * page_fault_user tracepoint) and its regions with their huge pages (smaps
 * read at this refresh).  The rules read it as they read a run's; the
 * window is the time since the drill began.
 *
 * A fault site's region is that of its last faulting address, and a
 * region's faults are the sum of the sites whose last address is in it:
 * run counts faults per 2 MiB chunk instead; here they are an estimate.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/top/internal.h"
#include "base/util.h"
#include "machine/sysinfo.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"

static const enum sampling_region_kind region_kind[MAPK__COUNT] = {
	[MAPK_HEAP] = REGION_HEAP, [MAPK_STACK] = REGION_STACK, [MAPK_ANON] = REGION_ANON,
	[MAPK_FILE] = REGION_FILE, [MAPK_OTHER] = REGION_OTHER,
};

/* Adds N samples to the sum of (function, file, line) in V (line -1: by function). */
static void hotsum_add(struct sampling_hotsum **v, int *nr, const struct sampling_loc *l,
		       bool by_line, uint64_t n, uint64_t kn)
{
	struct sampling_hotsum *h;
	int i;

	for (i = 0; i < *nr; i++) {
		h = &(*v)[i];
		if (!strcmp(h->function, l->function) && !strcmp(h->module, l->module) &&
		    (!by_line || (h->line == l->line && !strcmp(h->file, l->file))))
			break;
	}
	if (i == *nr) {
		*v = xrealloc(*v, (*nr + 1) * sizeof(**v));
		h = &(*v)[(*nr)++];
		memset(h, 0, sizeof(*h));
		memcpy(h->module, l->module, sizeof(h->module));
		memcpy(h->function, l->function, sizeof(h->function));
		memcpy(h->file, l->file, sizeof(h->file));
		h->line = l->line;
		if (by_line)
			memcpy(h->inlined_from, l->inlined_from, sizeof(h->inlined_from));
	}
	h = &(*v)[i];
	h->samples += n;
	h->kernel_samples += kn;
}

static int cmp_hotsum(const void *a, const void *b)
{
	const struct sampling_hotsum *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct sampling_fault_site *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void drill_hot(struct top_collector *c, const struct top_pstate *p, struct sampling *s)
{
	uint64_t total = 0;

	if (!c->sampling)
		return;
	s->nr_events = 1;
	snprintf(s->events[0].name, sizeof(s->events[0].name), "tick");
	snprintf(s->events[0].encoding, sizeof(s->events[0].encoding),
		 "tp_btf/hrtimer_expire_entry (scheduler tick)");
	snprintf(s->events[0].unit, sizeof(s->events[0].unit), "ns");
	s->events[0].tier = TIER_SOFTWARE;
	s->events[0].freq_hz = c->tick_hz;
	s->events[0].period = 1000000000ULL / c->tick_hz;
	s->events[0].nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	s->nr_threads = 1;
	for (int i = 0; i < c->nr_dips; i++) {
		const struct top_drill_ip *d = &c->dips[i];
		struct sampling_loc loc;

		if (top_name_ip(c, p->tgid, p->start_time, d->ip, true, &loc) || !loc.function[0])
			snprintf(loc.function, sizeof(loc.function), loc.module[0] == '[' ? "%.120s" : "[%.120s]",
				 loc.module[0] ? loc.module : "unknown");
		else
			symbolizer__name(loc.function, sizeof(loc.function), loc.function);
		hotsum_add(&s->funcs, &s->nr_funcs, &loc, false, d->samples, d->kernel_samples);
		hotsum_add(&s->lines, &s->nr_lines, &loc, true, d->samples, d->kernel_samples);
		total += d->samples;
		s->events[0].kernel_samples += d->kernel_samples;
	}
	s->events[0].samples = total;
	s->events[0].est_events = (double)total * (double)s->events[0].period;
	for (int i = 0; i < s->nr_funcs; i++) {
		s->funcs[i].share = total ? (double)s->funcs[i].samples / (double)total : 0;
		s->funcs[i].est_events = (double)s->funcs[i].samples * (double)s->events[0].period;
	}
	for (int i = 0; i < s->nr_lines; i++) {
		s->lines[i].share = total ? (double)s->lines[i].samples / (double)total : 0;
		s->lines[i].est_events = (double)s->lines[i].samples * (double)s->events[0].period;
	}
	if (s->nr_funcs > 1)
		qsort(s->funcs, s->nr_funcs, sizeof(*s->funcs), cmp_hotsum);
	if (s->nr_lines > 1)
		qsort(s->lines, s->nr_lines, sizeof(*s->lines), cmp_hotsum);
}

static void drill_regions(const struct procmaps *m, struct sampling *s)
{
	if (!m)
		return;
	s->regions = xcalloc(m->n ? m->n : 1, sizeof(*s->regions));
	for (int j = 0; j < m->n; j++) {
		const struct procmap *pm = &m->v[j];
		struct sampling_region *r = &s->regions[s->nr_regions++];

		r->pid = m->pid;
		r->start = pm->start;
		r->end = pm->end;
		r->size = pm->end - pm->start;
		memcpy(r->perms, pm->perms, sizeof(r->perms));
		memcpy(r->path, pm->path, sizeof(r->path));
		r->kind = region_kind[pm->kind];
		r->at_exit = true;
		r->has_smaps = pm->has_smaps;
		r->rss = pm->rss;
		r->anon_huge = pm->anon_huge;
		r->thp_eligible = pm->thp_eligible;
		r->madv_hugepage = pm->hg;
		r->madv_nohugepage = pm->nh;
		r->aligned_2m = !(pm->start & ((2ULL << 20) - 1)) && !(pm->end & ((2ULL << 20) - 1));
		r->large = (r->kind == REGION_ANON || r->kind == REGION_HEAP) &&
			   r->size >= (2ULL << 20);
	}
}

static void drill_faults(struct top_collector *c, const struct top_pstate *p, struct sampling *s)
{
	if (top_bpf_faults(c, &s->sites, &s->nr_sites))
		return;
	s->faults_measured = true;
	s->faults_exact = true;
	for (int i = 0; i < s->nr_sites; i++) {
		struct sampling_fault_site *f = &s->sites[i];
		uint64_t addr = f->loc.rel, ip = f->loc.ip;

		top_name_ip(c, p->tgid, p->start_time, ip, true, &f->loc);
		if (f->loc.function[0])
			symbolizer__name(f->loc.function, sizeof(f->loc.function), f->loc.function);
		f->pid = p->tgid;
		for (int r = 0; r < s->nr_regions; r++)
			if (s->regions[r].start <= addr && addr < s->regions[r].end) {
				f->region = r;
				s->regions[r].faults += f->count;
				s->regions[r].writes += f->writes;
				break;
			}
		s->faults += f->count;
		s->fault_samples += f->count;
		s->writes += f->writes;
		s->reads += f->reads;
		s->faults_user += f->count;
	}
	s->fault_est = s->fault_periods = s->minor = s->faults;
	s->fault_max_period = 1;
	if (s->nr_sites > 1)
		qsort(s->sites, s->nr_sites, sizeof(*s->sites), cmp_site);
}

struct report *top_drill_snapshot(struct top_collector *c, const struct top_pstate *p,
				  const char *comm)
{
	struct report *r = report__new();
	struct sampling *s = xcalloc(1, sizeof(*s));
	struct procmaps *m;
	char path[64];
	ssize_t n;

	r->target.pid = p->tgid;
	r->target.attached = true;
	r->target.wall_ns = now_ns() - c->drill_since;
	snprintf(r->target.command, sizeof(r->target.command), "%s", comm);
	snprintf(path, sizeof(path), "/proc/%d/exe", p->tgid);
	n = readlink(path, r->target.exe, sizeof(r->target.exe) - 1);
	r->target.exe[n > 0 ? n : 0] = '\0';
	r->sampling = s;
	s->duration_ns = r->target.wall_ns;
	if (sysinfo__thp_mode(s->thp_mode, sizeof(s->thp_mode)) < 0)
		s->thp_mode[0] = '\0';
	if (sysinfo__thp_defrag(s->thp_defrag, sizeof(s->thp_defrag)) < 0)
		s->thp_defrag[0] = '\0';
	m = procmaps__capture(p->tgid, true);
	drill_regions(m, s);
	procmaps__free(m);
	drill_hot(c, p, s);
	drill_faults(c, p, s);
	if (!c->sampling)
		report__add_provenance(r, "sampling", "%s", c->sampling_why);
	s->procs = xcalloc(1, sizeof(*s->procs));
	s->nr_procs = 1;
	s->procs[0].pid = p->tgid;
	snprintf(s->procs[0].comm, sizeof(s->procs[0].comm), "%s", comm);
	memcpy(s->procs[0].exe, r->target.exe, sizeof(s->procs[0].exe));
	s->procs[0].maps = true;
	return r;
}
