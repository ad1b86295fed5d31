// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binds the report sections of the other modules into the fact base:
 *   layout (layout.h) of the target's executable     -> struct entities
 *   sampled profile (profile.h): hot lines, faults,   -> line, region entities
 *     regions with their huge-page state
 *   data addresses (addrsample.h): strides, pages,    -> line facts, and struct
 *     lines shared by threads                            and member facts through
 *                                                        the types the sampled
 *                                                        function works on (codetypes.h)
 *   simulation (sim.h)                                -> line and run facts
 *   watchpoints (watch.h)                             -> run facts
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/addr.h"
#include "rules/bind.h"
#include "rules/rules.h"
#include "symbols/codetypes.h"
#include "layout/layout.h"
#include "base/log.h"
#include "machine/sysinfo.h"
#include "model/profile.h"
#include "model/sim.h"
#include "base/util.h"
#include "model/watch.h"

struct binder {
	const struct report *r;
	struct factbase *fb;
	const struct rules_layouts *layouts; /* NULL: none read */
	const struct layout *layout;
	struct codetypes *ct;
	uint32_t line;		/* cache-line size */
	double period_ns;	/* time one profile sample stands for */
	double total_samples;	/* profile samples of event 0 */
	/* struct entities by layout struct (same order as fb->ents for structs) */
	struct sbind {
		const struct ma_struct *s;
		int ent;
		double addr_samples, samples;
		int64_t stride;
		double stride_samples;
		uint64_t hot_off[64];	/* member offsets the accesses hit */
		double hot_samples[64];	/* ... and the samples on each */
		int nr_hot;
		const struct addr_ip *top; /* the IP with most samples on it */
		int *member_ent;	/* entity of each member, -1 until created */
	} *sb;
	int nr_sb;
};

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

static char *split_decl(const struct sbind *sb)
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

static void bind_layout(struct binder *b)
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
static int struct_entity(struct binder *b, struct sbind *sb)
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

static struct sbind *sbind_find(struct binder *b, const char *name)
{
	for (int i = 0; i < b->nr_sb; i++)
		if (!strcmp(b->sb[i].s->name, name))
			return &b->sb[i];
	return NULL;
}

/* The member of S covering byte OFF (innermost is not needed: top-level). */
static int member_at(const struct ma_struct *s, int64_t off)
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
 * The struct reorganised with the members the accesses hit first, the
 * hottest first (the rest packed after them), for {hot_decl}; NULL when it
 * cannot be.
 */
static char *hot_decl(struct binder *b, const struct sbind *sb)
{
	const char *hot[65];
	int order[64], nh = 0, n = sb->nr_hot < 64 ? sb->nr_hot : 64;
	struct layout_reorg reorg;
	char *text;

	for (int k = 0; k < n; k++)
		order[k] = k;
	for (int k = 0; k < n; k++)	/* by samples, the most first */
		for (int j = k + 1; j < n; j++)
			if (sb->hot_samples[order[j]] > sb->hot_samples[order[k]]) {
				int t = order[k];

				order[k] = order[j];
				order[j] = t;
			}
	for (int k = 0; k < n; k++) {
		int mi = member_at(sb->s, (int64_t)sb->hot_off[order[k]]);
		bool dup = false;

		if (mi < 0 || !sb->s->members[mi].name)
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

static int member_entity(struct binder *b, struct sbind *sb, int mi)
{
	const struct ma_member *m = &sb->s->members[mi];
	struct entity e = { .scope = SCOPE_MEMBER, .parent = struct_entity(b, sb) };
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

/* --- lines ------------------------------------------------------------- */

/* "inc_cas.constprop.0" -> "inc_cas": GCC's clones keep the source name before the dot. */
static void base_function(const char *in, char *out, size_t len)
{
	const char *dot = strchr(in, '.');

	snprintf(out, len, "%.*s", dot && dot > in ? (int)(dot - in) : (int)strlen(in), in);
}

static int line_entity(struct binder *b, const char *function, const char *file, int line)
{
	struct entity e = { .scope = SCOPE_LINE, .parent = -1 };
	char fn[128];

	if (!file[0] || line <= 0)
		return -1;
	for (int i = 0; i < b->fb->nr_ents; i++) {
		const struct entity *x = &b->fb->ents[i];

		if (x->scope == SCOPE_LINE && x->line == line && !strcmp(x->file, file))
			return i;
	}
	base_function(function, fn, sizeof(fn));
	snprintf(e.function, sizeof(e.function), "%s", fn);
	snprintf(e.file, sizeof(e.file), "%s", file);
	e.line = line;
	return factbase__add(b->fb, &e);
}

/*
 * A faulting line's region, labelled as region_label() labels a data
 * address's: a line the data-address sampler saw no decoded access of
 * (its samples were in the fault handler) still names where it faulted.
 */
static void fault_region_label(const struct profile_region *g, char *buf, size_t len)
{
	switch (g->kind) {
	case REGION_HEAP: snprintf(buf, len, "heap"); break;
	case REGION_STACK: snprintf(buf, len, "stack"); break;
	case REGION_ANON: snprintf(buf, len, "anon"); break;
	case REGION_FILE: snprintf(buf, len, "file %.180s", g->path); break;
	default: snprintf(buf, len, "%.180s", g->path); break;
	}
}

static void bind_profile(struct binder *b)
{
	const struct profile *p = b->r->profile;
	struct factbase *fb = b->fb;

	if (!p)
		return;
	if (p->nr_events > 0 && p->events[0].samples > 0) {
		const struct profile_event *ev = &p->events[0];

		factbase__mark(fb, EV_HOTSPOTS, true, NULL);
		b->total_samples = (double)ev->samples;
		factbase__set(fb, -1, "run.samples", (double)ev->samples, ev->tier);
		factbase__set(fb, -1, "run.threads", p->nr_threads, TIER_SOFTWARE);
		if (!strcmp(ev->unit, "ns") && ev->samples) {
			b->period_ns = ev->est_events / (double)ev->samples;
			factbase__set(fb, -1, "run.sample_period_ns", b->period_ns, ev->tier);
		}
		for (int i = 0; i < p->nr_lines; i++) {
			const struct profile_hotsum *h = &p->lines[i];
			int idx;

			if (h->ev != 0 || h->share < 0.005)
				continue;
			idx = line_entity(b, h->function, h->file, h->line);
			if (idx < 0)
				continue;
			factbase__set(fb, idx, "line.samples", (double)h->samples, ev->tier);
			factbase__set(fb, idx, "line.share", h->share, ev->tier);
		}
		for (int i = 0; i < p->nr_funcs; i++) {
			const struct profile_hotsum *h = &p->funcs[i];
			struct entity e = { .scope = SCOPE_FUNCTION, .parent = -1 };
			int idx;

			if (h->ev != 0 || h->tid || h->share < 0.005 || !h->function[0])
				continue;
			base_function(h->function, e.function, sizeof(e.function));
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

	if (p->faults_measured) {
		double wall = b->r->target.wall_ns / 1e9;

		factbase__mark(fb, EV_FAULTS, true, NULL);
		factbase__set(fb, -1, "run.faults", (double)p->faults, TIER_SOFTWARE);
		if (wall > 0)
			factbase__set(fb, -1, "run.faults_per_s", p->faults / wall, TIER_SOFTWARE);
		for (int i = 0; i < p->nr_sites; i++) {
			const struct profile_fault_site *s = &p->sites[i];
			double have = 0;
			int idx = line_entity(b, s->loc.function, s->loc.file, s->loc.line);

			if (idx < 0)
				continue;
			factbase__get(fb, idx, "line.faults", &have, NULL);
			factbase__set(fb, idx, "line.faults", have + (double)s->count, TIER_SOFTWARE);
			/* the region its faults were in, unless data addresses name one */
			if (!fb->ents[idx].region[0] && s->region >= 0 && s->region < p->nr_regions)
				fault_region_label(&p->regions[s->region], fb->ents[idx].region,
						   sizeof(fb->ents[idx].region));
			if (p->faults)
				factbase__set(fb, idx, "line.fault_share",
					      (have + (double)s->count) / (double)p->faults, TIER_SOFTWARE);
		}
	} else {
		factbase__mark(fb, EV_FAULTS, false, "page faults were not traced");
	}

	if (p->nr_regions > 0) {
		factbase__mark(fb, EV_REGIONS, true, NULL);
		for (int i = 0; i < p->nr_regions; i++) {
			const struct profile_region *g = &p->regions[i];
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
					 g->path[0] ? g->path : profile__region_kind_name(g->kind));
			e.region_start = g->start;
			e.region_len = g->size;
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
				if (g->size)
					factbase__set(fb, idx, "region.faults_per_mib",
						      g->faults / (g->size / 1048576.0), TIER_SOFTWARE);
			}
		}
	} else {
		factbase__mark(fb, EV_REGIONS, false, "no memory regions were captured");
	}
}

/* --- data addresses ------------------------------------------------------ */

/*
 * The struct an access at IP works on: among the types of its function
 * (parameters first), the one whose size is the access stride (an array of
 * it is walked), else the first one with a member at the displacement.
 */
static struct sbind *attribute(struct binder *b, const struct addr_ip *ip, int *member)
{
	struct func_types ft;
	struct sbind *best = NULL;
	int64_t disp = ip->op.disp;
	char fn[128];

	*member = -1;
	base_function(ip->loc.function, fn, sizeof(fn));
	/* RIP-relative: a global variable; find it at its link-time address */
	if (ip->op.rip && b->ct) {
		unsigned long long lo, off;
		char type[128];
		uint64_t ea = ip->op.insn + ip->op.len + (uint64_t)ip->op.disp;

		if (ip->loc.func_start && !codetypes__func_addr(b->ct, fn, &lo) &&
		    !codetypes__global_at(b->ct, ea - (ip->loc.func_start - lo), type, sizeof(type),
					  &off) &&
		    (best = sbind_find(b, type)))
			*member = member_at(best->s, (int64_t)off);
		return best;
	}
	if (!b->ct || codetypes__lookup(b->ct, fn, &ft))
		return NULL;
	/*
	 * the variables' own types before those reached through their members,
	 * and in each a struct the access steps over one by one (stride = size)
	 * before any it fits in
	 */
	for (int pass = 0; pass < 4 && !best; pass++) {
		for (int i = 0; i < ft.nr && !best; i++) {
			struct sbind *sb = sbind_find(b, ft.t[i].name);

			if (!sb || disp < 0 || disp >= (int64_t)sb->s->size || ft.t[i].member != (pass >= 2))
				continue;
			if (!(pass & 1) && !(ip->stride && llabs(ip->stride) == (int64_t)sb->s->size))
				continue;
			int mi = member_at(sb->s, disp);
			const struct ma_member *m;

			if (mi < 0)
				continue;
			/* the access must fit the member: a scalar of the same size */
			m = &sb->s->members[mi];
			if (ip->op.size && (m->size < ip->op.size ||
					    (!(m->flags & MA_M_ARRAY) && !m->nested && m->size != ip->op.size)))
				continue;
			best = sb;
		}
	}
	if (best)
		*member = member_at(best->s, disp);
	return best;
}

static bool insn_has(const struct addr_ip *ip, const char *what)
{
	return strstr(ip->op.text, what) != NULL;
}

/*
 * "heap", "stack", "anon" or "file PATH" for the mapping most of an IP's
 * addresses fell in, among the mappings of A.
 */
static void region_label(const struct addr_profile *a, const struct addr_ip *ip, char *buf,
			 size_t len)
{
	const char *n = ip->top_region;
	bool bss = false;

	/*
	 * The .bss pages past a program's file-backed data are an anonymous
	 * mapping right after its image; shared mappings sit far away (0x7f...),
	 * the brk heap is labelled [heap].  An anonymous region starting within
	 * 64 MiB above the accessing code is taken as the module's .bss.
	 */
	if (!n[0] || !strcmp(n, "anon")) {
		for (int i = 0; i < a->nr_regions && !bss; i++)
			bss = a->regions[i].kind == MAPK_ANON && a->regions[i].samples &&
			      a->regions[i].start > ip->op.insn &&
			      a->regions[i].start - ip->op.insn < (64ULL << 20);
	}
	if (bss && ip->loc.module[0]) {
		snprintf(buf, len, "file %.120s (.bss)", ip->loc.module);
		return;
	}

	/* a RIP-relative access is to a global: the module's data or .bss */
	if (ip->op.rip && ip->loc.module[0])
		snprintf(buf, len, "file %.120s (global data)", ip->loc.module);
	else if (!n[0] || !strcmp(n, "anon"))
		snprintf(buf, len, "anon");
	else if (!strcmp(n, "[heap]"))
		snprintf(buf, len, "heap");
	else if (!strncmp(n, "[stack", 6))
		snprintf(buf, len, "stack");
	else if (n[0] == '[')
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "file %.180s", n);
}

/* Size of the mapping an IP's addresses mostly fell in (anonymous ones have no name). */
static double region_size_named(const struct addr_profile *a, const char *name)
{
	bool anon = !name[0] || !strcmp(name, "anon");
	uint64_t best_samples = 0;
	double size = 0;

	for (int i = 0; i < a->nr_regions; i++) {
		const struct addr_region *g = &a->regions[i];

		if (anon ? g->kind != MAPK_ANON : strcmp(g->name, name))
			continue;
		if (g->samples >= best_samples) {
			best_samples = g->samples;
			size = (double)(g->end - g->start);
		}
	}
	return size;
}

static void bind_addr(struct binder *b)
{
	const struct addr_profile *a = b->r->addr;
	struct factbase *fb = b->fb;
	enum tier t;
	double to_samples;

	if (!a || !a->samples) {
		if (a)
			factbase__mark(fb, EV_ADDR, false, "no data-address samples were taken");
		return;
	}
	t = a->tier;
	factbase__mark(fb, EV_ADDR, true, NULL);
	factbase__set(fb, -1, "run.addr_samples", (double)a->decoded, t);
	factbase__set(fb, -1, "run.shared_lines", a->nr_shared, t);
	if (!b->period_ns && a->period_ns) {
		b->period_ns = (double)a->period_ns;
		factbase__set(fb, -1, "run.sample_period_ns", b->period_ns, t);
	}
	/* address samples in units of profile samples (for gains over run.sample_period_ns) */
	to_samples = b->period_ns > 0 ? a->period_ns / b->period_ns : 1;

	for (int i = 0; i < a->nr_ips; i++) {
		const struct addr_ip *ip = &a->ips[i];
		struct sbind *sb;
		int mi, idx, ment;

		if (!ip->decoded || ip->op.skip != AS_OK)
			continue;
		/* the line */
		idx = line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);
		if (idx >= 0) {
			double prev = 0;
			bool first = factbase__get(fb, idx, "line.addr_samples", &prev, NULL) != 0;

			factbase__set(fb, idx, "line.addr_samples", prev + (double)ip->decoded, t);
			if (!first) { /* the footprint of the line: the widest of its accesses */
				double v;

				if (!factbase__get(fb, idx, "line.pages", &v, NULL) && v < ip->pages)
					factbase__set(fb, idx, "line.pages", (double)ip->pages, t);
				if (!factbase__get(fb, idx, "line.lines", &v, NULL) && v < ip->lines)
					factbase__set(fb, idx, "line.lines", (double)ip->lines, t);
			}
			/*
			 * The profile charges a sample to the line of the IP after the
			 * stalled access (skid); the address samples decode the access
			 * itself: the line's share is the larger of the two.
			 */
			{
				double share = (prev + ip->decoded) / (double)a->samples, ps = 0;

				if (factbase__get(fb, idx, "line.share", &ps, NULL) || ps < share) {
					factbase__set(fb, idx, "line.share", share, t);
					factbase__set(fb, idx, "line.samples",
						      (prev + ip->decoded) * to_samples, t);
				}
			}
			if (first) { /* the IP with most samples describes the line */
				factbase__set(fb, idx, "line.threads", ip->nr_threads, t);
				factbase__set(fb, idx, "line.stride", (double)llabs(ip->stride), t);
				factbase__set(fb, idx, "line.stride_frac", ip->stride_frac, t);
				factbase__set(fb, idx, "line.stride_monotonic", ip->stride_monotonic, t);
				factbase__set(fb, idx, "line.lines", (double)ip->lines, t);
				factbase__set(fb, idx, "line.pages", (double)ip->pages, t);
				/*
				 * Sets are counted on exact addresses only: a load that
				 * overwrites its own base (a pointer chase) leaves them
				 * unknown, not 0.  Line splits of such a load are judged on
				 * the next object's address (see addrsample.c) when no exact
				 * address exists.
				 */
				if (ip->decoded > ip->approx) {
					factbase__set(fb, idx, "line.l1_sets", ip->l1_sets, t);
					factbase__set(fb, idx, "line.split_frac",
						      (double)ip->line_splits /
							      (double)(ip->decoded - ip->approx), t);
				} else if (ip->approx) {
					factbase__set(fb, idx, "line.split_frac",
						      (double)ip->approx_line_splits /
							      (double)ip->approx, t);
				}
				factbase__set(fb, idx, "line.writes", ip->op.write, t);
				factbase__set(fb, idx, "line.access_size", ip->op.size, t);
				factbase__set(fb, idx, "line.locked",
					      insn_has(ip, "lock ") || !strncmp(ip->op.text, "xchg", 4), t);
				factbase__set(fb, idx, "line.true_sharing_threads", ip->op.write ? 1 : 0, t);
				factbase__set(fb, idx, "line.false_sharing", 0, t);
				region_label(a, ip, fb->ents[idx].region, sizeof(fb->ents[0].region));
				factbase__set(fb, idx, "line.cas", insn_has(ip, "cmpxchg"), t);
				factbase__set(fb, idx, "line.nt_store", insn_has(ip, "movnt"), t);
				if (region_size_named(a, ip->top_region) > 0)
					factbase__set(fb, idx, "line.region_bytes",
						      region_size_named(a, ip->top_region), t);
			}
		}
		/* the struct and member it works on */
		sb = attribute(b, ip, &mi);
		if (!sb)
			continue;
		sb->addr_samples += (double)ip->decoded;
		if (!sb->top || ip->decoded > sb->top->decoded)
			sb->top = ip;
		if (ip->stride && (double)ip->decoded > sb->stride_samples) {
			sb->stride = llabs(ip->stride);
			sb->stride_samples = (double)ip->decoded;
		}
		if (mi >= 0) {
			int k;

			for (k = 0; k < sb->nr_hot; k++)
				if (sb->hot_off[k] == sb->s->members[mi].offset)
					break;
			if (k == sb->nr_hot && sb->nr_hot < 64)
				sb->hot_off[sb->nr_hot++] = sb->s->members[mi].offset;
			if (k < 64)
				sb->hot_samples[k] += (double)ip->decoded;
			ment = member_entity(b, sb, mi);
			if (ment >= 0) {
				double prev = 0;

				factbase__get(fb, ment, "member.addr_samples", &prev, NULL);
				factbase__set(fb, ment, "member.addr_samples", prev + ip->decoded, t);
				if (!fb->ents[ment].file[0]) {
					base_function(ip->loc.function, fb->ents[ment].function,
						      sizeof(fb->ents[0].function));
					snprintf(fb->ents[ment].file, sizeof(fb->ents[0].file), "%s",
						 ip->loc.file);
					fb->ents[ment].line = ip->loc.line;
					region_label(a, ip, fb->ents[ment].region, sizeof(fb->ents[0].region));
				}
				factbase__set(fb, ment, "member.writer_threads",
					      ip->op.write ? 1 : 0, t);
				factbase__set(fb, ment, "member.false_sharing", 0, t);
				factbase__set(fb, ment, "member.shared_writes", 0, t);
			}
		}
		if (idx >= 0 && !fb->ents[idx].struct_name[0]) {
			snprintf(fb->ents[idx].struct_name, sizeof(fb->ents[0].struct_name), "%s",
				 sb->s->name);
			if (mi >= 0 && sb->s->members[mi].name)
				snprintf(fb->ents[idx].member, sizeof(fb->ents[0].member), "%s",
					 sb->s->members[mi].name);
		}
	}

	/* hot lines whose sampled instructions access no memory: nothing to see there */
	for (int i = 0; i < a->nr_ips; i++) {
		const struct addr_ip *ip = &a->ips[i];
		double have;
		int idx;

		if (ip->op.skip != AS_NO_MEM && ip->op.skip != AS_LEA)
			continue;
		idx = line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);
		if (idx < 0 || !factbase__get(fb, idx, "line.addr_samples", &have, NULL))
			continue;
		factbase__set(fb, idx, "line.addr_samples", 0, t);
		factbase__set(fb, idx, "line.stride", 0, t);
		factbase__set(fb, idx, "line.stride_frac", 0, t);
		factbase__set(fb, idx, "line.stride_monotonic", 0, t);
		factbase__set(fb, idx, "line.lines", 0, t);
		factbase__set(fb, idx, "line.pages", 0, t);
		factbase__set(fb, idx, "line.l1_sets", 0, t);
		factbase__set(fb, idx, "line.split_frac", 0, t);
		factbase__set(fb, idx, "line.writes", 0, t);
		factbase__set(fb, idx, "line.locked", 0, t);
		factbase__set(fb, idx, "line.cas", 0, t);
		factbase__set(fb, idx, "line.nt_store", 0, t);
		factbase__set(fb, idx, "line.true_sharing_threads", 0, t);
		factbase__set(fb, idx, "line.false_sharing", 0, t);
		if (factbase__get(fb, idx, "line.samples", &have, NULL)) {
			factbase__set(fb, idx, "line.samples", ip->samples * to_samples, t);
			factbase__set(fb, idx, "line.share", ip->samples / (double)a->samples, t);
		}
	}

	/* lines written by two or more threads */
	for (int i = 0; i < a->nr_shared; i++) {
		const struct addr_line *l = &a->shared[i];
		const struct addr_ip *ip = NULL;
		struct sbind *sb;
		uint64_t writes = 0;
		int mi, ment;

		for (int k = 0; k < a->nr_ips && !ip; k++)
			if (a->ips[k].ip == l->ip)
				ip = &a->ips[k];
		if (!ip)
			continue;
		{
			int li = line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);
			double prev = 0;

			if (li >= 0 && l->false_sharing)
				factbase__set(fb, li, "line.false_sharing", 1, t);
			else if (li >= 0 &&
				 (factbase__get(fb, li, "line.true_sharing_threads", &prev, NULL) ||
				  prev < l->nr_threads))
				factbase__set(fb, li, "line.true_sharing_threads", l->nr_threads, t);
		}
		if (!(sb = attribute(b, ip, &mi)) || mi < 0)
			continue;
		ment = member_entity(b, sb, mi);
		if (ment < 0)
			continue;
		for (int k = 0; k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++)
			writes += l->t[k].writes;
		factbase__set(fb, ment, "member.writer_threads", l->nr_threads, t);
		factbase__set(fb, ment, "member.false_sharing", l->false_sharing, t);
		factbase__set(fb, ment, "member.shared_writes", writes * to_samples, t);
		base_function(ip->loc.function, fb->ents[ment].function, sizeof(fb->ents[0].function));
		snprintf(fb->ents[ment].file, sizeof(fb->ents[0].file), "%s", ip->loc.file);
		fb->ents[ment].line = ip->loc.line;
		region_label(a, ip, fb->ents[ment].region, sizeof(fb->ents[0].region));
	}

	/* regions: the data-address samples that fell in each, and its hottest access */
	for (int i = 0; i < fb->nr_ents; i++) {
		struct entity *e = &fb->ents[i];
		const struct addr_ip *best = NULL;
		double n = 0;
		bool anon;

		if (e->scope != SCOPE_REGION || !e->region_len)
			continue;
		for (int k = 0; k < a->nr_regions; k++)
			if (a->regions[k].start < e->region_start + e->region_len &&
			    a->regions[k].end > e->region_start)
				n += (double)a->regions[k].samples;
		factbase__set(fb, i, "region.addr_samples", n, t);
		if (!n)
			continue;
		/*
		 * The code that works on the region: where one mapping of its kind
		 * was hit, the IPs whose addresses fell in that kind; where several
		 * were (two anonymous arrays, say), only IPs whose addresses fell
		 * mostly in this very mapping.
		 */
		int same = 0;

		for (int k = 0; k < a->nr_regions; k++)
			if (a->regions[k].samples &&
			    (!strncmp(e->region, "anon", 4) || !strncmp(e->region, "heap", 4)
				     ? a->regions[k].kind == MAPK_ANON || a->regions[k].kind == MAPK_HEAP
				     : !strcmp(a->regions[k].name, e->region)))
				same++;
		anon = !strncmp(e->region, "anon", 4) || !strncmp(e->region, "heap", 4);
		for (int k = 0; k < a->nr_ips; k++) {
			const struct addr_ip *ip = &a->ips[k];

			if (!ip->decoded || ip->op.skip != AS_OK)
				continue;
			if (same > 1 &&
			    (ip->top_region_samples * 2 < ip->decoded ||
			     ip->top_region_start >= e->region_start + e->region_len ||
			     ip->top_region_end <= e->region_start))
				continue;
			if (anon ? !(ip->region[MAPK_ANON] + ip->region[MAPK_HEAP]) :
				   strcmp(ip->top_region, e->region))
				continue;
			if (!best || ip->decoded > best->decoded)
				best = ip;
		}
		if (best) {
			struct sbind *sb;
			int mi;

			base_function(best->loc.function, e->function, sizeof(e->function));
			snprintf(e->file, sizeof(e->file), "%s", best->loc.file);
			e->line = best->loc.line;
			sb = attribute(b, best, &mi);
			if (sb) {
				snprintf(e->struct_name, sizeof(e->struct_name), "%s", sb->s->name);
				if (mi >= 0 && sb->s->members[mi].name)
					snprintf(e->member, sizeof(e->member), "%s", sb->s->members[mi].name);
			}
		}
	}

	/* struct facts from what was attributed */
	for (int i = 0; i < b->nr_sb; i++) {
		struct sbind *sb = &b->sb[i];
		double bytes = 0;
		uint64_t lines_mask = 0;
		int nr_lines = 0;

		if (!sb->addr_samples)
			continue; /* not worked on: no entity, no rule can fire on it */
		if (struct_entity(b, sb) < 0)
			continue;
		factbase__set(fb, sb->ent, "struct.addr_samples", sb->addr_samples, t);
		factbase__set(fb, sb->ent, "struct.stride", (double)sb->stride, t);
		/*
		 * Hot members: those the hot loop touches with a real share of its
		 * accesses. The hot loop is the function of the struct's busiest
		 * access; set-up code elsewhere that writes every member once per
		 * element (a few samples on a cold member) does not make it hot.
		 */
		double base = sb->addr_samples;

		if (sb->top) {
			double in_fn[64] = { 0 }, fn_total = 0;
			char top_fn[128], fn[128];

			base_function(sb->top->loc.function, top_fn, sizeof(top_fn));
			for (int i = 0; i < a->nr_ips; i++) {
				const struct addr_ip *ip = &a->ips[i];
				int mi;

				if (!ip->decoded || ip->op.skip != AS_OK)
					continue;
				base_function(ip->loc.function, fn, sizeof(fn));
				if (strcmp(fn, top_fn) || attribute(b, ip, &mi) != sb)
					continue;
				fn_total += (double)ip->decoded;
				for (int k = 0; mi >= 0 && k < sb->nr_hot; k++)
					if (sb->hot_off[k] == sb->s->members[mi].offset)
						in_fn[k] += (double)ip->decoded;
			}
			if (fn_total > 0) {
				memcpy(sb->hot_samples, in_fn, sizeof(in_fn));
				base = fn_total;
			}
		}
		for (int k = 0; k < sb->nr_hot; k++) {
			if (sb->hot_samples[k] < 0.02 * base) {
				sb->hot_off[k] = sb->hot_off[sb->nr_hot - 1];
				sb->hot_samples[k] = sb->hot_samples[sb->nr_hot - 1];
				sb->nr_hot--;
				k--;
			}
		}
		for (int k = 0; k < sb->nr_hot; k++) {
			int mi = member_at(sb->s, (int64_t)sb->hot_off[k]);
			uint64_t li = b->line ? sb->hot_off[k] / b->line : 0;

			if (mi >= 0)
				bytes += (double)sb->s->members[mi].size;
			if (li < 64 && !(lines_mask & (1ULL << li))) {
				lines_mask |= 1ULL << li;
				nr_lines++;
			}
		}
		if (sb->top) {
			struct entity *e = &fb->ents[sb->ent];
			size_t off = 0;

			base_function(sb->top->loc.function, e->function, sizeof(e->function));
			snprintf(e->file, sizeof(e->file), "%s", sb->top->loc.file);
			e->line = sb->top->loc.line;
			region_label(a, sb->top, e->region, sizeof(e->region));
			/* the members the accesses hit, in declaration order */
			for (int m = 0; m < sb->s->nr_members; m++) {
				for (int k = 0; k < sb->nr_hot; k++) {
					if (sb->hot_off[k] != sb->s->members[m].offset ||
					    !sb->s->members[m].name || off >= sizeof(e->member))
						continue;
					off += snprintf(e->member + off, sizeof(e->member) - off, "%s%s",
							off ? ", " : "", sb->s->members[m].name);
					break;
				}
			}
			free(e->split_text);
			e->split_text = split_decl(sb);
			free(e->hot_text);
			e->hot_text = hot_decl(b, sb);
		}
		factbase__set(fb, sb->ent, "struct.hot_members", sb->nr_hot, t);
		factbase__set(fb, sb->ent, "struct.hot_bytes", bytes, t);
		factbase__set(fb, sb->ent, "struct.hot_lines", nr_lines, t);
	}
}

/* struct.hot / samples / share: from attributed data addresses, else hot functions' types. */
static void bind_struct_heat(struct binder *b)
{
	struct factbase *fb = b->fb;
	const struct profile *p = b->r->profile;
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
		base_function(p->funcs[k].function, fn, sizeof(fn));
		if (codetypes__lookup(b->ct, fn, &hot_ft[nr_hot_ft]))
			continue;
		hot_samples[nr_hot_ft++] = (double)p->funcs[k].samples;
	}
	for (int i = 0; i < b->nr_sb; i++) {
		struct sbind *sb = &b->sb[i];
		enum tier t = addr ? b->r->addr->tier : TIER_SOFTWARE;

		if (addr) {
			if (!sb->addr_samples || struct_entity(b, sb) < 0)
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
			if (!sb->samples || struct_entity(b, sb) < 0)
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

static void bind_sim(struct binder *b)
{
	const struct sim_report *s = b->r->sim;
	struct factbase *fb = b->fb;

	if (!s)
		return;
	factbase__mark(fb, EV_SIM, true, NULL);
	factbase__set(fb, -1, "sim.refs", (double)(s->total[SIM_DR] + s->total[SIM_DW]), s->tier);
	factbase__set(fb, -1, "sim.d1_misses", (double)(s->total[SIM_D1MR] + s->total[SIM_D1MW]),
		      s->tier);
	factbase__set(fb, -1, "sim.ll_misses", (double)(s->total[SIM_DLMR] + s->total[SIM_DLMW]),
		      s->tier);
	factbase__set(fb, -1, "sim.d1_miss_ratio", s->l1d_miss_ratio, s->tier);
	if (s->has[SIM_BC]) {
		factbase__set(fb, -1, "sim.branches", (double)(s->total[SIM_BC] + s->total[SIM_BI]),
			      s->tier);
		factbase__set(fb, -1, "sim.branch_misses",
			      (double)(s->total[SIM_BCM] + s->total[SIM_BIM]), s->tier);
	}
	for (int i = 0; i < s->nr_lines; i++) {
		const struct sim_line *l = &s->lines[i];
		int idx = line_entity(b, l->function, l->file, l->line);

		if (idx < 0)
			continue;
		factbase__set(fb, idx, "line.sim_refs", (double)(l->ev[SIM_DR] + l->ev[SIM_DW]), s->tier);
		factbase__set(fb, idx, "line.sim_d1_misses", (double)(l->ev[SIM_D1MR] + l->ev[SIM_D1MW]),
			      s->tier);
		factbase__set(fb, idx, "line.sim_ll_misses", (double)(l->ev[SIM_DLMR] + l->ev[SIM_DLMW]),
			      s->tier);
		if (s->has[SIM_BC]) {
			factbase__set(fb, idx, "line.sim_branches", (double)(l->ev[SIM_BC] + l->ev[SIM_BI]),
				      s->tier);
			factbase__set(fb, idx, "line.sim_branch_misses",
				      (double)(l->ev[SIM_BCM] + l->ev[SIM_BIM]), s->tier);
		}
	}
}

/* "shared_counters[1].count" -> symbol "shared_counters", member "count". */
static bool split_watch_name(const char *name, char *sym, size_t slen, char *member, size_t mlen)
{
	size_t n = strcspn(name, ".[");
	const char *m;

	if (!n || n >= slen)
		return false;
	snprintf(sym, slen, "%.*s", (int)n, name);
	m = name + n;
	if (*m == '[')
		m = strchr(m, ']') ? strchr(m, ']') + 1 : m + strlen(m);
	if (*m != '.')
		return false;
	m++;
	snprintf(member, mlen, "%.*s", (int)strcspn(m, ".["), m);
	return member[0] != '\0';
}

static void bind_watch(struct binder *b)
{
	const struct watch_report *w = b->r->watch;
	struct factbase *fb = b->fb;

	if (!w)
		return;
	factbase__mark(fb, EV_WATCH, true, NULL);
	factbase__set(fb, -1, "run.watch_hits", (double)w->total_hits, w->tier);
	/* members of global structs that watched lines show written by several threads */
	for (int i = 0; i < w->nr_lines; i++) {
		const struct watch_line *l = &w->lines[i];

		for (int k = 0; k < l->nr_points; k++) {
			const struct watch_point *pt = &w->pts[l->points[k]];
			char sym[128], member[128], type[128];
			const struct ma_member *m;
			struct sbind *sb;
			int ment;

			if (!split_watch_name(pt->spec.name, sym, sizeof(sym), member, sizeof(member)) ||
			    codetypes__global_type(b->ct, sym, type, sizeof(type)) ||
			    !(sb = sbind_find(b, type)) || !(m = ma_struct__find_member(sb->s, member)) ||
			    m < sb->s->members || m >= sb->s->members + sb->s->nr_members)
				continue;
			ment = member_entity(b, sb, (int)(m - sb->s->members));
			if (ment < 0)
				continue;
			factbase__set(fb, ment, "member.watch_hits", (double)pt->hits, w->tier);
			factbase__set(fb, ment, "member.watch_threads", l->writer_threads, w->tier);
			factbase__set(fb, ment, "member.writer_threads", l->writer_threads, w->tier);
			factbase__set(fb, ment, "member.false_sharing", l->false_sharing, w->tier);
			if (pt->nr_ips && !fb->ents[ment].file[0]) {
				base_function(pt->ips[0].loc.function, fb->ents[ment].function,
					      sizeof(fb->ents[0].function));
				snprintf(fb->ents[ment].file, sizeof(fb->ents[0].file), "%s",
					 pt->ips[0].loc.file);
				fb->ents[ment].line = pt->ips[0].loc.line;
			}
			if (!fb->ents[ment].region[0])
				snprintf(fb->ents[ment].region, sizeof(fb->ents[0].region),
					 "file (global %.100s)", sym);
		}
	}
}

/* Lines known from one source only (a fault site, the simulation) were not hot in the others. */
static void bind_line_defaults(struct binder *b)
{
	struct factbase *fb = b->fb;
	static const char *const addr_zero[] = {
		"line.addr_samples", "line.stride", "line.stride_frac", "line.stride_monotonic",
		"line.lines", "line.pages", "line.l1_sets", "line.split_frac",
		"line.writes", "line.locked", "line.cas", "line.nt_store", "line.false_sharing",
		"line.true_sharing_threads",
	};
	double v;

	for (int i = 0; i < fb->nr_ents; i++) {
		if (fb->ents[i].scope != SCOPE_LINE)
			continue;
		if ((fb->have[EV_HOTSPOTS] || fb->have[EV_ADDR]) &&
		    factbase__get(fb, i, "line.samples", &v, NULL)) {
			factbase__set(fb, i, "line.samples", 0, TIER_SOFTWARE);
			factbase__set(fb, i, "line.share", 0, TIER_SOFTWARE);
		}
		if (fb->have[EV_ADDR] && factbase__get(fb, i, "line.addr_samples", &v, NULL))
			for (size_t k = 0; k < ARRAY_SIZE(addr_zero); k++)
				factbase__set(fb, i, addr_zero[k], 0, b->r->addr->tier);
		if (fb->have[EV_FAULTS] && factbase__get(fb, i, "line.faults", &v, NULL)) {
			factbase__set(fb, i, "line.faults", 0, TIER_SOFTWARE);
			factbase__set(fb, i, "line.fault_share", 0, TIER_SOFTWARE);
		}
	}
}

void bind__sections(const struct rules_input *in, struct factbase *fb)
{
	struct binder b = { .r = in->snapshot, .fb = fb, .layouts = in->layouts, .line = 64 };
	double v;

	if (!factbase__get(fb, -1, "machine.line_size", &v, NULL) && v > 0)
		b.line = (uint32_t)v;
	bind_layout(&b);
	bind_profile(&b);
	bind_addr(&b);
	bind_struct_heat(&b);
	/* nothing sampled: every struct, for rules on static layout alone */
	if (!fb->have[EV_HOTSPOTS] && !fb->have[EV_ADDR])
		for (int i = 0; i < b.nr_sb; i++)
			struct_entity(&b, &b.sb[i]);
	bind_sim(&b);
	bind_watch(&b);
	bind_line_defaults(&b);
	for (int i = 0; i < b.nr_sb; i++)
		free(b.sb[i].member_ent);
	free(b.sb);
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
