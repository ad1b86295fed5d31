/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metric namespace rules are written against, and the fact base that
 * binds it: what was measured about one run, as entities (the whole run, a
 * struct, a member, a memory region, a hot source line, a function) each
 * with named numbers.  A name without a value is "not measured": the rule
 * engine turns it into "inconclusive", never into 0.
 *
 * The registry (metric__registry) is the single list of names; the man page
 * memadvise-rules(5) is checked against it by a test.
 */
#ifndef __MA_FACTS_H
#define __MA_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/findings.h"
#include "model/report.h"

struct json_object;
struct rules_input;

int scope__parse(const char *s, enum scope *out);

/* Evidence kinds a rule can require; each is present or missing for a run. */
enum evkind {
	EV_LAYOUT,	/* DWARF layout of the target's executable */
	EV_HOTSPOTS,	/* profile.hotspots: sampled code lines */
	EV_FAULTS,	/* profile.faults: page faults by site and region */
	EV_REGIONS,	/* profile.regions: memory regions with THP state */
	EV_ADDR,	/* addr_samples: data addresses of sampled accesses */
	EV_STREAMS,	/* streams: exact address streams at hot instructions (uprobes) */
	EV_WATCH,	/* watchpoints: hardware watchpoints on candidate members */
	EV_SIM,		/* simulation: cachegrind */
	EV_MACHINE,	/* machine_profile: latencies from 'memadvise calibrate' */
	EV_SYSCALLS,	/* syscalls: system-call and futex tracepoints (lock waits) */
	EV_COUNTERS,	/* counters.NAME: one generic counter (see pmu.h) */
	EV__COUNT,
};
const char *evkind__name(enum evkind k);

struct metric_def {
	const char *name;	/* "member.writer_threads" */
	enum scope scope;	/* the smallest entity it belongs to (SCOPE_RUN: everywhere) */
	enum evkind kind;	/* what must be present for it to have a value */
	const char *unit;	/* "bytes", "count", "ratio", "ns", "bool", ... */
	const char *help;	/* one line for 'rules metrics' and the man page */
};

extern const struct metric_def metric__registry[];
extern const size_t metric__nr_registry;
/* The definition of NAME, or NULL. */
const struct metric_def *metric__find(const char *name);
/* Whether NAME can be used by a rule iterating over SCOPE. */
bool metric__usable_in(const struct metric_def *d, enum scope s);

/* One entity and its facts. */
struct fact {
	int idx;		/* into metric__registry */
	double v;
	enum tier tier;
};

struct entity {
	enum scope scope;
	int parent;		/* index of the enclosing entity (member -> struct), -1 */
	/* What a finding points at (empty when it does not apply). */
	char struct_name[128];
	char member[128];
	char decl_file[256];	/* declaration of the struct or member */
	int decl_line;
	char function[128];
	char file[256];		/* source location of the hot line / function */
	int line;
	char region[200];	/* "heap", "anon 0x7f..-0x7f..", a file path */
	char alt_struct[128];	/* another struct the accesses fit as well (struct.bind_ambiguous) */
	uint64_t region_start, region_len;
	int region_alloc;	/* enum sampling_region_alloc: which fix applies */
	char *snippet;		/* {fixed_decl}: the reorganised declaration (owned) */
	char *decl_text;	/* the declaration as it is, for {aligned_decl} (owned) */
	char *split_text;	/* {split_decl}: hot and cold halves of a struct (owned) */
	char *hot_text;		/* {hot_decl}: reorganised with the hot members first (owned) */
	struct fact *facts;
	int nr_facts;
};

struct factbase {
	bool replay;		   /* recorded facts (tests): never shown as a measurement */
	bool have[EV__COUNT];	   /* EV_COUNTERS: at least one counter counted */
	char missing[EV__COUNT][160]; /* why a kind is missing, for inconclusive findings */
	struct entity run;	   /* run-wide facts, machine facts included */
	struct entity *ents;
	int nr_ents;
	/* Per-counter state for requires: counters.NAME */
	struct {
		char name[48];
		bool counted;
		char reason[160];
	} counters[32];
	int nr_counters;
};

struct factbase *factbase__new(void);
void factbase__free(struct factbase *fb);
/* Adds an entity (copied; snippet and decl_text are taken over); its index or -ENOMEM. */
int factbase__add(struct factbase *fb, const struct entity *e);
/* Sets NAME (must be in the registry) on entity IDX (-1 = run); 0 or -ENOENT. */
int factbase__set(struct factbase *fb, int idx, const char *name, double v, enum tier t);
/* Looks NAME up in entity IDX, its parents, then the run: 0 or -ENOENT. */
int factbase__get(const struct factbase *fb, int idx, const char *name, double *v, enum tier *t);
void factbase__mark(struct factbase *fb, enum evkind k, bool have, const char *why_missing);
/* Whether requires item NAME ("layout", "counters.dtlb_miss") is present; *why when not. */
bool factbase__has(const struct factbase *fb, const char *kind, const char **why);
/* Whether NAME is a valid requires item. */
bool evkind__valid(const char *kind);

/*
 * Builds the fact base of a finished run from its snapshot, the layouts of
 * its program and the options (rules.h: struct rules_input).
 */
int factbase__from_input(const struct rules_input *in, struct factbase **out);
/* Recorded fact bases (tests' replay input) and their dump. */
int factbase__from_json(struct json_object *o, struct factbase **out, char *err, size_t errlen);
struct json_object *factbase__to_json(const struct factbase *fb);

#endif
