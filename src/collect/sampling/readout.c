// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finish: the BPF maps read into struct sampling (model/sampling.h), for the
 * hot spots, their summaries by function, line and thread, the call stacks,
 * and the regions of every process's memory maps.
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/u64map.h"
#include "base/util.h"
#include "model/addr.h"

#include "sampler.skel.h"

_Static_assert(sizeof(struct prof_hot_key) == 24, "prof_hot_key layout");
_Static_assert(sizeof(struct prof_hot_val) == 24, "prof_hot_val layout");
_Static_assert(sizeof(struct prof_stack_key) == 16, "prof_stack_key layout");
_Static_assert(sizeof(struct prof_fault_site_key) == 16, "prof_fault_site_key layout");
_Static_assert(sizeof(struct prof_fault_val) == 40, "prof_fault_val layout");
_Static_assert(sizeof(struct prof_chunk_key) == 16, "prof_chunk_key layout");
_Static_assert(sizeof(struct prof_chunk_val) == 88, "prof_chunk_val layout");
_Static_assert(sizeof(struct prof_bucket) == 16, "prof_bucket layout");
_Static_assert(sizeof(struct prof_thp_val) == 32, "prof_thp_val layout");
_Static_assert(sizeof(struct prof_regs_rec) == 40 + 8 * AS_NR_REGS, "prof_regs_rec layout");
_Static_assert(PROF_NR_REGS == AS_NR_REGS, "prof_regs_rec holds the sw-addr registers");
/* ---- finish: maps -> struct sampling -------------------------------------- */

void prof_read_stats(struct prof_state *st, uint64_t *out)
{
	int fd = bpf_map__fd(st->skel->maps.stats);
	__u64 *vals = xcalloc(st->nr_cpus, sizeof(__u64));

	for (__u32 i = 0; i < PROF_ST__COUNT; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int c = 0; c < st->nr_cpus; c++)
			out[i] += vals[c];
	}
	free(vals);
}


#define MAP_BATCH 4096

void prof_map_iter_init(struct map_iter *it, int fd, size_t ksz, size_t vsz)
{
	memset(it, 0, sizeof(*it));
	it->fd = fd;
	it->ksz = ksz;
	it->vsz = vsz;
	it->keys = xcalloc(MAP_BATCH, ksz);
	it->vals = xcalloc(MAP_BATCH, vsz);
}

bool prof_map_iter_next(struct map_iter *it, void *key, void *val)
{
	if (it->rec_keys) {
		if (it->i == it->n)
			return false;
		memcpy(key, it->rec_keys + it->i * it->ksz, it->ksz);
		memcpy(val, it->rec_vals + it->i * it->vsz, it->vsz);
		it->i++;
		return true;
	}
	while (it->i == it->n) {
		__u32 count = MAP_BATCH;
		__u64 out = 0;
		int err;

		if (it->done)
			goto end;
		if (it->slow) {
			if (bpf_map_get_next_key(it->fd, it->started ? it->prev : NULL, it->prev))
				goto end;
			it->started = true;
			if (bpf_map_lookup_elem(it->fd, it->prev, val))
				continue;
			memcpy(key, it->prev, it->ksz);
			return true;
		}
		err = bpf_map_lookup_batch(it->fd, it->started ? &it->cursor : NULL, &out, it->keys,
					   it->vals, &count, NULL);
		if (err && errno != ENOENT) {
			if (!it->started && it->ksz <= sizeof(it->prev)) {
				it->slow = true; /* no batch operations: one entry at a time */
				continue;
			}
			goto end;
		}
		it->started = true;
		it->cursor = out;
		it->done = err != 0;
		it->n = count;
		it->i = 0;
	}
	memcpy(key, it->keys + it->i * it->ksz, it->ksz);
	memcpy(val, it->vals + it->i * it->vsz, it->vsz);
	it->i++;
	return true;
end:
	free(it->keys);
	free(it->vals);
	it->keys = it->vals = NULL;
	it->done = true;
	it->n = it->i = 0;
	return false;
}

void prof_map_iter_open(struct map_iter *it, const struct prof_map *m, size_t ksz, size_t vsz)
{
	if (m->fd >= 0) {
		prof_map_iter_init(it, m->fd, ksz, vsz);
		return;
	}
	memset(it, 0, sizeof(*it));
	it->fd = -1;
	it->ksz = ksz;
	it->vsz = vsz;
	it->n = m->n > 0 ? (__u32)m->n : 0;
	it->rec_keys = m->keys ? m->keys : "";
	it->rec_vals = m->vals;
}

int prof_map_lookup(const struct prof_map *m, size_t ksz, size_t vsz, const void *key, void *val)
{
	const char *k = m->keys, *v = m->vals;

	if (m->fd >= 0)
		return bpf_map_lookup_elem(m->fd, key, val);
	for (int i = 0; i < m->n; i++)
		if (!memcmp(k + i * ksz, key, ksz)) {
			memcpy(val, v + i * vsz, vsz);
			return 0;
		}
	return -ENOENT;
}

void prof_maps__of_skel(struct prof_maps *m, struct sampler_bpf *skel)
{
	memset(m, 0, sizeof(*m));
	m->hot.fd = bpf_map__fd(skel->maps.hot);
	m->stack_counts.fd = bpf_map__fd(skel->maps.stack_counts);
	m->stacks.fd = bpf_map__fd(skel->maps.stacks);
	m->fault_sites.fd = bpf_map__fd(skel->maps.fault_sites);
	m->fault_chunks.fd = bpf_map__fd(skel->maps.fault_chunks);
	m->timeline.fd = bpf_map__fd(skel->maps.timeline);
}

/* qsort that accepts an empty (NULL) array. */
void prof_sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (base && n > 1)
		qsort(base, n, size, cmp);
}

/* Who made the region (procmaps' reading of its first bytes at exit). */
static enum sampling_region_alloc region_alloc(const struct procmap *pm)
{
	switch (pm->kind) {
	case MAPK_HEAP:
		return REGION_ALLOC_MALLOC_BRK;
	case MAPK_STACK:
		return REGION_ALLOC_STACK;
	case MAPK_ANON:
		break;
	default:
		return REGION_ALLOC_UNKNOWN;
	}
	switch (pm->alloc) {
	case PM_ALLOC_MALLOC_CHUNK:
		return REGION_ALLOC_MALLOC_CHUNK;
	case PM_ALLOC_MALLOC_ARENA:
		return REGION_ALLOC_MALLOC_ARENA;
	case PM_ALLOC_BSS:
		return REGION_ALLOC_STATIC;
	case PM_ALLOC_UNKNOWN:
		break;
	}
	/* its first bytes were read (at exit) and hold no malloc header */
	return pm->has_smaps ? REGION_ALLOC_MMAP : REGION_ALLOC_UNKNOWN;
}

static int cmp_hot(const void *a, const void *b)
{
	const struct sampling_hotspot *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static int cmp_sum(const void *a, const void *b)
{
	const struct sampling_hotsum *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}


static int cmp_stack(const void *a, const void *b)
{
	const struct sampling_stack *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* Adds H into the summary array (by function, or by file:line when BY_LINE). */
static void sum_add(struct sampling_hotsum **arr, int *n, const struct sampling_hotspot *h,
		    pid_t tid, bool by_line)
{
	const struct sampling_loc *l = &h->loc;
	struct sampling_hotsum *s = NULL;

	for (int i = 0; i < *n; i++) {
		struct sampling_hotsum *c = &(*arr)[i];

		if (c->ev != h->ev || c->tid != tid || strcmp(c->module, l->module))
			continue;
		if (by_line ? (c->line == l->line && !strcmp(c->file, l->file) &&
			       (l->line || !strcmp(c->function, l->function))) :
			      !strcmp(c->function, l->function)) {
			s = c;
			break;
		}
	}
	if (!s) {
		*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
		s = &(*arr)[(*n)++];
		memset(s, 0, sizeof(*s));
		s->tid = tid;
		s->ev = h->ev;
		memcpy(s->module, l->module, sizeof(s->module));
		memcpy(s->function, l->function, sizeof(s->function));
		memcpy(s->file, l->file, sizeof(s->file));
		s->line = l->line;
		if (by_line)
			memcpy(s->inlined_from, l->inlined_from, sizeof(s->inlined_from));
	} else if (!by_line && h->samples > 0 && l->line) {
		/* keep the hottest line of the function: hot[] arrives sorted */
		if (!s->line) {
			memcpy(s->file, l->file, sizeof(s->file));
			s->line = l->line;
		}
	}
	s->samples += h->samples;
	s->kernel_samples += h->kernel_samples;
	s->est_events += h->est_events;
}

/*
 * Lines for the addresses that matter: RANK < 200 and at least 0.2 % of
 * their event's samples and 10 samples (sites: of the faults, and 50 faults);
 * the others get them only from DWARF already loaded.
 */
enum sym_detail prof_hot_detail(int rank, uint64_t samples, uint64_t total)
{
	return rank < 200 && samples >= 10 && samples * 500 >= total ? SYM_LINES
								       : SYM_LINES_IF_LOADED;
}

enum sym_detail prof_site_detail(int rank, uint64_t faults, uint64_t total)
{
	return rank < 200 && faults >= 50 && faults * 500 >= total ? SYM_LINES
								    : SYM_LINES_IF_LOADED;
}

/*
 * Skid: a non-precise sample is charged to the instruction before its ip,
 * unless most of them were kernel-mode ones (their user ip is the faulting
 * instruction).
 */
bool prof_charge_prev(bool precise, uint64_t kernel_samples, uint64_t samples)
{
	return !precise && kernel_samples * 2 <= samples;
}

void prof_finish_hot(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
		     struct symbolizer *sym)
{
	struct prof_hot_key k;
	struct prof_hot_val v;
	struct map_iter it;
	pid_t first_tid = 0;
	bool threads_differ = false;
	int cap = 0;

	for (int i = 0; i < st->nr_evs; i++)
		p->events[p->nr_events++] = st->evs[i].info;
	prof_map_iter_open(&it, &m->hot, sizeof(k), sizeof(v));
	while (prof_map_iter_next(&it, &k, &v)) {
		struct sampling_hotspot *h;

		if (p->nr_hot == cap) {
			cap = cap ? cap * 2 : 256;
			p->hot = xrealloc(p->hot, cap * sizeof(*p->hot));
		}
		h = &p->hot[p->nr_hot++];
		memset(h, 0, sizeof(*h));
		h->pid = (pid_t)k.tgid;
		h->tid = (pid_t)k.tid;
		h->ev = (int)k.ev < p->nr_events ? (int)k.ev : 0;
		h->samples = v.samples;
		h->kernel_samples = v.kernel_samples;
		h->est_events = (double)v.period_sum;
		h->loc.ip = k.ip;
		if (h->ev < p->nr_events) {
			p->events[h->ev].samples += v.samples;
			p->events[h->ev].kernel_samples += v.kernel_samples;
			p->events[h->ev].est_events += h->est_events;
		}
	}
	prof_sort_array(p->hot, p->nr_hot, sizeof(*p->hot), cmp_hot);
	for (int i = 0; i < p->nr_hot; i++) {
		struct sampling_hotspot *h = &p->hot[i];
		uint64_t ip = h->loc.ip;
		enum sym_detail d = prof_hot_detail(i, h->samples, p->events[h->ev].samples);
		const struct procmaps *m = prof_maps_for(st, h->pid, ip);

		h->charged_ip = ip;
		if (prof_charge_prev(p->events[h->ev].precise, h->kernel_samples, h->samples))
			symbolizer__prev_insn(sym, m, ip, &h->charged_ip);
		if (symbolizer__resolve(sym, m, h->charged_ip, false, d, &h->loc) < 0)
			p->loss.unresolved += h->samples;
		h->loc.ip = ip;
	}

	for (int i = 0; i < p->nr_hot; i++) {
		const struct sampling_hotspot *h = &p->hot[i];

		sum_add(&p->funcs, &p->nr_funcs, h, 0, false);
		sum_add(&p->lines, &p->nr_lines, h, 0, true);
		sum_add(&p->thread_funcs, &p->nr_thread_funcs, h, h->tid, false);
	}
	prof_sort_array(p->funcs, p->nr_funcs, sizeof(*p->funcs), cmp_sum);
	prof_sort_array(p->lines, p->nr_lines, sizeof(*p->lines), cmp_sum);
	prof_sort_array(p->thread_funcs, p->nr_thread_funcs, sizeof(*p->thread_funcs), cmp_sum);
	for (int i = 0; i < p->nr_funcs; i++)
		if (p->events[p->funcs[i].ev].samples)
			p->funcs[i].share = (double)p->funcs[i].samples /
					    p->events[p->funcs[i].ev].samples;
	for (int i = 0; i < p->nr_lines; i++)
		if (p->events[p->lines[i].ev].samples)
			p->lines[i].share = (double)p->lines[i].samples /
					    p->events[p->lines[i].ev].samples;

	/* Threads: count them; keep per-thread rows only when their hottest functions differ. */
	{
		pid_t seen[256];
		int ns = 0;
		char top0[128] = "";

		for (int i = 0; i < p->nr_thread_funcs; i++) {
			struct sampling_hotsum *t = &p->thread_funcs[i];
			bool known = false;

			for (int j = 0; j < ns; j++)
				known |= seen[j] == t->tid;
			if (known)
				continue;
			if (ns < (int)ARRAY_SIZE(seen))
				seen[ns++] = t->tid;
			/* the first row of each thread is its hottest function */
			if (!first_tid) {
				first_tid = t->tid;
				memcpy(top0, t->function, sizeof(top0));
			} else if (strcmp(top0, t->function)) {
				threads_differ = true;
			}
		}
		p->nr_threads = ns;
		for (int i = 0; i < p->nr_thread_funcs; i++)
			if (p->events[p->thread_funcs[i].ev].samples)
				p->thread_funcs[i].share = (double)p->thread_funcs[i].samples /
							   p->events[p->thread_funcs[i].ev].samples;
		if (ns < 2 || !threads_differ) {
			free(p->thread_funcs);
			p->thread_funcs = NULL;
			p->nr_thread_funcs = 0;
		}
	}
}

void prof_finish_stacks(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
			struct symbolizer *sym)
{
	struct prof_stack_key k;
	struct prof_stack_key *keys = NULL;
	struct sampling_stack *all = NULL;
	int n = 0, cap = 0;

	struct prof_hot_val v;
	struct map_iter it;

	prof_map_iter_open(&it, &m->stack_counts, sizeof(k), sizeof(v));
	while (prof_map_iter_next(&it, &k, &v)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			all = xrealloc(all, cap * sizeof(*all));
			keys = xrealloc(keys, cap * sizeof(*keys));
		}
		/* only the header now: frames are resolved for the top ones */
		memset(&all[n], 0, offsetof(struct sampling_stack, frames));
		all[n].pid = (pid_t)k.tgid;
		all[n].ev = (int)k.ev;
		all[n].samples = v.samples;
		all[n].est_events = (double)v.period_sum;
		all[n].nr_frames = (int)k.stackid; /* temporary: the stack id */
		keys[n] = k;
		n++;
	}
	/* sort an index by samples */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n && i < TOP_STACKS; j++)
			if (all[j].samples > all[i].samples) {
				struct sampling_stack t;
				struct prof_stack_key tk = keys[i];

				memcpy(&t, &all[i], offsetof(struct sampling_stack, frames));
				memcpy(&all[i], &all[j], offsetof(struct sampling_stack, frames));
				memcpy(&all[j], &t, offsetof(struct sampling_stack, frames));
				keys[i] = keys[j];
				keys[j] = tk;
			}
	if (n > TOP_STACKS)
		n = TOP_STACKS;
	p->stacks = xcalloc(n ? n : 1, sizeof(*p->stacks));
	for (int i = 0; i < n; i++) {
		__u64 ips[PROF_STACK_DEPTH] = { 0 };
		struct sampling_stack *s = &p->stacks[p->nr_stacks];
		__u32 id = (__u32)keys[i].stackid;

		memcpy(s, &all[i], offsetof(struct sampling_stack, frames));
		s->nr_frames = 0;
		if (prof_map_lookup(&m->stacks, sizeof(id), sizeof(ips), &id, ips))
			continue;
		for (int f = 0; f < PROF_STACK_DEPTH && ips[f] && s->nr_frames < SAMPLING_MAX_FRAMES; f++)
			symbolizer__resolve(sym, prof_maps_for(st, s->pid, ips[f]), ips[f], f > 0,
					    SYM_LINES_IF_LOADED, &s->frames[s->nr_frames++]);
		p->nr_stacks++;
	}
	prof_sort_array(p->stacks, p->nr_stacks, sizeof(*p->stacks), cmp_stack);
	free(all);
	free(keys);
}

/* The profile's name for each kind of mapping procmaps tells apart. */
static const enum sampling_region_kind region_kind[MAPK__COUNT] = {
	[MAPK_HEAP] = REGION_HEAP, [MAPK_STACK] = REGION_STACK, [MAPK_ANON] = REGION_ANON,
	[MAPK_FILE] = REGION_FILE, [MAPK_OTHER] = REGION_OTHER,
};

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Whether the regions from FIRST on (one process's) cover [START, END): a
 * mapping of an earlier snapshot that they do not cover was unmapped, or
 * shrunk, before exit (a freed 64 MiB buffer merged with the anonymous
 * mapping next to it).  Only that process's regions are looked at: a build
 * runs hundreds of processes, and scanning all of them for every mapping
 * took 70 ms at the end of a run of 300 short-lived ones.
 */
static bool covered(const struct sampling *p, int first, uint64_t start, uint64_t end)
{
	uint64_t (*v)[2] = NULL, at = start;
	int n = 0;

	for (int q = first; q < p->nr_regions; q++) {
		const struct sampling_region *o = &p->regions[q];

		if (o->end <= start || end <= o->start)
			continue;
		if (o->start <= start && end <= o->end) {
			free(v);
			return true;
		}
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n][0] = o->start;
		v[n++][1] = o->end;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_range);
	for (int i = 0; i < n && v[i][0] <= at; i++)
		if (v[i][1] > at)
			at = v[i][1];
	free(v);
	return at >= end;
}

/* The regions of every process: the smaps snapshot at exit first, then
 * mappings of earlier snapshots the later ones do not cover (unmapped or
 * shrunk before exit), then those only its mapping records had (see
 * prof_proc_snapshot). */
void prof_finish_regions(struct prof_state *st, struct sampling *p, const struct u64map *active)
{
	int cap = 0;

	for (int i = 0; i < st->nr_procs; i++) {
		struct proc *pr = &st->procs[i];
		int first = p->nr_regions;	/* pr's regions follow (procs are unique) */

		if (active && pr->pid != st->pid && pr->pid > 0 &&
		    !u64map__find(active, (uint64_t)(uint32_t)pr->pid)) {
			p->regions_unread_procs++;
			continue;
		}

		for (int s = pr->nr_snaps - 1; s >= 0; s--) {
			const struct procmaps *m = pr->snaps[s];

			for (int j = 0; j < m->n; j++) {
				const struct procmap *pm = &m->v[j];
				struct sampling_region *r;

				if (covered(p, first, pm->start, pm->end))
					continue;
				if (p->nr_regions == cap) {
					cap = cap ? cap * 2 : 64;
					p->regions = xrealloc(p->regions, cap * sizeof(*p->regions));
				}
				r = &p->regions[p->nr_regions++];
				memset(r, 0, sizeof(*r));
				r->pid = pr->pid;
				r->start = pm->start;
				r->end = pm->end;
				r->size = pm->end - pm->start;
				memcpy(r->perms, pm->perms, sizeof(r->perms));
				memcpy(r->path, pm->path, sizeof(r->path));
				r->kind = region_kind[pm->kind];
				r->at_exit = m == pr->at_exit || s == pr->nr_snaps - 1;
				r->has_smaps = pm->has_smaps;
				r->rss = pm->rss;
				r->anon_huge = pm->anon_huge;
				r->thp_eligible = pm->thp_eligible;
				r->madv_hugepage = pm->hg;
				r->madv_nohugepage = pm->nh;
				r->aligned_2m = !(pm->start & ((2ULL << 20) - 1)) &&
						!(pm->end & ((2ULL << 20) - 1));
				r->large = (r->kind == REGION_ANON || r->kind == REGION_HEAP) &&
					   r->size >= (2ULL << 20);
				r->alloc = region_alloc(pm);
			}
		}
	}
}
