/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rules from the paper and the advice engine.
 *
 * A rule is one YAML file, rules/<area>/<id>.yaml (format in
 * memadvise-rules(5)), read with libyaml.  ruleset__eval() binds its input
 * (struct rules_input: the snapshot of a finished run, the layouts read
 * from the program it ran, and the options) into the metric namespace
 * (facts.h), evaluates every rule on every entity of its for-each, and
 * produces findings ranked by estimated cost.  A rule whose evidence is
 * missing says "inconclusive" with what is missing; it never passes
 * silently.  The evaluation reads no option or file of its own: what it
 * works on is in its arguments (the machine's caches and page size are
 * read from sysfs, machine/sysinfo.h).
 */
#ifndef __MA_RULES_H
#define __MA_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/findings.h"
#include "rules/facts.h"
#include "model/report.h"

struct json_object;
struct expr;
struct layout;
struct codetypes;


struct rule_expr {
	char *src;
	struct expr *e;
	int line;
};

/* Who made a region, as far as advice differs (advice_for, fix_for). */
enum rule_alloc {
	RULE_ALLOC_MALLOC,
	RULE_ALLOC_MMAP,
	RULE_ALLOC_STATIC,
	RULE_ALLOC_STACK,
	RULE_ALLOC__COUNT,
};
extern const char *const rule_alloc_names[RULE_ALLOC__COUNT];

struct rule {
	char *path;		/* the file it came from */
	char *id, *title, *paper, *explain;
	enum severity severity;
	enum scope scope;	/* for-each */
	/* requires: every item must hold; an item is one or more alternatives ("a | b") */
	struct {
		char **alt;
		int nr_alt;
	} *requires;
	int nr_requires;
	struct rule_expr when, inconclusive_when, gain;
	bool gain_wall;		/* gain_of: wall: the gain is wall time, a share of the wall */
	char *inconclusive_why;	/* said when inconclusive_when holds */
	struct {
		char *name;
		double min;
	} *min_samples;
	int nr_min_samples;
	char **evidence;
	int nr_evidence;
	char *message, *advice, *fix;
	/* the advice and fix for a region of this kind (NULL: advice, fix) */
	char *advice_for[RULE_ALLOC__COUNT], *fix_for[RULE_ALLOC__COUNT];
	char *example;
	/*
	 * caused_by: rules whose finding at the same entity, when the
	 * condition holds there, is the cause of this one: it is folded
	 * and names that finding (its fix removes this one too).
	 */
	struct {
		char *id;
		struct rule_expr when;
	} *caused_by;
	int nr_caused_by;
	bool builtin;
};

struct ruleset {
	struct rule *rules;
	int nr_rules;
};

/*
 * Parses one rule file.  On error returns -EINVAL (or -errno for I/O) and
 * writes "FILE:LINE: what is wrong" into ERR.
 */
int rule__parse_file(const char *path, struct rule *out, char *err, size_t errlen);
void rule__release(struct rule *r);

/*
 * Loads every *.yaml under DIR (recursively) into *OUT (a new set when *OUT
 * is NULL; rules with an id already present replace the earlier one).
 * Errors are printed (pr_err) as FILE:LINE: ...; returns 0, or -EINVAL
 * after the first bad file (lint: after all of them, see ruleset__lint).
 */
int ruleset__load_dir(const char *dir, struct ruleset **out);
/* The built-in rules plus $MEMADVISE_RULES and USER_DIR (--rules; NULL: none). */
int ruleset__load_default(const char *user_dir, struct ruleset **out);
/* The directory of the built-in rules (development tree or MA_DATADIR). */
const char *ruleset__builtin_dir(void);
void ruleset__free(struct ruleset *rs);
const struct rule *ruleset__find(const struct ruleset *rs, const char *id);
/*
 * Lint DIR: every file parses, ids unique and equal to the file name, names
 * known, advice present, example known (examples/labels/NAME.yaml or NAME.c
 * under EXAMPLES_DIR, skipped when NULL).  Prints each problem; returns the
 * number of problems or -errno.
 */
int ruleset__lint(const char *dir, const char *examples_dir);

/* --- findings ------------------------------------------------------------ */

/*
 * The debug info of the program a run profiled, read by the caller before
 * the evaluation: struct layouts (struct entities) and the types each
 * function works on (attributing sampled data addresses to structs).
 */
struct rules_layouts {
	char exe[256];			/* whose DWARF; "": the executable is unknown */
	struct layout *layout;		/* NULL: not read, see err */
	int err;			/* why layout is NULL (layout__strerror()) */
	struct codetypes *types;	/* NULL when layout is */
};

/*
 * Reads the layouts of the executable a snapshot names (target.layout_exe,
 * the program that ran most of the hot code, else target.exe), with the
 * cache-line size of this machine.  Failures are kept in *L (the facts say
 * why the layout is missing); always returns 0.
 */
int rules_layouts__load(struct rules_layouts *l, const struct report *snapshot);
void rules_layouts__release(struct rules_layouts *l);

struct eval_opts {
	/* the machine profile of 'memadvise calibrate' (machine_profile.h); "": none */
	char machine_profile[512];
	/* write the fact base here as JSON (recorded inputs of tests/golden); NULL: don't */
	const char *record_facts;
	/* share of the run under which a finding is folded (--min-gain) */
	double min_gain;
};

/*
 * The default gain threshold: 1% of the run.  On a shared guest, CPU time
 * of repeated runs of one program differs by several per cent (steal
 * time), so a change worth less than 1% cannot be shown to help; and a
 * finding that saves less than that is not what a user should read first.
 */
#define EVAL_MIN_GAIN_DEFAULT 0.01

/*
 * The options as the environment gives them: the machine profile at
 * $MEMADVISE_PROFILE, else $XDG_CACHE_HOME/memadvise/machine.json, else
 * ~/.cache/memadvise/machine.json (when readable), and the facts recorded
 * to $MEMADVISE_RECORD_FACTS.
 */
void eval_opts__from_env(struct eval_opts *o);

struct rules_input {
	const struct report *snapshot;		/* the finished run */
	const struct rules_layouts *layouts;	/* NULL: no debug info read */
	const struct eval_opts *opts;		/* NULL: no machine profile, no recording */
};

int ruleset__eval(const struct ruleset *rs, const struct rules_input *in, struct findings **out);
/* The same on a fact base (recorded facts in tests, or built by the caller). */
int ruleset__eval_facts(const struct ruleset *rs, const struct factbase *fb,
			struct findings **out);

#endif
