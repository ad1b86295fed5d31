// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a newly sampled IP's instruction accesses, decoded once per IP
 * (addrsample__decode_ip): the memory operand of the instruction before it,
 * swept from its function's start where that is known; the loop around it
 * (the other accesses through the same pointer, its step, whether it is a
 * chain); whether a jump lands between the access and the IP; and where its
 * base register came from.  The target's code is read once per page.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/util.h"
#include "collect/addr/addrsample_int.h"
#include "symbols/decode.h"
#include "symbols/symbolizer.h"

static const uint8_t *code_page(struct addrsample *as, struct aspace *sp, uint64_t page)
{
	bool added;
	uint32_t *v = u64map__get(&sp->page_idx, page, &added);
	struct code_page *cp;

	if (!added)
		return sp->pages[*v - 1].bytes;
	sp->pages = xgrow(sp->pages, &sp->cap_pages, sp->nr_pages + 1, sizeof(*sp->pages));
	cp = &sp->pages[sp->nr_pages++];
	*v = sp->nr_pages;
	cp->addr = page;
	cp->bytes = xmalloc(as->page_size);
	struct iovec local = { cp->bytes, as->page_size };
	struct iovec remote = { (void *)(uintptr_t)page, as->page_size };

	if (process_vm_readv(sp->pid, &local, 1, &remote, 1, 0) != (ssize_t)as->page_size &&
	    /* gone already: from the file it mapped */
	    !maprecs__read_page(&sp->recs, page, as->page_size, cp->bytes)) {
		free(cp->bytes);
		cp->bytes = NULL;
	}
	return cp->bytes;
}

/* Copies the code bytes [from, to) into buf; false when a page is unreadable. */
static bool read_code(struct addrsample *as, struct aspace *sp, uint64_t from, uint64_t to,
		      uint8_t *buf)
{
	uint64_t a = from;

	while (a < to) {
		uint64_t page = a & ~(uint64_t)(as->page_size - 1);
		uint64_t end = page + as->page_size < to ? page + as->page_size : to;
		const uint8_t *b = code_page(as, sp, page);

		if (!b)
			return false;
		memcpy(buf + (a - from), b + (a - page), end - a);
		a = end;
	}
	return true;
}


/*
 * The function holding ip, from the snapshot the regions use; a module
 * mapped after it was taken (dlopen) means taking it again, rarely.
 */
static void ensure_sym(struct addrsample *as, struct aspace *sp, uint64_t ip,
		       struct sym_site *site)
{
	uint64_t now = now_ns();

	memset(site, 0, sizeof(*site));
	if ((!sp->maps || (sp->maps_from_recs && sp->recs.changed)) &&
	    now - sp->maps_read_ns > AS_MAPS_REFRESH_NS) {
		addrsample__read_maps(as, sp);
		sp->sym_refresh_ns = now;
	}
	if (!sp->maps)
		return;
	if ((symbolizer__site(as->sym, sp->maps, ip, false, site) || !site->function[0]) &&
	    now - sp->sym_refresh_ns > 100000000ULL) {
		addrsample__read_maps(as, sp);
		sp->sym_refresh_ns = now;
		symbolizer__site(as->sym, sp->maps, ip, false, site);
	}
}

/*
 * The loop around a decoded access, what it reaches through the same pointer and whether it
 * moves that pointer along a chain of loads: the code up to AS_LOOP_SCAN bytes either side
 * (within the instruction's page if the neighbours are not readable).
 */
static void loop_siblings(struct addrsample *as, struct aspace *sp, struct ip_agg *ia,
			  uint64_t fstart, uint64_t fsize)
{
	uint64_t insn = ia->out.op.insn, page = insn & ~(uint64_t)(as->page_size - 1);
	uint64_t from = insn > AS_LOOP_SCAN ? insn - AS_LOOP_SCAN : 0, to = insn + AS_LOOP_SCAN;
	uint8_t *buf;
	int n;

	if (ia->out.op.base < 0 || ia->out.op.rip)
		return;
	/* a loop is in its function: no need to read past it (or into an unmapped page) */
	if (fstart && fstart <= insn && from < fstart)
		from = fstart;
	if (fsize && insn < fstart + fsize && to > fstart + fsize)
		to = fstart + fsize;
	buf = xmalloc(2 * AS_LOOP_SCAN + (size_t)as->page_size);
	if (!read_code(as, sp, from, to, buf)) {
		from = page;
		to = page + (uint64_t)as->page_size;
		if (!read_code(as, sp, from, to, buf)) {
			free(buf);
			return;
		}
	}
	n = addrsample__loop_siblings(buf, (size_t)(to - from), from, &ia->out.op,
				      ia->out.sib_disp, ia->out.sib_size, ADDR_SIBLINGS,
				      &ia->out.sib_bump, &ia->out.op.lea_indexed);
	ia->out.nr_sib = n > 0 ? n : 0;
	if (addrsample__loop_step(buf, (size_t)(to - from), from, &ia->out.op, &ia->out.loop_step))
		ia->out.loop_step = 0;
	ia->out.op.chained = addrsample__loop_chained(buf, (size_t)(to - from), from, &ia->out.op);
	ia->out.op.bulk = addrsample__loop_bulk(buf, (size_t)(to - from), from, &ia->out.op);
	ia->out.op.reloads_base = addrsample__loop_reloads_base(buf, (size_t)(to - from), from,
								&ia->out.op);
	addrsample__loop_range(buf, (size_t)(to - from), from, insn, &ia->out.loop_lo,
			       &ia->out.loop_hi); /* left 0 when none closes */
	free(buf);
	/* or a function that passes the base on to itself loaded through it: a recursive walk */
	if (!ia->out.op.chained && fsize && fsize <= AS_MAX_SWEEP && insn < fstart + fsize &&
	    (buf = xmalloc(fsize))) {
		ia->out.op.chained = read_code(as, sp, fstart, fstart + fsize, buf) &&
				     addrsample__call_chained(buf, fsize, fstart, &ia->out.op);
		free(buf);
	}
}

/* a join is looked for this far past the IP */
#define AS_JOIN_SCAN 512

/*
 * Whether a jump in the function (from its start to AS_JOIN_SCAN bytes past the IP: back
 * edges come after it) lands after the decoded access and at or before the sampled IP.  A
 * tick charged there may follow the jump, not the access before it in memory: the other
 * branch of an if joining, a loop's head.  The jumps of a function (FSIZE bytes, 0: not
 * known) are decoded once, to its end: the hot IPs of a function share them.
 */
static bool joined(struct addrsample *as, struct aspace *sp, struct ip_agg *ia, uint64_t fstart,
		   uint64_t fsize)
{
	uint64_t ip = ia->out.ip, to = ip + AS_JOIN_SCAN, fend = 0;
	uint8_t *buf;
	int k;

	if (ip <= fstart || ip - fstart > AS_MAX_SWEEP)
		return false;
	if (fsize && fsize <= AS_MAX_SWEEP + AS_JOIN_SCAN && fstart + fsize > ip)
		fend = fstart + fsize;
	for (k = 0; k < AS_JUMP_CACHE; k++)
		if (sp->jumps[k].fstart == fstart &&
		    (sp->jumps[k].end >= to || (fend && sp->jumps[k].end >= fend)))
			break;
	if (k == AS_JUMP_CACHE) {
		to = fend > to ? fend : to;
		buf = xmalloc((size_t)(to - fstart));
		if (!read_code(as, sp, fstart, to, buf)) {
			/* up to the end of the IP's page */
			to = (ip | (uint64_t)(as->page_size - 1)) + 1;
			if (!read_code(as, sp, fstart, to, buf)) {
				free(buf);
				return false;
			}
		}
		k = (int)(sp->next_jumps++ % AS_JUMP_CACHE);
		free(sp->jumps[k].j);
		sp->jumps[k].fstart = fstart;
		sp->jumps[k].end = to;
		sp->jumps[k].n = addrsample__jumps(buf, (size_t)(to - fstart), fstart,
						   &sp->jumps[k].j);
		free(buf);
	}
	return addrsample__jump_lands(sp->jumps[k].j, sp->jumps[k].n, ia->out.op.insn, ip,
				      ip + AS_JOIN_SCAN);
}

void addrsample__decode_ip(struct addrsample *as, struct aspace *sp, struct ip_agg *ia)
{
	uint64_t ip = ia->out.ip, fstart = 0, from, to, insn;
	struct sym_site site;
	uint8_t *buf;
	bool swept;
	struct base_origin bo;

	ia->decoded_once = true;
	ensure_sym(as, sp, ip, &site);
	if (site.function[0]) {
		fstart = site.func_start;
		if (ip <= fstart || ip - fstart > AS_MAX_SWEEP)
			fstart = 0;
	}
	from = fstart ? fstart : ip - AS_VOTE_WINDOW;
	/* the whole function (as far as a sweep goes): its other IPs use the same sweep */
	to = fstart ? fstart + (site.func_size < AS_MAX_SWEEP ? site.func_size : AS_MAX_SWEEP) : ip;
	to = to < ip ? ip : to;
	buf = xmalloc(to - from + 16);
	if (to > ip && !read_code(as, sp, from, to, buf))
		to = ip;
	if (to == ip && !read_code(as, sp, from, ip, buf)) {
		/* The function start may be on an unreadable page: try the window. */
		from = ip - AS_VOTE_WINDOW;
		to = ip;
		fstart = 0;
		if (!read_code(as, sp, from, ip, buf)) {
			ia->out.op.skip = AS_UNDECODABLE;
			ia->out.op.insn = 0;
			free(buf);
			return;
		}
	}
	/*
	 * A sweep from the function's start places the instruction for sure;
	 * the vote over the bytes before ip only most likely (swept: the
	 * address streams put breakpoints only on sure instruction starts)
	 */
	swept = fstart && !symbolizer__prev_insn_span(buf, from, to - from, fstart, ip, &insn);
	if ((!swept && addrsample__prev_insn(buf, from, ip, 0, &insn)) ||
	    addrsample__decode(buf + (insn - from), ip - insn, insn, &ia->out.op))
		ia->out.op.skip = AS_UNDECODABLE;
	/*
	 * Where the tick lands after an instruction with no access (on some
	 * cores it lands after the arithmetic on a load, not after the load),
	 * the access before it in the same run of code.
	 */
	else if (fstart && (ia->out.op.skip == AS_NO_MEM || ia->out.op.skip == AS_LEA))
		addrsample__decode_back(buf, from, fstart, ip, &ia->out.op);
	ia->out.op.swept = swept && ia->out.op.skip != AS_UNDECODABLE;
	/* a pointer into an object set by a lea from the one the debug info knows (whole function) */
	if (fstart && from == fstart && to >= fstart + site.func_size &&
	    !addrsample__base_origin(buf, (size_t)(to - from), fstart, &ia->out.op, &bo) &&
	    ia->out.op.insn - bo.at <= UINT32_MAX) {
		ia->out.op.from_base = bo.from + 1;
		ia->out.op.from_disp = bo.disp;
		ia->out.op.from_load = bo.loaded;
		ia->out.op.from_load_disp = bo.load_disp;
		ia->out.op.from_back = (uint32_t)(ia->out.op.insn - bo.at);
	}
	free(buf);
	/* a load stored back right after: its line is written (s->n += x as two moves) */
	if (ia->out.op.skip == AS_OK && ia->out.op.read && !ia->out.op.write) {
		uint8_t after[64];
		uint64_t at = ia->out.op.insn + ia->out.op.len;
		size_t n = sizeof(after);

		/* up to the end of its page if the next one is not readable */
		if (!read_code(as, sp, at, at + n, after)) {
			n = as->page_size - (at & (uint64_t)(as->page_size - 1));
			if (n > sizeof(after) || !read_code(as, sp, at, at + n, after))
				n = 0;
		}
		ia->out.op.stored = n && addrsample__stored_back(after, n, at, &ia->out.op);
	}
	if (ia->out.op.skip == AS_OK)
		loop_siblings(as, sp, ia, fstart, fstart ? site.func_size : 0);
	if (ia->out.op.skip == AS_OK && fstart)
		ia->out.op.joined = joined(as, sp, ia, fstart, site.func_size);
}
