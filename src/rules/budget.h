/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Budget files for 'memadvise check' (format in memadvise-budget(5)): per
 * workload, limits on measured metrics (whole run, per function, per source
 * line) and on the rules' findings; per struct, limits on its layout.  Read
 * with libyaml; every error names FILE:LINE.  budget__eval_*() compare what a
 * run measured (or what the DWARF says) with the limits and append one
 * check_item each to a check_report (model/check.h): they never pass what
 * they could not check.
 */
#ifndef __MA_BUDGET_H
#define __MA_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/check.h"
#include "model/findings.h"
#include "model/report.h"
#include "model/sim.h"

struct layout;

/* How a workload is measured. */
enum budget_tier {
	BUDGET_TIER_SIM,	/* cachegrind with the pinned geometry (deterministic) */
	BUDGET_TIER_COUNTERS,	/* native run(s): hardware or software counters, median of N */
};

struct budget_limit {
	char *metric;
	char *function;		/* per-function limit (sim tier), or NULL */
	char *file;		/* per-line limit: FILE:LINE (file by base name), or NULL */
	int line;
	double max;
	double tolerance;	/* relative: fails above max * (1 + tolerance) */
	int src_line;		/* in the budget file */
};

struct budget_allow {
	char *rule;		/* a rule id, or NULL for any */
	char *location;		/* "file:line", "file", a function or a struct; NULL: anywhere */
};

struct budget_workload {
	char *name;
	char **argv;		/* NULL: the command given after '--' */
	int argc;
	enum budget_tier tier;
	int repeat;		/* counters tier: runs (median) */
	double min_instructions; /* fewer simulated instructions: exit 2, never a pass */
	struct budget_limit *limits;
	int nr_limits;
	/* findings */
	bool has_findings;
	bool fail_on_set;
	enum severity fail_on;	/* fail on any finding of at least this severity */
	char **fail_rules;	/* fail on any finding of these rules */
	int nr_fail_rules;
	struct budget_allow *allow;
	int nr_allow;
	int findings_line;
	int src_line;
};

/* A struct's layout, checked straight from the DWARF of BINARY. */
struct budget_layout {
	char *name;		/* "layout: STRUCT" unless given */
	char *binary;		/* resolved against the budget file's directory */
	char *struct_name;
	uint32_t cacheline;	/* default 64 */
	int64_t max_size, max_cachelines, max_holes, min_align; /* < 0: no limit */
	char *(*same_line)[2];	/* member pairs that must share a line */
	int nr_same_line;
	char *(*separate_lines)[2]; /* member pairs that must not share one */
	int nr_separate_lines;
	int src_line;
};

struct budget {
	char *path;
	char *dir;		/* relative paths in the file are relative to it */
	bool has_geometry;
	struct sim_geometry geometry;
	struct budget_workload *w;
	int nr_w;
	struct budget_layout *l;
	int nr_l;
};

/*
 * Parses the budget file PATH.  0, or -EINVAL (-errno for I/O) with
 * "PATH:LINE: what is wrong" in ERR.
 */
int budget__parse_file(const char *path, struct budget **out, char *err, size_t errlen);
int budget__parse_text(const char *path, const char *text, size_t len, struct budget **out,
		       char *err, size_t errlen);
void budget__free(struct budget *b);

/* The metric names a workload limit may use, with their unit and tier. */
struct budget_metric {
	const char *name;
	const char *unit;
	bool sim;		/* the simulation tier measures it */
	bool per_site;		/* usable per function and per line (sim) */
	const char *help;
	const char *counter;	/* the counters tier's metric or counter, NULL: sim only */
};
const struct budget_metric *budget_metric__find(const char *name);
const struct budget_metric *budget_metric__table(int *nr);

/*
 * The workload's limits on what run R measured (sim or counters tier; for
 * the counters tier, NR runs whose values are in RUNS), appended to CR.
 */
void budget__eval_sim(const struct budget_workload *w, const struct report *r,
		      struct check_report *cr);
void budget__eval_counters(const struct budget_workload *w, struct report *const *runs, int nr,
			   struct check_report *cr);
/* Every limit of a workload that could not be measured, with WHY. */
void budget__eval_unmeasured(const struct budget_workload *w, const char *why,
			     struct check_report *cr);
/* The workload's findings limits on FS (NULL: the rules did not run). */
void budget__eval_findings(const struct budget_workload *w, const struct findings *fs,
			   struct check_report *cr);
/* One layout budget; L is the binary's layout (NULL: LOAD_ERR says why). */
void budget__eval_layout(const struct budget_layout *bl, struct layout *l, const char *load_err,
			 struct check_report *cr);

#endif
