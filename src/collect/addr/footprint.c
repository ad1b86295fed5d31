// SPDX-License-Identifier: GPL-2.0-only
/*
 * The footprint of a source line's walk, from the lines its samples fell
 * on: the samples of every IP of the line in one address space pooled (a
 * walk the compiler unrolled or inlined into several loads of the same
 * objects, each with a few hundred samples, has the power of all of them),
 * counted per thread (the L1d, the L2 and the TLB are a core's own: two
 * threads each walking its own 32 KiB fit theirs), and bounded below
 * robustly to some lines being much hotter than others (addr__span_lower).
 */
#include <stdlib.h>
#include <string.h>

#include "collect/addr/addrsample.h"
#include "base/u64map.h"
#include "base/util.h"

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

void footprint__add(struct footprint *fp, uint32_t ipi, uint32_t tid, uint64_t line)
{
	uint64_t key = mix64(line ^ mix64(((uint64_t)ipi << 32) | tid)) | 1;
	uint32_t *v;
	bool added;

	v = u64map__get(&fp->idx, key, &added);
	if (added) {
		if (fp->nr == fp->cap) {
			fp->cap = fp->cap ? fp->cap * 2 : 1024;
			fp->recs = xrealloc(fp->recs, fp->cap * sizeof(*fp->recs));
		}
		fp->recs[fp->nr] = (struct fp_rec){ .ipi = ipi, .tid = tid, .line = line };
		*v = (uint32_t)++fp->nr;
	}
	fp->recs[*v - 1].count++;
}

void footprint__free(struct footprint *fp)
{
	u64map__free(&fp->idx);
	free(fp->recs);
	memset(fp, 0, sizeof(*fp));
}

struct unit {
	int group;
	uint32_t tid;
	uint64_t unit;
	uint32_t count;
};

static int cmp_unit(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/*
 * Per group (index into the report's IPs), the largest lower bound of one
 * thread's footprint in lines (SHIFT 0) or pages (6) into OUT; the
 * samples of that thread into SAMPLES when not NULL.
 */
static void group_spans(const struct footprint *fp, const int *grp, size_t nr_agg, int shift,
			double *out, uint64_t *samples)
{
	struct unit *u = xcalloc(fp->nr + 1, sizeof(*u));
	size_t n = 0;

	for (size_t i = 0; i < fp->nr; i++) {
		const struct fp_rec *r = &fp->recs[i];

		if (r->ipi >= nr_agg || grp[r->ipi] < 0)
			continue;
		u[n++] = (struct unit){ grp[r->ipi], r->tid, r->line >> shift, r->count };
	}
	qsort(u, n, sizeof(*u), cmp_unit);
	for (size_t i = 0; i < n;) {
		uint64_t s = 0, d = 0, f1 = 0, f2 = 0;
		size_t j = i;
		double span;

		/* one thread of one group */
		while (j < n && u[j].group == u[i].group && u[j].tid == u[i].tid) {
			size_t k = j;
			uint64_t c = 0;

			for (; k < n && u[k].group == u[j].group && u[k].tid == u[j].tid &&
			       u[k].unit == u[j].unit; k++)
				c += u[k].count;
			s += c;
			d++;
			f1 += c == 1;
			f2 += c == 2;
			j = k;
		}
		span = addr__span_lower(s, d, f1, f2);
		if (span > out[u[i].group]) {
			out[u[i].group] = span;
			if (samples)
				samples[u[i].group] = s;
		}
		i = j;
	}
	free(u);
}

/*
 * Per IP, the widest range of lines one thread's samples covered: two
 * threads each walking a small ring of their own (in their own malloc
 * arenas, 64 or 128 MiB apart) are two small walks, not one of the size of
 * the distance between them.
 */
static void thread_extents(const struct footprint *fp, size_t nr_agg, struct addr_report *p)
{
	struct unit *u = xcalloc(fp->nr + 1, sizeof(*u));
	uint64_t *widest = xcalloc(nr_agg + 1, sizeof(*widest));
	size_t n = 0;

	for (size_t i = 0; i < fp->nr; i++)
		if (fp->recs[i].ipi < nr_agg)
			u[n++] = (struct unit){ (int)fp->recs[i].ipi, fp->recs[i].tid,
						fp->recs[i].line, 0 };
	qsort(u, n, sizeof(*u), cmp_unit);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && u[j].group == u[i].group && u[j].tid == u[i].tid; j++)
			;
		/* sorted by line within the thread: first and last */
		if ((u[j - 1].unit - u[i].unit + 1) * 64 > widest[u[i].group])
			widest[u[i].group] = (u[j - 1].unit - u[i].unit + 1) * 64;
	}
	for (int k = 0; k < p->nr_ips; k++)
		if (p->ips[k].agg < nr_agg)
			p->ips[k].thread_extent = widest[p->ips[k].agg];
	free(u);
	free(widest);
}

void addrsample__pool_spans(const struct footprint *fp, size_t nr_agg, struct addr_report *p)
{
	int *grp = xcalloc(nr_agg + 1, sizeof(*grp));
	int *leader = xcalloc((size_t)p->nr_ips + 1, sizeof(*leader));
	double *lines = xcalloc((size_t)p->nr_ips + 1, sizeof(*lines));
	double *pages = xcalloc((size_t)p->nr_ips + 1, sizeof(*pages));
	uint64_t *samples = xcalloc((size_t)p->nr_ips + 1, sizeof(*samples));

	for (size_t i = 0; i < nr_agg; i++)
		grp[i] = -1;
	for (int k = 0; k < p->nr_ips; k++) {
		const struct addr_ip *x = &p->ips[k];

		leader[k] = k;
		if (!x->decoded || x->agg >= nr_agg)
			continue;
		for (int j = 0; j < k && x->loc.line > 0; j++)
			if (p->ips[j].space == x->space && p->ips[j].loc.line == x->loc.line &&
			    !strcmp(p->ips[j].loc.file, x->loc.file) &&
			    !strcmp(p->ips[j].loc.function, x->loc.function)) {
				leader[k] = leader[j];
				break;
			}
		grp[x->agg] = leader[k];
	}
	thread_extents(fp, nr_agg, p);
	group_spans(fp, grp, nr_agg, 0, lines, samples);
	group_spans(fp, grp, nr_agg, 6, pages, NULL);
	for (int k = 0; k < p->nr_ips; k++) {
		struct addr_ip *x = &p->ips[k];

		if (!samples[leader[k]])
			continue;
		x->line_span_samples = samples[leader[k]];
		x->line_span_lines = lines[leader[k]];
		x->line_span_pages = pages[leader[k]];
	}
	free(grp);
	free(leader);
	free(lines);
	free(pages);
	free(samples);
}
