// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finish: the fault maps read into struct sampling (model/sampling.h): fault
 * sites, the faults of each region, the timeline, scaled to the counted
 * total and with the faults between fault windows.
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/u64map.h"
#include "base/util.h"
#include "model/addr.h"
#include "symbols/decode.h"

#include "sampler.skel.h"

static int cmp_site(const void *a, const void *b)
{
	const struct sampling_fault_site *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int region_of(const struct sampling *p, pid_t pid, uint64_t addr)
{
	for (int i = 0; i < p->nr_regions; i++)
		if (p->regions[i].pid == pid && addr >= p->regions[i].start &&
		    addr < p->regions[i].end)
			return i;
	return -1;
}

/*
 * Each process's regions, while they are still grouped by process (as
 * prof_finish_regions lays them out): a build's thousands of processes
 * have tens of regions each, and looking every faulted page up among all
 * of them grew with the square of the processes.
 */
struct region_idx {
	struct u64map at;	/* pid -> index into first/n, + 1 */
	int *first, *n;
	int nr;
};

static void region_idx_build(struct region_idx *x, const struct sampling *p)
{
	memset(x, 0, sizeof(*x));
	for (int i = 0; i < p->nr_regions; i++) {
		bool added;
		uint32_t *v = u64map__get(&x->at, (uint64_t)(uint32_t)p->regions[i].pid, &added);

		if (added) {
			x->first = xrealloc(x->first, (x->nr + 1) * sizeof(*x->first));
			x->n = xrealloc(x->n, (x->nr + 1) * sizeof(*x->n));
			x->first[x->nr] = i;
			x->n[x->nr] = 0;
			*v = (uint32_t)++x->nr;
		}
		/* from its first region to its last: all of them, grouped or not */
		x->n[*v - 1] = i + 1 - x->first[*v - 1];
	}
}

static void region_idx_free(struct region_idx *x)
{
	u64map__free(&x->at);
	free(x->first);
	free(x->n);
}

static int region_of_idx(const struct sampling *p, const struct region_idx *x, pid_t pid,
			 uint64_t addr)
{
	uint32_t k = pid > 0 ? u64map__find(&x->at, (uint64_t)(uint32_t)pid) : 0;

	if (!k)
		return -1;
	for (int i = x->first[k - 1]; i < x->first[k - 1] + x->n[k - 1]; i++)
		if (p->regions[i].pid == pid && addr >= p->regions[i].start &&
		    addr < p->regions[i].end)
			return i;
	return -1;
}

int prof_cmp_region_faults(const void *a, const void *b)
{
	const struct sampling_region *x = a, *y = b;

	if (x->faults != y->faults)
		return x->faults < y->faults ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid - y->pid;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_site_loc(const void *a, const void *b)
{
	const struct sampling_fault_site *x = a, *y = b;
	int c;

	if (x->kernel_mode != y->kernel_mode)
		return x->kernel_mode ? 1 : -1;
	if ((c = strcmp(x->loc.module, y->loc.module)) || (c = strcmp(x->loc.file, y->loc.file)))
		return c;
	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	/* without a line, one site per function */
	return strcmp(x->loc.function, y->loc.function);
}

static int cmp_site_loc_pid(const void *a, const void *b)
{
	const struct sampling_fault_site *x = a, *y = b;
	int c = cmp_site_loc(a, b);

	return c ? c : x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * One site per source line (several instructions of a line fault alike), or
 * per function where there is no line information, over all processes
 * (forked workers, the runs of one program a script starts): it keeps the
 * pid and region of the process with most of its faults.
 */
static void merge_sites(struct sampling *p)
{
	uint64_t best = 0;	/* the most faults of one instruction in the group */
	int out = 0;

	prof_sort_array(p->sites, p->nr_sites, sizeof(*p->sites), cmp_site_loc_pid);
	for (int i = 0; i < p->nr_sites; i++) {
		struct sampling_fault_site *d = out ? &p->sites[out - 1] : NULL;
		const struct sampling_fault_site *s = &p->sites[i];

		if (d && !cmp_site_loc(d, s)) {
			if (s->pid != p->sites[i - 1].pid)
				d->nr_procs++;
			if (s->count > best) {
				best = s->count;
				d->pid = s->pid;
				d->loc.ip = s->loc.ip;
				d->loc.rel = s->loc.rel;
				d->region = s->region;
			}
			d->count += s->count;
			d->reads += s->reads;
			d->writes += s->writes;
			d->instr += s->instr;
			d->samples += s->samples;
			d->rw_unknown += s->rw_unknown;
			d->major += s->major;
			d->minor += s->minor;
			continue;
		}
		best = s->count;
		p->sites[out] = *s;
		p->sites[out++].nr_procs = 1;
	}
	p->nr_sites = out;
}

static const struct sampling_fault_site *sort_sites;

static int cmp_site_idx(const void *a, const void *b)
{
	return cmp_site(&sort_sites[*(const int *)a], &sort_sites[*(const int *)b]);
}

/*
 * Splits a site's estimated faults into reads and writes by its faulting
 * instruction: a load faults for reading, a store or read-modify-write for
 * writing.  Kernel-mode faults (the kernel copying to or from user memory)
 * and instructions without an explicit memory operand stay unknown.
 */
static void site_rw(struct prof_state *st, struct symbolizer *sym, struct sampling_fault_site *s)
{
	uint8_t code[16];
	struct mem_operand op;
	int n;

	s->reads = s->writes = 0;
	s->rw_unknown = s->count;
	if (s->kernel_mode)
		return;
	if (s->instr) {
		s->reads = s->instr < s->count ? s->instr : s->count;
		s->rw_unknown = s->count - s->reads;
		if (!s->rw_unknown)
			return;
	}
	n = symbolizer__code(sym, prof_maps_for(st, s->pid, s->loc.ip), s->loc.ip, code, sizeof(code));
	if (n <= 0 || addrsample__decode(code, (size_t)n, s->loc.ip, &op) || op.skip != AS_OK)
		return;
	if (op.write)
		s->writes = s->rw_unknown;
	else if (op.read)
		s->reads += s->rw_unknown;
	else
		return;
	s->rw_unknown = 0;
}

struct share {
	uint64_t rem;
	int i;
};

static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->i - y->i;
}

/*
 * Largest-remainder rescaling: the n values *v[i], summing to FROM, become
 * integers summing to TO, each within 1 of v[i] * TO / FROM.  The samples'
 * periods give the shape of the faults (by site, region, 10 ms); the
 * page-faults event's count gives their number (see FAULT_HZ: a period is
 * approximate, and throttled samples are missing from the sum).
 */
void prof_apportion(uint64_t **v, int n, uint64_t from, uint64_t to)
{
	struct share *sh;
	uint64_t given = 0;

	if (!n || !from || from == to)
		return;
	sh = xcalloc(n, sizeof(*sh));
	for (int i = 0; i < n; i++) {
		unsigned __int128 x = (unsigned __int128)*v[i] * to;

		sh[i].rem = (uint64_t)(x % from);
		sh[i].i = i;
		*v[i] = (uint64_t)(x / from);
		given += *v[i];
	}
	/* the largest remainders get the units the rounding down left over */
	qsort(sh, n, sizeof(*sh), cmp_share);
	for (int i = 0; i < n && given < to; i++, given++)
		(*v[sh[i].i])++;
	free(sh);
}

/*
 * A chunk's fault counts CNT (all, major) to the regions holding the pages
 * its samples saw, in proportion to their pages; PAGES: count those pages
 * as faulted.  *LAST: the region found last (chunks come in address order).
 */
static void chunk_to_regions(struct sampling *p, const struct region_idx *x,
			     const struct prof_chunk_key *ck, const struct prof_chunk_val *cv,
			     const uint64_t cnt[2], int *last, bool pages)
{
	int ri_of[16], nr = 0, big = 0;
	uint64_t np[16], total = 0, given[2] = { 0 };

	for (int w = 0; w < PROF_CHUNK_PAGES / 64; w++) {
		for (uint64_t bits = cv->pages[w]; bits; bits &= bits - 1) {
			uint64_t addr = (ck->chunk << PROF_CHUNK_SHIFT) +
					((uint64_t)(w * 64 + __builtin_ctzll(bits)) << PROF_PAGE_SHIFT);
			int ri, j;

			if (*last >= 0 && p->regions[*last].pid == (pid_t)ck->tgid &&
			    addr >= p->regions[*last].start && addr < p->regions[*last].end)
				ri = *last;
			else
				ri = region_of_idx(p, x, (pid_t)ck->tgid, addr);
			if (ri < 0)
				continue;
			*last = ri;
			if (pages)
				p->regions[ri].pages_faulted++;
			for (j = 0; j < nr && ri_of[j] != ri; j++)
				;
			if (j == nr) {
				if (nr == (int)ARRAY_SIZE(ri_of))
					continue;
				ri_of[nr] = ri;
				np[nr++] = 0;
			}
			np[j]++;
			total++;
		}
	}
	if (!total)
		return;
	for (int j = 0; j < nr; j++) {
		struct sampling_region *rg = &p->regions[ri_of[j]];
		uint64_t part[2];

		if (np[j] > np[big])
			big = j;
		for (int c = 0; c < 2; c++) {
			part[c] = cnt[c] * np[j] / total;
			given[c] += part[c];
		}
		rg->faults += part[0];
		rg->major += part[1];
		if (pages) {	/* the window's own samples, for re-faulting */
			rg->fault_samples += cv->samples * np[j] / total;
			rg->fault_sampled += cv->faults * np[j] / total;
		}
	}
	/* rounding remainders to the chunk's biggest region */
	p->regions[ri_of[big]].faults += cnt[0] - given[0];
	p->regions[ri_of[big]].major += cnt[1] - given[1];
}

/*
 * The faults of each gap between windows, to the sites its last window's
 * last part sampled (in proportion to their periods then).  OVER takes the
 * shares of sites the map no longer has (none: its entries stay).
 */
static void fw_gaps_to_sites(struct prof_state *st, struct sampling *p, uint64_t over[2])
{
	struct site_snap *idx = xcalloc(p->nr_sites ? p->nr_sites : 1, sizeof(*idx));

	for (int i = 0; i < p->nr_sites; i++) {
		struct prof_fault_site_key k = { .tgid = (__u32)p->sites[i].pid,
						 .kernel = p->sites[i].kernel_mode,
						 .ip = p->sites[i].loc.ip };

		memcpy(idx[i].k, &k, sizeof(k));
		idx[i].periods = (uint64_t)i;
	}
	prof_sort_array(idx, p->nr_sites, sizeof(*idx), prof_cmp_site_key);
	for (int g = 0; g < st->fw.nr_gaps; g++) {
		struct fault_gap *gap = &st->fw.gaps[g];
		struct site_snap *e = gap->last.e[0];

		if (!gap->last.n[0] || !gap->faults)
			continue;
		prof_fw_snap_share(e, gap->last.n[0], gap->faults);
		for (int i = 0; i < gap->last.n[0]; i++) {
			const struct site_snap *x = p->nr_sites ?
				bsearch(e[i].k, idx, p->nr_sites, sizeof(*idx), prof_cmp_site_key) : NULL;
			struct prof_fault_site_key k;

			memcpy(&k, e[i].k, sizeof(k));
			if (x)
				p->sites[x->periods].count += e[i].periods;
			else
				over[k.kernel ? 1 : 0] += e[i].periods;
		}
	}
	free(idx);
}

/*
 * The fault-site map into P's sites, with the counts of the stats map; the
 * last faulting address of each site (it names the site's region) is
 * returned, by site.
 */
static uint64_t *read_sites(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
			    const uint64_t *stats)
{
	struct prof_fault_site_key k;
	struct prof_fault_val fv;
	struct map_iter it;
	uint64_t *site_addr = NULL;
	int cap = 0;

	p->faults_measured = st->faults_ok;
	p->major_measured = st->major_ok;
	p->fault_hz = st->fault_hz;
	p->fault_samples = stats[PROF_ST_FAULT_SAMPLES];
	p->fault_max_period = stats[PROF_ST_FAULT_MAX_PERIOD];
	p->faults_exact = p->fault_max_period <= 1;
	p->faults_user = stats[PROF_ST_SITE_FULL];
	p->faults_kernel = stats[PROF_ST_SITE_FULL_KERNEL];
	p->rw_unknown = p->faults_user + p->faults_kernel;
	p->major = stats[PROF_ST_FAULTS_MAJOR];

	prof_map_iter_open(&it, &m->fault_sites, sizeof(k), sizeof(fv));
	while (prof_map_iter_next(&it, &k, &fv)) {
		struct sampling_fault_site *s;

		if (p->nr_sites == cap) {
			cap = cap ? cap * 2 : 64;
			p->sites = xrealloc(p->sites, cap * sizeof(*p->sites));
			site_addr = xrealloc(site_addr, cap * sizeof(*site_addr));
		}
		s = &p->sites[p->nr_sites];
		memset(s, 0, sizeof(*s));
		s->pid = (pid_t)k.tgid;
		s->kernel_mode = k.kernel;
		s->count = fv.count;
		s->samples = fv.samples;
		s->instr = fv.instr;
		s->major = fv.major;
		s->minor = fv.count > fv.major ? fv.count - fv.major : 0;
		if (k.kernel)
			p->faults_kernel += fv.count;
		else
			p->faults_user += fv.count;
		s->loc.ip = k.ip;
		s->region = -1;
		site_addr[p->nr_sites++] = fv.last_addr;
	}
	return site_addr;
}

/*
 * The sites' periods (and OVER, the faults of sites that found the map full)
 * rescaled to TO faults, then the gaps' faults added to them.
 */
static void scale_sites(struct prof_state *st, struct sampling *p, uint64_t over[2], uint64_t to)
{
	/* the sites (and the faults of sites that found the map full) */
	uint64_t **v = xcalloc(p->nr_sites + 2, sizeof(*v));
	uint64_t *periods = xcalloc(p->nr_sites + 1, sizeof(*periods)); /* before the rescale */
	int n = 0;

	for (int i = 0; i < p->nr_sites; i++) {
		periods[i] = p->sites[i].count;
		v[n++] = &p->sites[i].count;
	}
	v[n++] = &over[0];
	v[n++] = &over[1];
	prof_apportion(v, n, p->fault_periods, to);
	free(v);
	fw_gaps_to_sites(st, p, over);
	p->faults_user = over[0];
	p->faults_kernel = over[1];
	for (int i = 0; i < p->nr_sites; i++) {
		struct sampling_fault_site *f = &p->sites[i];

		/* the instruction fetches are a part of the periods: the same part of the count */
		f->instr = periods[i] ? (uint64_t)(((unsigned __int128)f->instr * f->count +
						   periods[i] / 2) / periods[i]) : 0;
		if (f->count < f->major)
			f->count = f->major;
		f->minor = f->count - f->major;
		if (f->kernel_mode)
			p->faults_kernel += f->count;
		else
			p->faults_user += f->count;
	}
	free(periods);
}

/*
 * The run's fault count: the page-faults event's over its windows (*WIN),
 * the processes' own counts between them; the sites scaled to it.  Returns
 * whether the sampled periods were scaled (they are not the count).
 */
static bool count_faults(struct prof_state *st, struct sampling *p, uint64_t over[2],
			 uint64_t *win)
{
	uint64_t unplaced = 0;
	bool rescale;

	p->fault_periods = p->faults_user + p->faults_kernel;
	/* the event's own count is exact; without it, the samples' estimate */
	prof_fw_final(st);
	if (!prof_fw_window_count(st, win))
		*win = p->fault_periods;
	/* and between its windows, the processes' own counts */
	p->faults = *win + st->fw.gap_faults;
	p->fault_windows = st->fw.nr;
	p->fault_gap_faults = st->fw.gap_faults;
	p->fault_open_ns = st->fw.open_ns + (st->fw.open ? st->t_end - st->fw.t_open : 0);
	p->fault_gap_lost = st->fw.lost;
	for (int g = 0; g < st->fw.nr_gaps; g++)
		if (!st->fw.gaps[g].last.n[0])
			unplaced += st->fw.gaps[g].faults; /* shared as the windows' faults */
	p->minor = p->faults > p->major ? p->faults - p->major : 0;
	if (p->faults != p->fault_periods)
		p->faults_exact = false; /* samples throttled or lost, or faults between windows */
	rescale = p->fault_periods && (p->faults != p->fault_periods || st->fw.nr_gaps);
	if (rescale)
		scale_sites(st, p, over, *win + unplaced);
	p->fault_est = p->faults_user + p->faults_kernel;
	p->rw_unknown = over[0] + over[1];
	return rescale;
}

/* Lines for the sites that matter (>= 0.2 % of the faults and 50 faults); reads and writes. */
static void resolve_sites(struct prof_state *st, struct sampling *p, struct symbolizer *sym)
{
	int *order = xcalloc(p->nr_sites ? p->nr_sites : 1, sizeof(int));

	for (int i = 0; i < p->nr_sites; i++)
		order[i] = i;
	sort_sites = p->sites;
	prof_sort_array(order, p->nr_sites, sizeof(int), cmp_site_idx);
	for (int r = 0; r < p->nr_sites; r++) {
		struct sampling_fault_site *s = &p->sites[order[r]];
		uint64_t ip = s->loc.ip;
		enum sym_detail d = prof_site_detail(r, s->count, p->fault_est);

		symbolizer__resolve(sym, prof_maps_for(st, s->pid, ip), ip, s->kernel_mode, d,
				    &s->loc);
		s->loc.ip = ip;
		site_rw(st, sym, s);
		p->reads += s->reads;
		p->writes += s->writes;
		p->rw_unknown += s->rw_unknown;
	}
	free(order);
}

/* The regions' minor faults scaled to the windows' count WIN (and the gaps' unplaced). */
static void scale_regions(struct prof_state *st, struct sampling *p, uint64_t win)
{
	/* the minor parts, to the windows' count: major faults are each a sample */
	uint64_t *minor = xcalloc(p->nr_regions, sizeof(*minor)), **v, sum = 0;
	uint64_t unplaced_chunks = 0;

	for (int g = 0; g < st->fw.nr_gaps; g++)
		if (!st->fw.gaps[g].last.n[1])
			unplaced_chunks += st->fw.gaps[g].faults;
	v = xcalloc(p->nr_regions, sizeof(*v));
	for (int i = 0; i < p->nr_regions; i++) {
		const struct sampling_region *rg = &p->regions[i];

		minor[i] = rg->faults > rg->major ? rg->faults - rg->major : 0;
		sum += minor[i];
		v[i] = &minor[i];
	}
	if (sum)
		prof_apportion(v, p->nr_regions, sum,
			       (uint64_t)(((unsigned __int128)sum * (win + unplaced_chunks) +
					   p->fault_periods / 2) / p->fault_periods));
	for (int i = 0; i < p->nr_regions; i++)
		p->regions[i].faults = minor[i] + p->regions[i].major;
	free(v);
	free(minor);
}

/*
 * Chunks -> regions: each page that faulted counts for the region holding
 * it; a chunk's fault counts go to its regions in proportion to their
 * pages (exact for a chunk inside one region, the usual case).
 */
static void fault_regions(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
			  bool rescale, uint64_t win)
{
	struct prof_chunk_key ck;
	struct prof_chunk_val cv;
	struct map_iter it;
	struct region_idx x;
	int last = -1;

	region_idx_build(&x, p);
	prof_map_iter_open(&it, &m->fault_chunks, sizeof(ck), sizeof(cv));
	while (prof_map_iter_next(&it, &ck, &cv)) {
		const uint64_t cnt[2] = { cv.faults, cv.major };

		chunk_to_regions(p, &x, &ck, &cv, cnt, &last, true);
	}
	if (rescale && p->nr_regions)
		scale_regions(st, p, win);
	/* the faults between windows, as the chunks of each window's last part */
	for (int g = 0; g < st->fw.nr_gaps && p->nr_regions; g++) {
		struct fault_gap *gap = &st->fw.gaps[g];
		struct site_snap *e = gap->last.e[1];

		if (!gap->last.n[1] || !gap->faults)
			continue;
		prof_fw_snap_share(e, gap->last.n[1], gap->faults);
		for (int i = 0; i < gap->last.n[1]; i++) {
			const uint64_t cnt[2] = { e[i].periods, 0 };

			memcpy(&ck, e[i].k, sizeof(ck));
			if (e[i].periods &&
			    !prof_map_lookup(&m->fault_chunks, sizeof(ck), sizeof(cv), &ck, &cv))
				chunk_to_regions(p, &x, &ck, &cv, cnt, &last, false);
		}
	}
	region_idx_free(&x);
}

/* The timeline: the windows' buckets (scaled to WIN when RESCALE) and the gaps'. */
static void read_timeline(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
			  bool rescale, uint64_t win)
{
	/* faults before started() were bucketed from the t0 set at open */
	uint64_t dur = (st->t_end > st->t_open ? st->t_end - st->t_open : 0);
	int n = (int)(dur / BUCKET_NS) + 2;
	uint64_t sum = 0;

	if (n > NR_BUCKETS)
		n = NR_BUCKETS;
	p->bucket_ns = BUCKET_NS;
	p->timeline = xcalloc(n, sizeof(*p->timeline));
	for (__u32 i = 0; i < (__u32)n; i++) {
		struct prof_bucket b;

		if (prof_map_lookup(&m->timeline, sizeof(i), sizeof(b), &i, &b))
			continue;
		p->timeline[i].faults = b.faults;
		p->timeline[i].major = b.major;
		sum += b.faults;
		if (b.faults || b.major)
			p->nr_buckets = (int)i + 1;
	}
	if (rescale && p->nr_buckets) {
		/* the windows' buckets to the windows' count ... */
		uint64_t **v = xcalloc(p->nr_buckets, sizeof(*v));

		for (int i = 0; i < p->nr_buckets; i++)
			v[i] = &p->timeline[i].faults;
		prof_apportion(v, p->nr_buckets, sum,
			       (uint64_t)(((unsigned __int128)sum * win +
					   p->fault_periods / 2) / p->fault_periods));
		free(v);
	}
	/* ... and the gaps' as they were counted */
	for (int i = 0; st->fw.buckets && i < n; i++) {
		p->timeline[i].faults += st->fw.buckets[i];
		if (st->fw.buckets[i] && i >= p->nr_buckets)
			p->nr_buckets = i + 1;
	}
}

void prof_finish_faults(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
			struct symbolizer *sym, const uint64_t *stats)
{
	uint64_t *site_addr;
	uint64_t over[2] = { stats[PROF_ST_SITE_FULL], stats[PROF_ST_SITE_FULL_KERNEL] };
	uint64_t win;
	bool rescale;

	site_addr = read_sites(st, m, p, stats);
	rescale = count_faults(st, p, over, &win);
	resolve_sites(st, p, sym);
	fault_regions(st, m, p, rescale, win);
	/* sort regions by faults, then name each site's region */
	prof_sort_array(p->regions, p->nr_regions, sizeof(*p->regions), prof_cmp_region_faults);
	for (int i = 0; i < p->nr_sites; i++) {
		p->sites[i].region = region_of(p, p->sites[i].pid, site_addr[i]);
		if (p->sites[i].region >= 0)
			p->regions[p->sites[i].region].writes += p->sites[i].writes;
	}
	merge_sites(p);
	prof_sort_array(p->sites, p->nr_sites, sizeof(*p->sites), cmp_site);
	free(site_addr);
	read_timeline(st, m, p, rescale, win);
}
