// SPDX-License-Identifier: GPL-2.0-only
/*
 * Budget files (memadvise-budget(5)), read with libyaml like the rule files:
 * every key is known, every value checked, every error one line with the
 * file and the line of the offending node.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/util.h"
#include "rules/budget.h"

#define BUDGET_MAX_BYTES (256 * 1024)

/* Metric names of workload limits; the sim ones follow cachegrind's events. */
#define SIM_ONLY NULL
static const struct budget_metric metrics[] = {
	/* name, unit, simulated, per site, what, the counters tier's name */
	{ "instructions", "count", true, true, "instructions executed (Ir)", "instructions" },
	{ "refs", "count", true, true, "data references (Dr + Dw)", SIM_ONLY },
	{ "l1d_misses", "count", true, true, "L1d misses (D1mr + D1mw)", "l1d_miss" },
	{ "l1d_mpki", "per_kilo_instr", true, true, "L1d misses per 1000 instructions",
	  "l1d_mpki" },
	{ "l1d_miss_ratio", "ratio", true, true, "L1d misses per data reference", SIM_ONLY },
	{ "ll_misses", "count", true, true, "last-level data misses (DLmr + DLmw)", "llc_miss" },
	{ "llc_mpki", "per_kilo_instr", true, true,
	  "last-level misses per 1000 instructions (sim: data and instruction)", "llc_mpki" },
	{ "ll_miss_ratio", "ratio", true, false, "last-level misses per reference (I and D)",
	  SIM_ONLY },
	{ "lld_miss_ratio", "ratio", true, false, "last-level data misses per data reference",
	  SIM_ONLY },
	{ "l1i_miss_ratio", "ratio", true, false, "L1i misses per instruction", SIM_ONLY },
	{ "branch_misses", "count", true, true, "mispredicted branches (Bcm + Bim)",
	  "branch_miss" },
	{ "branch_mpki", "per_kilo_instr", true, true,
	  "mispredicted branches per 1000 instructions", "branch_mpki" },
	{ "branch_miss_ratio", "ratio", true, false, "mispredicted per executed branch",
	  SIM_ONLY },
	{ "dtlb_mpki", "per_kilo_instr", false, false, "dTLB misses per 1000 instructions",
	  "dtlb_mpki" },
	{ "dtlb_miss_rate", "ratio", false, false, "dTLB misses per instruction",
	  "dtlb_miss_rate" },
	{ "l1d_miss_rate", "ratio", false, false, "L1d misses per instruction", "l1d_miss_rate" },
	{ "llc_miss_rate", "ratio", false, false, "LLC misses per instruction", "llc_miss_rate" },
	{ "page_faults", "count", false, false, "page faults", "page_faults" },
	{ "minor_faults", "count", false, false, "minor page faults", "minor_faults" },
	{ "major_faults", "count", false, false, "major page faults", "major_faults" },
	{ "page_faults_per_sec", "per_sec", false, false, "page faults per second of wall time",
	  "page_faults_per_sec" },
};

const struct budget_metric *budget_metric__table(int *nr)
{
	*nr = (int)ARRAY_SIZE(metrics);
	return metrics;
}

const struct budget_metric *budget_metric__find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(metrics); i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

/* --- parsing ------------------------------------------------------------- */

struct bctx {
	const char *path;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
	bool failed;
};

static int berr(struct bctx *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int berr(struct bctx *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return -EINVAL;
	p->failed = true;
	n = snprintf(p->err, p->errlen, "%s:%d: ", p->path, line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int nline(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

static const char *ntype(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a single value";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

static yaml_node_t *node(struct bctx *p, int id)
{
	return yaml_document_get_node(p->doc, id);
}

/*
 * The values of mapping N by key, in the order of KEYS (NULL-terminated);
 * unknown and repeated keys are errors.
 */
static int mapping(struct bctx *p, const char *what, yaml_node_t *n, const char *const *keys,
		   yaml_node_t **val)
{
	yaml_node_pair_t *pair;
	int nr = 0;

	while (keys[nr])
		val[nr++] = NULL;
	if (n->type != YAML_MAPPING_NODE)
		return berr(p, nline(n), "%s must be a mapping of keys, not %s", what, ntype(n));
	for (pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(p, pair->key), *v = node(p, pair->value);
		int i;

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return berr(p, k ? nline(k) : nline(n), "keys of %s must be plain words", what);
		for (i = 0; i < nr && strcmp((char *)k->data.scalar.value, keys[i]); i++)
			;
		if (i == nr) {
			char known[256] = "";

			for (int j = 0; j < nr; j++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
					 j ? ", " : "", keys[j]);
			return berr(p, nline(k), "unknown key '%s' in %s (known: %s)",
				    (char *)k->data.scalar.value, what, known);
		}
		if (val[i])
			return berr(p, nline(k), "'%s' is given twice (first on line %d)", keys[i],
				    nline(val[i]));
		val[i] = v;
	}
	return 0;
}

static int str(struct bctx *p, const char *key, yaml_node_t *n, char **out)
{
	const char *s;

	if (n->type != YAML_SCALAR_NODE)
		return berr(p, nline(n), "'%s' must be a single value, not %s", key, ntype(n));
	s = (const char *)n->data.scalar.value;
	if (strlen(s) != n->data.scalar.length)
		return berr(p, nline(n), "'%s' contains a NUL byte", key);
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return berr(p, nline(n), "'%s' is empty", key);
	*out = xstrdup(s);
	return 0;
}

/* A number; "5%" is 0.05 when PERCENT. */
static int num(struct bctx *p, const char *key, yaml_node_t *n, bool percent, double *out)
{
	char *s = NULL, *end;
	int err = str(p, key, n, &s);

	if (err)
		return err;
	errno = 0;
	*out = strtod(s, &end);
	if (percent && *end == '%') {
		*out /= 100.0;
		end++;
	}
	if (end == s || *end || errno || !isfinite(*out) || *out < 0)
		err = berr(p, nline(n), "'%s' must be a number >= 0%s, not '%s'", key,
			   percent ? " (or a percentage)" : "", s);
	free(s);
	return err;
}

static int whole(struct bctx *p, const char *key, yaml_node_t *n, int64_t min, int64_t max,
		 int64_t *out)
{
	double v;
	int err = num(p, key, n, false, &v);

	if (err)
		return err;
	if (v != floor(v) || v < (double)min || v > (double)max)
		return berr(p, nline(n), "'%s' must be a whole number from %lld to %lld", key,
			    (long long)min, (long long)max);
	*out = (int64_t)v;
	return 0;
}

/* "SIZE,WAYS,LINE" as cachegrind's --D1 takes it (SIZE may end in K or M). */
static int cache(struct bctx *p, const char *key, yaml_node_t *n, struct sim_cache *c)
{
	char *s = NULL, *q, *end, why[160];
	unsigned long long size;
	long ways, line;
	int err = str(p, key, n, &s);

	if (err)
		return err;
	q = s;
	errno = 0;
	size = strtoull(q, &end, 10);
	if (*end == 'K' || *end == 'k')
		size <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		size <<= 20, end++;
	if (end == q || *end != ',')
		goto bad;
	ways = strtol(q = end + 1, &end, 10);
	if (end == q || *end != ',')
		goto bad;
	line = strtol(q = end + 1, &end, 10);
	if (end == q || *end || errno || ways <= 0 || ways > 1024 || line <= 0 || line > 4096)
		goto bad;
	c->size = size;
	c->ways = (int)ways;
	c->line = (int)line;
	free(s);
	if (sim_cache__check(c, why, sizeof(why)))
		return berr(p, nline(n), "geometry %s: cachegrind cannot model it: %s", key, why);
	return 0;
bad:
	err = berr(p, nline(n), "geometry %s must be SIZE,WAYS,LINE (e.g. 32768,8,64), not '%s'",
		   key, s);
	free(s);
	return err;
}

static int parse_geometry(struct bctx *p, yaml_node_t *n, struct budget *b)
{
	static const char *const keys[] = { "I1", "D1", "LL", NULL };
	yaml_node_t *v[3];
	struct sim_cache *c[3] = { &b->geometry.i1, &b->geometry.d1, &b->geometry.ll };
	int err = mapping(p, "'geometry'", n, keys, v);

	for (int i = 0; !err && i < 3; i++) {
		if (!v[i])
			return berr(p, nline(n), "geometry %s is missing: pin all of I1, D1 and LL, "
				    "or the numbers depend on the runner", keys[i]);
		err = cache(p, keys[i], v[i], c[i]);
	}
	b->has_geometry = !err;
	return err;
}

/* A command: a list of words, or one string split at blanks (no shell). */
static int parse_argv(struct bctx *p, yaml_node_t *n, struct budget_workload *w)
{
	if (n->type == YAML_SCALAR_NODE) {
		char *s = NULL, *save = NULL;
		int err = str(p, "run", n, &s);

		if (err)
			return err;
		w->argv = xcalloc(strlen(s) / 2 + 2, sizeof(char *));
		for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
			w->argv[w->argc++] = xstrdup(t);
		free(s);
		return 0;
	}
	if (n->type != YAML_SEQUENCE_NODE)
		return berr(p, nline(n), "'run' must be a command (a list of words), not %s",
			    ntype(n));
	w->argv = xcalloc(n->data.sequence.items.top - n->data.sequence.items.start + 1,
			  sizeof(char *));
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		int err = str(p, "run", node(p, *it), &w->argv[w->argc]);

		if (err)
			return err;
		w->argc++;
	}
	if (!w->argc)
		return berr(p, nline(n), "'run' is an empty command");
	return 0;
}

static int parse_limit(struct bctx *p, yaml_node_t *n, struct budget_workload *w,
		       struct budget_limit *l)
{
	static const char *const keys[] = { "metric", "max", "tolerance", "function", "line", NULL };
	const struct budget_metric *m;
	yaml_node_t *v[5];
	int err = mapping(p, "a limit", n, keys, v);

	l->src_line = nline(n);
	if (err)
		return err;
	if (!v[0])
		return berr(p, nline(n), "a limit needs 'metric' (see memadvise-budget(5))");
	if (!v[1])
		return berr(p, nline(n), "a limit needs 'max'");
	if ((err = str(p, "metric", v[0], &l->metric)) || (err = num(p, "max", v[1], false, &l->max)))
		return err;
	if (v[2] && (err = num(p, "tolerance", v[2], true, &l->tolerance)))
		return err;
	m = budget_metric__find(l->metric);
	if (!m)
		return berr(p, nline(v[0]), "unknown metric '%s' (see memadvise-budget(5))",
			    l->metric);
	if (v[3] && v[4])
		return berr(p, nline(v[4]), "give 'function' or 'line', not both");
	if (v[3] && (err = str(p, "function", v[3], &l->function)))
		return err;
	if (v[4]) {
		char *colon, *end;

		if ((err = str(p, "line", v[4], &l->file)))
			return err;
		colon = strrchr(l->file, ':');
		if (!colon || colon == l->file ||
		    (l->line = (int)strtol(colon + 1, &end, 10)) <= 0 || *end)
			return berr(p, nline(v[4]), "'line' must be FILE:LINE (e.g. matmul.c:57), "
				    "not '%s'", l->file);
		*colon = '\0';
	}
	if ((l->function || l->file) && !m->per_site)
		return berr(p, nline(v[0]), "'%s' is not measured per %s (per-site metrics: "
			    "instructions, refs, l1d_misses, l1d_mpki, l1d_miss_ratio, ll_misses, "
			    "llc_mpki, branch_misses, branch_mpki)", l->metric,
			    l->function ? "function" : "line");
	if (w->tier == BUDGET_TIER_SIM && !m->sim)
		return berr(p, nline(v[0]), "'%s' is not simulated: give this workload "
			    "'tier: counters'", l->metric);
	if (w->tier == BUDGET_TIER_COUNTERS && !m->counter)
		return berr(p, nline(v[0]), "'%s' is measured by the simulation only: give this "
			    "workload 'tier: sim'", l->metric);
	if (w->tier == BUDGET_TIER_COUNTERS && (l->function || l->file))
		return berr(p, nline(v[0]), "per-function and per-line limits need 'tier: sim'");
	return 0;
}

static int parse_findings(struct bctx *p, yaml_node_t *n, struct budget_workload *w)
{
	static const char *const keys[] = { "fail_on", "rules", "allow", NULL };
	static const char *const akeys[] = { "rule", "location", NULL };
	yaml_node_t *v[3];
	int err = mapping(p, "'findings'", n, keys, v);

	if (err)
		return err;
	w->has_findings = true;
	w->findings_line = nline(n);
	if (!v[0] && !v[1])
		return berr(p, nline(n), "'findings' needs 'fail_on' (a severity) or 'rules'");
	if (v[0]) {
		char *s = NULL;

		if ((err = str(p, "fail_on", v[0], &s)))
			return err;
		for (w->fail_on = SEV_INFO; w->fail_on <= SEV_CRITICAL; w->fail_on++)
			if (!strcmp(s, severity__name(w->fail_on)))
				break;
		if (w->fail_on > SEV_CRITICAL)
			err = berr(p, nline(v[0]), "fail_on '%s' is not one of info, warning, critical",
				   s);
		free(s);
		if (err)
			return err;
		w->fail_on_set = true;
	}
	if (v[1]) {
		if (v[1]->type != YAML_SEQUENCE_NODE)
			return berr(p, nline(v[1]), "'rules' must be a list of rule ids, not %s",
				    ntype(v[1]));
		w->fail_rules = xcalloc(v[1]->data.sequence.items.top -
					v[1]->data.sequence.items.start + 1, sizeof(char *));
		for (yaml_node_item_t *it = v[1]->data.sequence.items.start;
		     it < v[1]->data.sequence.items.top; it++)
			if ((err = str(p, "rules", node(p, *it), &w->fail_rules[w->nr_fail_rules++])))
				return err;
	}
	if (v[2]) {
		if (v[2]->type != YAML_SEQUENCE_NODE)
			return berr(p, nline(v[2]), "'allow' must be a list of {rule, location}, "
				    "not %s", ntype(v[2]));
		w->allow = xcalloc(v[2]->data.sequence.items.top - v[2]->data.sequence.items.start + 1,
				   sizeof(*w->allow));
		for (yaml_node_item_t *it = v[2]->data.sequence.items.start;
		     it < v[2]->data.sequence.items.top; it++) {
			yaml_node_t *a = node(p, *it), *av[2];
			struct budget_allow *al = &w->allow[w->nr_allow++];

			if ((err = mapping(p, "an 'allow' entry", a, akeys, av)))
				return err;
			if (!av[0] && !av[1])
				return berr(p, nline(a), "an 'allow' entry needs 'rule' or 'location'");
			if ((av[0] && (err = str(p, "rule", av[0], &al->rule))) ||
			    (av[1] && (err = str(p, "location", av[1], &al->location))))
				return err;
		}
	}
	return 0;
}

static int parse_workload(struct bctx *p, yaml_node_t *n, struct budget *b,
			  struct budget_workload *w)
{
	static const char *const keys[] = { "name", "run", "tier", "repeat", "min_instructions",
					    "limits", "findings", NULL };
	yaml_node_t *v[7];
	int err = mapping(p, "a workload", n, keys, v);
	int64_t rep;

	w->src_line = nline(n);
	w->repeat = 3;
	w->min_instructions = 100000;
	if (err)
		return err;
	if (!v[0])
		return berr(p, nline(n), "a workload needs a 'name'");
	if ((err = str(p, "name", v[0], &w->name)))
		return err;
	for (int i = 0; i < b->nr_w - 1; i++)
		if (!strcmp(b->w[i].name, w->name))
			return berr(p, nline(v[0]), "workload '%s' is defined twice (first on line %d)",
				    w->name, b->w[i].src_line);
	if (v[1] && (err = parse_argv(p, v[1], w)))
		return err;
	if (v[2]) {
		char *t = NULL;

		if ((err = str(p, "tier", v[2], &t)))
			return err;
		if (!strcmp(t, "sim"))
			w->tier = BUDGET_TIER_SIM;
		else if (!strcmp(t, "counters"))
			w->tier = BUDGET_TIER_COUNTERS;
		else
			err = berr(p, nline(v[2]), "tier '%s' is not one of sim, counters", t);
		free(t);
		if (err)
			return err;
	}
	if (w->tier == BUDGET_TIER_SIM && !b->has_geometry)
		return berr(p, nline(v[2] ? v[2] : n), "workload '%s' is simulated but the file "
			    "pins no 'geometry' (I1, D1, LL): the numbers would depend on the "
			    "runner", w->name);
	if (v[3]) {
		if ((err = whole(p, "repeat", v[3], 1, 100, &rep)))
			return err;
		w->repeat = (int)rep;
	}
	if (v[4] && (err = num(p, "min_instructions", v[4], false, &w->min_instructions)))
		return err;
	if (v[5]) {
		yaml_node_t *ls = v[5];

		if (ls->type != YAML_SEQUENCE_NODE)
			return berr(p, nline(ls), "'limits' must be a list, not %s", ntype(ls));
		w->limits = xcalloc(ls->data.sequence.items.top - ls->data.sequence.items.start + 1,
				    sizeof(*w->limits));
		for (yaml_node_item_t *it = ls->data.sequence.items.start;
		     it < ls->data.sequence.items.top; it++)
			if ((err = parse_limit(p, node(p, *it), w, &w->limits[w->nr_limits++])))
				return err;
	}
	if (v[6] && (err = parse_findings(p, v[6], w)))
		return err;
	if (!w->nr_limits && !w->has_findings)
		return berr(p, nline(n), "workload '%s' has neither 'limits' nor 'findings': it "
			    "would check nothing", w->name);
	return 0;
}

static int pairs(struct bctx *p, const char *key, yaml_node_t *n, char *(**out)[2], int *nr)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return berr(p, nline(n), "'%s' must be a list of member pairs, e.g. [[a, b]]", key);
	*out = xcalloc(n->data.sequence.items.top - n->data.sequence.items.start + 1, sizeof(**out));
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *pr = node(p, *it);
		int err;

		if (pr->type != YAML_SEQUENCE_NODE ||
		    pr->data.sequence.items.top - pr->data.sequence.items.start != 2)
			return berr(p, nline(pr), "items of '%s' must be pairs of member names, "
				    "e.g. [head, tail]", key);
		if ((err = str(p, key, node(p, pr->data.sequence.items.start[0]), &(*out)[*nr][0])) ||
		    (err = str(p, key, node(p, pr->data.sequence.items.start[1]), &(*out)[*nr][1])))
			return err;
		(*nr)++;
	}
	return 0;
}

static char *resolve(const char *dir, const char *path)
{
	char *out;

	if (path[0] == '/' || !dir[0])
		return xstrdup(path);
	out = xmalloc(strlen(dir) + strlen(path) + 2);
	sprintf(out, "%s/%s", dir, path);
	return out;
}

static int parse_layout(struct bctx *p, yaml_node_t *n, struct budget *b, struct budget_layout *l)
{
	static const char *const keys[] = { "name", "binary", "struct", "cacheline", "max_size",
					    "max_cachelines", "max_holes", "min_align", "same_line",
					    "separate_lines", NULL };
	int64_t *lim[4] = { &l->max_size, &l->max_cachelines, &l->max_holes, &l->min_align };
	yaml_node_t *v[10];
	char *bin = NULL;
	int64_t cl = 64;
	int err = mapping(p, "a layout budget", n, keys, v);

	l->src_line = nline(n);
	for (int i = 0; i < 4; i++)
		*lim[i] = -1;
	if (err)
		return err;
	if (!v[1] || !v[2])
		return berr(p, nline(n), "a layout budget needs 'binary' and 'struct'");
	if ((err = str(p, "binary", v[1], &bin)) || (err = str(p, "struct", v[2], &l->struct_name)))
		goto out;
	l->binary = resolve(b->dir, bin);
	if (v[0])
		err = str(p, "name", v[0], &l->name);
	else {
		l->name = xmalloc(strlen(l->struct_name) + 9);
		sprintf(l->name, "layout: %s", l->struct_name);
	}
	if (err || (v[3] && (err = whole(p, "cacheline", v[3], 8, 4096, &cl))))
		goto out;
	if (cl & (cl - 1)) {
		err = berr(p, nline(v[3]), "'cacheline' must be a power of two");
		goto out;
	}
	l->cacheline = (uint32_t)cl;
	for (int i = 0; i < 4; i++)
		if (v[4 + i] && (err = whole(p, keys[4 + i], v[4 + i], 0, INT64_MAX / 2, lim[i])))
			goto out;
	if ((v[8] && (err = pairs(p, "same_line", v[8], &l->same_line, &l->nr_same_line))) ||
	    (v[9] && (err = pairs(p, "separate_lines", v[9], &l->separate_lines,
				  &l->nr_separate_lines))))
		goto out;
	if (l->max_size < 0 && l->max_cachelines < 0 && l->max_holes < 0 && l->min_align < 0 &&
	    !l->nr_same_line && !l->nr_separate_lines)
		err = berr(p, nline(n), "layout budget for '%s' sets no limit (max_size, "
			   "max_cachelines, max_holes, min_align, same_line, separate_lines)",
			   l->struct_name);
out:
	free(bin);
	return err;
}

static int parse_root(struct bctx *p, yaml_node_t *root, struct budget *b)
{
	static const char *const keys[] = { "version", "geometry", "workloads", "layouts", NULL };
	yaml_node_t *v[4];
	int64_t version;
	int err = mapping(p, "a budget file", root, keys, v);

	if (err)
		return err;
	if (!v[0])
		return berr(p, nline(root), "'version' is missing (version: 1)");
	if ((err = whole(p, "version", v[0], 1, 1, &version)))
		return err;
	if (v[1] && (err = parse_geometry(p, v[1], b)))
		return err;
	if (!v[2] && !v[3])
		return berr(p, nline(root), "the file has neither 'workloads' nor 'layouts'");
	if (v[2]) {
		if (v[2]->type != YAML_SEQUENCE_NODE)
			return berr(p, nline(v[2]), "'workloads' must be a list, not %s", ntype(v[2]));
		b->w = xcalloc(v[2]->data.sequence.items.top - v[2]->data.sequence.items.start + 1,
			       sizeof(*b->w));
		for (yaml_node_item_t *it = v[2]->data.sequence.items.start;
		     it < v[2]->data.sequence.items.top; it++) {
			b->nr_w++;
			if ((err = parse_workload(p, node(p, *it), b, &b->w[b->nr_w - 1])))
				return err;
		}
	}
	if (v[3]) {
		if (v[3]->type != YAML_SEQUENCE_NODE)
			return berr(p, nline(v[3]), "'layouts' must be a list, not %s", ntype(v[3]));
		b->l = xcalloc(v[3]->data.sequence.items.top - v[3]->data.sequence.items.start + 1,
			       sizeof(*b->l));
		for (yaml_node_item_t *it = v[3]->data.sequence.items.start;
		     it < v[3]->data.sequence.items.top; it++)
			if ((err = parse_layout(p, node(p, *it), b, &b->l[b->nr_l++])))
				return err;
	}
	if (!b->nr_w && !b->nr_l)
		return berr(p, nline(root), "the file sets no budget: its 'workloads' and "
			    "'layouts' are empty");
	return 0;
}

struct text_in {
	const char *text;
	size_t len, off;
};

static int text_read(void *data, unsigned char *buf, size_t size, size_t *read)
{
	struct text_in *in = data;
	size_t n = in->len - in->off < size ? in->len - in->off : size;

	memcpy(buf, in->text + in->off, n);
	in->off += n;
	*read = n;
	return 1;
}

int budget__parse_text(const char *path, const char *text, size_t len, struct budget **out,
		       char *err, size_t errlen)
{
	struct budget *b = xcalloc(1, sizeof(*b));
	yaml_document_t doc;
	struct bctx p = { .path = path, .doc = &doc, .err = err, .errlen = errlen };
	struct text_in in = { text, len, 0 };
	yaml_parser_t parser;
	yaml_node_t *root;
	const char *slash = strrchr(path, '/');
	int ret;

	*out = NULL;
	b->path = xstrdup(path);
	b->dir = xstrdup(slash ? path : "");
	if (slash)
		b->dir[slash == path ? 1 : slash - path] = '\0';
	if (len > BUDGET_MAX_BYTES) {
		ret = berr(&p, 1, "file is larger than %d KiB", BUDGET_MAX_BYTES / 1024);
		goto fail;
	}
	if (memchr(text, '\0', len)) {
		ret = berr(&p, 1, "file contains a NUL byte: not a YAML budget file");
		goto fail;
	}
	if (!yaml_parser_initialize(&parser)) {
		ret = -ENOMEM;
		goto fail;
	}
	yaml_parser_set_input(&parser, text_read, &in);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = berr(&p, (int)parser.problem_mark.line + 1, "YAML syntax: %s%s%s",
			   parser.problem ? parser.problem : "cannot parse",
			   parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		goto fail;
	}
	root = yaml_document_get_root_node(&doc);
	ret = root ? parse_root(&p, root, b)
		   : berr(&p, 1, "file is empty: a budget needs 'version' and 'workloads' or "
			  "'layouts'");
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (!ret) {
		*out = b;
		return 0;
	}
fail:
	budget__free(b);
	return ret;
}

int budget__parse_file(const char *path, struct budget **out, char *err, size_t errlen)
{
	size_t len;
	char *text = read_file(path, &len);
	int ret;

	*out = NULL;
	if (!text) {
		ret = -errno;
		snprintf(err, errlen, "cannot read the budget file '%s': %s", path, strerror(errno));
		return ret;
	}
	ret = budget__parse_text(path, text, len, out, err, errlen);
	free(text);
	return ret;
}

void budget__free(struct budget *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nr_w; i++) {
		struct budget_workload *w = &b->w[i];

		free(w->name);
		for (int j = 0; j < w->argc; j++)
			free(w->argv[j]);
		free(w->argv);
		for (int j = 0; j < w->nr_limits; j++) {
			free(w->limits[j].metric);
			free(w->limits[j].function);
			free(w->limits[j].file);
		}
		free(w->limits);
		for (int j = 0; j < w->nr_fail_rules; j++)
			free(w->fail_rules[j]);
		free(w->fail_rules);
		for (int j = 0; j < w->nr_allow; j++) {
			free(w->allow[j].rule);
			free(w->allow[j].location);
		}
		free(w->allow);
	}
	for (int i = 0; i < b->nr_l; i++) {
		struct budget_layout *l = &b->l[i];

		free(l->name);
		free(l->binary);
		free(l->struct_name);
		for (int j = 0; j < l->nr_same_line; j++)
			free(l->same_line[j][0]), free(l->same_line[j][1]);
		for (int j = 0; j < l->nr_separate_lines; j++)
			free(l->separate_lines[j][0]), free(l->separate_lines[j][1]);
		free(l->same_line);
		free(l->separate_lines);
	}
	free(b->w);
	free(b->l);
	free(b->path);
	free(b->dir);
	free(b);
}
