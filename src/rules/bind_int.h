/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the binder: the state one binding of a snapshot keeps, and the
 * steps each file binds, called in this order by bind__sections():
 *   bind_layout.c   layout of the program (struct, member entities)
 *   bind_sampling.c sampled results: hot lines and functions, faults,
 *                   regions with their huge-page state
 *   bind_addr.c     data addresses: line facts, and struct and member
 *                   facts through the types the sampled function works
 *                   on (codetypes.h)
 *   bind_layout.c   struct heat, from the two above
 *   bind_sim.c      simulation: run and line facts
 *   bind_watch.c    watchpoints: run and member facts
 *   bind_sections.c line entities, and the lines known from one source only
 */
#ifndef __MA_BIND_INT_H
#define __MA_BIND_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rules/facts.h"
#include "model/addr.h"
#include "model/report.h"

struct addr_ip;
struct codetypes;
struct layout;
struct ma_struct;
struct rules_layouts;

/* A struct of the layout, with what the sampled accesses said of it. */
struct sbind {
	const struct ma_struct *s;
	int ent;
	double addr_samples, samples;
	int64_t stride;
	double stride_samples;
	/*
	 * Bytes into a struct of the function's variables where an array of
	 * these begins (a header before it in one block: c->q[i]); 0: none seen.
	 */
	int64_t block_off;
	double order_sigma;	/* of the access that gave the stride: addr_ip__order_sigma */
	bool in_order;		/* ... and addr_ip__in_order */
	uint64_t order_insn;	/* that access's instruction, and its process */
	int order_pid;
	uint64_t hot_off[64];	/* member offsets the accesses hit */
	double hot_samples[64];	/* ... and the samples on each */
	bool code_hot[64];	/* ... reached by the hot loop's code (sampled or not) */
	bool sampled_hot[64];	/* ... with 2 % of the hot function's samples or more */
	/*
	 * ... used together with the busiest access: with 2 % of the samples
	 * of its loop (addr_ip.loop_lo) or more (loop_sampled), or that or
	 * reached by that loop's code through the pointer of a sampled access
	 * (together); the function's when the loop is not known
	 */
	bool loop_sampled[64];
	bool together[64];
	double together_samples;	/* its decoded samples in that loop (or function) */
	int nr_hot;
	const struct addr_ip *top; /* the IP with most samples on it */
	/*
	 * Where the objects the exact samples hit begin, by offset in the
	 * line (sampled address minus the member's offset), and the line
	 * entities of those accesses (the object placement facts go there).
	 */
	double base_off[ADDR_LINE_OFF_MAX];
	uint64_t ea_min, ea_max; /* the exact addresses of its accesses, lowest and highest */
	uint64_t thread_extent;	/* the widest range of them one thread hit (addr_ip.thread_extent) */
	double span_lines;	/* lines its accesses cover, the widest of any one access's */
	int line_ent[16];
	int nr_line_ent;
	int *member_ent;	/* entity of each member, -1 until created */
	/*
	 * Samples whose access fitted another struct as well, at the same
	 * rank (bind__attribute: the function's types, not the debug info of
	 * the base register, chose), and the other struct with most of them.
	 */
	double ambiguous_samples;
	const struct sbind *alt;
	double alt_samples;
};

struct binder {
	const struct report *r;
	/* bind__attribute's last answer fitted this struct as well (NULL: it did not) */
	struct sbind *alt;
	struct factbase *fb;
	const struct rules_layouts *layouts; /* NULL: none read */
	const struct layout *layout;
	struct codetypes *ct;
	uint32_t line;		/* cache-line size */
	double period_ns;	/* time one profile sample stands for */
	double total_samples;	/* profile samples of event 0 */
	/* struct entities by layout struct (same order as fb->ents for structs) */
	struct sbind *sb;
	int nr_sb;
};

/* bind_sections.c */
void bind__base_function(const char *in, char *out, size_t len);
/* The entity of a source line (made on first use), or -1 without file and line. */
int binder__line_entity(struct binder *b, const char *function, const char *file, int line);

/* bind_layout.c */
void bind__layout(struct binder *b);
int binder__struct_entity(struct binder *b, struct sbind *sb);
int binder__member_entity(struct binder *b, struct sbind *sb, int mi);
struct sbind *binder__find_struct(struct binder *b, const char *name);
int bind__member_at(const struct ma_struct *s, int64_t off);
char *sbind__split_decl(const struct sbind *sb);
char *binder__hot_decl(struct binder *b, const struct sbind *sb);
void bind__struct_heat(struct binder *b);

/* bind_attr.c */
struct addr_ip;
/*
 * The struct (and in *MEMBER its member, -1 none) IP's access reaches, or
 * NULL when neither the debug info nor the function's types tell.
 */
struct sbind *bind__attribute(struct binder *b, const struct addr_ip *ip, int *member);
/* The distance IP's walk advances an element by (0 none). */
int64_t bind__walk_stride(const struct binder *b, const struct addr_ip *ip);
/* Whether a walk advancing STRIDE bytes steps over objects of SIZE bytes. */
bool bind__steps_over(const struct addr_ip *ip, int64_t stride, int64_t size);
/* The offset in an element of S at which IP's access lands (may be outside S). */
int64_t bind__elem_offset(const struct ma_struct *s, const struct addr_ip *ip, bool stepped);

void bind__sampling(struct binder *b);
void bind__addr(struct binder *b);
void bind__streams(struct binder *b);
void bind__sim(struct binder *b);
void bind__watch(struct binder *b);

#endif
