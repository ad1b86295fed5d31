// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address streams (streams.h) -> line facts: the exact stride, footprint,
 * set crowding, splits, write-only stores and the cache/TLB model's miss
 * ratios of the instruction a source line's hottest stream came from.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/bind_int.h"
#include "layout/layout.h"
#include "model/addr.h"
#include "model/sampling.h"
#include "model/streams.h"
#include "base/util.h"

/* Streams shorter than this say little: a window of sets wants a few hundred. */
#define STREAM_MIN_ACCESSES 64
#define STREAM_MIN_DECIDED 32	/* accesses a miss ratio is taken from */

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/*
 * Whether the walk goes in order, from every delta of the stream: at most
 * one in ten goes against the others (passes of ten accesses or more).
 * Sampled addresses cannot tell a walk repeated faster than they come from
 * random order; the stream can: its answer replaces theirs on the line
 * (and on its struct: bind_walk_density).
 */
static void bind_order(struct binder *b, const struct streams_report *s,
		       const struct stream_ip *ip, int idx)
{
	struct factbase *fb = b->fb;
	uint64_t moves = ip->forward + ip->backward;
	uint64_t most = ip->forward > ip->backward ? ip->forward : ip->backward;
	bool in_order;

	if (moves < STREAM_ORDER_MIN_DELTAS)
		return;
	in_order = stream_ip__in_order(ip);
	factbase__set(fb, idx, "line.stream_order", ratio(most, moves), s->tier);
	factbase__set(fb, idx, "line.stream_jump_share", ratio(ip->jumps, moves), s->tier);
	factbase__set(fb, idx, "line.in_order", in_order, s->tier);
}

/*
 * A store in the hottest instruction's loop (a loop store, or one probed
 * for its own samples): the share of the run its loop took (the code
 * samples in [loop_lo, loop_hi) of its process), the size of the mapping it
 * writes and whether it is a non-temporal store, where the samples did not
 * say.
 */
static void bind_loop_store(struct binder *b, const struct streams_report *s,
			    const struct stream_ip *ip, int idx)
{
	const struct sampling *p = b->r->sampling;
	struct factbase *fb = b->fb;
	double in_loop = 0, v;

	/*
	 * where the store writes, from its own exact addresses: the line's
	 * samples may be its loads' (a record built on the stack, then
	 * stored to a ring)
	 */
	if (ip->region_bytes && (ip->write || factbase__get(fb, idx, "line.region_bytes", &v, NULL)))
		factbase__set(fb, idx, "line.region_bytes", (double)ip->region_bytes, s->tier);
	/*
	 * the store's own instruction says whether it is non-temporal, over a
	 * line whose samples held no store (a movntdq the decoder once took
	 * for a load, a loop store never sampled)
	 */
	if (strstr(ip->text, "movnt"))
		factbase__set(fb, idx, "line.nt_store", 1, s->tier);
	else if (factbase__get(fb, idx, "line.nt_store", &v, NULL))
		factbase__set(fb, idx, "line.nt_store", 0, s->tier);
	if (ip->loop_hi <= ip->loop_lo || !p || b->total_samples <= 0)
		return;
	for (int i = 0; i < p->nr_hot; i++)
		if (p->hot[i].ev == 0 && p->hot[i].pid == ip->pid &&
		    p->hot[i].charged_ip >= ip->loop_lo && p->hot[i].charged_ip < ip->loop_hi)
			in_loop += (double)p->hot[i].samples;
	factbase__set(fb, idx, "line.loop_share", in_loop / b->total_samples, s->tier);
}

static void bind_one(struct binder *b, const struct streams_report *s, const struct stream_ip *ip,
		     int idx)
{
	struct factbase *fb = b->fb;
	enum tier t = s->tier;

	factbase__set(fb, idx, "line.stream_accesses", (double)ip->accesses, t);
	factbase__set(fb, idx, "line.stream_stride", (double)llabs(ip->stride), t);
	factbase__set(fb, idx, "line.stream_stride_frac", ip->stride_frac, t);
	factbase__set(fb, idx, "line.stream_lines_per_k", ip->lines_per_k, t);
	factbase__set(fb, idx, "line.stream_pages_per_k", ip->pages_per_k, t);
	factbase__set(fb, idx, "line.stream_set_lines", ip->l1_max_set_lines, t);
	factbase__set(fb, idx, "line.stream_sets_used", ip->l1_sets_used, t);
	factbase__set(fb, idx, "line.stream_l2_set_lines", ip->l2_max_set_lines, t);
	factbase__set(fb, idx, "line.stream_conflict", ip->conflict, t);
	factbase__set(fb, idx, "line.stream_split_frac", ratio(ip->splits, ip->accesses), t);
	factbase__set(fb, idx, "line.stream_writes", ip->write, t);
	factbase__set(fb, idx, "line.stream_reuse_frac", ratio(ip->reuses, ip->accesses), t);
	/*
	 * the footprint: the first touches K of the stream's stacks over the
	 * distinct lines D of all its bursts, as addr__random_span() does
	 * with sampled addresses; a chain over few nodes meets them again in
	 * the next burst
	 */
	if (ip->accesses > ip->reuses && ip->lines)
		factbase__set(fb, idx, "line.stream_span_lines",
			      addr__random_span(ip->accesses - ip->reuses, ip->lines), t);
	/* miss ratios among the accesses the windows decide; too few: unknown */
	if (ip->l1_decided >= STREAM_MIN_DECIDED)
		factbase__set(fb, idx, "line.stream_l1_miss",
			      ratio(ip->l1_decided_misses, ip->l1_decided), t);
	factbase__set(fb, idx, "line.stream_l2_miss", ratio(ip->l2_misses, ip->accesses), t);
	if (ip->tlb_modelled && ip->tlb_decided >= STREAM_MIN_DECIDED)
		factbase__set(fb, idx, "line.stream_tlb_miss",
			      ratio(ip->tlb_decided_misses, ip->tlb_decided), t);
	bind_order(b, s, ip, idx);
}

/*
 * The line's store, if one of its instructions only writes: the longest
 * such stream says whether the line's writes go to lines nobody reads back,
 * with its own stride (a load on the same source line has its own).
 */
static void bind_store(struct binder *b, const struct streams_report *s,
		       const struct stream_ip *ip)
{
	struct factbase *fb = b->fb;
	enum tier t = s->tier;
	double prev;
	int idx = binder__line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);

	/*
	 * too few lines written to tell whether they are read back (a 4-byte
	 * store writes 16 to a line: some 80 hits a line in 3 ms bursts): the
	 * stream decides nothing, the samples do
	 */
	if (idx < 0 || !ip->write || ip->read || ip->written_lines < STREAM_WRITE_ONLY_LINES)
		return;
	if (!factbase__get(fb, idx, "line.stream_store_accesses", &prev, NULL) &&
	    prev >= ip->accesses)
		return;
	factbase__set(fb, idx, "line.stream_store_accesses", (double)ip->accesses, t);
	factbase__set(fb, idx, "line.stream_store_stride", (double)llabs(ip->stride), t);
	factbase__set(fb, idx, "line.stream_store_size", (double)ip->size, t);
	if (ip->fill) {
		factbase__set(fb, idx, "line.stream_store_fill", (double)ip->fill, t);
		if (factbase__get(fb, idx, "line.loop_fill", &prev, NULL) || prev < ip->fill)
			factbase__set(fb, idx, "line.loop_fill", (double)ip->fill, t);
	}
	factbase__set(fb, idx, "line.stream_store_stride_frac", ip->stride_frac, t);
	factbase__set(fb, idx, "line.stream_write_only", ip->write_only, t);
	bind_loop_store(b, s, ip, idx);
}

/*
 * One instruction describes a source line: the one the samples blamed most
 * (where the line's time goes: of a loop's load that fetches each line and
 * the store after it that finds the line cached, the load), then the one
 * with the longer stream.  The bursts record every probe of a loop over the
 * same stretch, so its instructions' streams are about as long: length
 * alone picked one of them by chance (the gain load beside the conflicting
 * track load of one source line, 528 accesses to 527).
 */
static bool describes_before(const struct stream_ip *a, int ai, const struct stream_ip *b, int bi)
{
	if (a->addr_samples != b->addr_samples)
		return a->addr_samples > b->addr_samples;
	if (a->accesses != b->accesses)
		return a->accesses > b->accesses;
	return ai < bi;
}

/*
 * A struct whose walk's access ran in the bursts far less often than the
 * busiest probed access of the same function (the loop that scans): it
 * visits a sparse subset of the objects (the few dirty entries), however
 * few of its own deltas the stream holds to tell.  One visit in 8
 * iterations or fewer: most objects are never fetched by that access.
 */
/* Whether stream IP steps over objects of SIZE bytes one after the other. */
static bool stream_dense(const struct stream_ip *ip, int64_t size)
{
	return size > 0 && ((llabs(ip->stride) == size && ip->stride_frac >= 0.5) ||
			    (ip->cycle_deltas > 1 && llabs(ip->cycle) == size));
}

/*
 * Whether another access of SB's busiest function, on its struct, walks
 * the objects one after the other (the kind read of every node, where the
 * busiest access reads a member of some of them): then every object's
 * lines come in order whatever the busiest access skips.
 */
static bool sibling_dense(struct binder *b, const struct streams_report *s,
			  const struct sbind *sb, const struct stream_ip *own)
{
	const struct addr_report *a = b->r->addr;

	for (int k = 0; a && k < s->nr_ips; k++) {
		const struct stream_ip *x = &s->ips[k];
		uint64_t moves = x->forward + x->backward;
		int mi;

		if (x == own || x->pid != own->pid || x->skip != STREAM_OK ||
		    moves < STREAM_ORDER_MIN_DELTAS || strcmp(x->loc.function, own->loc.function) ||
		    !stream_dense(x, (int64_t)sb->s->size))
			continue;
		for (int i = 0; i < a->nr_ips; i++)
			if (a->ips[i].op.insn == x->insn && a->ips[i].pid == x->pid &&
			    a->ips[i].op.skip == AS_OK && bind__attribute(b, &a->ips[i], &mi) == sb)
				return true;
	}
	return false;
}

static void bind_walk_density(struct binder *b, const struct streams_report *s)
{
	/*
	 * the struct's walk is that of the access that gave its stride, from
	 * its own stream (the line may hold other accesses: a local
	 * accumulator indexed alike; and its stream need not be the one that
	 * describes the line): in order when at most one delta in ten goes
	 * against the others; one object after the other when its most common
	 * delta is the size (half the deltas or more), or its period is
	 * (x[0..2] then the next element)
	 */
	for (int i = 0; i < b->nr_sb; i++) {
		const struct sbind *sb = &b->sb[i];
		int64_t size = (int64_t)sb->s->size;

		if (sb->ent < 0 || !sb->order_insn)
			continue;
		for (int k = 0; k < s->nr_ips; k++) {
			const struct stream_ip *ip = &s->ips[k];
			uint64_t moves = ip->forward + ip->backward;
			uint64_t most = ip->forward > ip->backward ? ip->forward : ip->backward;

			if (ip->insn != sb->order_insn || ip->pid != sb->order_pid ||
			    ip->skip != STREAM_OK || moves < STREAM_ORDER_MIN_DELTAS)
				continue;
			factbase__set(b->fb, sb->ent, "struct.in_order",
				      (double)most >= 0.9 * (double)moves, s->tier);
			factbase__set(b->fb, sb->ent, "struct.walk_dense",
				      stream_dense(ip, size) || sibling_dense(b, s, sb, ip), s->tier);
		}
	}
	for (int i = 0; i < b->nr_sb; i++) {
		const struct sbind *sb = &b->sb[i];
		const struct stream_ip *own = NULL;
		uint64_t most = 0;
		double have;

		if (sb->ent < 0 || !sb->order_insn ||
		    !factbase__get(b->fb, sb->ent, "struct.walk_dense", &have, NULL))
			continue;	/* decided from its own deltas */
		for (int k = 0; k < s->nr_ips; k++)
			if (s->ips[k].insn == sb->order_insn && s->ips[k].pid == sb->order_pid &&
			    s->ips[k].skip == STREAM_OK && s->ips[k].bursts)
				own = &s->ips[k];
		if (!own)
			continue;
		for (int k = 0; k < s->nr_ips; k++) {
			const struct stream_ip *x = &s->ips[k];

			if (x->pid == own->pid && x->skip == STREAM_OK && x->bursts &&
			    !strcmp(x->loc.function, own->loc.function) && x->accesses > most)
				most = x->accesses;
		}
		if (most >= STREAM_ORDER_MIN_DELTAS && own->accesses * 8 <= most &&
		    !sibling_dense(b, s, sb, own))
			factbase__set(b->fb, sb->ent, "struct.walk_dense", 0, s->tier);
	}
}

void bind__streams(struct binder *b)
{
	const struct streams_report *s = b->r->streams;
	struct factbase *fb = b->fb;
	int used = 0, *idx;

	if (!s) {
		factbase__mark(fb, EV_STREAMS, false, "no address streams were recorded");
		return;
	}
	idx = xcalloc((size_t)s->nr_ips + 1, sizeof(*idx));
	for (int i = 0; i < s->nr_ips; i++) {
		const struct stream_ip *ip = &s->ips[i];

		idx[i] = -1;
		if (ip->skip != STREAM_OK || ip->accesses < STREAM_MIN_ACCESSES)
			continue;
		idx[i] = binder__line_entity(b, ip->loc.function, ip->loc.file, ip->loc.line);
	}
	for (int i = 0; i < s->nr_ips; i++) {
		const struct stream_ip *ip = &s->ips[i];
		int j;

		if (idx[i] < 0)
			continue;
		for (j = 0; j < s->nr_ips; j++)
			if (j != i && idx[j] == idx[i] && describes_before(&s->ips[j], j, ip, i))
				break;
		if (j == s->nr_ips)
			bind_one(b, s, ip, idx[i]);
		bind_store(b, s, ip);
		used++;
	}
	free(idx);
	bind_walk_density(b, s);
	if (s->geom.tlb_entries)
		factbase__set(fb, -1, "machine.dtlb_entries", s->geom.tlb_entries, TIER_SOFTWARE);
	if (s->geom.l2_ways)
		factbase__set(fb, -1, "machine.l2_ways", s->geom.l2_ways, TIER_STATIC);
	if (used)
		factbase__mark(fb, EV_STREAMS, true, NULL);
	else
		factbase__mark(fb, EV_STREAMS, false, "no hot instruction's stream was long enough");
}
