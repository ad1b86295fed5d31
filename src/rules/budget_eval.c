// SPDX-License-Identifier: GPL-2.0-only
/*
 * Budgets against what was measured: one check_item per limit.  What could
 * not be measured (no simulation output, too few instructions, a counter
 * that did not count, a function or line without counts, a member that
 * does not exist) is CHECK_ERROR with the reason, never a pass.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "layout/layout.h"
#include "rules/budget.h"

/* Counts summed over the lines of a site (or the totals). */
struct sim_counts {
	uint64_t ev[SIM_EV__COUNT];
};

static const char *name_of(const struct budget_limit *l, char *buf, size_t len)
{
	if (l->function)
		snprintf(buf, len, "%s in %s", l->metric, l->function);
	else if (l->file)
		snprintf(buf, len, "%s at %s:%d", l->metric, l->file, l->line);
	else
		snprintf(buf, len, "%s", l->metric);
	return buf;
}

static struct check_item *limit_item(struct check_report *cr, const struct budget_workload *w,
				     const struct budget_limit *l, enum tier tier)
{
	const struct budget_metric *m = budget_metric__find(l->metric);
	struct check_item *it = check_report__add(cr, w->name, l->function ? "function"
							      : l->file ? "line" : "metric",
						  l->src_line);
	char what[128];

	snprintf(it->name, sizeof(it->name), "%s: %s", w->name, name_of(l, what, sizeof(what)));
	snprintf(it->metric, sizeof(it->metric), "%s", l->metric);
	snprintf(it->unit, sizeof(it->unit), "%s", m ? m->unit : "");
	it->has_limit = true;
	it->limit = l->max;
	it->tolerance = l->tolerance;
	it->tier = tier;
	return it;
}

static void judge(struct check_item *it, double v)
{
	char a[32], b[32];

	it->has_value = true;
	it->value = v;
	if (v <= it->limit * (1.0 + it->tolerance)) {
		it->verdict = CHECK_PASS;
		return;
	}
	it->verdict = CHECK_FAIL;
	fmt_num(v, a, sizeof(a));
	fmt_num(it->limit, b, sizeof(b));
	snprintf(it->detail, sizeof(it->detail), "%s %s exceeds the limit %s%s", it->metric, a, b,
		 it->tolerance > 0 ? " (with its tolerance)" : "");
}

static double per(uint64_t num, uint64_t den, double scale)
{
	return den ? scale * (double)num / (double)den : NAN;
}

/* A metric from summed cachegrind counts; NAN when an input is missing. */
static double sim_value(const char *metric, const struct sim_counts *c, const bool *has)
{
	const uint64_t *e = c->ev;
	uint64_t d1 = e[SIM_D1MR] + e[SIM_D1MW], dl = e[SIM_DLMR] + e[SIM_DLMW];
	uint64_t refs = e[SIM_DR] + e[SIM_DW], br = e[SIM_BCM] + e[SIM_BIM];
	bool hd = has[SIM_DR] && has[SIM_DW] && has[SIM_D1MR] && has[SIM_D1MW];
	bool hl = hd && has[SIM_DLMR] && has[SIM_DLMW] && has[SIM_ILMR];
	bool hb = has[SIM_BC] && has[SIM_BCM] && has[SIM_BI] && has[SIM_BIM];

	if (!has[SIM_IR])
		return NAN;
	if (!strcmp(metric, "instructions"))
		return (double)e[SIM_IR];
	if (!strcmp(metric, "refs"))
		return hd ? (double)refs : NAN;
	if (!strcmp(metric, "l1d_misses"))
		return hd ? (double)d1 : NAN;
	if (!strcmp(metric, "l1d_mpki"))
		return hd ? per(d1, e[SIM_IR], 1000) : NAN;
	if (!strcmp(metric, "l1d_miss_ratio"))
		return hd ? per(d1, refs, 1) : NAN;
	if (!strcmp(metric, "ll_misses"))
		return hl ? (double)dl : NAN;
	if (!strcmp(metric, "llc_mpki"))
		return hl ? per(dl + e[SIM_ILMR], e[SIM_IR], 1000) : NAN;
	if (!strcmp(metric, "ll_miss_ratio"))
		return hl ? per(dl + e[SIM_ILMR], e[SIM_IR] + refs, 1) : NAN;
	if (!strcmp(metric, "lld_miss_ratio"))
		return hl ? per(dl, refs, 1) : NAN;
	if (!strcmp(metric, "l1i_miss_ratio"))
		return has[SIM_I1MR] ? per(e[SIM_I1MR], e[SIM_IR], 1) : NAN;
	if (!strcmp(metric, "branch_misses"))
		return hb ? (double)br : NAN;
	if (!strcmp(metric, "branch_mpki"))
		return hb ? per(br, e[SIM_IR], 1000) : NAN;
	if (!strcmp(metric, "branch_miss_ratio"))
		return hb ? per(br, e[SIM_BC] + e[SIM_BI], 1) : NAN;
	return NAN;
}

/* "mul_naive" matches "mul_naive" and C++'s "ns::f(int)" matches "ns::f". */
static bool function_matches(const char *have, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(have, want, n) && (!have[n] || have[n] == '(');
}

static bool file_matches(const char *have, const char *want)
{
	size_t h = strlen(have), n = strlen(want);

	if (strchr(want, '/'))
		return h >= n && !strcmp(have + h - n, want) && (h == n || have[h - n - 1] == '/');
	return !strcmp(path_basename(have), want);
}

/* Sums the lines of L's site; the number of lines summed. */
static int site_counts(const struct sim_report *s, const struct budget_limit *l,
		       struct sim_counts *c)
{
	int n = 0;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < s->nr_lines; i++) {
		const struct sim_line *x = &s->lines[i];

		if (l->function ? !function_matches(x->function, l->function)
				: (x->line != l->line || !file_matches(x->file, l->file)))
			continue;
		for (int e = 0; e < SIM_EV__COUNT; e++)
			c->ev[e] += x->ev[e];
		n++;
	}
	return n;
}

/* Why nothing of a run can be checked, or NULL. */
static const char *run_unusable(const struct budget_workload *w, const struct report *r,
				char *buf, size_t len)
{
	if (!r->target.exited) {
		snprintf(buf, len, "the workload did not run to its end");
		return buf;
	}
	if (r->target.exit_code) {
		snprintf(buf, len, "the workload exited with status %d: its numbers are not "
			 "those of a complete run", r->target.exit_code);
		return buf;
	}
	(void)w;
	return NULL;
}

void budget__eval_sim(const struct budget_workload *w, const struct report *r,
		      struct check_report *cr)
{
	const struct sim_report *s = r->sim;
	char why[256] = "";
	const char *bad = run_unusable(w, r, why, sizeof(why));

	if (!bad && !s) {
		snprintf(why, sizeof(why), "the simulation gave no results");
		for (int i = 0; i < r->nr_prov; i++)
			if (!strcmp(r->prov[i].what, "simulation"))
				snprintf(why, sizeof(why), "%s", r->prov[i].detail);
		bad = why;
	}
	if (!bad && s->total[SIM_IR] < w->min_instructions) {
		snprintf(why, sizeof(why), "only %llu instructions simulated, fewer than "
			 "min_instructions %.0f: too little to check",
			 (unsigned long long)s->total[SIM_IR], w->min_instructions);
		bad = why;
	}
	for (int i = 0; i < w->nr_limits; i++) {
		const struct budget_limit *l = &w->limits[i];
		struct check_item *it = limit_item(cr, w, l, TIER_SIMULATION);
		struct sim_counts c;
		double v;

		if (bad) {
			snprintf(it->detail, sizeof(it->detail), "%s", bad);
			continue;
		}
		if (l->function || l->file) {
			if (!site_counts(s, l, &c)) {
				snprintf(it->detail, sizeof(it->detail), "no simulated counts for %s "
					 "%s%s%.0d: it did not run, or the program has no debug info "
					 "(-g)", l->function ? "function" : "line",
					 l->function ? l->function : l->file, l->file ? ":" : "",
					 l->file ? l->line : 0);
				continue;
			}
		} else {
			memcpy(c.ev, s->total, sizeof(c.ev));
		}
		v = sim_value(l->metric, &c, s->has);
		if (isnan(v)) {
			snprintf(it->detail, sizeof(it->detail), "cachegrind did not count the "
				 "events of %s (or its denominator is 0)", l->metric);
			continue;
		}
		judge(it, v);
	}
}

void budget__eval_unmeasured(const struct budget_workload *w, const char *why,
			     struct check_report *cr)
{
	enum tier t = w->tier == BUDGET_TIER_SIM ? TIER_SIMULATION : TIER_SOFTWARE;

	for (int i = 0; i < w->nr_limits; i++)
		snprintf(limit_item(cr, w, &w->limits[i], t)->detail, sizeof(cr->items->detail),
			 "%s", why);
	if (w->has_findings) {
		budget__eval_findings(w, NULL, cr);
		snprintf(cr->items[cr->nr_items - 1].detail, sizeof(cr->items->detail), "%s", why);
	}
}

/* A metric or counter of a run, with its tier; false with WHY when not counted. */
static bool run_value(const struct report *r, const char *name, double *v, enum tier *tier,
		      char *why, size_t len)
{
	const struct counter *c;
	static const struct {
		const char *metric, *num;
	} inputs[] = {
		{ "l1d_mpki", "l1d_miss" }, { "llc_mpki", "llc_miss" }, { "dtlb_mpki", "dtlb_miss" },
		{ "branch_mpki", "branch_miss" }, { "l1d_miss_rate", "l1d_miss" },
		{ "llc_miss_rate", "llc_miss" }, { "dtlb_miss_rate", "dtlb_miss" },
		{ "page_faults_per_sec", "page_faults" },
	};

	for (int i = 0; i < r->nr_metrics; i++)
		if (!strcmp(r->metrics[i].name, name)) {
			*v = r->metrics[i].value;
			*tier = r->metrics[i].tier;
			return true;
		}
	c = report__counter(r, name);
	if (c && c->counted) {
		*v = c->scaled;
		*tier = c->tier;
		return true;
	}
	/* a derived metric is missing: say which input did not count, and why */
	for (size_t i = 0; !c && i < ARRAY_SIZE(inputs); i++)
		if (!strcmp(inputs[i].metric, name)) {
			c = report__counter(r, inputs[i].num);
			if (c && c->counted)
				c = report__counter(r, "instructions");
		}
	snprintf(why, len, "missing tier: %s did not count%s%s", c ? c->name : name,
		 c && c->reason[0] ? ": " : "", c ? c->reason : "");
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void budget__eval_counters(const struct budget_workload *w, struct report *const *runs, int nr,
			   struct check_report *cr)
{
	double *v = xcalloc(nr ? nr : 1, sizeof(double));

	for (int i = 0; i < w->nr_limits; i++) {
		const struct budget_limit *l = &w->limits[i];
		const struct budget_metric *m = budget_metric__find(l->metric);
		/* faults are software events; the rest needs the PMU */
		struct check_item *it = limit_item(cr, w, l, strstr(l->metric, "fault")
								 ? TIER_SOFTWARE : TIER_COUNTING);
		char why[256] = "";
		int k;

		for (k = 0; k < nr; k++) {
			if (run_unusable(w, runs[k], why, sizeof(why)) ||
			    !run_value(runs[k], m->counter, &v[k], &it->tier, why, sizeof(why)))
				break;
		}
		if (!nr)
			snprintf(why, sizeof(why), "the workload did not run");
		if (k < nr || !nr) {
			snprintf(it->detail, sizeof(it->detail), "%s", why);
			continue;
		}
		qsort(v, nr, sizeof(*v), cmp_double);
		it->repeats = nr;
		it->spread = v[nr - 1] - v[0];
		judge(it, nr % 2 ? v[nr / 2] : (v[nr / 2 - 1] + v[nr / 2]) / 2);
	}
	free(v);
}

static bool location_matches(const struct finding *f, const char *loc)
{
	char buf[300];

	if (!loc)
		return true;
	if (f->file[0]) {
		snprintf(buf, sizeof(buf), "%s:%d", path_basename(f->file), f->line);
		if (!strcmp(loc, buf) || file_matches(f->file, loc))
			return true;
	}
	if (f->decl_file[0]) {
		snprintf(buf, sizeof(buf), "%s:%d", path_basename(f->decl_file), f->decl_line);
		if (!strcmp(loc, buf) || file_matches(f->decl_file, loc))
			return true;
	}
	if (f->struct_name[0]) {
		snprintf(buf, sizeof(buf), "%s.%s", f->struct_name, f->member);
		if (!strcmp(loc, f->struct_name) || (f->member[0] && !strcmp(loc, buf)))
			return true;
	}
	return f->function[0] && function_matches(f->function, loc);
}

static bool allowed(const struct budget_workload *w, const struct finding *f)
{
	for (int i = 0; i < w->nr_allow; i++)
		if ((!w->allow[i].rule || !strcmp(w->allow[i].rule, f->id)) &&
		    location_matches(f, w->allow[i].location))
			return true;
	return false;
}

static bool named(const struct budget_workload *w, const char *id)
{
	for (int i = 0; i < w->nr_fail_rules; i++)
		if (!strcmp(w->fail_rules[i], id))
			return true;
	return false;
}

void budget__eval_findings(const struct budget_workload *w, const struct findings *fs,
			   struct check_report *cr)
{
	struct check_item *it;
	int bad = 0;

	if (!w->has_findings)
		return;
	it = check_report__add(cr, w->name, "findings", w->findings_line);
	snprintf(it->name, sizeof(it->name), "%s: findings", w->name);
	snprintf(it->metric, sizeof(it->metric), "findings");
	snprintf(it->unit, sizeof(it->unit), "count");
	it->has_limit = true;
	it->limit = 0;
	it->tier = w->tier == BUDGET_TIER_SIM ? TIER_SIMULATION : TIER_SOFTWARE;
	if (!fs) {
		snprintf(it->detail, sizeof(it->detail), "the rules could not be applied");
		return;
	}
	for (int i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->f[i];
		size_t n = strlen(it->detail);

		if (!named(w, f->id) && (!w->fail_on_set || f->severity < w->fail_on))
			continue;
		if (allowed(w, f))
			continue;
		if (f->status == FINDING_INCONCLUSIVE) {
			/* a named rule that could not decide is no pass */
			if (named(w, f->id)) {
				snprintf(it->detail, sizeof(it->detail), "rule %s is inconclusive: %s",
					 f->id, f->missing ? f->missing : "evidence missing");
				it->verdict = CHECK_ERROR;
				it->has_value = false;
				return;
			}
			continue;
		}
		if (f->tier > it->tier || !bad)
			it->tier = f->tier;
		bad++;
		if (n + 8 < sizeof(it->detail))
			snprintf(it->detail + n, sizeof(it->detail) - n, "%s%s (%s)%s%s",
				 n ? "; " : "", f->id, severity__name(f->severity),
				 f->message ? ": " : "", f->message ? f->message : "");
	}
	it->has_value = true;
	it->value = bad;
	it->verdict = bad ? CHECK_FAIL : CHECK_PASS;
}

/* --- layout budgets -------------------------------------------------------- */

static struct check_item *layout_item(struct check_report *cr, const struct budget_layout *bl,
				      const char *what, const char *unit)
{
	struct check_item *it = check_report__add(cr, NULL, "layout", bl->src_line);

	snprintf(it->name, sizeof(it->name), "%s: %s", bl->name, what);
	snprintf(it->metric, sizeof(it->metric), "%s", what);
	snprintf(it->unit, sizeof(it->unit), "%s", unit);
	it->tier = TIER_STATIC;
	return it;
}

static void layout_limit(struct check_report *cr, const struct budget_layout *bl,
			 const struct ma_struct *s, const char *what, const char *unit,
			 int64_t limit, double v, const char *err)
{
	struct check_item *it;

	if (limit < 0)
		return;
	it = layout_item(cr, bl, what, unit);
	it->has_limit = true;
	it->limit = (double)limit;
	if (err) {
		snprintf(it->detail, sizeof(it->detail), "%s", err);
		return;
	}
	judge(it, v);
	if (it->verdict == CHECK_FAIL)
		snprintf(it->detail, sizeof(it->detail), "%s %s: %s %.0f > %lld (%s:%u)",
			 ma_kind__name(s->kind), s->name, what, v, (long long)limit,
			 s->decl_file ? path_basename(s->decl_file) : "?", s->decl_line);
}

static void member_pair(struct check_report *cr, const struct budget_layout *bl,
			const struct ma_struct *s, char *const pair[2], bool same, const char *err)
{
	const struct ma_member *a = s ? ma_struct__find_member(s, pair[0]) : NULL;
	const struct ma_member *b = s ? ma_struct__find_member(s, pair[1]) : NULL;
	char what[128];
	struct check_item *it;
	bool shared;

	snprintf(what, sizeof(what), "%s %s %s", pair[0], same ? "with" : "apart from", pair[1]);
	it = layout_item(cr, bl, what, "");
	snprintf(it->op, sizeof(it->op), same ? "==" : "!=");
	if (err || !a || !b) {
		snprintf(it->detail, sizeof(it->detail), "%s%s%s%s", err ? err : "no member '",
			 err ? "" : (!a ? pair[0] : pair[1]), err ? "" : "' in ",
			 err ? "" : s->name);
		return;
	}
	/* lines by offset, as pahole counts them */
	shared = a->first_line <= b->last_line && b->first_line <= a->last_line;
	if (same)
		shared = (a->first_line < b->first_line ? a->first_line : b->first_line) ==
			 (a->last_line > b->last_line ? a->last_line : b->last_line);
	it->has_value = true;
	it->value = shared;
	snprintf(it->value_text, sizeof(it->value_text), "%s", shared ? "shared" : "apart");
	it->verdict = shared == same ? CHECK_PASS : CHECK_FAIL;
	if (it->verdict == CHECK_FAIL)
		snprintf(it->detail, sizeof(it->detail), "%s (line %llu-%llu) and %s (line "
			 "%llu-%llu) %s one %u-byte line", pair[0],
			 (unsigned long long)a->first_line, (unsigned long long)a->last_line, pair[1],
			 (unsigned long long)b->first_line, (unsigned long long)b->last_line,
			 same ? "do not share" : "share", s->cacheline);
}

void budget__eval_layout(const struct budget_layout *bl, struct layout *l, const char *load_err,
			 struct check_report *cr)
{
	const struct ma_struct *s = NULL;
	char why[320];
	const char *err = load_err;

	if (l) {
		layout__set_cacheline(l, bl->cacheline);
		s = layout__find_struct(l, bl->struct_name);
		if (!s) {
			snprintf(why, sizeof(why), "no struct, union or class '%s' in the DWARF of %s",
				 bl->struct_name, bl->binary);
			err = why;
		}
	}
	layout_limit(cr, bl, s, "size", "bytes", bl->max_size, s ? (double)s->size : 0, err);
	layout_limit(cr, bl, s, "cachelines", "lines", bl->max_cachelines,
		     s ? (double)s->cachelines : 0, err);
	layout_limit(cr, bl, s, "holes", "bytes", bl->max_holes,
		     s ? (double)(s->sum_holes + s->pre_hole) : 0, err);
	if (bl->min_align >= 0) {
		struct check_item *it = layout_item(cr, bl, "align", "bytes");

		it->has_limit = true;
		snprintf(it->op, sizeof(it->op), ">=");
		it->limit = (double)bl->min_align;
		if (err) {
			snprintf(it->detail, sizeof(it->detail), "%s", err);
		} else {
			it->has_value = true;
			it->value = s->align;
			it->verdict = s->align >= bl->min_align ? CHECK_PASS : CHECK_FAIL;
			if (it->verdict == CHECK_FAIL)
				snprintf(it->detail, sizeof(it->detail), "%s is aligned to %u bytes, "
					 "less than min_align %lld", s->name, s->align,
					 (long long)bl->min_align);
		}
	}
	for (int i = 0; i < bl->nr_same_line; i++)
		member_pair(cr, bl, s, bl->same_line[i], true, err);
	for (int i = 0; i < bl->nr_separate_lines; i++)
		member_pair(cr, bl, s, bl->separate_lines[i], false, err);
}
