// SPDX-License-Identifier: GPL-2.0-only
/* Budget files and their evaluation on hand-made measurements. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "harness.h"
#include "model/check.h"
#include "model/report.h"
#include "model/sim.h"
#include "report/output.h"
#include "rules/budget.h"

static const char good[] =
	"version: 1\n"
	"geometry:\n"
	"  I1: 32768,8,64\n"
	"  D1: 32K,8,64\n"
	"  LL: 8M,16,64\n"
	"workloads:\n"
	"  - name: mm\n"
	"    run: ../bin/matmul --size 128\n"
	"    min_instructions: 1000\n"
	"    limits:\n"
	"      - metric: l1d_mpki\n"
	"        max: 40\n"
	"        tolerance: 5%\n"
	"      - function: mm_naive\n"
	"        metric: l1d_misses\n"
	"        max: 100\n"
	"      - line: src/matmul.c:32\n"
	"        metric: l1d_misses\n"
	"        max: 100\n"
	"    findings:\n"
	"      fail_on: warning\n"
	"      rules: [false-sharing]\n"
	"      allow:\n"
	"        - rule: struct-holes\n"
	"          location: conn\n"
	"layouts:\n"
	"  - binary: bin/server\n"
	"    struct: conn\n"
	"    max_cachelines: 1\n"
	"    same_line: [[id, state]]\n";

void test_budget__parse(void)
{
	struct budget *b = NULL;
	char err[256] = "";

	if (!ASSERT_OK(budget__parse_text("ci/b.yaml", good, strlen(good), &b, err, sizeof(err)),
		       err))
		return;
	ASSERT_TRUE(b->has_geometry, "geometry");
	ASSERT_EQ(b->geometry.d1.size, 32768, "32K");
	ASSERT_EQ(b->geometry.ll.size, 8 << 20, "8M");
	ASSERT_EQ(b->nr_w, 1, "workloads");
	ASSERT_EQ(b->w[0].argc, 3, "run split at blanks");
	ASSERT_EQ(b->w[0].tier, BUDGET_TIER_SIM, "sim by default");
	ASSERT_EQ(b->w[0].nr_limits, 3, "limits");
	ASSERT_NEAR(b->w[0].limits[0].tolerance, 0.05, 1e-12, "5%");
	ASSERT_STREQ(b->w[0].limits[1].function, "mm_naive", "function");
	ASSERT_STREQ(b->w[0].limits[2].file, "src/matmul.c", "line's file");
	ASSERT_EQ(b->w[0].limits[2].line, 32, "line");
	ASSERT_EQ(b->w[0].fail_on, SEV_WARNING, "fail_on");
	ASSERT_EQ(b->w[0].nr_allow, 1, "allow");
	ASSERT_STREQ(b->l[0].binary, "ci/bin/server", "binary relative to the file");
	ASSERT_EQ(b->l[0].max_cachelines, 1, "max_cachelines");
	ASSERT_EQ(b->l[0].max_size, -1, "no size limit");
	ASSERT_EQ(b->l[0].nr_same_line, 1, "same_line");
	budget__free(b);
}

static void expect_error(const char *text, const char *want, int line)
{
	struct budget *b = NULL;
	char err[256] = "", prefix[32];

	snprintf(prefix, sizeof(prefix), "b.yaml:%d: ", line);
	ASSERT_ERR(budget__parse_text("b.yaml", text, strlen(text), &b, err, sizeof(err)), text);
	ASSERT_TRUE(b == NULL, "no budget on error");
	ASSERT_TRUE(!strncmp(err, prefix, strlen(prefix)), err);
	ASSERT_TRUE(strstr(err, want) != NULL, err);
}

void test_budget__errors(void)
{
	expect_error("version: 1\nlayouts:\n  - binary: x\n    struct: s\n    max_size: -1\n",
		     "'max_size' must be a number >= 0", 5);
	expect_error("version: 1\nlayouts:\n  - binary: x\n    struct: s\n    max_size: 1.5\n",
		     "'max_size' must be a whole number", 5);
	expect_error("version: 1\nlayouts:\n  - binary: x\n    max_size: 1\n",
		     "needs 'binary' and 'struct'", 3);
	expect_error("version: 1\nlayouts:\n  - binary: x\n    struct: s\n    cacheline: 48\n"
		     "    max_size: 1\n", "'cacheline' must be a power of two", 5);
	expect_error("version: 1\ngeometry:\n  I1: 32768,8,64\n  D1: 32768,8\n  LL: 8M,16,64\n"
		     "layouts: []\n", "geometry D1 must be SIZE,WAYS,LINE", 4);
	expect_error("version: 1\ngeometry:\n  I1: 32768,8,64\n  D1: 32768,8,64\nlayouts: []\n",
		     "geometry LL is missing", 3);
	expect_error("version: 1\nworkloads:\n  - name: a\n    tier: counters\n    limits:\n"
		     "      - metric: refs\n        max: 1\n", "'refs' is measured by the simulation only",
		     6);
	expect_error("version: 1\nworkloads:\n  - name: a\n    tier: counters\n    limits:\n"
		     "      - metric: page_faults\n        max: 1\n        function: f\n",
		     "'page_faults' is not measured per function", 6);
	expect_error("version: 1\nworkloads:\n  - name: a\n    tier: counters\n"
		     "    repeat: 0\n    findings: {fail_on: info}\n", "'repeat' must be a whole number", 5);
	expect_error("version: 1\nworkloads:\n  - name: a\n    tier: counters\n"
		     "    findings: {fail_on: info}\n  - name: a\n    tier: counters\n"
		     "    findings: {fail_on: info}\n", "workload 'a' is defined twice (first on line 3)", 6);
	expect_error("version: 1\nworkloads:\n  - name: a\n    tier: counters\n",
		     "has neither 'limits' nor 'findings'", 3);
	expect_error("version: 1\nversion: 1\n", "'version' is given twice", 2);
	expect_error("- 1\n", "a budget file must be a mapping", 1);
	expect_error("version: 1\nlayouts: []\n", "the file sets no budget", 1);
}

static struct report *sim_run(uint64_t ir, uint64_t d1)
{
	struct report *r = report__new();
	struct sim_report *s = calloc(1, sizeof(*s));

	r->target.exited = true;
	s->tier = TIER_SIMULATION;
	for (int e = 0; e < SIM_EV__COUNT; e++)
		s->has[e] = true;
	s->total[SIM_IR] = ir;
	s->total[SIM_DR] = ir / 2;
	s->total[SIM_D1MR] = d1;
	s->nr_lines = 2;
	s->lines = calloc(2, sizeof(*s->lines));
	snprintf(s->lines[0].file, sizeof(s->lines[0].file), "/src/matmul.c");
	snprintf(s->lines[0].function, sizeof(s->lines[0].function), "mm_naive");
	s->lines[0].line = 32;
	s->lines[0].ev[SIM_D1MR] = d1 - 10;
	snprintf(s->lines[1].file, sizeof(s->lines[1].file), "/src/matmul.c");
	snprintf(s->lines[1].function, sizeof(s->lines[1].function), "main");
	s->lines[1].line = 90;
	s->lines[1].ev[SIM_D1MR] = 10;
	r->sim = s;
	return r;
}

void test_budget__eval_sim(void)
{
	struct budget *b = NULL;
	struct check_report *cr = check_report__new("b.yaml");
	struct report *r = sim_run(1000000, 41000);
	char err[256] = "";

	if (!ASSERT_OK(budget__parse_text("b.yaml", good, strlen(good), &b, err, sizeof(err)), err))
		return;
	budget__eval_sim(&b->w[0], r, cr);
	ASSERT_EQ(cr->nr_items, 3, "one item per limit");
	/* 41 mpki is over 40 but within its 5% tolerance */
	ASSERT_NEAR(cr->items[0].value, 41.0, 1e-9, "l1d_mpki");
	ASSERT_EQ(cr->items[0].verdict, CHECK_PASS, "within tolerance");
	ASSERT_EQ(cr->items[0].tier, TIER_SIMULATION, "tier");
	ASSERT_EQ(cr->items[1].value, 40990, "mm_naive's misses");
	ASSERT_EQ(cr->items[1].verdict, CHECK_FAIL, "function over its limit");
	ASSERT_STREQ(cr->items[1].name, "mm: l1d_misses in mm_naive", "named");
	ASSERT_EQ(cr->items[2].value, 40990, "line by path suffix");
	ASSERT_EQ(check_report__verdict(cr), CHECK_FAIL, "verdict");
	check_report__free(cr);

	/* too few instructions: not checked, never a pass */
	cr = check_report__new("b.yaml");
	r->sim->total[SIM_IR] = 999;
	budget__eval_sim(&b->w[0], r, cr);
	for (int i = 0; i < cr->nr_items; i++)
		ASSERT_EQ(cr->items[i].verdict, CHECK_ERROR, "too few instructions");
	ASSERT_TRUE(strstr(cr->items[0].detail, "min_instructions") != NULL, cr->items[0].detail);
	check_report__free(cr);

	/* a failed workload */
	cr = check_report__new("b.yaml");
	r->sim->total[SIM_IR] = 1000000;
	r->target.exit_code = 3;
	budget__eval_sim(&b->w[0], r, cr);
	ASSERT_EQ(check_report__verdict(cr), CHECK_ERROR, "exit status 3");
	check_report__free(cr);
	report__free(r);
	budget__free(b);
}

void test_budget__baseline_json_roundtrip(void)
{
	struct check_report *cr = check_report__new("b.yaml"), *back = NULL;
	struct check_item *it = check_report__add(cr, "mm", "metric", 7);
	struct check_workload_env *e = check_report__add_env(cr, "mm");
	struct json_object *o;
	char why[128] = "";

	snprintf(it->name, sizeof(it->name), "mm: l1d_mpki");
	it->has_value = true;
	it->value = 18.5;
	it->verdict = CHECK_PASS;
	snprintf(e->fp.geometry, sizeof(e->fp.geometry), "I1=1 D1=2 LL=3");
	o = check_report__to_json(cr);
	if (!ASSERT_OK(check_report__from_json(json_object_to_json_string(o), &back, why,
					       sizeof(why)), why))
		goto out;
	ASSERT_STREQ(back->items[0].name, "mm: l1d_mpki", "name");
	ASSERT_NEAR(back->items[0].value, 18.5, 1e-12, "value");
	ASSERT_STREQ(check_report__env(back, "mm")->fp.geometry, "I1=1 D1=2 LL=3", "geometry");
	check_report__free(back);
	ASSERT_ERR(check_report__from_json("{\"schema_version\": 1}", &back, why, sizeof(why)),
		   "not a check report");
out:
	json_object_put(o);
	check_report__free(back);
	check_report__free(cr);
}
