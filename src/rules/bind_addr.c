// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data addresses (addr.h): strides, pages, lines shared by threads -> line
 * facts, and struct and member facts through the types the sampled
 * function works on (codetypes.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/bind_int.h"
#include "base/util.h"
#include "layout/layout.h"
#include "model/addr.h"
#include "model/sampling.h"
#include "model/streams.h"
#include "symbols/codetypes.h"
#include "symbols/decode.h"


/*
 * Whether IP's walk goes in order: from its address stream when one was
 * recorded with enough deltas (at least nine in ten one way), else from the
 * samples (addr_ip__in_order), which cannot tell a sweep repeated faster
 * than they come from random order.
 */
static bool in_order(const struct binder *b, const struct addr_ip *ip)
{
	const struct streams_report *s = b->r->streams;

	for (int i = 0; s && i < s->nr_ips; i++) {
		const struct stream_ip *x = &s->ips[i];
		uint64_t moves = x->forward + x->backward;

		if (x->insn != ip->op.insn || x->pid != ip->pid || x->skip != STREAM_OK ||
		    moves < STREAM_ORDER_MIN_DELTAS)
			continue;
		return stream_ip__in_order(x);
	}
	return addr_ip__in_order(ip);
}

static bool insn_has(const struct addr_ip *ip, const char *what)
{
	return strstr(ip->op.text, what) != NULL;
}

/*
 * "heap", "stack", "anon" or "file PATH" for the mapping most of an IP's
 * addresses fell in, among the mappings of A.
 */
static void region_label(const struct addr_report *a, const struct addr_ip *ip, char *buf,
			 size_t len)
{
	const char *n = ip->top_region;
	bool bss = false;

	/*
	 * The .bss pages past a program's file-backed data are an anonymous
	 * mapping right after its image; shared mappings sit far away (0x7f...),
	 * the brk heap is labelled [heap].  The anonymous region the IP's
	 * addresses mostly fell in, when it starts within 64 MiB above the
	 * accessing code, is taken as the module's .bss (another region near
	 * the code says nothing of this one).
	 */
	if (!n[0] || !strcmp(n, "anon")) {
		for (int i = 0; i < a->nr_regions && !bss; i++)
			bss = a->regions[i].kind == MAPK_ANON && a->regions[i].samples &&
			      a->regions[i].start == ip->top_region_start &&
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
static double region_size_named(const struct addr_report *a, const char *name)
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

/* The IP with most samples on a line describes it: stride, footprint, kind of access. */
/*
 * Whether IP's indexed access began its array at one place modulo the
 * sets' span in its exact samples (addr_ip.origin_off): all of 3 or more (a
 * base that moves would put the next two anywhere in the 4096 bytes: the
 * same byte twice by chance, 6e-8), or 9 in 10 of 8 or more.
 */
static bool addr_same_loop(const struct addr_ip *top, const struct addr_ip *ip);

static bool origin_fixed(const struct addr_ip *ip)
{
	return (ip->origin_n >= 3 && ip->origin_same == ip->origin_n) ||
	       (ip->origin_n >= 8 && ip->origin_same * 10 >= ip->origin_n * 9);
}

/*
 * Arrays walked together that begin in one L1d set: the distinct arrays
 * (base register and the line of its displacement; an access whose loop
 * loads its base from memory, one array after the other each pass, counts
 * the base values it was seen with) of the accesses in IP's loop, in its
 * function, whose origin is fixed and within half a line of
 * IP's (modulo the sets' span: then they share a set at more than half of
 * the indices; x[i - 1] is 8 bytes before x[i]).  An index that steps them
 * all alike keeps them together: more of them than a set has ways evict
 * each other's lines before the next elements of those lines are read (18
 * planes of doubles 1 MiB apart in a lattice update, each line read 8
 * times).  -1 when IP has no fixed origin.
 */
static int addr_origin_streams(const struct addr_report *a, const struct addr_ip *ip,
			       int line_size)
{
	int64_t span = (int64_t)line_size * a->l1_sets;

	struct { int base; int64_t line; int arrays; } seen[64];
	char fn[128], other[128];
	int n = 0, arrays = 0;

	if (!origin_fixed(ip) || line_size <= 0 || span <= 0)
		return -1;
	bind__base_function(ip->loc.function, fn, sizeof(fn));
	for (int i = 0; i < a->nr_ips && n < (int)ARRAY_SIZE(seen); i++) {
		const struct addr_ip *x = &a->ips[i];
		int k;

		int64_t d = ((int64_t)x->origin_off - (int64_t)ip->origin_off) % span;

		if (d < 0)
			d += span;
		if (d > span / 2)
			d = span - d;	/* circular: 8 bytes before 0 is 4088 */
		/*
		 * in its loop; where the loop was not found (a body longer than
		 * the decoder scans), in the function, among accesses whose loop
		 * was not found either
		 */
		if (x->pid != ip->pid || !origin_fixed(x) || 2 * d >= line_size ||
		    (ip->loop_hi ? !addr_same_loop(ip, x) : x->loop_hi != 0))
			continue;
		bind__base_function(x->loc.function, other, sizeof(other));
		if (strcmp(fn, other))
			continue;
		for (k = 0; k < n && !(seen[k].base == x->op.base &&
				       seen[k].line == x->op.disp / line_size); k++)
			;
		if (k == n) {
			seen[n].base = x->op.base;
			seen[n].line = x->op.disp / line_size;
			seen[n++].arrays = x->op.reloads_base && x->origin_bases ?
					   (int)x->origin_bases : 1;
		} else if (x->op.reloads_base && (int)x->origin_bases > seen[k].arrays) {
			seen[k].arrays = (int)x->origin_bases;
		}
	}
	for (int k = 0; k < n; k++)
		arrays += seen[k].arrays;
	return arrays;
}

static void addr_describe_line(struct binder *b, const struct addr_report *a,
			       const struct addr_ip *ip, int idx)
{
	struct factbase *fb = b->fb;
	enum tier t = a->tier;
	int streams;

	factbase__set(fb, idx, "line.threads", ip->nr_threads, t);
	factbase__set(fb, idx, "line.stride", (double)llabs(ip->stride), t);
	factbase__set(fb, idx, "line.stride_frac", ip->stride_frac, t);
	factbase__set(fb, idx, "line.stride_monotonic", ip->stride_monotonic, t);
	factbase__set(fb, idx, "line.in_order", in_order(b, ip), t);
	factbase__set(fb, idx, "line.elem_stride", 0, t);
	factbase__set(fb, idx, "line.chained", ip->op.chained, t);
	/* the walk of the whole line when its IPs were pooled (addrsample's pool_line_spans) */
	factbase__set(fb, idx, "line.span_lines", ip->line_span_samples ? ip->line_span_lines :
		      addr__random_span(ip->decoded, ip->lines), t);
	factbase__set(fb, idx, "line.random_pages", ip->line_span_samples ? ip->line_span_pages :
		      addr__random_span(ip->decoded, ip->pages), t);
	/* the huge-page share of the mapping its addresses mostly fell in */
	if (b->r->sampling)
		for (int r = 0; r < b->r->sampling->nr_regions; r++) {
			const struct sampling_region *g = &b->r->sampling->regions[r];

			if (g->has_smaps && g->size && ip->top_region_start >= g->start &&
			    ip->top_region_start < g->start + g->size) {
				factbase__set(fb, idx, "line.region_thp_share",
					      (double)g->anon_huge / (double)g->size, t);
				break;
			}
		}
	if (isfinite(addr__random_span_max(ip->decoded, ip->lines)))
		factbase__set(fb, idx, "line.span_lines_max",
			      addr__random_span_max(ip->decoded, ip->lines), t);
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
			      (double)ip->line_splits / (double)(ip->decoded - ip->approx), t);
	} else if (ip->approx) {
		factbase__set(fb, idx, "line.split_frac",
			      (double)ip->approx_line_splits / (double)ip->approx, t);
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
	if (ip->nr_sib > 0)
		factbase__set(fb, idx, "line.loop_fill",
			      addrsample__span_union(ip->sib_disp, ip->sib_size, ip->nr_sib), t);
	if ((streams = addr_origin_streams(a, ip, b->line)) >= 0)
		factbase__set(fb, idx, "line.origin_streams", streams, t);
	if (region_size_named(a, ip->top_region) > 0)
		factbase__set(fb, idx, "line.region_bytes", region_size_named(a, ip->top_region), t);
}

/* The line of a decoded access: its samples, share and footprint.  Its entity or -1. */
static int addr_bind_line(struct binder *b, const struct addr_report *a,
			  const struct addr_ip *ip, double to_samples)
{
	struct factbase *fb = b->fb;
	enum tier t = a->tier;
	double prev = 0, share, ps = 0;
	bool first;
	int idx = binder__line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);

	if (idx < 0)
		return idx;
	first = factbase__get(fb, idx, "line.addr_samples", &prev, NULL) != 0;
	factbase__set(fb, idx, "line.addr_samples", prev + (double)ip->decoded, t);
	if (!first) { /* the footprint of the line: the widest of its accesses */
		double v;

		if (!factbase__get(fb, idx, "line.pages", &v, NULL) && v < ip->pages)
			factbase__set(fb, idx, "line.pages", (double)ip->pages, t);
		/*
		 * the sets are those of the same access as the lines: the
		 * lines of one instruction against the sets of another (a
		 * filter's 9 input lines against its coefficients' one set)
		 * would look like lines crowding into one set
		 */
		if (!factbase__get(fb, idx, "line.lines", &v, NULL) && v < ip->lines) {
			factbase__set(fb, idx, "line.lines", (double)ip->lines, t);
			if (ip->decoded > ip->approx)
				factbase__set(fb, idx, "line.l1_sets", ip->l1_sets, t);
		}
	}
	/*
	 * The profile charges a sample to the line of the IP after the
	 * stalled access (skid); the address samples decode the access
	 * itself: the line's share is the larger of the two.
	 */
	share = (prev + ip->decoded) / (double)a->samples;
	if (factbase__get(fb, idx, "line.share", &ps, NULL) || ps < share) {
		factbase__set(fb, idx, "line.share", share, t);
		factbase__set(fb, idx, "line.samples", (prev + ip->decoded) * to_samples, t);
	}
	/*
	 * The bytes a store's exact addresses covered over the whole run
	 * (its most sampled store on the line): the buffer it writes, whole,
	 * where a burst sees only a stretch of it.
	 */
	if (ip->op.write && !ip->op.read && ip->ea_max > ip->ea_min && ip->decoded > ip->approx) {
		double n = (double)(ip->decoded - ip->approx), v;

		if (factbase__get(fb, idx, "line.store_samples", &v, NULL) || v < n) {
			double span = (double)(ip->ea_max - ip->ea_min) + ip->op.size;

			factbase__set(fb, idx, "line.store_samples", n, t);
			factbase__set(fb, idx, "line.store_span", span, t);
			/*
			 * N samples uniform over a buffer of B bytes all fall in
			 * some stretch of S bytes with probability about
			 * N (S/B)^(N-1): the largest B that leaves that at 1 in
			 * 1000 bounds the buffer from above
			 */
			if (n >= 3)
				factbase__set(fb, idx, "line.store_span_max",
					      span / pow(0.001 / n, 1 / (n - 1)), t);
		}
	}
	if (first) /* the IP with most samples describes the line */
		addr_describe_line(b, a, ip, idx);
	return idx;
}

/*
 * line.no_address_share: of a line's memory samples, the share that gave
 * no address (a load that overwrote its index, or a narrow load into its
 * base).  Where it is high, the address facts of the line describe only
 * what is left, and rules that need them cannot judge it.
 */
static void addr_bind_no_address(struct binder *b, const struct addr_report *a)
{
	struct factbase *fb = b->fb;
	int *idx = xcalloc((size_t)a->nr_ips + 1, sizeof(*idx));
	double *none, *with;

	/* decoded IPs' lines exist already: this finds them, and adds addressless ones */
	for (int i = 0; i < a->nr_ips; i++) {
		const struct addr_ip *ip = &a->ips[i];

		idx[i] = -1;
		if (ip->op.skip == AS_OK && (ip->no_addr || ip->decoded))
			idx[i] = binder__line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);
	}
	none = xcalloc((size_t)fb->nr_ents + 1, sizeof(*none));
	with = xcalloc((size_t)fb->nr_ents + 1, sizeof(*with));
	for (int i = 0; i < a->nr_ips; i++) {
		int e = idx[i];

		if (e < 0 || e >= fb->nr_ents)
			continue;
		none[e] += (double)a->ips[i].no_addr;
		with[e] += (double)a->ips[i].decoded;
	}
	for (int e = 0; e < fb->nr_ents; e++)
		if (none[e] > 0)
			factbase__set(fb, e, "line.no_address_share", none[e] / (none[e] + with[e]),
				      a->tier);
	/*
	 * a line none of whose samples gave an address still has its code:
	 * whether its busiest access follows a chain (the streams may give
	 * the addresses)
	 */
	for (int e = 0; e < fb->nr_ents; e++) {
		const struct addr_ip *top = NULL;
		double v;

		if (!none[e] || with[e] || !factbase__get(fb, e, "line.chained", &v, NULL))
			continue;
		for (int i = 0; i < a->nr_ips; i++)
			if (idx[i] == e && (!top || a->ips[i].no_addr > top->no_addr))
				top = &a->ips[i];
		if (top)
			factbase__set(fb, e, "line.chained", top->op.chained, a->tier);
	}
	free(idx);
	free(none);
	free(with);
}

/* The member MI of SB a decoded access hit: its samples, and where it is accessed. */
static void addr_bind_member(struct binder *b, const struct addr_report *a,
			     const struct addr_ip *ip, struct sbind *sb, int mi)
{
	struct factbase *fb = b->fb;
	enum tier t = a->tier;
	double prev = 0;
	int k, ment;

	for (k = 0; k < sb->nr_hot; k++)
		if (sb->hot_off[k] == sb->s->members[mi].offset)
			break;
	if (k == sb->nr_hot && sb->nr_hot < 64)
		sb->hot_off[sb->nr_hot++] = sb->s->members[mi].offset;
	if (k < 64)
		sb->hot_samples[k] += (double)ip->decoded;
	ment = binder__member_entity(b, sb, mi);
	if (ment < 0)
		return;
	factbase__get(fb, ment, "member.addr_samples", &prev, NULL);
	factbase__set(fb, ment, "member.addr_samples", prev + ip->decoded, t);
	if (!fb->ents[ment].file[0]) {
		bind__base_function(ip->loc.function, fb->ents[ment].function,
				    sizeof(fb->ents[0].function));
		snprintf(fb->ents[ment].file, sizeof(fb->ents[0].file), "%s", ip->loc.file);
		fb->ents[ment].line = ip->loc.line;
		region_label(a, ip, fb->ents[ment].region, sizeof(fb->ents[0].region));
	}
	factbase__set(fb, ment, "member.writer_threads", ip->op.write ? 1 : 0, t);
	factbase__set(fb, ment, "member.reader_threads", 0, t);
	factbase__set(fb, ment, "member.false_sharing", 0, t);
	factbase__set(fb, ment, "member.shared_writes", 0, t);
	factbase__set(fb, ment, "member.shared_reads", 0, t);
}

/*
 * Where the objects of SB an access to member MI hits begin in their line:
 * its exact addresses by offset in the line, less the member's offset.
 * For an indexed access only when its stride is a multiple of their size
 * (else the index walks something else, an array a member points to).
 */
static void addr_place_objects(struct binder *b, const struct addr_ip *ip, struct sbind *sb,
			       int mi, int idx)
{
	uint32_t line = b->line;
	uint64_t moff = sb->s->members[mi].offset;

	if (!line || line > ADDR_LINE_OFF_MAX || !sb->s->size || ip->op.clobbers)
		return;
	/* an index steps through something: the struct's objects only if by their size */
	if (ip->op.index >= 0 && !(ip->stride && llabs(ip->stride) % (int64_t)sb->s->size == 0))
		return;
	for (uint32_t k = 0; k < line; k++)
		if (ip->line_off[k])
			sb->base_off[(k + line - moff % line) % line] += (double)ip->line_off[k];
	if (idx < 0 || sb->s->size > line)
		return; /* the placement facts: of objects that fit a line */
	for (int i = 0; i < sb->nr_line_ent; i++)
		if (sb->line_ent[i] == idx)
			return;
	if (sb->nr_line_ent < (int)ARRAY_SIZE(sb->line_ent))
		sb->line_ent[sb->nr_line_ent++] = idx;
}

/*
 * Member offset OFF of SB is hot: the hot loop's code reaches it (sampled or
 * not); TOGETHER: the busiest access's loop does.
 */
static void addr_mark_hot(struct sbind *sb, uint64_t off, bool together)
{
	int k;

	for (k = 0; k < sb->nr_hot && sb->hot_off[k] != off; k++)
		;
	if (k == sb->nr_hot) {
		if (sb->nr_hot == 64)
			return;
		sb->hot_off[sb->nr_hot] = off;
		sb->hot_samples[sb->nr_hot++] = 0;
	}
	sb->code_hot[k] = true;
	sb->together[k] |= together;
}

/*
 * The other members the loop around the access reaches through the same
 * pointer (addr_ip.sib_disp): hot too.  The first access to an object takes
 * its miss and the samples; the loads after it hit and are seldom sampled,
 * so the samples alone would call them cold.  Walking the struct one by one
 * (stride = size), a displacement past it is the same member of the next
 * object.
 */
static void addr_mark_siblings(const struct addr_ip *ip, int64_t stride, struct sbind *sb,
			       int mi, bool together)
{
	int64_t size = (int64_t)sb->s->size;
	bool stepped = bind__steps_over(ip, stride, size);
	int64_t at = bind__elem_offset(sb->s, ip, stepped);

	/* where the access lands when it lands in its member, else the member's start */
	if (at < (int64_t)sb->s->members[mi].offset ||
	    at >= (int64_t)(sb->s->members[mi].offset + sb->s->members[mi].size))
		at = (int64_t)sb->s->members[mi].offset;
	for (int i = 0; i < ip->nr_sib && size > 0; i++) {
		int64_t off = at + (ip->sib_disp[i] - ip->op.disp);
		int64_t end;

		if (stepped)
			off = ((off % size) + size) % size;
		if (off < 0 || off >= size)
			continue;
		end = off + (ip->sib_size[i] ? ip->sib_size[i] : 1);
		for (int k = 0; k < sb->s->nr_members; k++) {
			const struct ma_member *m = &sb->s->members[k];
			int64_t ms = (int64_t)m->offset, me = ms + (int64_t)(m->size ? m->size : 1);

			if (ms < end && me > off)
				addr_mark_hot(sb, m->offset, together);
		}
	}
}

/* The struct and member a decoded access works on; IDX is its line's entity (or -1). */
static bool addr_bind_struct(struct binder *b, const struct addr_report *a,
			     const struct addr_ip *ip, int idx)
{
	struct factbase *fb = b->fb;
	struct sbind *sb;
	double stride;
	int64_t walk = bind__walk_stride(b, ip);
	int mi;

	sb = bind__attribute(b, ip, &mi);
	if (!sb)
		return false;
	sb->addr_samples += (double)ip->decoded;
	if (b->alt) {
		sb->ambiguous_samples += (double)ip->decoded;
		if ((double)ip->decoded > sb->alt_samples) {
			sb->alt = b->alt;
			sb->alt_samples = (double)ip->decoded;
		}
	}
	if (!sb->top || ip->decoded > sb->top->decoded)
		sb->top = ip;
	double span = ip->line_span_samples ? ip->line_span_lines :
		      addr__random_span(ip->decoded, ip->lines);

	if (isfinite(span) && span > sb->span_lines)
		sb->span_lines = span;
	/* the extent of the objects walked: accesses that step over them one by one */
	if (ip->ea_max && !ip->op.clobbers && sb->s->size &&
	    (uint64_t)llabs(walk) == sb->s->size) {
		if (!sb->ea_max || ip->ea_min < sb->ea_min)
			sb->ea_min = ip->ea_min;
		if (ip->ea_max > sb->ea_max)
			sb->ea_max = ip->ea_max;
		if (ip->thread_extent > sb->thread_extent)
			sb->thread_extent = ip->thread_extent;
	}
	if (walk && (double)ip->decoded > sb->stride_samples) {
		sb->stride = llabs(walk);
		sb->stride_samples = (double)ip->decoded;
		sb->order_sigma = addr_ip__order_sigma(ip);
		sb->in_order = in_order(b, ip);
		sb->order_insn = ip->op.insn;
		sb->order_pid = ip->pid;
	}
	if (mi >= 0) {
		uint64_t from = sb->s->members[mi].offset, to = from + ip->op.size;

		addr_bind_member(b, a, ip, sb, mi);
		/* a wide access covers the next members too */
		for (int k = mi + 1; k < sb->s->nr_members && ip->op.size > sb->s->members[mi].size;
		     k++)
			if (sb->s->members[k].offset >= from && sb->s->members[k].offset < to &&
			    sb->s->members[k].offset > sb->s->members[mi].offset)
				addr_bind_member(b, a, ip, sb, k);
		addr_place_objects(b, ip, sb, mi, idx);
	}
	/* the line's stride is the size of the struct it reads: an array of them, element by element */
	if (idx >= 0 && ip->stride && sb->s->size &&
	    !factbase__get(fb, idx, "line.stride", &stride, NULL) &&
	    (uint64_t)stride == sb->s->size && (uint64_t)llabs(ip->stride) == sb->s->size)
		factbase__set(fb, idx, "line.elem_stride", 1, a->tier);
	/* a member the layout puts off its natural alignment (a packed struct's) */
	if (idx >= 0 && mi >= 0) {
		const struct ma_member *m = &sb->s->members[mi];
		double was = 0;

		if (factbase__get(fb, idx, "line.member_misaligned", &was, NULL) || !was)
			factbase__set(fb, idx, "line.member_misaligned",
				      m->align > 1 && m->offset % m->align != 0, TIER_STATIC);
	}
	if (idx >= 0 && !fb->ents[idx].struct_name[0]) {
		snprintf(fb->ents[idx].struct_name, sizeof(fb->ents[0].struct_name), "%s",
			 sb->s->name);
		factbase__set(fb, idx, "line.bind_ambiguous", b->alt != NULL, a->tier);
		if (b->alt)
			snprintf(fb->ents[idx].alt_struct, sizeof(fb->ents[0].alt_struct), "%s",
				 b->alt->s->name);
		if (mi >= 0 && sb->s->members[mi].name)
			snprintf(fb->ents[idx].member, sizeof(fb->ents[0].member), "%s",
				 sb->s->members[mi].name);
	}
	return true;
}

/*
 * Accesses tied to no struct that fall inside an array of structs walked
 * one by one (its lowest to highest sampled address): the same loop's
 * other loads (p[k] through a pointer to a member) work on its elements.
 * Their samples count for the struct's weight; their members stay unknown.
 */
static void addr_bind_array_walkers(struct binder *b, const struct addr_report *a,
				    const bool *tied)
{
	for (int i = 0; i < b->nr_sb; i++) {
		struct sbind *sb = &b->sb[i];
		char top_fn[128], fn[128];

		if (!sb->top || !sb->ea_max || !sb->s->size || sb->stride != (int64_t)sb->s->size)
			continue;
		bind__base_function(sb->top->loc.function, top_fn, sizeof(top_fn));
		for (int k = 0; k < a->nr_ips; k++) {
			const struct addr_ip *ip = &a->ips[k];

			if (tied[k] || !ip->decoded || ip->op.skip != AS_OK || !ip->ea_max ||
			    ip->op.clobbers || ip->ea_min < sb->ea_min ||
			    ip->ea_max > sb->ea_max + sb->s->size)
				continue;
			bind__base_function(ip->loc.function, fn, sizeof(fn));
			if (!strcmp(fn, top_fn))
				sb->addr_samples += (double)ip->decoded;
		}
	}
}

/* Hot lines whose sampled instructions access no memory: nothing to see there. */
static void addr_clear_memless_lines(struct binder *b, const struct addr_report *a,
				     double to_samples)
{
	struct factbase *fb = b->fb;
	enum tier t = a->tier;

	for (int i = 0; i < a->nr_ips; i++) {
		const struct addr_ip *ip = &a->ips[i];
		double have;
		int idx;

		if (ip->op.skip != AS_NO_MEM && ip->op.skip != AS_LEA)
			continue;
		idx = binder__line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);
		if (idx < 0 || !factbase__get(fb, idx, "line.addr_samples", &have, NULL))
			continue;
		factbase__set(fb, idx, "line.addr_samples", 0, t);
		factbase__set(fb, idx, "line.stride", 0, t);
		factbase__set(fb, idx, "line.stride_frac", 0, t);
		factbase__set(fb, idx, "line.stride_monotonic", 0, t);
		factbase__set(fb, idx, "line.in_order", 0, t);
		factbase__set(fb, idx, "line.elem_stride", 0, t);
		factbase__set(fb, idx, "line.span_lines", 0, t);
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
}

/*
 * A line of a global that no struct describes (long hits[2][4], one row a
 * thread), written by threads at different bytes: a member-scope entity
 * named after the variable, without a struct, so that false sharing is
 * judged there as on a struct's member.  Only when every writer's bytes
 * lie in that same variable.
 */
static int addr_shared_var(struct binder *b, const struct addr_report *a,
			   const struct addr_line *l, const struct addr_ip *ip)
{
	struct entity e = { .scope = SCOPE_MEMBER, .parent = -1 };
	int named = 0;

	for (int k = 0; k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++) {
		const char *o = l->t[k].object;
		size_t n = strcspn(o, "[+.");

		if (!l->t[k].writes)
			continue;
		if (!n || n >= sizeof(e.member))
			return -1;
		if (!named++)
			snprintf(e.member, sizeof(e.member), "%.*s", (int)n, o);
		else if (strlen(e.member) != n || strncmp(e.member, o, n))
			return -1;
	}
	if (named < 2)
		return -1;
	/* the variable's other lines: one entity for all of them */
	for (int i = 0; i < b->fb->nr_ents; i++) {
		const struct entity *x = &b->fb->ents[i];

		if (x->scope == SCOPE_MEMBER && x->parent < 0 && !x->struct_name[0] &&
		    !strcmp(x->member, e.member))
			return i;
	}
	snprintf(e.decl_file, sizeof(e.decl_file), "%s", l->decl_file);
	e.decl_line = l->decl_file[0] ? l->decl_line : 0;
	bind__base_function(ip->loc.function, e.function, sizeof(e.function));
	snprintf(e.file, sizeof(e.file), "%s", ip->loc.file);
	e.line = ip->loc.line;
	region_label(a, ip, e.region, sizeof(e.region));
	return factbase__add(b->fb, &e);
}

/*
 * Whether the bytes every thread used on shared line L lie in one object of
 * SB, the one IP's access to member MI is in: 1 (the threads use different
 * members of one object: padding between objects does not part them), 0, or
 * -1 when the object's place in the line is unknown (an array member, no
 * exact address).  Its place: the offset in the line most of IP's exact
 * addresses had, less the member's offset.
 */
static int shared_same_object(const struct addr_line *l, const struct addr_ip *ip,
			      const struct sbind *sb, int mi, int line_size, int64_t *written_from)
{
	const struct ma_member *m = &sb->s->members[mi];
	int64_t at = -1, lo, hi;
	uint32_t most = 0;
	uint64_t written = 0;

	if ((m->flags & MA_M_ARRAY) || m->nested || ip->op.size != m->size || !sb->s->size ||
	    line_size <= 0 || line_size > 64 || line_size > ADDR_LINE_OFF_MAX)
		return -1;
	for (int k = 0; k < line_size; k++)
		if (ip->line_off[k] > most) {
			most = ip->line_off[k];
			at = k;
		}
	if (at < 0)
		return -1;
	lo = at - (int64_t)m->offset;
	hi = lo + (int64_t)sb->s->size;
	for (int t = 0; t < l->nr_threads && t < AS_MAX_THREADS_PER_LINE; t++) {
		uint64_t used = l->t[t].rmask | l->t[t].wmask;

		for (int k = 0; k < line_size; k++)
			if ((used >> k & 1) && (k < lo || k >= hi))
				return 0;
		written |= l->t[t].wmask;
	}
	/* where the written bytes begin, in the object: the first member to part */
	*written_from = written ? __builtin_ctzll(written) - lo : -1;
	return 1;
}

/* Lines threads share (addr_line__shared), and the members they hold. */
static void addr_bind_shared_lines(struct binder *b, const struct addr_report *a,
				   double to_samples)
{
	struct factbase *fb = b->fb;
	enum tier t = a->tier;

	for (int i = 0; i < a->nr_shared; i++) {
		const struct addr_line *l = &a->shared[i];
		const struct addr_ip *ip = NULL;
		struct sbind *sb;
		uint64_t writes = 0, reads = 0;
		double prev = 0;
		int mi, ment, li;

		for (int k = 0; k < a->nr_ips && !ip; k++)
			if (a->ips[k].ip == l->ip)
				ip = &a->ips[k];
		if (!ip)
			continue;
		li = binder__line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);
		if (li >= 0 && l->false_sharing)
			factbase__set(fb, li, "line.false_sharing", 1, t);
		else if (li >= 0 &&
			 (factbase__get(fb, li, "line.true_sharing_threads", &prev, NULL) ||
			  prev < l->nr_threads))
			factbase__set(fb, li, "line.true_sharing_threads", l->nr_threads, t);
		int same = -1;
		int64_t from = -1;

		if ((sb = bind__attribute(b, ip, &mi)) && mi >= 0) {
			ment = binder__member_entity(b, sb, mi);
			same = shared_same_object(l, ip, sb, mi, a->line_size, &from);
		} else {
			ment = l->false_sharing ? addr_shared_var(b, a, l, ip) : -1;
		}
		if (ment < 0)
			continue;
		if (same >= 0)
			factbase__set(fb, ment, "member.same_object", same, t);
		if (same > 0 && from >= 0)
			factbase__set(fb, ment, "member.written_from", (double)from, t);
		for (int k = 0; k < l->nr_threads && k < AS_MAX_THREADS_PER_LINE; k++)
			writes += l->t[k].writes;
		double shared = writes * to_samples, threads = addr_line__writers(l);
		double fs = l->false_sharing, readers = addr_line__foreign_readers(l, &reads);
		double shared_reads = (double)reads * to_samples;

		/* a variable's lines add up (a struct member is on one line) */
		if (!fb->ents[ment].struct_name[0] && fb->ents[ment].parent < 0) {
			if (!factbase__get(fb, ment, "member.shared_writes", &prev, NULL))
				shared += prev;
			if (!factbase__get(fb, ment, "member.writer_threads", &prev, NULL) &&
			    prev > threads)
				threads = prev;
			if (!factbase__get(fb, ment, "member.false_sharing", &prev, NULL) && prev > 0)
				fs = prev;
			if (!factbase__get(fb, ment, "member.reader_threads", &prev, NULL) &&
			    prev > readers)
				readers = prev;
			if (!factbase__get(fb, ment, "member.shared_reads", &prev, NULL))
				shared_reads += prev;
		}
		factbase__set(fb, ment, "member.writer_threads", threads, t);
		factbase__set(fb, ment, "member.reader_threads", readers, t);
		factbase__set(fb, ment, "member.shared_reads", shared_reads, t);
		factbase__set(fb, ment, "member.false_sharing", fs, t);
		factbase__set(fb, ment, "member.shared_writes", shared, t);
		bind__base_function(ip->loc.function, fb->ents[ment].function,
				    sizeof(fb->ents[0].function));
		snprintf(fb->ents[ment].file, sizeof(fb->ents[0].file), "%s", ip->loc.file);
		fb->ents[ment].line = ip->loc.line;
		region_label(a, ip, fb->ents[ment].region, sizeof(fb->ents[0].region));
	}
}

/*
 * The code that works on region entity E: where one mapping of its kind
 * was hit, the IPs whose addresses fell in that kind; where several
 * were (two anonymous arrays, say), only IPs whose addresses fell
 * mostly in this very mapping.  The one with most samples, or NULL.
 */
static const struct addr_ip *addr_region_hottest(const struct addr_report *a,
						 const struct entity *e)
{
	const struct addr_ip *best = NULL;
	bool anon = !strncmp(e->region, "anon", 4) || !strncmp(e->region, "heap", 4);
	int same = 0;

	for (int k = 0; k < a->nr_regions; k++)
		if (a->regions[k].samples &&
		    (anon ? a->regions[k].kind == MAPK_ANON || a->regions[k].kind == MAPK_HEAP
			  : !strcmp(a->regions[k].name, e->region)))
			same++;
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
	return best;
}

/*
 * The sampled access whose samples gave no address that stream X recorded
 * with enough deltas to tell its order (STREAM_ORDER_MIN_DELTAS), or NULL.
 */
static const struct addr_ip *stream_sampled(const struct addr_report *a,
					    const struct stream_ip *x)
{
	if (x->skip != STREAM_OK || x->loop_store || x->forward + x->backward < STREAM_ORDER_MIN_DELTAS)
		return NULL;
	for (int k = 0; k < a->nr_ips; k++)
		if (a->ips[k].op.insn == x->insn && a->ips[k].pid == x->pid &&
		    a->ips[k].op.skip == AS_OK && a->ips[k].samples > a->ips[k].decoded)
			return &a->ips[k];
	return NULL;
}

/*
 * How region entity E is walked: the share of the samples of the code
 * working mostly in it that comes from code walking it in no order
 * (not in_order(), or no order measured: the load overwrote its
 * base), and the pages the
 * busiest such code covers at random (addr__random_span).  A sequential or
 * strided walk is not random, however many pages it crosses: each page's
 * TLB entry serves the accesses after its first.
 */
static void addr_bind_region_order(const struct binder *b, struct factbase *fb, int i,
				   const struct addr_report *a, const struct entity *e)
{
	double all = 0, rnd = 0, pages = 0;
	uint64_t best = 0;

	for (int k = 0; k < a->nr_ips; k++) {
		const struct addr_ip *ip = &a->ips[k];

		if (!ip->decoded || ip->op.skip != AS_OK ||
		    ip->top_region_samples * 2 < ip->decoded ||
		    ip->top_region_start >= e->region_start + e->region_len ||
		    ip->top_region_end <= e->region_start)
			continue;
		all += (double)ip->decoded;
		/*
		 * No deltas: a load that overwrites its own base (p = p->next)
		 * gives the address it moved to, whose order is not measured.
		 */
		if (ip->decoded < 8 || in_order(b, ip))
			continue;
		rnd += (double)ip->decoded;
		if (ip->decoded > best) {
			best = ip->decoded;
			pages = addr__random_span(ip->decoded, ip->pages);
		}
	}
	/*
	 * A load that overwrites its own base (x = *p, h = tab[h]) gives the
	 * samples no address; its address stream, recorded before it runs,
	 * says where it went and in what order: its samples count for the
	 * region its stream fell in.
	 */
	for (int k = 0; b->r->streams && k < b->r->streams->nr_ips; k++) {
		const struct stream_ip *x = &b->r->streams->ips[k];
		const struct addr_ip *ip = stream_sampled(a, x);
		double n = ip ? (double)(ip->samples - ip->decoded) : 0;

		if (n <= 0 || x->region_start < e->region_start ||
		    x->region_start >= e->region_start + e->region_len)
			continue;
		all += n;
		if (stream_ip__in_order(x))
			continue;
		rnd += n;
		if (ip->samples > best) {
			best = ip->samples;
			pages = addr__random_span(x->accesses, x->pages);
		}
	}
	if (!all)
		return;
	factbase__set(fb, i, "region.random_share", rnd / all, a->tier);
	factbase__set(fb, i, "region.random_pages", pages, a->tier);
}

/* Regions: the data-address samples that fell in each, and its hottest access. */
static void addr_bind_regions(struct binder *b, const struct addr_report *a)
{
	struct factbase *fb = b->fb;

	for (int i = 0; i < fb->nr_ents; i++) {
		struct entity *e = &fb->ents[i];
		const struct addr_ip *best;
		struct sbind *sb;
		double n = 0;
		int mi;

		if (e->scope != SCOPE_REGION || !e->region_len)
			continue;
		for (int k = 0; k < a->nr_regions; k++)
			if (a->regions[k].start < e->region_start + e->region_len &&
			    a->regions[k].end > e->region_start)
				n += (double)a->regions[k].samples;
		/* and the samples without an address whose stream went there */
		for (int k = 0; b->r->streams && k < b->r->streams->nr_ips; k++) {
			const struct stream_ip *x = &b->r->streams->ips[k];
			const struct addr_ip *ip = stream_sampled(a, x);

			if (ip && x->region_start >= e->region_start &&
			    x->region_start < e->region_start + e->region_len)
				n += (double)(ip->samples - ip->decoded);
		}
		factbase__set(fb, i, "region.addr_samples", n, a->tier);
		addr_bind_region_order(b, fb, i, a, e);
		if (!n || !(best = addr_region_hottest(a, e)))
			continue;
		bind__base_function(best->loc.function, e->function, sizeof(e->function));
		snprintf(e->file, sizeof(e->file), "%s", best->loc.file);
		e->line = best->loc.line;
		sb = bind__attribute(b, best, &mi);
		if (sb) {
			snprintf(e->struct_name, sizeof(e->struct_name), "%s", sb->s->name);
			if (mi >= 0 && sb->s->members[mi].name)
				snprintf(e->member, sizeof(e->member), "%s", sb->s->members[mi].name);
		}
	}
}

/*
 * Whether IP's instruction reads or writes the stack: most of the addresses
 * decoded at it (at any of its rows) fell in a stack mapping.  Its samples
 * that gave no address are then not a struct's members either.
 */
static bool insn_on_stack(const struct addr_report *a, const struct addr_ip *ip)
{
	uint64_t placed = 0, stack = 0;

	for (int i = 0; i < a->nr_ips; i++) {
		const struct addr_ip *x = &a->ips[i];

		if (x->op.insn != ip->op.insn || x->pid != ip->pid)
			continue;
		for (int k = 0; k < MAPK__COUNT; k++)
			placed += x->region[k];
		stack += x->region[MAPK_STACK];
	}
	return placed && 2 * stack > placed;
}

/*
 * Whether IP's access lies in the loop of TOP (the busiest access): in its
 * range, or in a loop nested in it or around it, or in a block laid out past
 * it that jumps back into it.  Loops side by side (a set-up loop, then the
 * walk, then an encoder, all inlined into one function) use their objects
 * at different times: the members each one reaches are not used together.
 */
static bool addr_same_loop(const struct addr_ip *top, const struct addr_ip *ip)
{
	if (ip->op.insn >= top->loop_lo && ip->op.insn < top->loop_hi)
		return true;
	return ip->loop_hi && ip->loop_lo < top->loop_hi && top->loop_lo < ip->loop_hi;
}

/*
 * Hot members: those the hot loop touches with a real share of its
 * accesses. The hot loop is the function of the struct's busiest
 * access; set-up code elsewhere that writes every member once per
 * element (a few samples on a cold member) does not make it hot.
 * Recounts SB's samples per member within that function and drops the
 * members under 2 % of them, unless that function's loop reaches them
 * through the pointer of a sampled access (addr_mark_siblings).
 */
static double addr_keep_hot_members(struct binder *b, const struct addr_report *a,
				    struct sbind *sb)
{
	double base = sb->addr_samples, no_addr = 0;
	bool known = false;	/* the busiest access's loop, and samples in it */

	if (sb->top) {
		double in_fn[64] = { 0 }, fn_total = 0, in_loop[64] = { 0 }, loop_total = 0;
		char top_fn[128], fn[128];
		bool loop_known = sb->top->loop_hi > sb->top->loop_lo;

		bind__base_function(sb->top->loc.function, top_fn, sizeof(top_fn));
		for (int i = 0; i < a->nr_ips; i++) {
			const struct addr_ip *ip = &a->ips[i];
			bool together;
			int mi;

			if (ip->op.skip != AS_OK)
				continue;
			bind__base_function(ip->loc.function, fn, sizeof(fn));
			if (strcmp(fn, top_fn))
				continue;
			/*
			 * accesses of the loop whose address the samples lost: any
			 * member; not those at a join, whose access is one the
			 * loop's code reaches anyway (addr_mark_siblings)
			 */
			if (!insn_on_stack(a, ip))
				no_addr += (double)(ip->no_addr - ip->joined);
			if (!ip->decoded || bind__attribute(b, ip, &mi) != sb)
				continue;
			together = loop_known && addr_same_loop(sb->top, ip);
			fn_total += (double)ip->decoded;
			loop_total += together ? (double)ip->decoded : 0;
			for (int k = 0; mi >= 0 && k < sb->nr_hot; k++)
				if (sb->hot_off[k] == sb->s->members[mi].offset) {
					in_fn[k] += (double)ip->decoded;
					in_loop[k] += together ? (double)ip->decoded : 0;
				}
			if (mi >= 0)
				addr_mark_siblings(ip, bind__walk_stride(b, ip), sb, mi, together);
		}
		if (fn_total > 0) {
			memcpy(sb->hot_samples, in_fn, sizeof(in_fn));
			base = fn_total;
		}
		for (int k = 0; k < sb->nr_hot && loop_total > 0; k++) {
			sb->loop_sampled[k] = in_loop[k] >= 0.02 * loop_total;
			sb->together[k] |= sb->loop_sampled[k];
		}
		known = loop_total > 0;
		sb->together_samples = known ? loop_total : fn_total;
	}
	for (int k = 0; k < sb->nr_hot; k++) {
		int l = sb->nr_hot - 1;

		sb->sampled_hot[k] = sb->hot_samples[k] >= 0.02 * base;
		if (!known) {
			sb->loop_sampled[k] = sb->sampled_hot[k];
			sb->together[k] = sb->sampled_hot[k] || sb->code_hot[k];
		}
		if (!sb->sampled_hot[k] && !sb->code_hot[k]) {
			sb->hot_off[k] = sb->hot_off[l];
			sb->hot_samples[k] = sb->hot_samples[l];
			sb->code_hot[k] = sb->code_hot[l];
			sb->loop_sampled[k] = sb->loop_sampled[l];
			sb->together[k] = sb->together[l];
			sb->nr_hot--;
			k--;
		}
	}
	return no_addr / (base + no_addr);
}

/*
 * The struct entity of SB says where its busiest access is, which members
 * the accesses hit (in declaration order), and its hot/cold split and
 * hot-first declarations.
 */
static void addr_describe_struct(struct binder *b, const struct addr_report *a,
				 struct sbind *sb)
{
	struct entity *e = &b->fb->ents[sb->ent];
	size_t off = 0;

	bind__base_function(sb->top->loc.function, e->function, sizeof(e->function));
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
	e->split_text = sbind__split_decl(sb);
	free(e->hot_text);
	e->hot_text = binder__hot_decl(b, sb);
}

/*
 * Whether the lines of SB's hot members are kept apart on purpose: the
 * member starting a later hot line is aligned to the line by declaration
 * (_Alignas, aligned(64), or a type so aligned), or a char array nobody
 * accessed fills the line up to it (padding).  That is the layout that
 * keeps members written by different threads off one line: moving them
 * together would undo it.
 */
static bool addr_hot_lines_apart(const struct binder *b, const struct sbind *sb,
				 uint64_t lines_mask)
{
	uint64_t first = lines_mask ? (uint64_t)__builtin_ctzll(lines_mask) : 0;

	if (!b->line)
		return false;
	for (int m = 0; m < sb->s->nr_members; m++) {
		const struct ma_member *mm = &sb->s->members[m];
		uint64_t li = mm->offset / b->line;
		bool hot = false;

		for (int k = 0; k < sb->nr_hot; k++)
			hot |= sb->hot_off[k] == mm->offset;
		uint64_t end = (mm->offset + mm->size) / b->line; /* the line after a padding */

		if (li > first && li < 64 && (lines_mask >> li & 1) && mm->offset % b->line == 0 &&
		    (mm->declared_align >= (uint32_t)b->line ||
		     (mm->nested && mm->nested->declared_align >= (uint32_t)b->line)))
			return true;
		if (!hot && mm->nr_dims == 1 && mm->size && mm->type_name &&
		    strstr(mm->type_name, "char [") && (mm->offset + mm->size) % b->line == 0 &&
		    end > first && end < 64 && (lines_mask >> end))
			return true;
	}
	return false;
}

/*
 * Object placement: the share of the sampled objects of SB (no larger than
 * a line) that straddle two lines because of where they begin in theirs,
 * at an offset no allocator gives.  The whole object counts, not only the
 * members sampled: the first access to an object takes its miss and its
 * samples, the others hit (or miss on the second line).  Allocators align
 * to 16 bytes (max_align_t): objects straddling at a multiple of 16 are
 * what any allocation of them gets (malloc'd 64-byte objects straddle three
 * times in four), and aligning those is a trade of memory this does not
 * judge; an offset that is not a multiple of 16 comes from where the
 * program put them inside a block (a header before them, a packed layout).
 * So does any offset of an array the program puts behind a header of a
 * size that is not a multiple of the line, in a struct of its own
 * (sbind.block_off: 32-byte quotes 16 bytes into a line-aligned cache
 * begin at 16 and 48).  An array of objects whose size does not divide the
 * line straddles at multiples of 16 too (48-byte items at 16, 0, 48, 32),
 * but so does such an array calloc'd, and the addresses cannot tell the
 * program's placement from the allocator's: left to the allocator.
 * Set on the struct and on the lines that accessed it.
 */
#define ADDR_MALLOC_ALIGN 16	/* what malloc guarantees on x86-64 (max_align_t) */

/*
 * The line fetches of an object the busiest access's loop costs, from
 * where the objects begin in their lines (sbind.base_off) and the members
 * that loop uses (sbind.together), against what it would cost were those
 * members first and together: the share saved, struct.hot_lines_saved.
 * 80-byte records malloc'd 96 bytes apart begin at 16 and 48 of a line;
 * members at 8 and 76 cost two lines for both, packed into 34 bytes one
 * for those at 16 and still two for those at 48: a quarter saved, not the
 * half that line-aligned objects would save.
 */
static void addr_hot_lines_saved(struct binder *b, const struct sbind *sb, enum tier t)
{
	uint32_t line = b->line;
	double now = 0, first = 0;
	uint64_t used = 0;

	for (int k = 0; k < sb->nr_hot; k++) {
		int mi = bind__member_at(sb->s, (int64_t)sb->hot_off[k]);

		if (mi >= 0 && sb->together[k])
			used += sb->s->members[mi].size ? sb->s->members[mi].size : 1;
	}
	if (!used)
		return;
	for (uint32_t o = 0; o < line; o++) {
		uint64_t lines[2] = { 0, 0 }; /* of the first 128 lines of an object */
		int n = 0;

		if (sb->base_off[o] <= 0)
			continue;
		for (int k = 0; k < sb->nr_hot; k++) {
			int mi = bind__member_at(sb->s, (int64_t)sb->hot_off[k]);
			uint64_t a, e;

			if (mi < 0 || !sb->together[k])
				continue;
			a = o + sb->s->members[mi].offset;
			e = a + (sb->s->members[mi].size ? sb->s->members[mi].size : 1);
			for (uint64_t l = a / line; l <= (e - 1) / line && l < 128; l++)
				lines[l / 64] |= 1ULL << (l % 64);
		}
		n = __builtin_popcountll(lines[0]) + __builtin_popcountll(lines[1]);
		now += sb->base_off[o] * n;
		first += sb->base_off[o] * (double)((o + used - 1) / line + 1);
	}
	if (now > 0)
		factbase__set(b->fb, sb->ent, "struct.hot_lines_saved",
			      now > first ? (now - first) / now : 0, t);
}

static void addr_bind_placement(struct binder *b, const struct sbind *sb, enum tier t)
{
	double all = 0, split = 0, growth;
	uint32_t line = b->line, fit = (uint32_t)sb->s->size;
	bool carved;

	if (!line || line > ADDR_LINE_OFF_MAX || !sb->s->size)
		return;
	carved = sb->block_off % line;
	for (uint32_t o = 0; o < line; o++) {
		all += sb->base_off[o];
		if (o + sb->s->size > line && (carved || o % ADDR_MALLOC_ALIGN))
			split += sb->base_off[o];
	}
	if (all <= 0)
		return;
	addr_hot_lines_saved(b, sb, t);
	if (sb->s->size > line)
		return;
	/*
	 * the objects whose members the hot loop uses (sampled or reached by
	 * its code) lie on two lines where they begin: a 48-byte node's key
	 * at 0 and children at 40 for the nodes that begin at 32 or 48
	 */
	if (sb->nr_hot) {
		int64_t lo = -1, hi = -1, used = 0;
		double span = 0, packed = 0;

		for (int k = 0; k < sb->nr_hot; k++) {
			int mi = bind__member_at(sb->s, (int64_t)sb->hot_off[k]);
			int64_t a, e;

			if (mi < 0 || !sb->together[k])
				continue;
			a = (int64_t)sb->s->members[mi].offset;
			e = a + (int64_t)(sb->s->members[mi].size ? sb->s->members[mi].size : 1);
			used += e - a;
			if (lo < 0 || a < lo)
				lo = a;
			if (e > hi)
				hi = e;
		}
		/*
		 * and how many fewer would, were those members first and
		 * together: what moving them saves (a 64-byte object whose used
		 * members fill it straddles wherever they are: that is its
		 * placement, bad-alignment's case)
		 */
		if (lo >= 0 && hi - lo <= (int64_t)line) {
			for (uint32_t o = 0; o < line; o++) {
				if ((o + lo) / line != (o + hi - 1) / line)
					span += sb->base_off[o];
				if (used && o / line != (o + used - 1) / line)
					packed += sb->base_off[o];
			}
			factbase__set(b->fb, sb->ent, "struct.hot_split_frac", span / all, t);
			factbase__set(b->fb, sb->ent, "struct.hot_split_saved",
				      span > packed ? (span - packed) / all : 0, t);
		}
	}
	/* the smallest size from the struct's up that divides the line: none straddle then */
	while (line % fit)
		fit++;
	growth = (double)fit / (double)sb->s->size - 1;
	factbase__set(b->fb, sb->ent, "struct.placement_split_frac", split / all, t);
	factbase__set(b->fb, sb->ent, "struct.placement_samples", all, t);
	factbase__set(b->fb, sb->ent, "struct.placement_pad_growth", growth, t);
	for (int i = 0; i < sb->nr_line_ent; i++) {
		factbase__set(b->fb, sb->line_ent[i], "line.object_split_frac", split / all, t);
		factbase__set(b->fb, sb->line_ent[i], "line.object_samples", all, t);
		factbase__set(b->fb, sb->line_ent[i], "line.object_pad_growth", growth, t);
	}
}

/* Struct facts from what was attributed. */
static void addr_bind_structs(struct binder *b, const struct addr_report *a)
{
	struct factbase *fb = b->fb;
	enum tier t = a->tier;
	double to_samples = b->period_ns > 0 ? a->period_ns / b->period_ns : 1;

	for (int i = 0; i < b->nr_sb; i++) {
		struct sbind *sb = &b->sb[i];
		double bytes = 0, reached = 0, together = 0;
		uint64_t lines_mask = 0;
		int nr_lines = 0, nr_sampled = 0;

		if (!sb->addr_samples)
			continue; /* not worked on: no entity, no rule can fire on it */
		if (binder__struct_entity(b, sb) < 0)
			continue;
		factbase__set(fb, sb->ent, "struct.addr_samples", sb->addr_samples, t);
		factbase__set(fb, sb->ent, "struct.bind_ambiguous",
			      sb->ambiguous_samples / sb->addr_samples, t);
		if (sb->alt)
			snprintf(fb->ents[sb->ent].alt_struct, sizeof(fb->ents[0].alt_struct), "%s",
				 sb->alt->s->name);
		factbase__set(fb, sb->ent, "struct.stride", (double)sb->stride, t);
		if (sb->stride)
		{
			factbase__set(fb, sb->ent, "struct.order_sigma", sb->order_sigma, t);
			factbase__set(fb, sb->ent, "struct.in_order", sb->in_order, t);
		}
		factbase__set(fb, sb->ent, "struct.no_address_share",
			      addr_keep_hot_members(b, a, sb), t);
		/*
		 * The members sampled in the busiest access's loop make the hot
		 * set (what spanning moves together), with the ones that loop's
		 * code reaches too the bytes it uses (struct.together_bytes); all
		 * the function's code reaches, the bytes a split must keep
		 * (struct.reached_bytes).
		 */
		for (int k = 0; k < sb->nr_hot; k++) {
			int mi = bind__member_at(sb->s, (int64_t)sb->hot_off[k]);
			uint64_t li = b->line ? sb->hot_off[k] / b->line : 0;

			if (mi >= 0)
				reached += (double)sb->s->members[mi].size;
			if (mi >= 0 && sb->together[k])
				together += (double)sb->s->members[mi].size;
			if (!sb->loop_sampled[k])
				continue;
			nr_sampled++;
			if (mi >= 0)
				bytes += (double)sb->s->members[mi].size;
			if (li < 64 && !(lines_mask & (1ULL << li))) {
				lines_mask |= 1ULL << li;
				nr_lines++;
			}
		}
		/*
		 * a loop that also stores with rep stos/movs (a memset of each
		 * record) writes bytes no displacement names: the whole object,
		 * as far as anyone can tell
		 */
		if (sb->top && sb->top->op.bulk)
			reached = together = (double)sb->s->size;
		if (sb->top)
			addr_describe_struct(b, a, sb);
		/* one thread's walk: threads walking arrays of their own walk small ones */
		if (sb->ea_max)
			factbase__set(fb, sb->ent, "struct.extent_bytes",
				      (double)(sb->thread_extent &&
					       sb->thread_extent < sb->ea_max - sb->ea_min ?
					       sb->thread_extent : sb->ea_max - sb->ea_min) +
				      (double)sb->s->size, t);
		factbase__set(fb, sb->ent, "struct.hot_members", nr_sampled, t);
		factbase__set(fb, sb->ent, "struct.span_lines", sb->span_lines, t);
		/*
		 * whether the loop around the busiest access was found and read:
		 * then the members it reaches are known, not only the first one
		 * of each line it touches (the one that takes the miss, and the
		 * samples)
		 */
		factbase__set(fb, sb->ent, "struct.reach_known", sb->top && sb->top->nr_sib > 0, t);
		factbase__set(fb, sb->ent, "struct.hot_bytes", bytes, t);
		factbase__set(fb, sb->ent, "struct.reached_bytes", reached, t);
		factbase__set(fb, sb->ent, "struct.together_bytes", together, t);
		factbase__set(fb, sb->ent, "struct.hot_lines", nr_lines, t);
		factbase__set(fb, sb->ent, "struct.together_samples",
			      (sb->together_samples > 0 ? sb->together_samples : sb->addr_samples) *
			      to_samples, t);
		factbase__set(fb, sb->ent, "struct.hot_lines_apart",
			      nr_lines >= 2 && addr_hot_lines_apart(b, sb, lines_mask), t);
		addr_bind_placement(b, sb, t);
	}
}

void bind__addr(struct binder *b)
{
	const struct addr_report *a = b->r->addr;
	struct factbase *fb = b->fb;
	enum tier t;
	double to_samples;
	bool *tied;

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

	tied = xcalloc((size_t)a->nr_ips + 1, sizeof(*tied));
	for (int i = 0; i < a->nr_ips; i++) {
		const struct addr_ip *ip = &a->ips[i];

		if (!ip->decoded || ip->op.skip != AS_OK)
			continue;
		tied[i] = addr_bind_struct(b, a, ip, addr_bind_line(b, a, ip, to_samples));
	}
	addr_bind_array_walkers(b, a, tied);
	free(tied);
	addr_bind_no_address(b, a);
	addr_clear_memless_lines(b, a, to_samples);
	addr_bind_shared_lines(b, a, to_samples);
	addr_bind_regions(b, a);
	addr_bind_structs(b, a);
}
