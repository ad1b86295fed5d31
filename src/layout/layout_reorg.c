// SPDX-License-Identifier: GPL-2.0-only
/*
 * A packed member order for a struct: hot members first in the order given,
 * then the rest by decreasing alignment and size, each placed in the first
 * hole it fits.  Runs of bit fields move as one unit so their packing does
 * not change; a flexible array stays last.  The result is laid out with C's
 * rules and the statistics are computed exactly as for a loaded struct.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "layout/layout_int.h"
#include "base/util.h"

struct item {
	int first, last;    /* member index range */
	uint64_t size, align;
	uint64_t new_off;
	int hot;	    /* position in the hot list, or -1 */
	bool flex, placed;
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Lays the members out in their order with the C (SysV) rules, as the compiler would. */
static void c_layout(struct ma_struct *s)
{
	uint64_t bit = 0, maxa = 1;

	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		uint64_t a = s->packed ? (m->declared_align ? m->declared_align : 1) : m->align;

		if (!a)
			a = 1;
		if (m->bit_size) {
			uint64_t unit = m->size ? m->size : 1, ub = unit * 8, pos = bit;

			if (m->declared_align)
				pos = align_up(pos, m->declared_align * 8);
			if (!s->packed && pos / ub != (pos + m->bit_size - 1) / ub)
				pos = align_up(pos, ub);
			m->offset = pos / ub * unit;
			m->bit_offset = pos - m->offset * 8;
			bit = pos + m->bit_size;
		} else {
			uint64_t off = align_up((bit + 7) / 8, a);

			m->offset = off;
			bit = (off + m->size) * 8;
		}
		if (a > maxa)
			maxa = a;
	}
	if (s->declared_align > maxa)
		maxa = s->declared_align;
	if (s->packed && !s->declared_align)
		maxa = 1;
	s->size = align_up((bit + 7) / 8, maxa);
}

struct hole {
	uint64_t start, end;
};

static bool member_matches(const struct ma_member *m, const char *name)
{
	if (m->name)
		return !strcmp(m->name, name);
	return m->nested && ma_struct__find_member(m->nested, name);
}

static int cmp_items(const void *a, const void *b)
{
	const struct item *x = *(const struct item *const *)a, *y = *(const struct item *const *)b;

	if (x->align != y->align)
		return x->align > y->align ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->first - y->first;
}

static int cmp_new_off(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->new_off != y->new_off)
		return x->new_off < y->new_off ? -1 : 1;
	return x->first - y->first;
}

static void place(struct item *it, struct hole *holes, int *nr_holes, uint64_t *end, bool fill)
{
	if (fill) {
		for (int h = 0; h < *nr_holes; h++) {
			uint64_t o = align_up(holes[h].start, it->align);

			if (o + it->size <= holes[h].end) {
				it->new_off = o;
				/* Split the hole. */
				struct hole rest = { o + it->size, holes[h].end };

				holes[h].end = o;
				if (rest.end > rest.start) {
					memmove(&holes[h + 2], &holes[h + 1],
						sizeof(*holes) * (*nr_holes - h - 1));
					holes[h + 1] = rest;
					(*nr_holes)++;
				}
				it->placed = true;
				return;
			}
		}
	}
	uint64_t o = align_up(*end, it->align);

	if (o > *end)
		holes[(*nr_holes)++] = (struct hole){ *end, o };
	it->new_off = o;
	*end = o + it->size;
	it->placed = true;
}

int layout__reorganize(const struct layout *l, const struct ma_struct *s, const char *const *hot,
		       struct layout_reorg *out, const char **bad_name)
{
	int n = s->nr_members, nr_items = 0, nr_holes = 0, nr_hot = 0;
	struct item *items, **order;
	struct hole *holes;
	uint64_t end = 0;
	struct ma_struct *ns;

	memset(out, 0, sizeof(*out));
	/*
	 * A class with virtual bases: where they go follows from the members'
	 * order, which this packing does not model; no proposal is better
	 * than one that counts a virtual base as a leading member.
	 */
	if (s->kind == MA_KIND_UNION || s->nr_vbases)
		return -EINVAL;
	items = xcalloc(n + 1, sizeof(*items));
	order = xcalloc(n + 1, sizeof(*order));
	holes = xcalloc(2 * n + 4, sizeof(*holes));
	for (int i = 0; i < n; i++) {
		const struct ma_member *m = &s->members[i];
		struct item *it = &items[nr_items++];

		it->first = it->last = i;
		it->hot = -1;
		it->align = m->align ? m->align : 1;
		it->flex = !!(m->flags & MA_M_FLEX) && m->size == 0;
		if (s->packed)
			it->align = m->declared_align ? m->declared_align : 1;
		if (m->bit_size) {
			/* A run of bit fields: size as the compiler lays it out from a unit boundary. */
			uint64_t cur = 0;

			for (int j = i;; j++) {
				const struct ma_member *x = &s->members[j];
				uint64_t ub = (x->size ? x->size : 1) * 8, pos = cur;

				if (!s->packed && pos / ub != (pos + x->bit_size - 1) / ub)
					pos = align_up(pos, ub);
				cur = pos + x->bit_size;
				if (x->align > it->align && !s->packed)
					it->align = x->align;
				it->last = j;
				if (j + 1 >= n || !s->members[j + 1].bit_size)
					break;
			}
			it->size = (cur + 7) / 8;
		} else {
			it->size = m->size;
		}
		if (m->flags & MA_M_BASE)
			it->hot = -2; /* bases stay first, in order */
		i = it->last;
	}
	for (int h = 0; hot && hot[h]; h++) {
		bool found = false;

		for (int i = 0; i < nr_items; i++)
			for (int j = items[i].first; j <= items[i].last; j++)
				if (member_matches(&s->members[j], hot[h])) {
					if (items[i].hot == -1)
						items[i].hot = nr_hot++;
					found = true;
				}
		if (!found) {
			if (bad_name)
				*bad_name = hot[h];
			free(items);
			free(order);
			free(holes);
			return -ENOENT;
		}
	}
	/* Bases, then hot items in the given order: sequential, no filling. */
	for (int i = 0; i < nr_items; i++)
		if (items[i].hot == -2)
			place(&items[i], holes, &nr_holes, &end, false);
	for (int k = 0; k < nr_hot; k++)
		for (int i = 0; i < nr_items; i++)
			if (items[i].hot == k)
				place(&items[i], holes, &nr_holes, &end, false);
	int nr_rest = 0;

	for (int i = 0; i < nr_items; i++)
		if (!items[i].placed && !items[i].flex)
			order[nr_rest++] = &items[i];
	qsort(order, nr_rest, sizeof(*order), cmp_items);
	for (int i = 0; i < nr_rest; i++)
		place(order[i], holes, &nr_holes, &end, true);
	for (int i = 0; i < nr_items; i++)
		if (items[i].flex)
			place(&items[i], holes, &nr_holes, &end, false);
	qsort(items, nr_items, sizeof(*items), cmp_new_off);

	/* The new struct. */
	out->arena = NULL;
	ns = arena__alloc(&out->arena, sizeof(*ns));
	*ns = *s;
	ns->members = arena__alloc(&out->arena, sizeof(*ns->members) * (n ? n : 1));
	ns->duplicates = 0;
	int k = 0;

	for (int i = 0; i < nr_items; i++)
		for (int j = items[i].first; j <= items[i].last; j++)
			ns->members[k++] = s->members[j];
	c_layout(ns);
	layout__struct_finish(ns, layout__cacheline(l));
	out->s = ns;
	out->old_size = s->size;
	out->new_size = ns->size;
	out->old_cachelines = s->cachelines;
	out->new_cachelines = ns->cachelines;
	out->nr_hot = nr_hot;
	free(items);
	free(order);
	free(holes);
	return 0;
}

void layout_reorg__free(struct layout_reorg *r)
{
	if (!r)
		return;
	arena__free(r->arena);
	memset(r, 0, sizeof(*r));
}
