// SPDX-License-Identifier: GPL-2.0-only
/*
 * The layout (layout.h) of the target's executable -> struct and member
 * entities, made when a sampled access or a hot function uses the struct;
 * and the heat of each struct from the profile and the data addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/bind_int.h"
#include "rules/rules.h"
#include "layout/layout.h"
#include "machine/sysinfo.h"
#include "model/addr.h"
#include "model/sampling.h"
#include "symbols/codetypes.h"
#include "base/util.h"

/*
 * The hot/cold split of a struct as declarations a user can paste: the
 * members the sampled accesses hit go to STRUCT_hot, the others to
 * STRUCT_cold, each in declaration order.
 */
static bool member_is_hot(const struct sbind *sb, const struct ma_member *m)
{
	for (int k = 0; k < sb->nr_hot; k++)
		if (sb->hot_off[k] == m->offset)
			return true;
	return false;
}

char *sbind__split_decl(const struct sbind *sb)
{
	const struct ma_struct *s = sb->s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int hot = 1; hot >= 0; hot--) {
		fprintf(f, "struct %s_%s {%s\n", s->name, hot ? "hot" : "cold",
			hot ? "    /* what the hot loop reads */" : "   /* the rest, same index */");
		for (int m = 0; m < s->nr_members; m++) {
			const struct ma_member *mm = &s->members[m];

			if (member_is_hot(sb, mm) == (hot != 0) && mm->decl)
				fprintf(f, "        %s;\n", mm->decl);
		}
		fprintf(f, "};\n");
	}
	fclose(f);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	return buf;
}

static char *print_decl(const struct ma_struct *s, uint32_t line)
{
	struct layout_print_opts o = { .compile = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	ma_struct__print_text(s, line, &o, f);
	fclose(f);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return buf;
}

static bool system_decl(const char *file)
{
	return file && (!strncmp(file, "/usr/", 5) || strstr(file, "/include/bits/"));
}

void bind__layout(struct binder *b)
{
	const struct rules_layouts *l = b->layouts;
	const struct ma_struct *s;
	size_t i;

	if (!l)
		return;
	if (!l->exe[0]) {
		factbase__mark(b->fb, EV_LAYOUT, false, "the target's executable is unknown");
		return;
	}
	if (!l->layout) {
		char why[160];

		snprintf(why, sizeof(why), "no layout of the executable: %.100s",
			 layout__strerror(l->err));
		factbase__mark(b->fb, EV_LAYOUT, false, why);
		return;
	}
	b->layout = l->layout;
	b->ct = l->types;
	factbase__mark(b->fb, EV_LAYOUT, true, NULL);
	b->sb = xcalloc(layout__nr_structs(b->layout) + 1, sizeof(*b->sb));
	layout__for_each_struct(b->layout, i, s) {
		struct sbind *sb;

		if (!s->name || !s->size || s->kind == MA_KIND_UNION || system_decl(s->decl_file))
			continue;
		sb = &b->sb[b->nr_sb++];
		sb->s = s;
		sb->ent = -1;
	}
}

/*
 * The entity of a struct, made on first use: a program's debug info can hold
 * thousands of structs, and only those hot code works on can fire a rule.
 */
int binder__struct_entity(struct binder *b, struct sbind *sb)
{
	const struct ma_struct *s = sb->s;
	struct entity e = { .scope = SCOPE_STRUCT, .parent = -1 };
	struct layout_reorg reorg;
	bool reorganized;
	int idx;

	if (sb->ent >= 0)
		return sb->ent;
	snprintf(e.struct_name, sizeof(e.struct_name), "%s", s->name);
	snprintf(e.decl_file, sizeof(e.decl_file), "%s", s->decl_file ? s->decl_file : "");
	e.decl_line = (int)s->decl_line;
	e.decl_text = print_decl(s, b->line);
	reorganized = !layout__reorganize(b->layout, s, NULL, &reorg, NULL);
	if (reorganized)
		e.snippet = print_decl(reorg.s, b->line);
	idx = factbase__add(b->fb, &e);
	if (idx < 0) {
		free(e.snippet);
		free(e.decl_text);
		if (reorganized)
			layout_reorg__free(&reorg);
		return idx;
	}
	sb->ent = idx;
	if (reorganized) {
		factbase__set(b->fb, idx, "struct.packed_size", reorg.new_size, TIER_STATIC);
		factbase__set(b->fb, idx, "struct.packed_lines", reorg.new_cachelines, TIER_STATIC);
		layout_reorg__free(&reorg);
	}
	factbase__set(b->fb, idx, "struct.size", s->size, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.align", s->align, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.declared_align", s->declared_align, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.members", s->nr_members, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.holes", s->nr_holes, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.hole_bytes", s->sum_holes, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.padding", s->padding > 0 ? s->padding : 0, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.lines", s->cachelines, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.max_lines_spanned", s->max_lines_spanned, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.line_aligned", s->line_aligned, TIER_STATIC);
	if (s->array_period)
		factbase__set(b->fb, idx, "struct.array_straddling",
			      (double)s->array_straddling / s->array_period, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.straddlers", s->nr_straddling, TIER_STATIC);
	factbase__set(b->fb, idx, "struct.sync_members", s->nr_sync, TIER_STATIC);
	return idx;
}

struct sbind *binder__find_struct(struct binder *b, const char *name)
{
	for (int i = 0; i < b->nr_sb; i++)
		if (!strcmp(b->sb[i].s->name, name))
			return &b->sb[i];
	return NULL;
}

/* The member of S covering byte OFF (innermost is not needed: top-level). */
int bind__member_at(const struct ma_struct *s, int64_t off)
{
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];

		if (m->flags & MA_M_BITFIELD)
			continue;
		if (off >= (int64_t)m->offset && off < (int64_t)(m->offset + (m->size ? m->size : 1)))
			return i;
	}
	return -1;
}

/*
 * The struct reorganised with the members the busiest access's loop uses
 * first (sbind.together; all that the accesses hit when that is not known),
 * the hottest first (the rest packed after them), for {hot_decl}; NULL when
 * it cannot be.
 */
char *binder__hot_decl(struct binder *b, const struct sbind *sb)
{
	const char *hot[65];
	int order[64], nh = 0, n = sb->nr_hot < 64 ? sb->nr_hot : 64;
	struct layout_reorg reorg;
	bool any = false;
	char *text;

	/* the members used together with the busiest access, when known */
	for (int k = 0; k < n; k++) {
		order[k] = k;
		any |= sb->together[k];
	}
	for (int k = 0; k < n; k++)	/* by samples, the most first */
		for (int j = k + 1; j < n; j++)
			if (sb->hot_samples[order[j]] > sb->hot_samples[order[k]]) {
				int t = order[k];

				order[k] = order[j];
				order[j] = t;
			}
	for (int k = 0; k < n; k++) {
		int mi = bind__member_at(sb->s, (int64_t)sb->hot_off[order[k]]);
		bool dup = false;

		if (mi < 0 || !sb->s->members[mi].name || (any && !sb->together[order[k]]))
			continue;
		for (int q = 0; q < nh && !dup; q++)
			dup = !strcmp(hot[q], sb->s->members[mi].name);
		if (!dup)
			hot[nh++] = sb->s->members[mi].name;
	}
	hot[nh] = NULL;
	if (!nh || layout__reorganize(b->layout, sb->s, hot, &reorg, NULL))
		return NULL;
	text = print_decl(reorg.s, b->line);
	layout_reorg__free(&reorg);
	return text;
}

int binder__member_entity(struct binder *b, struct sbind *sb, int mi)
{
	const struct ma_member *m = &sb->s->members[mi];
	struct entity e = { .scope = SCOPE_MEMBER, .parent = binder__struct_entity(b, sb) };
	int idx;

	if (e.parent < 0)
		return e.parent;
	if (!sb->member_ent) {
		sb->member_ent = xcalloc(sb->s->nr_members, sizeof(int));
		for (int i = 0; i < sb->s->nr_members; i++)
			sb->member_ent[i] = -1;
	}
	if (sb->member_ent[mi] >= 0)
		return sb->member_ent[mi];
	snprintf(e.struct_name, sizeof(e.struct_name), "%s", sb->s->name);
	snprintf(e.member, sizeof(e.member), "%s", m->name ? m->name : "(anonymous)");
	snprintf(e.decl_file, sizeof(e.decl_file), "%s", m->decl_file ? m->decl_file
					 : sb->s->decl_file ? sb->s->decl_file : "");
	e.decl_line = (int)(m->decl_line ? m->decl_line : sb->s->decl_line);
	idx = factbase__add(b->fb, &e);
	if (idx < 0)
		return idx;
	sb->member_ent[mi] = idx;
	factbase__set(b->fb, idx, "member.offset", m->offset, TIER_STATIC);
	factbase__set(b->fb, idx, "member.size", m->size, TIER_STATIC);
	factbase__set(b->fb, idx, "member.align", m->align, TIER_STATIC);
	factbase__set(b->fb, idx, "member.line_index", b->line ? m->offset / b->line : 0, TIER_STATIC);
	factbase__set(b->fb, idx, "member.straddles", !!(m->flags & MA_M_STRADDLES), TIER_STATIC);
	factbase__set(b->fb, idx, "member.misaligned", m->align && m->offset % m->align, TIER_STATIC);
	factbase__set(b->fb, idx, "member.sync", !!(m->flags & (MA_M_ATOMIC | MA_M_LOCK)),
		      TIER_STATIC);
	factbase__set(b->fb, idx, "member.hole_after", m->hole, TIER_STATIC);
	return idx;
}

/* struct.hot / samples / share: from attributed data addresses, else hot functions' types. */
void bind__struct_heat(struct binder *b)
{
	struct factbase *fb = b->fb;
	const struct sampling *p = b->r->sampling;
	bool addr = fb->have[EV_ADDR];
	double addr_total = addr ? (double)b->r->addr->decoded : 0;
	double to_samples = 1, hot_samples[32];
	struct func_types hot_ft[32];
	int nr_hot_ft = 0;

	if (!fb->have[EV_HOTSPOTS] && !addr)
		return;
	if (addr && b->period_ns > 0)
		to_samples = b->r->addr->period_ns / b->period_ns;
	/* the types of the hot functions, looked up once */
	for (int k = 0; !addr && p && b->ct && k < p->nr_funcs && nr_hot_ft < 32; k++) {
		char fn[128];

		if (p->funcs[k].ev || p->funcs[k].tid || p->funcs[k].share < 0.05)
			continue;
		bind__base_function(p->funcs[k].function, fn, sizeof(fn));
		if (codetypes__lookup(b->ct, fn, &hot_ft[nr_hot_ft]))
			continue;
		hot_samples[nr_hot_ft++] = (double)p->funcs[k].samples;
	}
	for (int i = 0; i < b->nr_sb; i++) {
		struct sbind *sb = &b->sb[i];
		enum tier t = addr ? b->r->addr->tier : TIER_SOFTWARE;

		if (addr) {
			if (!sb->addr_samples || binder__struct_entity(b, sb) < 0)
				continue;
			sb->samples = sb->addr_samples * to_samples;
			factbase__set(fb, sb->ent, "struct.share", sb->addr_samples / addr_total, t);
			factbase__set(fb, sb->ent, "struct.hot", sb->addr_samples >= 0.02 * addr_total, t);
		} else if (p && b->ct) {
			/* parameters of hot functions (main's locals name everything) */
			for (int k = 0; k < nr_hot_ft; k++)
				for (int j = 0; j < hot_ft[k].nr; j++)
					if (hot_ft[k].t[j].param && !strcmp(hot_ft[k].t[j].name, sb->s->name))
						sb->samples += hot_samples[k];
			if (!sb->samples || binder__struct_entity(b, sb) < 0)
				continue;
			if (b->total_samples)
				factbase__set(fb, sb->ent, "struct.share", sb->samples / b->total_samples, t);
			factbase__set(fb, sb->ent, "struct.hot",
				      sb->samples >= 0.05 * b->total_samples && sb->samples > 0, t);
		}
		if (sb->ent >= 0)
			factbase__set(fb, sb->ent, "struct.samples", sb->samples, t);
	}
}

/*
 * The layout is read with the cache-line size the binder uses
 * (machine.line_size: this machine's, else 64).
 */
int rules_layouts__load(struct rules_layouts *l, const struct report *snapshot)
{
	const char *exe = snapshot->target.layout_exe[0] ? snapshot->target.layout_exe
							 : snapshot->target.exe;
	int line = sysinfo__cacheline();

	memset(l, 0, sizeof(*l));
	snprintf(l->exe, sizeof(l->exe), "%s", exe);
	if (!l->exe[0])
		return 0;
	l->err = layout__load(l->exe, &l->layout);
	if (l->err) {
		l->layout = NULL;
		return 0;
	}
	layout__set_cacheline(l->layout, line > 0 ? (uint32_t)line : 64);
	l->types = codetypes__open(l->exe);
	return 0;
}

void rules_layouts__release(struct rules_layouts *l)
{
	codetypes__close(l->types);
	layout__free(l->layout);
	l->types = NULL;
	l->layout = NULL;
}
