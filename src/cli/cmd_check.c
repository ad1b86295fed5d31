// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise check [--budget FILE] [OPTIONS] [-- CMD [ARGS...]]
 *
 * The CI gate: checks the layout budgets of a budget file straight from the
 * DWARF, runs each workload in its tier (the simulation with the file's
 * pinned cache geometry, through the same run and simulation code as 'run
 * --sim', or natively with counters, median of N runs), applies the rules,
 * compares with the limits and an optional baseline, and writes the table,
 * JSON, JUnit XML and SARIF.  Exit 0 when every budget holds, 1 when one is
 * exceeded, 2 when one could not be checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/util.h"
#include "cli/common.h"
#include "collect/run/run.h"
#include "collect/sim.h"
#include "layout/layout.h"
#include "machine/sysinfo.h"
#include "model/check.h"
#include "model/findings.h"
#include "model/report.h"
#include "model/sim.h"
#include "report/output.h"
#include "rules/budget.h"
#include "rules/rules.h"
#include "symbols/buildid.h"

#define DEFAULT_BUDGET "memadvise-budget.yaml"

enum { CHECK_EXIT_FAIL = 1 };

struct check_opts {
	const char *budget;
	const char *junit;
	const char *sarif;
	const char *save_baseline;
	const char *baseline;
	int repeat;		/* --repeat: counters-tier runs, 0: each workload's own */
	bool force;
	bool wide;
	char **cmd;		/* after '--', NULL: none */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise check [OPTIONS] [--budget FILE] [-- CMD [ARGS...]]\n"
		"\n"
		"Checks memory budgets for CI: layout budgets straight from the DWARF, and\n"
		"per workload limits on simulated (cachegrind, pinned geometry) or counted\n"
		"misses and faults, per function and per line, and on the rules' findings.\n"
		"A workload without 'run:' runs CMD.\n"
		"\n"
		"Options:\n"
		"  -b, --budget FILE        the budget file (default: " DEFAULT_BUDGET ")\n"
		"  -j, --json               JSON results on stdout\n"
		"      --pretty             indented JSON (implies --json)\n"
		"  -w, --wide               do not fit the table into 80 columns\n"
		"  -r, --repeat N           counters tier: run each workload N times (median)\n"
		"      --junit FILE         also write JUnit XML, one test case per budget\n"
		"      --sarif FILE         also write the findings as SARIF 2.1.0\n"
		"      --save-baseline FILE save the results (JSON) as a baseline\n"
		"      --baseline FILE      fail on a regression against a saved baseline\n"
		"      --force              compare with a baseline of another environment\n"
		"  -h, --help               show this help\n"
		"\n"
		"The workloads' own output goes to stderr; stdout has the results only.\n"
		"\n"
		"Exit status: 0 every budget holds; 1 a budget is exceeded (or regressed);\n"
		"2 a budget could not be checked (too few instructions, a missing tier, an\n"
		"unreadable binary, a malformed budget file, a baseline of another\n"
		"environment) or memadvise failed.\n"
		"\n"
		"Examples:\n"
		"  memadvise check --budget ci/memadvise-budget.yaml\n"
		"  memadvise check --junit report.xml --sarif findings.sarif\n"
		"  memadvise check --save-baseline base.json -- ./bench small\n"
		"  memadvise check --baseline base.json -- ./bench small\n");
}

static int parse_opts(int argc, char **argv, struct check_opts *o)
{
	static const struct option opts[] = {
		{ "budget", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'P' },
		{ "wide", no_argument, NULL, 'w' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "junit", required_argument, NULL, 'J' },
		{ "sarif", required_argument, NULL, 'R' },
		{ "save-baseline", required_argument, NULL, 'S' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, v;

	o->budget = DEFAULT_BUDGET;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:b:jwr:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': o->budget = optarg; break;
		case 'j': gopts.json = true; break;
		case 'P': gopts.json = gopts.pretty = true; break;
		case 'w': o->wide = true; break;
		case 'r':
			if (parse_int(optarg, 1, 100, &v)) {
				pr_err("invalid --repeat '%s'", optarg);
				pr_hint("give a number of runs from 1 to 100");
				return -EINVAL;
			}
			o->repeat = v;
			break;
		case 'J': o->junit = optarg; break;
		case 'R': o->sarif = optarg; break;
		case 'S': o->save_baseline = optarg; break;
		case 'B': o->baseline = optarg; break;
		case 'f': o->force = true; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			cli__opt_error(c, argv, "check");
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return 0;
}

/* --- output files: opened before anything runs ----------------------------- */

/* --junit, --sarif, --save-baseline: a file, not stdout (it has the results) */
static int out__open(struct cli_out *o, const char *opt, const char *path)
{
	o->opt = opt;
	o->path = path;
	o->f = NULL;
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		pr_err("%s needs a file name, not '-': stdout has the results", opt);
		pr_hint("give a path, e.g. %s check.out", opt);
		return -EINVAL;
	}
	return cli_out__open(o, opt, path);
}

/* Closes O; unless WRITTEN, removes the file memadvise created. */
static int out__close(struct cli_out *o, bool written)
{
	int err = 0;

	if (!o->f)
		return 0;
	if (written && (fflush(o->f) || ftruncate(fileno(o->f), ftell(o->f))))
		err = -errno;
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	if (!written && o->created)
		unlink(o->path);
	if (err)
		pr_err("cannot write '%s' (%s): %s", o->path, o->opt, strerror(-err));
	return err;
}

/* --- measuring ------------------------------------------------------------- */

struct wl_result {
	struct report **runs;
	int nr_runs;
	struct findings *findings;
};

/* The workload's command: its own 'run' (relative to the budget file) or CMD. */
static char **workload_argv(const struct budget *b, const struct budget_workload *w,
			    char **cmd)
{
	char **argv;

	if (!w->argv)
		return cmd;
	argv = xcalloc(w->argc + 1, sizeof(*argv));
	for (int i = 0; i < w->argc; i++)
		argv[i] = xstrdup(w->argv[i]);
	if (strchr(argv[0], '/') && argv[0][0] != '/' && b->dir[0]) {
		char *p = xmalloc(strlen(b->dir) + strlen(argv[0]) + 2);

		sprintf(p, "%s/%s", b->dir, argv[0]);
		free(argv[0]);
		argv[0] = p;
	}
	return argv;
}

/*
 * One run of ARGV into a new report; the workload's stdout goes to stderr
 * (stdout carries the results).  NULL after an error already printed.
 */
static struct report *measure(char **argv, const struct budget *b,
			      const struct budget_workload *w)
{
	struct run_opts ro = { .argv = argv, .no_sample = true };
	struct report *r = report__new();
	struct run *run = NULL;
	int keep, err;

	if (w->tier == BUDGET_TIER_SIM) {
		ro.sim = true;
		ro.sim_pin = &b->geometry;
		ro.sim_keep = -1; /* every line: per-function and per-line limits */
	}
	fflush(stdout);
	keep = dup(STDOUT_FILENO);
	if (keep < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		pr_err("cannot redirect the workload's output: %s", strerror(errno));
		report__free(r);
		if (keep >= 0)
			close(keep);
		return NULL;
	}
	err = run__launch(&run, &ro, r);
	if (!err)
		err = run__open(run);
	if (!err)
		err = run__measure(run);
	run__free(run);
	dup2(keep, STDOUT_FILENO);
	close(keep);
	if (err) {
		report__free(r);
		return NULL;
	}
	report__derive_metrics(r);
	return r;
}

static void fingerprint(const struct budget_workload *w, const struct report *r,
			struct check_fingerprint *fp)
{
	char vendor[64];
	int fam, model;
	struct utsname u;

	snprintf(fp->tier, sizeof(fp->tier), "%s",
		 w->tier == BUDGET_TIER_SIM ? tier__name(TIER_SIMULATION) : "counters");
	if (sysinfo__cpu(vendor, sizeof(vendor), &fam, &model, fp->cpu, sizeof(fp->cpu)))
		fp->cpu[0] = '\0';
	if (!uname(&u))
		snprintf(fp->kernel, sizeof(fp->kernel), "%s", u.release);
	if (r && r->target.exe[0])
		elf__build_id(r->target.exe, fp->build_id, sizeof(fp->build_id));
	if (w->tier == BUDGET_TIER_SIM && r && r->sim) {
		const struct sim_report *s = r->sim;

		snprintf(fp->geometry, sizeof(fp->geometry),
			 "I1=%llu,%d,%d D1=%llu,%d,%d LL=%llu,%d,%d",
			 (unsigned long long)s->i1.size, s->i1.ways, s->i1.line,
			 (unsigned long long)s->d1.size, s->d1.ways, s->d1.line,
			 (unsigned long long)s->ll.size, s->ll.ways, s->ll.line);
		snprintf(fp->tool, sizeof(fp->tool), "%s", s->tool);
	} else if (w->tier == BUDGET_TIER_COUNTERS) {
		struct cache_level c[8];
		int n = sysinfo__caches(c, 8);
		const struct cache_level *l1 = sysinfo__cache(c, n, 1), *ll = NULL;

		for (int i = 0; i < n; i++)
			if (strcmp(c[i].type, "Instruction") && (!ll || c[i].level > ll->level))
				ll = &c[i];
		if (l1 && ll)
			snprintf(fp->geometry, sizeof(fp->geometry), "L1d=%llu,%d,%d LL=%llu,%d,%d",
				 (unsigned long long)l1->size, l1->ways, l1->line,
				 (unsigned long long)ll->size, ll->ways, ll->line);
		snprintf(fp->tool, sizeof(fp->tool), "perf_event");
	}
}

static bool wants_rules(const struct budget *b, const struct check_opts *o)
{
	for (int i = 0; i < b->nr_w; i++)
		if (b->w[i].has_findings)
			return true;
	return o->sarif != NULL;
}

static void apply_rules(const struct ruleset *rules, struct report *r, struct wl_result *res)
{
	struct rules_layouts lay;
	struct eval_opts eo;
	struct rules_input in = { .snapshot = r, .layouts = &lay, .opts = &eo };
	int nr_lines = r->sim ? r->sim->nr_lines : 0;

	/*
	 * The rules see the simulated lines 'run --sim' keeps (the top
	 * SIM_KEEP_LINES by L1d misses): the same findings, and not one rule
	 * evaluation per line of libc (2000 lines: 0.6 s more).
	 */
	if (r->sim && nr_lines > SIM_KEEP_LINES)
		r->sim->nr_lines = SIM_KEEP_LINES;
	eval_opts__from_env(&eo);
	rules_layouts__load(&lay, r);
	if (ruleset__eval(rules, &in, &res->findings))
		res->findings = NULL;
	rules_layouts__release(&lay);
	if (r->sim)
		r->sim->nr_lines = nr_lines;
}

/* One workload: its runs, its limits and findings into CR. 0, or -1 when it cannot run. */
static int check_workload(const struct budget *b, const struct budget_workload *w,
			  const struct check_opts *o, const struct ruleset *rules,
			  struct check_report *cr, struct wl_result *res)
{
	char **argv = workload_argv(b, w, o->cmd);
	/* the simulation is deterministic: one run says it all */
	int nr = w->tier == BUDGET_TIER_SIM ? 1 : o->repeat ? o->repeat : w->repeat;
	struct check_workload_env *env = check_report__add_env(cr, w->name);
	uint64_t t0 = now_ns();

	res->runs = xcalloc(nr, sizeof(*res->runs));
	for (int i = 0; argv && i < nr; i++) {
		res->runs[i] = measure(argv, b, w);
		if (!res->runs[i])
			break;
		res->nr_runs++;
	}
	env->wall_s = (now_ns() - t0) / 1e9;
	fingerprint(w, res->nr_runs ? res->runs[0] : NULL, &env->fp);
	if (argv != o->cmd) {
		for (int i = 0; argv[i]; i++)
			free(argv[i]);
		free(argv);
	}
	if (res->nr_runs < nr) {
		/* every limit of it says so: never a pass */
		budget__eval_unmeasured(w, "the workload could not be run (see the error above)",
					cr);
		return -1;
	}
	if (w->tier == BUDGET_TIER_SIM)
		budget__eval_sim(w, res->runs[0], cr);
	else
		budget__eval_counters(w, res->runs, res->nr_runs, cr);
	if (rules)
		apply_rules(rules, res->runs[res->nr_runs - 1], res);
	budget__eval_findings(w, rules ? res->findings : NULL, cr);
	return 0;
}

/* Layout budgets, each binary read once; runs nothing. */
static void check_layouts(const struct budget *b, struct check_report *cr)
{
	for (int i = 0; i < b->nr_l; i++) {
		const struct budget_layout *bl = &b->l[i];
		struct layout *l = NULL;
		char why[400];
		int err = layout__load(bl->binary, &l);

		if (err)
			snprintf(why, sizeof(why), "cannot read the layouts of '%s': %s", bl->binary,
				 layout__strerror(err));
		budget__eval_layout(bl, err ? NULL : l, err ? why : NULL, cr);
		layout__free(l);
	}
}

/* --- baselines -------------------------------------------------------------- */

static struct check_report *baseline_load(const char *path)
{
	struct check_report *base = NULL;
	char why[200];
	char *text = read_file(path, NULL);

	if (!text) {
		pr_err("cannot read the baseline '%s': %s", path, strerror(errno));
		pr_hint("save one first with 'memadvise check --save-baseline %s'", path);
		return NULL;
	}
	if (check_report__from_json(text, &base, why, sizeof(why))) {
		pr_err("'%s' is no baseline: %s", path, why);
		pr_hint("a baseline is the file written by 'memadvise check --save-baseline'");
	}
	free(text);
	return base;
}

/* Why two fingerprints are not comparable, or NULL. */
static const char *incomparable(const struct check_fingerprint *a,
				const struct check_fingerprint *b, char *buf, size_t len)
{
	bool sim = !strcmp(a->tier, tier__name(TIER_SIMULATION));

	if (strcmp(a->tier, b->tier))
		snprintf(buf, len, "tier %s against %s", b->tier, a->tier);
	else if (strcmp(a->geometry, b->geometry))
		snprintf(buf, len, "cache geometry %s against %s", b->geometry, a->geometry);
	else if (!sim && strcmp(a->cpu, b->cpu))
		snprintf(buf, len, "CPU '%s' against '%s'", b->cpu, a->cpu);
	else if (!sim && strcmp(a->kernel, b->kernel))
		snprintf(buf, len, "kernel %s against %s", b->kernel, a->kernel);
	else
		return NULL;
	return buf;
}

/* Compares with the baseline; false when a workload's environment differs (refused). */
static bool baseline_compare(struct check_report *cr, const struct check_report *base,
			     const char *path, bool force)
{
	bool ok = true;

	for (int i = 0; i < cr->nr_envs; i++) {
		const struct check_workload_env *e = &cr->envs[i];
		const struct check_workload_env *be = check_report__env(base, e->name);
		char why[400];

		if (!be)
			continue;
		if (incomparable(&be->fp, &e->fp, why, sizeof(why))) {
			if (force) {
				pr_warn("workload '%s': comparing across environments (--force): %s",
					e->name, why);
				continue;
			}
			pr_err("workload '%s' cannot be compared with the baseline '%s': %s", e->name,
			       path, why);
			pr_hint("save a baseline in this environment, or compare anyway with --force");
			ok = false;
		} else if (be->fp.build_id[0] && strcmp(be->fp.build_id, e->fp.build_id)) {
			pr_info("note: workload '%s': the program was rebuilt since the baseline", e->name);
		}
	}
	if (!ok)
		return false;
	for (int i = 0; i < cr->nr_items; i++) {
		struct check_item *it = &cr->items[i];
		char a[32], b[32];

		for (int j = 0; j < base->nr_items; j++) {
			const struct check_item *bi = &base->items[j];

			if (strcmp(bi->name, it->name) || !bi->has_value || !it->has_value)
				continue;
			it->has_baseline = true;
			it->baseline = bi->value;
			if (it->verdict != CHECK_PASS ||
			    it->value <= bi->value * (1.0 + it->tolerance))
				break;
			it->verdict = CHECK_FAIL;
			fmt_num(it->value, a, sizeof(a));
			fmt_num(bi->value, b, sizeof(b));
			snprintf(it->detail, sizeof(it->detail), "regression: %s against %s in the "
				 "baseline%s", a, b, it->tolerance > 0 ? " (beyond its tolerance)" : "");
			break;
		}
	}
	return true;
}

/* --- outputs ---------------------------------------------------------------- */

static int write_json(const struct check_report *cr, FILE *f, bool pretty)
{
	struct json_object *o = check_report__to_json(cr);
	int err = 0;

	if (fputs(json_object_to_json_string_ext(o, (pretty ? JSON_C_TO_STRING_PRETTY
							    : JSON_C_TO_STRING_PLAIN) |
						  JSON_C_TO_STRING_NOSLASHESCAPE), f) < 0 ||
	    fputc('\n', f) < 0 || fflush(f))
		err = -errno;
	json_object_put(o);
	return err;
}

/* The findings of every workload as one SARIF log. */
static int write_sarif(struct wl_result *res, int nr, FILE *f)
{
	struct findings all = { 0 };
	int err;

	for (int i = 0; i < nr; i++) {
		const struct findings *fs = res[i].findings;

		if (!fs)
			continue;
		all.f = xrealloc(all.f, (all.nr + fs->nr + 1) * sizeof(*all.f));
		memcpy(all.f + all.nr, fs->f, fs->nr * sizeof(*fs->f));
		all.nr += fs->nr;
		all.nr_rules = fs->nr_rules;
	}
	err = findings__fwrite_sarif(&all, f);
	free(all.f);
	return err;
}

static int write_outputs(const struct check_report *cr, const struct check_opts *o,
			 struct cli_out *junit, struct cli_out *sarif, struct cli_out *save,
			 struct wl_result *res, int nr, double wall_s)
{
	char host[64] = "localhost";
	int err = 0;

	gethostname(host, sizeof(host) - 1);
	if (junit->f)
		err = check_report__write_junit(cr, junit->f, host, wall_s) ?: err;
	err = out__close(junit, true) ?: err;
	if (sarif->f)
		err = write_sarif(res, nr, sarif->f) ?: err;
	err = out__close(sarif, true) ?: err;
	if (save->f)
		err = write_json(cr, save->f, true) ?: err;
	err = out__close(save, true) ?: err;
	gopts.stdout_used = true;
	if (gopts.json)
		err = write_json(cr, stdout, gopts.pretty) ?: err;
	else
		check_report__print_text(cr, stdout, o->wide);
	return fflush(stdout) ? -errno : err;
}

static int load_budget(const char *path, struct budget **b)
{
	char err[512];
	int ret = budget__parse_file(path, b, err, sizeof(err));

	if (!ret)
		return 0;
	pr_err("%s", err);
	if (ret == -ENOENT && !strcmp(path, DEFAULT_BUDGET))
		pr_hint("write a budget file (memadvise-budget(5)) or name one with --budget");
	else if (ret == -EINVAL)
		pr_hint("the budget file format is in memadvise-budget(5)");
	else
		pr_hint("check the path given to --budget");
	return ret;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = { 0 };
	struct budget *b = NULL;
	struct check_report *cr = NULL, *base = NULL;
	struct ruleset *rules = NULL;
	struct wl_result *res = NULL;
	struct cli_out junit = { 0 }, sarif = { 0 }, save = { 0 };
	uint64_t t0 = now_ns();
	int err, ret = MA_EXIT_ERROR;
	bool refused = false;

	err = parse_opts(argc, argv, &o);
	if (err)
		return err > 0 ? MA_EXIT_OK : MA_EXIT_ERROR;
	if (load_budget(o.budget, &b))
		return MA_EXIT_ERROR;
	if (o.cmd && !b->nr_w) {
		pr_err("a command was given but %s has no workloads", o.budget);
		pr_hint("add a workload without 'run:' to check CMD (memadvise-budget(5))");
		goto out;
	}
	for (int i = 0; i < b->nr_w; i++)
		if (!b->w[i].argv && !o.cmd) {
			pr_err("%s:%d: workload '%s' has no 'run' and no command was given after --",
			       o.budget, b->w[i].src_line, b->w[i].name);
			pr_hint("give it 'run: [PROGRAM, ARGS...]' or run 'memadvise check -- CMD "
				"[ARGS...]'");
			goto out;
		}
	if (o.baseline && !(base = baseline_load(o.baseline)))
		goto out;
	if (out__open(&junit, "--junit", o.junit) || out__open(&sarif, "--sarif", o.sarif) ||
	    out__open(&save, "--save-baseline", o.save_baseline))
		goto out;
	if (b->nr_w && wants_rules(b, &o) && ruleset__load_default(gopts.rules_dir, &rules))
		goto out;

	cr = check_report__new(o.budget);
	check_layouts(b, cr);
	res = xcalloc(b->nr_w + 1, sizeof(*res));
	for (int i = 0; i < b->nr_w; i++)
		check_workload(b, &b->w[i], &o, rules, cr, &res[i]);
	if (base)
		refused = !baseline_compare(cr, base, o.baseline, o.force);

	err = write_outputs(cr, &o, &junit, &sarif, &save, res, b->nr_w, (now_ns() - t0) / 1e9);
	switch (check_report__verdict(cr)) {
	case CHECK_PASS: ret = MA_EXIT_OK; break;
	case CHECK_FAIL: ret = CHECK_EXIT_FAIL; break;
	default: ret = MA_EXIT_ERROR; break;
	}
	if (refused || err)
		ret = MA_EXIT_ERROR;
out:
	out__close(&junit, false);
	out__close(&sarif, false);
	out__close(&save, false);
	for (int i = 0; res && i < b->nr_w; i++) {
		for (int k = 0; k < res[i].nr_runs; k++)
			report__free(res[i].runs[k]);
		free(res[i].runs);
		findings__free(res[i].findings);
	}
	free(res);
	ruleset__free(rules);
	check_report__free(cr);
	check_report__free(base);
	budget__free(b);
	return ret;
}
