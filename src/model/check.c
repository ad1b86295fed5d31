// SPDX-License-Identifier: GPL-2.0-only
/* The result of 'memadvise check' (model/check.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/check.h"

const char *check_verdict__name(enum check_verdict v)
{
	switch (v) {
	case CHECK_PASS: return "pass";
	case CHECK_FAIL: return "fail";
	default: return "error";
	}
}

struct check_report *check_report__new(const char *budget_file)
{
	struct check_report *cr = xcalloc(1, sizeof(*cr));

	snprintf(cr->budget_file, sizeof(cr->budget_file), "%s", budget_file ? budget_file : "");
	return cr;
}

void check_report__free(struct check_report *cr)
{
	if (!cr)
		return;
	free(cr->items);
	free(cr->envs);
	free(cr);
}

struct check_item *check_report__add(struct check_report *cr, const char *workload,
				     const char *kind, int budget_line)
{
	struct check_item *it;

	cr->items = xrealloc(cr->items, (cr->nr_items + 1) * sizeof(*cr->items));
	it = &cr->items[cr->nr_items++];
	memset(it, 0, sizeof(*it));
	snprintf(it->workload, sizeof(it->workload), "%s", workload ? workload : "");
	snprintf(it->kind, sizeof(it->kind), "%s", kind);
	snprintf(it->budget_file, sizeof(it->budget_file), "%s", cr->budget_file);
	it->budget_line = budget_line;
	it->verdict = CHECK_ERROR;
	snprintf(it->op, sizeof(it->op), "<=");
	return it;
}

struct check_workload_env *check_report__add_env(struct check_report *cr, const char *name)
{
	struct check_workload_env *e;

	cr->envs = xrealloc(cr->envs, (cr->nr_envs + 1) * sizeof(*cr->envs));
	e = &cr->envs[cr->nr_envs++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	return e;
}

const struct check_workload_env *check_report__env(const struct check_report *cr,
						   const char *name)
{
	for (int i = 0; i < cr->nr_envs; i++)
		if (!strcmp(cr->envs[i].name, name))
			return &cr->envs[i];
	return NULL;
}

enum check_verdict check_report__verdict(const struct check_report *cr)
{
	enum check_verdict v = CHECK_PASS;

	if (!cr->nr_items)
		return CHECK_ERROR;
	for (int i = 0; i < cr->nr_items; i++)
		if (cr->items[i].verdict > v)
			v = cr->items[i].verdict;
	return v;
}
