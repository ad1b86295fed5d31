// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which struct and member a sampled access reaches: from the pointer
 * variable the debug info puts in its base register, else from the types
 * the sampled function works on, the access's displacement, the other
 * accesses its loop makes through the same pointer and the distance its
 * walk advances.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/bind_int.h"
#include "layout/layout.h"
#include "model/addr.h"
#include "model/streams.h"
#include "symbols/codetypes.h"

/*
 * Whether a scalar member of S (or of a struct member of it: w = &ino->wb,
 * w->i_state) at least SIZE bytes wide starts at OFF: 2 when exactly SIZE
 * bytes, 1 when wider (a narrower access reads its low bytes), else 0.
 */
static int scalar_starts(const struct ma_struct *s, int64_t off, unsigned int size)
{
	for (int depth = 0; s && depth < 4; depth++) {
		int mi = bind__member_at(s, off);
		const struct ma_member *m = mi >= 0 ? &s->members[mi] : NULL;

		if (!m)
			return 0;
		if (m->flags & MA_M_ARRAY) {
			/* an array member at its start (n->child[dir], indexed from it) */
			uint64_t elem = m->size;

			for (int d = 0; d < m->nr_dims; d++)
				elem = m->dims[d] ? elem / m->dims[d] : elem;
			if (m->offset != (uint64_t)off || !elem || elem < size)
				return 0;
			return elem == size ? 2 : 1;
		}
		if (!m->nested) {
			uint64_t end = m->offset + m->size;

			if (m->offset != (uint64_t)off)
				return 0;
			if (m->size >= size)
				return m->size == size ? 2 : 1;
			/* a wide load of the members that follow (octets, packets in one) */
			for (int k = mi + 1; k < s->nr_members && end < (uint64_t)off + size; k++) {
				if (s->members[k].offset != end || (s->members[k].flags & MA_M_ARRAY) ||
				    s->members[k].nested)
					return 0;
				end += s->members[k].size;
			}
			return end >= (uint64_t)off + size;
		}
		off -= (int64_t)m->offset;
		s = m->nested;
	}
	return 0;
}

/*
 * Where in the struct S the base register of IP points, for an access that
 * steps over S one by one: a loop may keep its pointer at a member
 * (&a[i].price, bumped by the size each pass), so that its displacements
 * are not member offsets.  The one offset at which every access the loop
 * makes through that pointer (addr_ip.sib_disp, modulo the size: a
 * displacement past the bump is the next element's) starts a scalar member
 * at least its size (a narrower access reads the member's low bytes:
 * testb $1 on a flags word); -1 when none or several do (one access alone
 * fits anywhere there is a member of its size).
 */
/*
 * Whether the objects IP's access lands in, were its base D bytes into
 * them, would all begin where an array of S in an allocated block begins
 * its elements: at a multiple of the 16 bytes allocators align blocks to,
 * or of what of it the size keeps (gcd).  From the access's exact
 * addresses (their offsets in the line); false when there are none.
 */
static bool starts_aligned(const struct ma_struct *s, const struct addr_ip *ip, int64_t d)
{
	int64_t g = 16, seen = 0;

	while (g > 1 && s->size % (uint64_t)g)
		g /= 2;
	/*
	 * a loop stepping inside the object (x[k], x += 4 each pass) moves
	 * the base by its step from the object's start: what of the alignment
	 * that step keeps
	 */
	for (int64_t st = llabs(ip->loop_step); st && (uint64_t)st % s->size && g > 1 && st % g;)
		g /= 2;
	for (int k = 0; k < ADDR_LINE_OFF_MAX; k++) {
		if (!ip->line_off[k])
			continue;
		if ((((k - d - ip->op.disp) % g) + g) % g)
			return false;
		seen++;
	}
	return seen > 0;
}

static int64_t interior_base(const struct ma_struct *s, const struct addr_ip *ip)
{
	int64_t size = (int64_t)s->size, found = -1, aligned = -1;
	int best = -1, ties = 0, nr_aligned = 0;

	if (ip->nr_sib < 2 || size <= 0)
		return -1;
	for (int64_t d = 0; d < size; d++) {
		int k, exact = 0, r;

		for (k = 0; k < ip->nr_sib; k++) {
			int64_t off = ((d + ip->sib_disp[k]) % size + size) % size;

			if (!(r = scalar_starts(s, off, ip->sib_size[k])))
				break;
			exact += r == 2;
		}
		if (k < ip->nr_sib)
			continue;
		/*
		 * where several fit, the one whose members the accesses' sizes
		 * match; among those, the one whose objects begin where an
		 * allocated array's do
		 */
		if (exact > best) {
			best = exact;
			found = d;
			ties = 0;
			nr_aligned = 0;
		} else if (exact == best) {
			ties++;
		} else {
			continue;
		}
		if (starts_aligned(s, ip, d)) {
			aligned = d;
			nr_aligned++;
		}
	}
	if (!ties)
		return found;
	return nr_aligned == 1 ? aligned : -1;
}

/*
 * The offset in an element of S at which IP's access lands: its
 * displacement from a pointer to the element's start; stepping over S one
 * by one (STEPPED), from a pointer kept at a member (interior_base) or
 * bumped by a constant within the element before the access (where the
 * loop's first pass lands), modulo the size.  May be outside S.
 */
int64_t bind__elem_offset(const struct ma_struct *s, const struct addr_ip *ip, bool stepped)
{
	int64_t size = (int64_t)s->size, base;

	if (!stepped || size <= 0)
		return ip->op.disp;
	if ((base = interior_base(s, ip)) >= 0)
		return ((base + ip->op.disp) % size + size) % size;
	if (ip->sib_bump)
		return ((ip->op.disp + ip->sib_bump) % size + size) % size;
	return ip->op.disp;
}

/*
 * The distance IP's walk advances an element by: its address stream's
 * period where it has one of several deltas (p[0], p[1], p[2] of
 * consecutive 128-byte elements step 4, 4, 120: 128), else the sampled
 * stride (which for that walk is 4, a common divisor of the steps), else
 * what the loop's code adds each pass.
 */
/*
 * Whether IP's walk, advancing STRIDE bytes (walk_stride), steps over
 * objects of SIZE bytes one or several at a time: STRIDE a multiple of
 * SIZE, and what the loop's code adds to the pointer each pass (when it is
 * known) either covers whole objects or walks inside one (x[k] within an
 * element).  The stride of a few far-apart samples is a multiple of many
 * sizes; a loop that adds 64 each pass walks no 72-byte objects.
 */
bool bind__steps_over(const struct addr_ip *ip, int64_t stride, int64_t size)
{
	int64_t step = llabs(ip->loop_step);
	bool other = false;

	if (!stride || size <= 0 || llabs(stride) % size != 0 ||
	    (step && step % size != 0 && size % step != 0))
		return false;
	/*
	 * a loop that moves several objects a pass (step = k * size) reaches
	 * into the others too (an unrolled walk: p[0].x, p[1].x); one access
	 * a pass, every third 32-byte object, is as much one float of each
	 * 96-byte frame: no evidence of these objects
	 */
	if (step <= size)
		return true;
	for (int k = 0; k < ip->nr_sib && !other; k++)
		other = llabs(ip->sib_disp[k] - ip->op.disp) >= size;
	return other;
}

int64_t bind__walk_stride(const struct binder *b, const struct addr_ip *ip)
{
	const struct streams_report *s = b->r->streams;

	for (int i = 0; s && i < s->nr_ips; i++) {
		const struct stream_ip *x = &s->ips[i];

		if (x->insn == ip->op.insn && x->pid == ip->pid && x->skip == STREAM_OK &&
		    x->cycle_deltas > 1 && x->cycle)
			return x->cycle;
	}
	/* too few samples for a stride (one thread's share of a loop): the code's step */
	return ip->stride ? ip->stride : ip->loop_step;
}

/* Whether the C type T ("struct quote []", "quote [4]") is an array of struct NAME. */
static bool array_of(const char *t, const char *name)
{
	size_t n = strlen(name);

	if (!t)
		return false;
	if (!strncmp(t, "struct ", 7))
		t += 7;
	else if (!strncmp(t, "union ", 6))
		t += 6;
	return !strncmp(t, name, n) && !strncmp(t + n, " [", 2);
}

/*
 * An access whose base register points AT bytes before the element it
 * reaches (c->q[i].ask through c): where one of the function's variables'
 * own structs has an array of SB as a member at that offset, the program
 * put the array there, behind a header in the same block.
 */
static void array_in_block(struct binder *b, const struct func_types *ft, struct sbind *sb,
			   int64_t at)
{
	if (at <= 0)
		return;
	for (int i = 0; i < ft->nr; i++) {
		struct sbind *c = ft->t[i].member || ft->t[i].global ? NULL :
				  binder__find_struct(b, ft->t[i].name);

		for (int k = 0; c && k < c->s->nr_members; k++) {
			const struct ma_member *m = &c->s->members[k];

			if ((m->flags & MA_M_ARRAY) && m->offset == (uint64_t)at &&
			    array_of(m->type_name, sb->s->name))
				sb->block_off = at;
		}
	}
}

/*
 * An indexed access whose displacement lands on a scalar member of S: an
 * index into a scalar is no C access, but an array member after it, read
 * with a counter that starts at 1 or more (p->gain[t] as [p + t'*4 + 140],
 * t' = t + 1), is.  The array member a step or a few after OFF, or -1.
 */
static int biased_array(const struct ma_struct *s, const struct addr_ip *ip, int64_t off)
{
	for (int k = 1; k <= 4 && ip->op.index >= 0 && ip->op.scale; k++) {
		int64_t o = off + k * ip->op.scale;
		int mk = o < (int64_t)s->size ? bind__member_at(s, o) : -1;

		if (mk >= 0 && (s->members[mk].flags & MA_M_ARRAY) &&
		    s->members[mk].offset == (uint64_t)o)
			return mk;
	}
	return -1;
}

/* The DWARF register number of a sampled register (x86-64 psABI), -1 for none. */
static int dwarf_reg(int family)
{
	static const int map[AS_NR_REGS] = {
		[AS_AX] = 0, [AS_DX] = 1, [AS_CX] = 2, [AS_BX] = 3, [AS_SI] = 4, [AS_DI] = 5,
		[AS_BP] = 6, [AS_SP] = 7, [AS_IP] = -1, [AS_R8] = 8, [AS_R9] = 9, [AS_R10] = 10,
		[AS_R11] = 11, [AS_R12] = 12, [AS_R13] = 13, [AS_R14] = 14, [AS_R15] = 15,
	};

	return family >= 0 && family < AS_NR_REGS ? map[family] : -1;
}

/*
 * Whether IP's access fits member M of S at offset OFF: a scalar of the
 * member's size, within an array or nested struct member, or, stepping over
 * S one by one (STEPPED), starting at the member and covering it and the
 * next ones (one load for r, g, b, a).
 */
static bool fits_member(const struct addr_ip *ip, const struct ma_struct *s,
			const struct ma_member *m, int64_t off, bool stepped)
{
	bool wide = stepped && m->offset == (uint64_t)off && m->size < ip->op.size &&
		    (uint64_t)off + ip->op.size <= s->size;

	return !ip->op.size || wide ||
	       (m->size >= ip->op.size &&
		((m->flags & MA_M_ARRAY) || m->nested || m->size == ip->op.size));
}

/*
 * The struct of the pointer variable that the debug info says the access's
 * base register holds at its instruction (s->last_tile through s, whatever
 * other structs the function works on have a member at that displacement),
 * and the member there; NULL when no variable is known to be there, or its
 * struct has no member the access fits.
 */
struct reg_hint {
	char type[128];		/* the variable's struct, "" none */
	int64_t delta;		/* the variable's value less the register's */
	bool scalar;		/* the register holds a pointer to scalars, no struct one */
	char scalar_type[128];	/* their type ("long int"; "pointer") */
};

static struct sbind *reg_variable_struct(struct binder *b, const struct addr_ip *ip,
					 const char *fn, int64_t stride, int *member,
					 struct reg_hint *hint)
{
	char type[128];
	struct sbind *sb, *elem;
	const struct ma_member *m;
	int64_t off, delta = 0;
	int mi;
	bool stepped;

	int r;

	if (!b->ct || ip->op.base < 0 || ip->op.base == AS_SP || ip->op.base == AS_IP ||
	    !ip->loc.rel || !ip->loc.function[0])
		return NULL;
	r = codetypes__reg_struct(b->ct, fn, ip->loc.rel, dwarf_reg(ip->op.base), type,
				  sizeof(type), &delta);
	hint->scalar = r == 1;
	if (hint->scalar)
		snprintf(hint->scalar_type, sizeof(hint->scalar_type), "%s", type);
	if (r || !(sb = binder__find_struct(b, type)) || !sb->s->size)
		return NULL;
	stepped = bind__steps_over(ip, stride, (int64_t)sb->s->size);
	/*
	 * the register points outside the variable's object (w = rax + 64,
	 * w = &ino[i].wb): it walks objects that enclose it, which the
	 * function's types find
	 */
	if (delta > 0 || -delta >= (int64_t)sb->s->size) {
		snprintf(hint->type, sizeof(hint->type), "%s", type);
		hint->delta = delta;
		return NULL;
	}
	if (delta)	/* the register points -DELTA bytes into the object: exact */
		off = stepped ? (((ip->op.disp - delta) % (int64_t)sb->s->size) +
				 (int64_t)sb->s->size) % (int64_t)sb->s->size
			      : ip->op.disp - delta;
	else
		off = bind__elem_offset(sb->s, ip, stepped);
	if (off < 0 || off >= (int64_t)sb->s->size || (mi = bind__member_at(sb->s, off)) < 0)
		return NULL;
	m = &sb->s->members[mi];
	/*
	 * an array of structs inside it (c->q[i].ask through c): the element's
	 * struct, the array behind a header in the same block (array_in_block)
	 */
	if ((m->flags & MA_M_ARRAY) && m->nested && m->nested->size && m->nested->name &&
	    (elem = binder__find_struct(b, m->nested->name)) && elem->s->size) {
		int64_t in = ((off - (int64_t)m->offset) % (int64_t)elem->s->size);

		if ((mi = bind__member_at(elem->s, in)) < 0)
			return NULL;
		if (m->offset)
			elem->block_off = (int64_t)m->offset;
		sb = elem;
		off = in;
		m = &sb->s->members[mi];
	} else if ((ip->op.index >= 0 || ip->op.lea_indexed) && !stepped &&
		   !(m->flags & MA_M_ARRAY) && !m->nested) {
		if ((mi = biased_array(sb->s, ip, off)) < 0)
			return NULL;
		m = &sb->s->members[mi];
	}
	if (!fits_member(ip, sb->s, m, off, stepped))
		return NULL;
	*member = mi;
	return sb;
}

/*
 * The struct a pointer member of type NAME ("struct limiter *", "const
 * struct node *") points to, as layout.h names it, into OUT; false for
 * anything else (a pointer to a pointer, a typedef'd pointer).
 */
static bool pointee_name(const char *name, char *out, size_t len)
{
	size_t n;

	if (!name)
		return false;
	while (!strncmp(name, "const ", 6) || !strncmp(name, "volatile ", 9))
		name += name[0] == 'c' ? 6 : 9;
	if (!strncmp(name, "struct ", 7))
		name += 7;
	else if (!strncmp(name, "union ", 6))
		name += 6;
	n = strlen(name);
	if (n < 3 || strcmp(name + n - 2, " *") || strchr(name, '*') != name + n - 1 ||
	    n - 2 >= len)
		return false;
	memcpy(out, name, n - 2);
	out[n - 2] = 0;
	return true;
}

/*
 * The struct an access through a pointer loaded before it works on
 * (op.from_load: mov rbx, [rdi]; add rbx, 56 for &rf->lim->issued): the
 * debug info's variable in the register the pointer was loaded through, at
 * the load; its member at the load's displacement, a pointer to a struct;
 * that struct's member at the access's displacement (rebased: from the
 * loaded pointer), which the access must fit.  NULL when any link is
 * unknown.
 */
static struct sbind *loaded_struct(struct binder *b, const struct addr_ip *ip, const char *fn,
				   int *member)
{
	char type[128], name[128];
	struct sbind *sb, *tb;
	const struct ma_member *m;
	int64_t delta = 0, off;
	int mi;

	if (!b->ct || !ip->op.from_load || !ip->op.from_base || !ip->loc.rel ||
	    ip->op.from_back > ip->loc.rel || !ip->loc.function[0] ||
	    codetypes__reg_struct(b->ct, fn, ip->loc.rel - ip->op.from_back,
				  dwarf_reg(ip->op.from_base - 1), type, sizeof(type), &delta) ||
	    !(sb = binder__find_struct(b, type)))
		return NULL;
	off = ip->op.from_load_disp - delta;
	if (off < 0 || (mi = bind__member_at(sb->s, off)) < 0)
		return NULL;
	m = &sb->s->members[mi];
	if (m->offset != (uint64_t)off || m->size != 8 || (m->flags & MA_M_ARRAY) ||
	    !pointee_name(m->type_name, name, sizeof(name)) || !(tb = binder__find_struct(b, name)))
		return NULL;
	off = ip->op.disp;
	if (off < 0 || off >= (int64_t)tb->s->size || (mi = bind__member_at(tb->s, off)) < 0)
		return NULL;
	if (!fits_member(ip, tb->s, &tb->s->members[mi], off, false))
		return NULL;
	*member = mi;
	return tb;
}

/*
 * Where IP's access lands in an object of S that encloses the variable
 * the debug info ties to its base register (w = rax + 64 with w =
 * &ino[i].wb: S's member of w's struct at 88, so rax is 24 into the
 * inode): exact, -1 when S holds no such member (once).
 */
static int64_t hinted_offset(const struct ma_struct *s, const struct addr_ip *ip,
			     const struct reg_hint *hint)
{
	int64_t at = -1;

	if (!hint->type[0] || !s->size)
		return -1;
	for (int k = 0; k < s->nr_members; k++) {
		const struct ma_member *m = &s->members[k];

		if (!m->nested || !m->nested->name || strcmp(m->nested->name, hint->type) ||
		    (m->flags & MA_M_ARRAY))
			continue;
		if (at >= 0)
			return -1;	/* two such members: which one is unknown */
		at = (int64_t)m->offset - hint->delta + ip->op.disp;
	}
	return at < 0 ? -1 : ((at % (int64_t)s->size) + (int64_t)s->size) % (int64_t)s->size;
}

/*
 * Whether member M is of the scalar type NAME (as the debug info names a
 * base type: "long int"), or an array of them, qualifiers aside.
 */
static bool same_scalar(const struct ma_member *m, const char *name)
{
	const char *t = m->type_name;
	size_t n = strlen(name);

	if (!t || !n)
		return false;
	for (;;) {
		if (!strncmp(t, "const ", 6))
			t += 6;
		else if (!strncmp(t, "volatile ", 9))
			t += 9;
		else
			break;
	}
	return !strncmp(t, name, n) && (!t[n] || ((m->flags & MA_M_ARRAY) && t[n] == ' ' &&
						  t[n + 1] == '['));
}

/*
 * The struct an access at IP works on: among the types of its function
 * (parameters first), the one whose size is the access stride (an array of
 * it is walked), else the first one with a member at the displacement.
 * Last, a struct a file-scope variable of its unit leads to, only when the
 * access steps over it (stride = size).
 */
/*
 * Whether the struct of FT's type I fits IP's access in PASS (see
 * bind__attribute): the struct, with the access's offset in it in *OFF, or
 * NULL.
 */
static struct sbind *fit_type(struct binder *b, const struct addr_ip *ip,
			      const struct func_types *ft, int i, int pass, int64_t stride,
			      const struct reg_hint *hint, bool on_stack, int64_t *out_off)
{
	struct sbind *sb = binder__find_struct(b, ft->t[i].name);
	int64_t off;

	if (!sb || ft->t[i].global != (pass == 4) ||
	    (pass < 4 && ft->t[i].member != (pass >= 2)))
		return NULL;
	/*
	 * a slot of the function's own frame (an offset from the stack
	 * pointer: a local, a spill) is an object of the type only where a
	 * variable of that very type can lie there; a pointer to it cannot
	 * put it in this frame
	 */
	if (ip->op.base == AS_SP && !ft->t[i].value)
		return NULL;
	/* over whole objects (some may be skipped: the offset in one is the same) */
	bool stepped = bind__steps_over(ip, stride, (int64_t)sb->s->size);

	/*
	 * the debug info says the register points to scalars:
	 * a member of a struct only where the walk steps over
	 * its objects (x = v->pos; x[k] for each v), not
	 * because it has an array at the displacement (next[i]
	 * of a uint32_t *next)
	 */
	bool scalar_at = false;

	if (hint->scalar && !stepped) {
		if (ip->op.index >= 0 || ip->op.lea_indexed || ip->loop_step)
			return NULL;
		scalar_at = true;
	}

	/* a global's struct only when the access steps over it one by one */
	if ((!(pass & 1) || pass == 4) && llabs(stride) != (int64_t)sb->s->size)
		return NULL;
	/*
	 * and not for an access to the stack: what a file-scope
	 * pointer leads to is not a local (float acc[3] walked by
	 * the same index as the global array's member)
	 */
	if (pass == 4 && on_stack)
		return NULL;
	off = stepped ? hinted_offset(sb->s, ip, hint) : -1;
	if (off < 0)
		off = bind__elem_offset(sb->s, ip, stepped);
	if (off < 0 || off >= (int64_t)sb->s->size)
		return NULL;
	int mi = bind__member_at(sb->s, off);
	const struct ma_member *m;

	if (mi < 0)
		return NULL;
	/*
	 * the access must fit the member: a scalar of the same size;
	 * or, stepping over the struct one by one, start at a member
	 * and cover it and the next ones (one load for r, g, b, a)
	 */
	m = &sb->s->members[mi];
	/*
	 * indexed, not over the struct's objects: an array member
	 * (s->bits[i] is not).  An index biased onto an array a few
	 * elements on (biased_array) only where the debug info
	 * ties the base to the struct (reg_variable_struct): from
	 * the function's types alone, any struct with an array
	 * 16 bytes in would take order[i] of a uint32_t *order
	 */
	if ((ip->op.index >= 0 || ip->op.lea_indexed) && !stepped &&
	    !(m->flags & MA_M_ARRAY) && !m->nested)
		return NULL;
	/*
	 * a pointer the loop moves by a constant each pass, not
	 * over the struct's objects, walks an array: of the
	 * struct, only an array member (lat[i] through lat++
	 * is no scalar member that happens to sit at its
	 * displacement)
	 */
	if (ip->loop_step && !stepped && !(m->flags & MA_M_ARRAY) && !m->nested)
		return NULL;
	/*
	 * a pointer to scalars the loop does not move (*c = i
	 * with c = &s->a): a member of their very type there
	 */
	if (scalar_at && !same_scalar(m, hint->scalar_type))
		return NULL;
	if (!fits_member(ip, sb->s, m, off, stepped))
		return NULL;
	*out_off = off;
	return sb;
}

struct sbind *bind__attribute(struct binder *b, const struct addr_ip *ip, int *member)
{
	struct func_types ft;
	struct sbind *best = NULL;
	struct reg_hint hint = { "", 0, false, "" };
	int64_t disp = ip->op.disp, best_off = 0, stride = bind__walk_stride(b, ip);
	char fn[128];

	uint64_t placed = 0;

	for (int k = 0; k < MAPK__COUNT; k++)
		placed += ip->region[k];
	bool on_stack = placed && 2 * ip->region[MAPK_STACK] > placed;

	*member = -1;
	b->alt = NULL;
	bind__base_function(ip->loc.function, fn, sizeof(fn));
	/* RIP-relative: a global variable; find it at its link-time address */
	if (ip->op.rip && b->ct) {
		unsigned long long lo, off;
		char type[128];
		uint64_t ea = ip->op.insn + ip->op.len + (uint64_t)ip->op.disp;

		if (ip->loc.func_start && !codetypes__func_addr(b->ct, fn, &lo) &&
		    !codetypes__global_at(b->ct, ea - (ip->loc.func_start - lo), type, sizeof(type),
					  &off) &&
		    (best = binder__find_struct(b, type)))
			*member = bind__member_at(best->s, (int64_t)off);
		return best;
	}
	/* a pointer loaded through a variable's member before the access (op.from_load) */
	if ((best = loaded_struct(b, ip, fn, member)))
		return best;
	/* the pointer variable the debug info puts in the base register there */
	if ((best = reg_variable_struct(b, ip, fn, stride, member, &hint)))
		return best;
	if (!b->ct || codetypes__lookup(b->ct, fn, &ft))
		return NULL;
	/*
	 * the variables' own types before those reached through their members,
	 * and in each a struct the access steps over one by one (stride = size)
	 * before any it fits in.  A second struct that fits at the same rank
	 * makes the answer ambiguous (b->alt): the types do not say which.
	 */
	for (int pass = 0; pass < 5 && !best; pass++) {
		for (int i = 0; i < ft.nr; i++) {
			int64_t off;
			struct sbind *sb = fit_type(b, ip, &ft, i, pass, stride, &hint, on_stack, &off);

			if (!sb || sb == best)
				continue;
			if (best) {
				b->alt = sb;
				break;
			}
			best = sb;
			best_off = off;
		}
	}
	if (best) {
		*member = bind__member_at(best->s, best_off);
		array_in_block(b, &ft, best, disp - best_off);
	}
	return best;
}
