// SPDX-License-Identifier: GPL-2.0-only
/*
 * Struct layout from DWARF through libdw/libdwfl.
 *
 * One pass over every unit's top-level DIEs (and C++ namespaces and class
 * scopes) builds each struct, union and class once per unit; a definition
 * identical to one already seen under the same name is merged.  Type facts
 * (C spelling, size, alignment, atomic/lock; layout_types.c) are cached per
 * DIE, so shared types are walked once per unit.  Holes and padding follow pahole's
 * definitions so that both tools print the same numbers.
 */
#include "layout/layout.h"
#include "symbols/symbolizer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "layout/layout_int.h"
#include "layout/layout_dwarf.h"
#include "machine/sysinfo.h"
#include "base/util.h"

/* ---- arena ------------------------------------------------------------- */

struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char data[];
};

void *arena__alloc(struct arena_blk **a, size_t n)
{
	struct arena_blk *b = *a;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->used + n > b->cap) {
		size_t cap = n > 60000 ? n : 65536 - sizeof(*b);

		b = xmalloc(sizeof(*b) + cap);
		b->cap = cap;
		b->used = 0;
		b->next = *a;
		*a = b;
	}
	void *p = b->data + b->used;

	b->used += n;
	memset(p, 0, n);
	return p;
}

char *arena__strdup(struct arena_blk **a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena__alloc(a, n);

	memcpy(p, s, n);
	return p;
}

char *arena__printf(struct arena_blk **a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < (int)sizeof(buf))
		return arena__strdup(a, buf);

	char *p = arena__alloc(a, n + 1);

	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Concatenates up to four strings (NULL = ""), without printf. */
char *arena__cat(struct arena_blk **a, const char *s1, const char *s2, const char *s3,
		 const char *s4)
{
	const char *v[4] = { s1, s2, s3, s4 };
	size_t len[4], n = 0;
	char *p, *q;

	for (int i = 0; i < 4; i++)
		n += len[i] = v[i] ? strlen(v[i]) : 0;
	p = q = arena__alloc(a, n + 1);
	for (int i = 0; i < 4; i++) {
		memcpy(q, v[i] ? v[i] : "", len[i]);
		q += len[i];
	}
	*q = 0;
	return p;
}

void arena__free(struct arena_blk *a)
{
	while (a) {
		struct arena_blk *n = a->next;

		free(a);
		a = n;
	}
}

/* ---- uint64 -> pointer map (open addressing) ---------------------------- */

static inline uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static void umap__grow(struct umap *m);

void **umap__slot(struct umap *m, uint64_t key, bool insert)
{
	if (insert && (m->n + 1) * 2 > m->cap)
		umap__grow(m);
	if (!m->cap)
		return NULL;

	size_t mask = m->cap - 1, i = mix64(key) & mask;

	for (;;) {
		bool live = m->gens[i] == m->gen && m->keys[i];

		if (live && m->keys[i] == key + 1)
			return &m->vals[i];
		if (!live) {
			if (!insert)
				return NULL;
			m->keys[i] = key + 1;
			m->gens[i] = m->gen;
			m->vals[i] = NULL;
			m->n++;
			return &m->vals[i];
		}
		i = (i + 1) & mask;
	}
}

static void umap__grow(struct umap *m)
{
	struct umap old = *m;

	m->cap = old.cap ? old.cap * 2 : 1024;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	m->gens = xcalloc(m->cap, sizeof(*m->gens));
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i] && old.gens[i] == old.gen)
			*umap__slot(m, old.keys[i] - 1, true) = old.vals[i];
	free(old.keys);
	free(old.vals);
	free(old.gens);
}

static void umap__reset(struct umap *m)
{
	if (++m->gen == 0) { /* wrapped: clear for real */
		if (m->cap)
			memset(m->gens, 0xff, m->cap * sizeof(*m->gens));
		m->gen = 0;
	}
	m->n = 0;
}

static void umap__free(struct umap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->gens);
	memset(m, 0, sizeof(*m));
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* ---- members and statistics ---------------------------------------------- */

static bool member_location(Dwarf_Die *m, uint64_t *off, bool *is_const)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	*is_const = true;
	if (!dwarf_attr_integrate(m, DW_AT_data_member_location, &a)) {
		*off = 0;
		return true;
	}
	if (dwarf_formudata(&a, &w) == 0) {
		*off = w;
		return true;
	}
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
	    (ops[0].atom == DW_OP_plus_uconst || ops[0].atom == DW_OP_constu)) {
		*off = ops[0].number;
		return true;
	}
	*is_const = false; /* virtual base: computed at run time */
	*off = 0;
	return false;
}

int layout__span(uint64_t off, uint64_t size, uint64_t *end)
{
	uint64_t e;

	if (off > LAYOUT_MAX_BYTES || size > LAYOUT_MAX_BYTES ||
	    __builtin_add_overflow(off, size, &e) || e > LAYOUT_MAX_BYTES)
		return -ERANGE;
	*end = e;
	return 0;
}

int layout__bitfield_offset(uint64_t off, uint64_t ubytes, uint64_t bo, uint64_t bs,
			    bool big_endian, uint64_t *abs)
{
	uint64_t end, bits, top;

	if (layout__span(off, ubytes, &end) || bo > LAYOUT_MAX_BYTES || bs > LAYOUT_MAX_BYTES)
		return -ERANGE;
	if (big_endian) {
		if (__builtin_add_overflow(off * 8, bo, abs) || *abs > end * 8)
			return -ERANGE;
		return 0;
	}
	bits = off * 8 + ubytes * 8;
	if (__builtin_add_overflow(bo, bs, &top) || top > bits)
		return -ERANGE;
	*abs = bits - top;
	return 0;
}

int layout__mul(uint64_t a, uint64_t b, uint64_t *out)
{
	if (__builtin_mul_overflow(a, b, out) || *out > LAYOUT_MAX_BYTES)
		return -ERANGE;
	return 0;
}

static void find_holes(struct ma_struct *s)
{
	int64_t cur_bf_end = (int64_t)s->size * 8, cur_bf_size = 0, last_seen = 0;
	bool in_bf = false;
	struct ma_member *last = NULL;

	s->nr_holes = s->nr_bit_holes = 0;
	s->sum_holes = s->sum_bit_holes = 0;
	s->pre_hole = s->pre_bit_hole = 0;
	if (s->kind == MA_KIND_UNION) {
		s->padding = 0;
		s->bit_padding = 0;
		if (s->nr_members) {
			uint64_t mx = 0;

			for (int i = 0; i < s->nr_members; i++)
				if (s->members[i].size > mx)
					mx = s->members[i].size;
			(void)mx; /* pahole reports no padding for unions */
		}
		return;
	}
	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		int64_t bit_start, bit_end, bit_holes = 0, byte_holes = 0;

		if (m->flags & MA_M_VIRTUAL_BASE)
			continue;
		m->hole = 0;
		m->bit_hole = 0;
		bit_start = (int64_t)m->offset * 8 + m->bit_offset;
		bit_end = bit_start + (m->bit_size ? (int64_t)m->bit_size : (int64_t)m->size * 8);
		if (in_bf) {
			int64_t bfend = bit_start < cur_bf_end ? bit_start : cur_bf_end;

			bit_holes = bfend - last_seen;
			last_seen = bfend;
		}
		if (m->bit_size) {
			int64_t aligned = (int64_t)m->offset * 8;

			if (last_seen < aligned && aligned <= bit_start) {
				byte_holes = (int64_t)m->offset - last_seen / 8;
				last_seen = aligned;
			}
			bit_holes += bit_start - last_seen;
		} else {
			byte_holes = bit_start / 8 - last_seen / 8;
		}
		last_seen = bit_end;
		if (m->bit_size) {
			in_bf = true;
			if (bit_end > cur_bf_end || (int64_t)m->size * 8 > cur_bf_size) {
				cur_bf_size = (int64_t)m->size * 8;
				cur_bf_end = (int64_t)m->offset * 8 + cur_bf_size;
				if (bit_end > cur_bf_end)
					cur_bf_end += cur_bf_size;
			}
		} else {
			in_bf = false;
			cur_bf_size = 0;
			cur_bf_end = bit_end;
		}
		if (last) {
			last->hole = byte_holes;
			last->bit_hole = bit_holes > 0 ? (uint32_t)bit_holes : 0;
		} else {
			s->pre_hole = byte_holes > 0 ? byte_holes : 0;
			s->pre_bit_hole = bit_holes > 0 ? (uint32_t)bit_holes : 0;
		}
		if (bit_holes > 0) {
			s->nr_bit_holes++;
			s->sum_bit_holes += bit_holes;
		}
		if (byte_holes > 0) {
			s->nr_holes++;
			s->sum_holes += byte_holes;
		}
		last = m;
	}
	if (in_bf) {
		int64_t bfend = (int64_t)s->size * 8 < cur_bf_end ? (int64_t)s->size * 8 : cur_bf_end;

		s->bit_padding = bfend - last_seen > 0 ? (uint32_t)(bfend - last_seen) : 0;
		last_seen = bfend;
	} else {
		s->bit_padding = 0;
	}
	if (s->nr_vbases)
		last_seen = (int64_t)(s->vbases_placed ? s->vbases_end : s->size) * 8;
	s->padding = (int64_t)s->size - last_seen / 8;
}

/* Bytes a base class takes inside another: its non-virtual part when it has virtual bases. */
static uint64_t base_bytes(const struct ma_struct *b)
{
	return b->nr_vbases ? b->nv_size : b->size;
}

/* The virtual bases of S's bases, first seen first (depth first, left to right). */
static void collect_vbases(const struct ma_struct *s, const struct ma_struct **v, int *n, int max,
			   int depth)
{
	if (depth > 16)
		return;
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];
		bool seen = false;

		if (!(m->flags & MA_M_BASE) || !m->nested)
			continue;
		if (m->flags & MA_M_VIRTUAL_BASE) {
			for (int k = 0; k < *n; k++)
				seen |= v[k] == m->nested;
			if (!seen && *n < max)
				v[(*n)++] = m->nested;
		}
		collect_vbases(m->nested, v, n, max, depth + 1);
	}
}

/*
 * Places S's virtual bases as the Itanium C++ ABI does in a complete
 * object: after the non-virtual part, each at the next offset its
 * alignment allows.  The result must add up to DW_AT_byte_size; when it
 * does not (empty or nearly empty bases the ABI shares), nothing is claimed.
 */
static void place_vbases(struct layout *l, struct ma_struct *s)
{
	const struct ma_struct *v[64];
	uint64_t end = 0, align = s->align ? s->align : 1;
	int n = 0;

	collect_vbases(s, v, &n, 64, 0);
	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		uint64_t sz = (m->flags & MA_M_BASE) && m->nested ? base_bytes(m->nested) : m->size;

		if (!(m->flags & MA_M_VIRTUAL_BASE) && m->offset + sz > end)
			end = m->offset + sz;
	}
	s->nv_size = end;
	s->nr_vbases = n;
	if (!n)
		return;
	s->vbases = arena__alloc(&l->arena, sizeof(*s->vbases) * n);
	s->vbases_placed = true;
	for (int i = 0; i < n; i++) {
		struct ma_member *m = &s->vbases[i];
		uint64_t a = v[i]->align ? v[i]->align : 1, sz = base_bytes(v[i]);

		if (!sz)
			s->vbases_placed = false;
		m->type_name = m->decl = v[i]->name ? v[i]->name : "?";
		m->flags = MA_M_BASE | MA_M_VIRTUAL_BASE;
		m->nested = v[i];
		m->offset = (end + a - 1) / a * a;
		m->size = v[i]->size;
		m->align = a;
		end = m->offset + sz;
		if (a > align)
			align = a;
	}
	s->vbases_end = end;
	if ((end + align - 1) / align * align != s->size)
		s->vbases_placed = false;
	for (int i = 0; i < s->nr_members && s->vbases_placed; i++) {
		struct ma_member *m = &s->members[i];

		for (int k = 0; k < n && (m->flags & MA_M_VIRTUAL_BASE); k++)
			if (s->vbases[k].nested == m->nested)
				m->offset = s->vbases[k].offset;
	}
}

static void struct_stats(struct ma_struct *s)
{
	s->sum_members = s->sum_bit_members = 0;
	s->nr_paddings = 0;
	s->sum_paddings = 0;
	s->nr_forced_alignments = s->nr_forced_holes = 0;
	s->sum_forced_holes = 0;
	s->nr_sync = 0;
	find_holes(s);
	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		int64_t prev_hole = i ? s->members[i - 1].hole : (int64_t)s->pre_hole;

		if (m->declared_align) {
			s->nr_forced_alignments++;
			if (prev_hole > 0) {
				s->nr_forced_holes++;
				s->sum_forced_holes += prev_hole;
			}
		}
		if (m->flags & (MA_M_ATOMIC | MA_M_LOCK))
			s->nr_sync++;
		if (m->flags & MA_M_BASE)
			continue;
		if (m->bit_size)
			s->sum_bit_members += m->bit_size;
		else
			s->sum_members += m->size;
	}
}

/* The padding pahole shows after a member whose type is directly a struct. */
int64_t layout__member_struct_padding(const struct ma_member *m)
{
	if (!(m->flags & MA_M_DIRECT_STRUCT) || !m->nested)
		return 0;
	return m->nested->padding;
}

void layout__struct_finish(struct ma_struct *s, uint32_t line)
{
	struct_stats(s);
	layout__struct_lines(s, line);
}

void layout__struct_lines(struct ma_struct *s, uint32_t line)
{
	uint64_t L = line ? line : 64;

	s->cacheline = L;
	s->cachelines = (s->size + L - 1) / L;
	s->last_cacheline = s->size % L;
	s->nr_straddling = 0;
	s->nr_paddings = 0;
	s->sum_paddings = 0;
	for (int i = 0; i < s->nr_members; i++) {
		struct ma_member *m = &s->members[i];
		uint64_t b0 = m->offset * 8 + m->bit_offset;
		uint64_t nb = m->bit_size ? m->bit_size : m->size * 8;

		m->flags &= ~MA_M_STRADDLES;
		m->first_line = b0 / 8 / L;
		m->last_line = nb ? (b0 + nb - 1) / 8 / L : m->first_line;
		if (m->last_line != m->first_line) {
			m->flags |= MA_M_STRADDLES;
			s->nr_straddling++;
		}
		int64_t pad = layout__member_struct_padding(m);

		if (pad > 0) {
			s->nr_paddings++;
			s->sum_paddings += pad;
		}
	}
	s->nr_sync_shared_lines = 0;
	for (uint64_t ln = 0; ln < s->cachelines && s->nr_sync; ln++) {
		int sync = 0, other = 0;

		for (int i = 0; i < s->nr_members; i++) {
			const struct ma_member *m = &s->members[i];

			if (m->first_line > ln || m->last_line < ln || (!m->size && !m->bit_size))
				continue;
			if (m->flags & (MA_M_ATOMIC | MA_M_LOCK))
				sync++;
			else
				other++;
		}
		if (sync && sync + other >= 2)
			s->nr_sync_shared_lines++;
	}
	/* Arrays of it, first element line-aligned. */
	s->array_period = 0;
	s->array_straddling = 0;
	if (s->size) {
		uint64_t g = gcd64(s->size, L), p = L / g, min_lines = (s->size + L - 1) / L;

		s->array_period = p;
		for (uint64_t i = 0; i < p; i++) {
			uint64_t start = (i * s->size) % L;

			if ((start + s->size + L - 1) / L > min_lines)
				s->array_straddling++;
		}
	}
	uint64_t a = s->align ? s->align : 1;

	s->line_aligned = a % L == 0;
	uint64_t g = gcd64(a, L);

	s->max_lines_spanned = s->size ? (s->line_aligned ? (s->size + L - 1) / L
							  : (L - g + s->size + L - 1) / L)
				       : 0;
}

struct mstruct *mstruct__build(struct layout *l, Dwarf_Die *d, const char *name)
{
	uint64_t key = die_key(l, d);
	void **slot = umap__slot(&l->aggs, key, false);

	if (slot)
		return *slot;

	struct mstruct *ms = arena__alloc(&l->arena, sizeof(*ms));
	struct ma_struct *s = &ms->pub;
	int tag = dwarf_tag(d);
	Dwarf_Die c;
	int cap = 0;
	uint64_t align = 0, da = 0;
	bool packed = false, absurd = false;

	*umap__slot(&l->aggs, key, true) = ms;
	s->name = name ? name : NULL;
	s->anonymous = !name;
	s->cplusplus = l->cplusplus;
	s->kind = tag == DW_TAG_union_type ? MA_KIND_UNION
		  : tag == DW_TAG_class_type ? MA_KIND_CLASS : MA_KIND_STRUCT;
	attr_udata(d, DW_AT_byte_size, &s->size);
	if (attr_udata(d, DW_AT_alignment, &da))
		s->declared_align = da;
	ms->off = dwarf_dieoffset(d);
	ms->dbg = dwarf_cu_getdwarf(d->cu);
	{
		Dwarf_Half version = 0;
		uint8_t ut = 0;

		ms->in_types = dwarf_cu_info(d->cu, &version, &ut, NULL, NULL, NULL, NULL, NULL) == 0 &&
			       version < 5 && ut == DW_UT_type;
	}
	{
		int ln = 0;

		if (dwarf_decl_line(d, &ln) == 0)
			s->decl_line = ln;
	}

	if (dwarf_child(d, &c) == 0) {
		do {
			int ct = dwarf_tag(&c);
			Dwarf_Die td;
			struct ma_member *m;
			struct tinfo *ti;
			uint64_t off = 0, bs = 0, v;
			bool cst;

			if (ct != DW_TAG_member && ct != DW_TAG_inheritance)
				continue;
			if (ct == DW_TAG_member &&
			    (attr_flag(&c, DW_AT_declaration) || attr_flag(&c, DW_AT_external)))
				continue; /* C++ static member */
			if (!die_type(&c, &td))
				continue;
			if (s->nr_members == cap) {
				cap = cap ? cap * 2 : 8;
				struct ma_member *nm = arena__alloc(&l->arena, sizeof(*nm) * cap);

				Dwarf_Off *no = arena__alloc(&l->arena, sizeof(*no) * cap);

				if (s->nr_members) {
					memcpy(nm, s->members, sizeof(*nm) * s->nr_members);
					memcpy(no, ms->moffs, sizeof(*no) * s->nr_members);
				}
				s->members = nm;
				ms->moffs = no;
			}
			m = &s->members[s->nr_members++];
			ti = tinfo__get(l, &td);
			m->name = ct == DW_TAG_member ? dwarf_diename(&c) : NULL;
			m->size = ti->size;
			m->align = ti->align;
			m->flags = ti->flags;
			m->sync_kind = ti->sync_kind;
			m->qualifiers = ti->quals;
			m->nr_dims = ti->nr_dims;
			if (ti->nr_dims)
				memcpy(m->dims, ti->dims, sizeof(uint64_t) * ti->nr_dims);
			if (ti->flex && (ti->flags & MA_M_ARRAY))
				m->flags |= MA_M_FLEX;
			if (ti->agg)
				m->nested = &ti->agg->pub;
			if (ti->anon)
				m->anon_type = &ti->anon->pub;
			if (dwarf_tag(&td) == DW_TAG_structure_type || dwarf_tag(&td) == DW_TAG_class_type)
				m->flags |= MA_M_DIRECT_STRUCT;
			if (attr_udata(&c, DW_AT_alignment, &v)) {
				m->declared_align = v;
				if (v > m->align)
					m->align = v;
			}
			ms->moffs[s->nr_members - 1] = dwarf_dieoffset(&c);
			{
				int ln = 0;

				if (dwarf_decl_line(&c, &ln) == 0)
					m->decl_line = ln;
			}
			if (!member_location(&c, &off, &cst))
				m->flags |= MA_M_VIRTUAL_BASE;
			if (layout__span(off, ti->size, &v)) {
				absurd = true; /* damaged DWARF: no arithmetic on it */
				off = 0;
			}
			if (ct == DW_TAG_inheritance) {
				m->flags |= MA_M_BASE;
				m->type_name = decl__join(l, ti->p, NULL, ti->s);
				m->decl = m->type_name;
			} else if (ti->agg && ti->agg->pub.anonymous && !ti->agg->listed &&
				   is_aggregate_tag(dwarf_tag(&td))) {
				m->flags |= MA_M_ANON; /* struct { ... } [name]; printed inline */
			}
			if (attr_udata(&c, DW_AT_bit_size, &bs) && bs) {
				uint64_t abs, unit = ti->size ? ti->size : 1, bo, ubytes;

				m->flags |= MA_M_BITFIELD;
				m->bit_size = bs;
				if (attr_udata(&c, DW_AT_data_bit_offset, &abs)) {
					if (abs > LAYOUT_MAX_BYTES * 8)
						absurd = true;
				} else if (attr_udata(&c, DW_AT_bit_offset, &bo)) {
					if (!attr_udata(&c, DW_AT_byte_size, &ubytes))
						ubytes = unit;
					if (layout__bitfield_offset(off, ubytes, bo, bs, l->big_endian, &abs))
						absurd = true;
				} else {
					abs = off * 8;
				}
				if (absurd || unit > LAYOUT_MAX_BYTES || bs > LAYOUT_MAX_BYTES * 8) {
					absurd = true;
					abs = 0;
					unit = 1;
				}
				m->offset = abs / (unit * 8) * unit;
				m->bit_offset = abs - m->offset * 8;
			} else {
				m->offset = off;
				if (m->declared_align == 0 && m->align > 1 && off % m->align)
					packed = true;
			}
			if (ct == DW_TAG_member && !(m->flags & MA_M_BASE)) {
				m->type_name = decl__join(l, ti->p, NULL, ti->s);
				if (m->bit_size)
					m->decl = arena__printf(&l->arena, "%s%s%s:%u", ti->p,
								decl__needs_space(ti->p) && m->name ? " " : "",
								m->name ? m->name : "", m->bit_size);
				else
					m->decl = decl__join(l, ti->p, m->name, ti->s);
			}
			if (!(m->flags & MA_M_VIRTUAL_BASE) && m->align > align)
				align = m->align;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (absurd || s->size > LAYOUT_MAX_BYTES) {
		/* Not a layout anyone compiled: listed nowhere, counted. */
		ms->absurd = true;
		s->nr_members = 0;
		s->size = 0;
	}
	if (!align)
		align = 1;
	if (packed || (s->size % align)) {
		s->packed = align > 1;
		align = 1;
	}
	if (s->declared_align > align)
		align = s->declared_align;
	s->align = align;
	if (l->cplusplus)
		place_vbases(l, s);
	struct_stats(s);
	if (s->nr_sync)
		for (int i = 0; i < s->nr_members; i++)
			if (s->members[i].flags & MA_M_ATOMIC && s->members[i].sync_kind &&
			    !strcmp(s->members[i].sync_kind, "_Atomic"))
				s->garbled_by_pahole = true;
	layout__struct_lines(s, l->cacheline);
	return ms;
}

/* ---- dedupe and the unit walk -------------------------------------------- */

/*
 * The declaring file of D, or NULL.  Not dwarf_decl_file(): libdw asserts
 * there when the unit has no usable file table (a skeleton unit of
 * -gsplit-dwarf, a split unit whose skeleton it cannot pair), and in
 * elfutils 0.188 it decodes and sorts the unit's whole line program to get
 * the names.  The table is read once per unit by unit_files__read(); where
 * that cannot read it, dwarf_getsrcfiles() does, and a unit without one
 * gives no name.  Runs only for definitions that get listed.
 */
static const char *die_decl_file(struct layout *l, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Die cudie;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	struct unit_files *uf;
	void **slot;

	if (!dwarf_attr_integrate(d, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx))
		return NULL;
	if (!a.cu || !dwarf_cu_die(a.cu, &cudie, NULL, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	slot = umap__slot(&l->files, (uintptr_t)a.cu, true);
	if (!*slot) {
		uf = arena__alloc(&l->arena, sizeof(*uf));
		uf->from_libdw = unit_files__read(l, &cudie, uf) != 0;
		*slot = uf;
	}
	uf = *slot;
	if (!uf->from_libdw)
		return idx < uf->n ? uf->names[idx] : NULL;
	if (dwarf_getsrcfiles(&cudie, &files, &nfiles) != 0 || !files ||
	    files == (void *)-1l || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static Dwarf_Die *mstruct__offdie(const struct mstruct *ms, Dwarf *dbg, Dwarf_Off off,
				   Dwarf_Die *d)
{
	return ms->in_types ? dwarf_offdie_types(dbg, off, d) : dwarf_offdie(dbg, off, d);
}

static void resolve_files(struct layout *l, struct mstruct *ms, int depth)
{
	Dwarf_Die d;
	Dwarf *dbg = ms->dbg ? ms->dbg : l->cur_dbg;

	if (ms->files_done || depth > 16)
		return;
	ms->files_done = true;
	if (mstruct__offdie(ms, dbg, ms->off, &d))
		ms->pub.decl_file = die_decl_file(l, &d);
	for (int i = 0; i < ms->pub.nr_members && ms->moffs; i++) {
		struct ma_member *m = &ms->pub.members[i];

		if (mstruct__offdie(ms, dbg, ms->moffs[i], &d))
			m->decl_file = die_decl_file(l, &d);
		if (m->nested && (m->flags & MA_M_ANON))
			resolve_files(l, (struct mstruct *)m->nested, depth + 1);
		if (m->anon_type)
			resolve_files(l, (struct mstruct *)m->anon_type, depth + 1);
	}
}

static bool members_equal(const struct ma_struct *a, const struct ma_struct *b)
{
	if (a->size != b->size || a->nr_members != b->nr_members || a->kind != b->kind ||
	    a->align != b->align)
		return false;
	for (int i = 0; i < a->nr_members; i++) {
		const struct ma_member *x = &a->members[i], *y = &b->members[i];

		if (x->offset != y->offset || x->size != y->size || x->bit_size != y->bit_size ||
		    x->bit_offset != y->bit_offset || x->flags != y->flags)
			return false;
		if ((x->name || y->name) && (!x->name || !y->name || strcmp(x->name, y->name)))
			return false;
		if (strcmp(x->type_name, y->type_name))
			return false;
		if (x->nested && y->nested && x->nested->anonymous &&
		    !members_equal(x->nested, y->nested))
			return false;
		if (!x->anon_type != !y->anon_type ||
		    (x->anon_type && !members_equal(x->anon_type, y->anon_type)))
			return false;
	}
	return true;
}

static void list_struct(struct layout *l, struct mstruct *ms)
{
	struct ma_struct *s = &ms->pub;
	uint64_t h;
	void **slot;

	if (ms->listed || !s->name)
		return;
	if (ms->absurd) {
		ms->listed = true;
		l->absurd++;
		return;
	}
	h = str_hash(s->name);
	slot = umap__slot(&l->names, h, true);
	for (struct mstruct *o = *slot; o; o = o->hnext) {
		if (!strcmp(o->pub.name, s->name) && members_equal(&o->pub, s)) {
			o->pub.duplicates++;
			ms->listed = true;
			return;
		}
	}
	ms->listed = true;
	resolve_files(l, ms, 0);
	ms->hash = h;
	if (!*slot) {
		*slot = ms;
	} else {
		struct mstruct *o = *slot;

		while (o->hnext)
			o = o->hnext;
		o->hnext = ms;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = ms;
}

/* C++: record the qualified name of every type declared in a namespace or class. */
static void collect_qnames(struct layout *l, Dwarf_Die *parent, const char *prefix, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		const char *n;

		if (tag != DW_TAG_namespace && !is_aggregate_tag(tag) && tag != DW_TAG_typedef &&
		    tag != DW_TAG_enumeration_type)
			continue;
		n = dwarf_diename(&c);
		if (tag == DW_TAG_namespace) {
			const char *np = n ? (prefix ? arena__printf(&l->arena, "%s::%s", prefix, n)
						     : n)
					   : prefix; /* anonymous namespace */
			collect_qnames(l, &c, np, depth + 1);
			continue;
		}
		if (!n)
			continue;
		const char *q = prefix ? arena__printf(&l->arena, "%s::%s", prefix, n) : n;

		if (prefix)
			*umap__slot(&l->qnames, die_key(l, &c), true) = (void *)q;
		if (is_aggregate_tag(tag) && dwarf_haschildren(&c))
			collect_qnames(l, &c, q, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static const char *strip_kw(const char *name);

/*
 * Whether a type called N is one layout__load_types() was asked for: the
 * same name, or for a name without "::" any qualified name ending in
 * "::NAME" (layout__find_struct() picks among them as after a full load).
 */
static bool wanted_name(const struct layout *l, const char *n)
{
	size_t nl;

	if (!l->want)
		return true;
	if (!n)
		return false;
	nl = strlen(n);
	for (int i = 0; i < l->nr_want; i++) {
		const char *w = strip_kw(l->want[i]);
		size_t wl = strlen(w);

		if (!strcmp(n, w))
			return true;
		if (nl > wl + 2 && !strcmp(n + nl - wl, w) && n[nl - wl - 1] == ':' &&
		    n[nl - wl - 2] == ':' && !strstr(w, "::"))
			return true;
	}
	return false;
}

/*
 * A damaged unit (a DIE with an abbreviation that does not exist, a sibling
 * past the unit) ends the walk of its scope: counted, so that a file whose
 * types could not be read is not shown as one without types.
 */
static void walk_scope(struct layout *l, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;
	int ret;

	if (depth > 32)
		return;
	ret = dwarf_child(parent, &c);
	if (ret) {
		l->damaged += ret < 0;
		return;
	}
	do {
		int tag = dwarf_tag(&c);

		if (is_aggregate_tag(tag)) {
			const char *n;

			if (attr_flag(&c, DW_AT_declaration)) {
				continue;
			}
			n = die_name(l, &c);
			if (!n && dwarf_hasattr(&c, DW_AT_name))
				l->damaged++; /* a name past .debug_str, or the section unreadable */
			if (n && wanted_name(l, n)) {
				uint64_t sz;

				if (!attr_udata(&c, DW_AT_byte_size, &sz))
					continue;
				struct tinfo *t = tinfo__get(l, &c);

				if (t->agg) {
					t->agg->pub.name = n;
					list_struct(l, t->agg);
				}
			}
			if (l->cplusplus && dwarf_haschildren(&c))
				walk_scope(l, &c, depth + 1);
		} else if (tag == DW_TAG_typedef) {
			Dwarf_Die td;
			const char *n = die_name(l, &c);

			if (!n || !wanted_name(l, n) || !die_type(&c, &td) || !is_aggregate_tag(dwarf_tag(&td)) ||
			    dwarf_diename(&td) || attr_flag(&td, DW_AT_declaration))
				continue;
			struct tinfo *t = tinfo__get(l, &td);

			if (t->agg && !t->agg->listed) {
				t->agg->pub.name = n;
				t->agg->pub.anonymous = true;
				list_struct(l, t->agg);
			}
		} else if (tag == DW_TAG_namespace) {
			walk_scope(l, &c, depth + 1);
		}
	} while ((ret = dwarf_siblingof(&c, &c)) == 0);
	l->damaged += ret < 0;
}

static bool lang_is_cplusplus(int lang)
{
	switch (lang) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case 0x2a: /* DW_LANG_C_plus_plus_17 */
	case 0x2b: /* DW_LANG_C_plus_plus_20 */
		return true;
	default:
		return false;
	}
}

/*
 * Whether the .dwo file N of a skeleton unit is where libdw looks for it:
 * beside the binary, or at N from DW_AT_comp_dir (N itself when absolute).
 */
static bool dwo_exists(const struct layout *l, Dwarf_Die *cudie, const char *n)
{
	const char *slash = strrchr(l->path, '/'), *dir;
	Dwarf_Attribute a;
	char p[4096];

	if (snprintf(p, sizeof(p), "%.*s%s", slash ? (int)(slash - l->path + 1) : 0, l->path,
		     strrchr(n, '/') ? strrchr(n, '/') + 1 : n) < (int)sizeof(p) && !access(p, R_OK))
		return true;
	if (n[0] == '/')
		return !access(n, R_OK);
	dir = dwarf_attr(cudie, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	return dir && dir[0] == '/' && snprintf(p, sizeof(p), "%s/%s", dir, n) < (int)sizeof(p) &&
	       !access(p, R_OK);
}

static void skeleton_missing(struct layout *l, Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr(cudie, DW_AT_dwo_name, &a) || dwarf_attr(cudie, DW_AT_GNU_dwo_name, &a))
		n = dwarf_formstring(&a);
	/* There, but libdw could not read it (damaged, or from another build). */
	if (n && dwo_exists(l, cudie, n)) {
		l->damaged++;
		return;
	}
	if (!l->dwo_missing && n)
		l->dwo_name = arena__strdup(&l->arena, n);
	l->dwo_missing++;
}

static const struct mstruct *find_exact(const struct layout *l, const char *name);

/*
 * Whether every wanted name has a definition of its own name (a "C" that so
 * far matched only "ns::C" may still be defined as "C" in a later unit).
 */
static bool wanted_all_found(const struct layout *l)
{
	for (int i = 0; i < l->nr_want; i++)
		if (!find_exact(l, l->want[i]))
			return false;
	return true;
}

static int layout_walk(struct layout *l, Dwarf *dbg)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	int nr = 0, ret;

	while ((ret = dwarf_get_units(dbg, cu, &cu, NULL, &unit_type, &cudie, &subdie)) == 0) {
		Dwarf_Die *top = &cudie;

		if (unit_type == DW_UT_skeleton || unit_type == DW_UT_split_compile) {
			if (!subdie.cu) {
				/* -gsplit-dwarf: the types are in a .dwo not found */
				skeleton_missing(l, &cudie);
				continue;
			}
			top = &subdie;
		}
		umap__reset(&l->types);
		umap__reset(&l->aggs);
		umap__reset(&l->qnames);
		l->cplusplus = lang_is_cplusplus(dwarf_srclang(top));
		{
			uint8_t as = 0;

			if (dwarf_cu_info(cu, NULL, NULL, NULL, NULL, NULL, &as, NULL) == 0 && as)
				l->addr_size = as;
		}
		if (l->cplusplus)
			collect_qnames(l, top, NULL, 0);
		walk_scope(l, top, 0);
		nr++;
		if (l->want_first && wanted_all_found(l))
			return nr;
	}
	l->damaged += ret < 0; /* a unit header that cannot be read ends the list */
	return nr;
}

const char *layout__strerror(int err)
{
	switch (err) {
	case -ENOENT: return "no such file";
	case -ENOEXEC: return "not an ELF file";
	case -ENODATA: return "no DWARF debug info";
	case -EACCES: return "permission denied";
	case -EISDIR: return "is a directory";
	case -ENOPKG: return "its types are in .dwo files (-gsplit-dwarf) that were not found";
	case -EBADMSG: return "a truncated or damaged ELF file";
	case -EPROTONOSUPPORT:
		return "its debug sections are compressed in a format this libelf cannot read (zstd?)";
	case -EILSEQ: return "its DWARF debug info is damaged";
	default: return strerror(-err);
	}
}

int layout__load(const char *path, struct layout **out)
{
	return layout__load_types(path, NULL, 0, 0, out);
}

int layout__load_types(const char *path, const char *const *names, int nr, unsigned int flags,
		       struct layout **out)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = symbolizer__find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	struct layout *l;
	struct stat st;
	char magic[4];
	int fd, err;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dbg;

	*out = NULL;
	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, magic, 4) != 4 || memcmp(magic, "\177ELF", 4)) {
		close(fd);
		return -ENOEXEC;
	}
	l = xcalloc(1, sizeof(*l));
	l->fd = -1;
	l->cacheline = sysinfo__cacheline();
	l->addr_size = 8;
	l->dwfl = dwfl_begin(&cb);
	if (!l->dwfl) {
		close(fd);
		err = -ENOMEM;
		goto out_free;
	}
	/* dwfl takes ownership of the descriptor. */
	lseek(fd, 0, SEEK_SET);
	mod = dwfl_report_offline(l->dwfl, "", path, fd);
	dwfl_report_end(l->dwfl, NULL, NULL);
	if (!mod) {
		/* it has ELF's magic: a header libelf rejects is a damaged file */
		err = layout__elf_diagnose(path) == -EBADMSG ? -EBADMSG : -ENOEXEC;
		goto out_free;
	}
	dbg = dwfl_module_getdwarf(mod, &bias);
	if (!dbg) {
		err = layout__elf_diagnose(path);
		goto out_free;
	}
	{
		Elf *elf = dwarf_getelf(dbg);
		GElf_Ehdr eh;

		if (elf && gelf_getehdr(elf, &eh)) {
			l->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
			l->addr_size = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
		}
	}
	l->cur_dbg = dbg;
	l->path = path;
	l->want = nr ? names : NULL;
	l->nr_want = nr;
	l->want_first = nr && (flags & LAYOUT_LOAD_FIRST);
	if (layout_walk(l, dbg) == 0 || (l->n == 0 && (l->dwo_missing || l->damaged))) {
		err = l->dwo_missing ? -ENOPKG : l->damaged ? -EILSEQ : -ENODATA;
		if (err != -ENOPKG) {
			/* libdw may open a file whose units it cannot decompress or reach */
			int why = layout__elf_diagnose(path);

			if (why == -EPROTONOSUPPORT || why == -EBADMSG)
				err = why;
		}
		goto out_free;
	}
	umap__free(&l->types);
	umap__free(&l->aggs);
	umap__free(&l->qnames);
	l->want = NULL; /* the caller's array */
	l->path = NULL; /* and string */
	l->nr_want = 0;
	*out = l;
	return 0;
out_free:
	layout__free(l);
	return err;
}

int layout__absurd(const struct layout *l)
{
	return l->absurd;
}

int layout__damaged(const struct layout *l)
{
	return l->damaged;
}

int layout__missing_dwo(const struct layout *l, const char **first)
{
	if (first)
		*first = l->dwo_name;
	return l->dwo_missing;
}

void layout__free(struct layout *l)
{
	if (!l)
		return;
	if (l->dwfl)
		dwfl_end(l->dwfl);
	umap__free(&l->types);
	umap__free(&l->aggs);
	umap__free(&l->qnames);
	umap__free(&l->names);
	umap__free(&l->files);
	free(l->v);
	arena__free(l->arena);
	free(l);
}

static void lines_rec(struct ma_struct *s, uint32_t line, int depth)
{
	layout__struct_lines(s, line);
	if (depth > 8)
		return;
	for (int i = 0; i < s->nr_members; i++) {
		if (s->members[i].nested && s->members[i].nested->anonymous &&
		    s->members[i].flags & MA_M_ANON)
			lines_rec((struct ma_struct *)s->members[i].nested, line, depth + 1);
		if (s->members[i].anon_type)
			lines_rec((struct ma_struct *)s->members[i].anon_type, line, depth + 1);
	}
}

void layout__set_cacheline(struct layout *l, uint32_t line)
{
	l->cacheline = line;
	for (size_t i = 0; i < l->n; i++)
		lines_rec(&l->v[i]->pub, line, 0);
}

uint32_t layout__cacheline(const struct layout *l)
{
	return l->cacheline;
}

static const char *strip_kw(const char *name)
{
	static const char *const kws[] = { "struct ", "union ", "class " };

	for (size_t i = 0; i < ARRAY_SIZE(kws); i++)
		if (!strncmp(name, kws[i], strlen(kws[i])))
			return name + strlen(kws[i]);
	return name;
}

/* The first type called NAME ("union NAME": the first union), no suffix match. */
static const struct mstruct *find_exact(const struct layout *l, const char *name)
{
	const char *n = strip_kw(name);
	void **slot = umap__slot((struct umap *)&l->names, str_hash(n), false);

	for (struct mstruct *o = slot ? *slot : NULL; o; o = o->hnext)
		if (!strcmp(o->pub.name, n)) {
			if (n != name && strncmp(name, "union ", 6) == 0 && o->pub.kind != MA_KIND_UNION)
				continue;
			return o;
		}
	return NULL;
}

const struct ma_struct *layout__find_struct(const struct layout *l, const char *name)
{
	const char *n = strip_kw(name);
	const struct mstruct *e = find_exact(l, name);

	if (e)
		return &e->pub;
	/* C++: "Base" finds "ns::Base" when no type is called just "Base". */
	if (!strstr(n, "::")) {
		size_t nl = strlen(n);

		for (size_t i = 0; i < l->n; i++) {
			const char *q = l->v[i]->pub.name;
			size_t ql = strlen(q);

			if (ql > nl + 2 && !strcmp(q + ql - nl, n) && q[ql - nl - 1] == ':' &&
			    q[ql - nl - 2] == ':')
				return &l->v[i]->pub;
		}
	}
	return NULL;
}

size_t layout__nr_structs(const struct layout *l)
{
	return l->n;
}

const struct ma_struct *layout__struct(const struct layout *l, size_t i)
{
	return i < l->n ? &l->v[i]->pub : NULL;
}

const struct ma_member *ma_struct__find_member(const struct ma_struct *s, const char *name)
{
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];

		if (m->name && !strcmp(m->name, name))
			return m;
		if (!m->name && m->nested && (m->flags & MA_M_ANON)) { /* transparent member */
			const struct ma_member *r = ma_struct__find_member(m->nested, name);

			if (r)
				return r;
		}
	}
	return NULL;
}

const char *ma_kind__name(enum ma_kind k)
{
	return k == MA_KIND_UNION ? "union" : k == MA_KIND_CLASS ? "class" : "struct";
}
