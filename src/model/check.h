/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The result of 'memadvise check': one item per budget (a limit of a
 * workload, its findings limits, a layout budget), each with its limit, what
 * was measured, by which tier, and a verdict, plus the environment each
 * workload was measured in (the baseline fingerprint).  Filled by
 * rules/budget.c and the check command, printed by report/check.c.
 */
#ifndef __MA_MODEL_CHECK_H
#define __MA_MODEL_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "model/report.h"

enum check_verdict {
	CHECK_PASS,
	CHECK_FAIL,	/* a limit is exceeded (exit 1) */
	CHECK_ERROR,	/* the budget could not be checked (exit 2) */
};
const char *check_verdict__name(enum check_verdict v);

/* What makes two measurements comparable (a baseline's and this run's). */
struct check_fingerprint {
	char tier[24];		/* tier__name() of what measured */
	char cpu[128];		/* CPU model name */
	char kernel[128];	/* uname -r */
	char geometry[128];	/* sim: "I1=...,D1=...,LL=..." as cachegrind ran */
	char build_id[80];	/* the target's GNU build id (hex), "" if none */
	char tool[64];		/* sim: the valgrind version */
};

struct check_item {
	char name[160];		/* "WORKLOAD: METRIC", "WORKLOAD: l1d_misses in FUNC", ... */
	char workload[64];	/* "" for layout budgets */
	char kind[16];		/* "metric", "function", "line", "findings", "layout" */
	char metric[64];
	char unit[24];
	bool has_limit;
	char op[3];		/* "<=" (a max), ">=" (min_align) */
	double limit;		/* before its tolerance */
	double tolerance;
	bool has_value;
	double value;		/* measured (the median for repeats) */
	char value_text[16];	/* says the value in words when set ("shared", "apart") */
	double spread;		/* repeats: max - min; 0 otherwise */
	int repeats;
	enum tier tier;
	enum check_verdict verdict;
	char detail[320];	/* why it failed or could not be checked, or "" */
	bool has_baseline;
	double baseline;
	char budget_file[256];	/* where the budget is written */
	int budget_line;
};

struct check_workload_env {
	char name[64];
	struct check_fingerprint fp;
	double wall_s;
};

struct check_report {
	struct check_item *items;
	int nr_items;
	struct check_workload_env *envs;
	int nr_envs;
	char budget_file[256];
};

struct check_report *check_report__new(const char *budget_file);
void check_report__free(struct check_report *cr);
/* A new item, zeroed but for budget_file; the pointer is valid until the next add. */
struct check_item *check_report__add(struct check_report *cr, const char *workload,
				     const char *kind, int budget_line);
struct check_workload_env *check_report__add_env(struct check_report *cr, const char *name);
const struct check_workload_env *check_report__env(const struct check_report *cr,
						   const char *name);
/* The worst verdict of all items (CHECK_ERROR when there are none). */
enum check_verdict check_report__verdict(const struct check_report *cr);

#endif
