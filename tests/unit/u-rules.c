// SPDX-License-Identifier: GPL-2.0-only
/* The rule parser and the advice engine on hand-made fact bases. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report/output.h"
#include "rules/facts.h"
#include "harness.h"
#include "rules/rules.h"

int rule__parse_buffer(const char *name, const char *text, size_t len, struct rule *out, char *err,
		       size_t errlen);

static const char base_rule[] =
	"id: t\n"
	"title: Test\n"
	"paper: \"6.2.1\"\n"
	"severity: warning\n"
	"requires: [layout, simulation | addr_samples]\n"
	"for-each: struct\n"
	"min_samples:\n"
	"  struct.addr_samples: 10\n"
	"when: struct.hot && struct.size > 64\n"
	"evidence: [struct.size, struct.addr_samples]\n"
	"message: \"{struct} ({decl}) is {struct.size} bytes, {{literal}\"\n"
	"advice: Shrink {struct}.\n"
	"fix: |\n"
	"  struct {struct} { int a; } /* C braces stay */\n"
	"  {aligned_decl}\n"
	"gain: struct.addr_samples * 0.001\n"
	"example: x\n";

static struct ruleset *one_rule(const char *text)
{
	struct ruleset *rs = calloc(1, sizeof(*rs));
	char err[256];

	rs->rules = calloc(1, sizeof(*rs->rules));
	if (rule__parse_buffer("t.yaml", text, strlen(text), &rs->rules[0], err, sizeof(err))) {
		test__fail(__FILE__, __LINE__, "parse: %s", err);
		free(rs->rules);
		free(rs);
		return NULL;
	}
	rs->nr_rules = 1;
	return rs;
}

/* A fact base with one struct entity. */
static struct factbase *fb_struct(bool layout, bool addr, double size, double hot, double samples)
{
	struct factbase *fb = factbase__new();
	struct entity e = { .scope = SCOPE_STRUCT, .parent = -1 };
	int idx;

	snprintf(e.struct_name, sizeof(e.struct_name), "foo");
	snprintf(e.decl_file, sizeof(e.decl_file), "/src/foo.c");
	e.decl_line = 12;
	e.decl_text = strdup("struct foo {\n\tint a;\n};");
	factbase__mark(fb, EV_LAYOUT, layout, "no DWARF");
	factbase__mark(fb, EV_ADDR, addr, "no addresses");
	idx = factbase__add(fb, &e);
	factbase__set(fb, idx, "struct.size", size, TIER_STATIC);
	if (hot >= 0)
		factbase__set(fb, idx, "struct.hot", hot, TIER_SW_ADDR);
	if (samples >= 0)
		factbase__set(fb, idx, "struct.addr_samples", samples, TIER_SW_ADDR);
	factbase__set(fb, -1, "machine.line_size", 64, TIER_STATIC);
	return fb;
}

static struct findings *eval(const char *rule, struct factbase *fb)
{
	struct ruleset *rs = one_rule(rule);
	struct findings *fs = NULL;

	if (!rs)
		return NULL;
	ruleset__eval_facts(rs, fb, &fs);
	/* findings borrow the rule: keep the set alive for the test's duration */
	return fs;
}

void test_rules__parse_ok(void)
{
	struct ruleset *rs = one_rule(base_rule);

	if (!rs)
		return;
	ASSERT_STREQ(rs->rules[0].id, "t", "id");
	ASSERT_EQ(rs->rules[0].severity, SEV_WARNING, "severity");
	ASSERT_EQ(rs->rules[0].scope, SCOPE_STRUCT, "for-each");
	ASSERT_EQ(rs->rules[0].nr_requires, 2, "requires items");
	ASSERT_EQ(rs->rules[0].requires[1].nr_alt, 2, "alternatives");
	ASSERT_STREQ(rs->rules[0].requires[1].alt[1], "addr_samples", "second alternative");
	ASSERT_EQ(rs->rules[0].nr_min_samples, 1, "min_samples");
	ruleset__free(rs);
}

void test_rules__fires_with_evidence(void)
{
	struct factbase *fb = fb_struct(true, true, 72, 1, 100);
	struct findings *fs = eval(base_rule, fb);

	if (!ASSERT_NOT_NULL(fs, "findings"))
		return;
	if (!ASSERT_EQ(fs->nr, 1, "one finding"))
		return;
	ASSERT_EQ(fs->f[0].status, FINDING_FIRED, "fired");
	ASSERT_STREQ(fs->f[0].struct_name, "foo", "points at the struct");
	ASSERT_EQ(fs->f[0].decl_line, 12, "declaration line");
	ASSERT_STREQ(fs->f[0].message, "foo (foo.c:12) is 72 bytes, {literal}", "message template");
	ASSERT_TRUE(strstr(fs->f[0].fix, "struct foo { int a; } /* C braces stay */") != NULL,
		    "C braces are not placeholders");
	ASSERT_TRUE(strstr(fs->f[0].fix, "} __attribute__((aligned(64)));") != NULL, "aligned_decl");
	ASSERT_EQ(fs->f[0].tier, TIER_SW_ADDR, "weakest runtime tier");
	ASSERT_STREQ(fs->f[0].confidence, "low", "sw-addr is low confidence");
	ASSERT_TRUE(fs->f[0].gain_known, "gain");
	ASSERT_NEAR(fs->f[0].gain_s, 0.1, 1e-9, "gain value");
	findings__free(fs);
	factbase__free(fb);
}

void test_rules__missing_evidence_is_inconclusive(void)
{
	struct factbase *fb = fb_struct(true, false, 72, 1, 100);
	struct findings *fs = eval(base_rule, fb);

	if (!ASSERT_NOT_NULL(fs, "findings") || !ASSERT_EQ(fs->nr, 1, "one finding"))
		return;
	ASSERT_EQ(fs->f[0].status, FINDING_INCONCLUSIVE, "inconclusive");
	ASSERT_TRUE(strstr(fs->f[0].missing, "simulation") && strstr(fs->f[0].missing, "addr_samples") &&
			    strstr(fs->f[0].missing, "no addresses"),
		    fs->f[0].missing);
	ASSERT_EQ(fs->nr_quiet, 0, "not counted quiet");
	findings__free(fs);
	factbase__free(fb);
}

void test_rules__unknown_is_inconclusive_false_is_quiet(void)
{
	struct factbase *fb = fb_struct(true, true, 72, -1, 100); /* struct.hot not measured */
	struct findings *fs = eval(base_rule, fb);

	if (!ASSERT_NOT_NULL(fs, "findings") || !ASSERT_EQ(fs->nr, 1, "one finding"))
		return;
	ASSERT_EQ(fs->f[0].status, FINDING_INCONCLUSIVE, "unknown -> inconclusive");
	ASSERT_TRUE(strstr(fs->f[0].missing, "struct.hot") != NULL, fs->f[0].missing);
	findings__free(fs);
	factbase__free(fb);

	/* Kleene: size 40 makes 'when' false even without struct.hot */
	fb = fb_struct(true, true, 40, -1, 100);
	fs = eval(base_rule, fb);
	if (!ASSERT_NOT_NULL(fs, "findings"))
		return;
	ASSERT_EQ(fs->nr, 0, "false && unknown is a pass");
	ASSERT_EQ(fs->nr_quiet, 1, "quiet");
	findings__free(fs);
	factbase__free(fb);
}

void test_rules__min_samples(void)
{
	struct factbase *fb = fb_struct(true, true, 72, 1, 3); /* below 10 */
	struct findings *fs = eval(base_rule, fb);

	if (!ASSERT_NOT_NULL(fs, "findings") || !ASSERT_EQ(fs->nr, 1, "one finding"))
		return;
	ASSERT_EQ(fs->f[0].status, FINDING_INCONCLUSIVE, "thin data does not fire");
	ASSERT_TRUE(strstr(fs->f[0].missing, "only 3 struct.addr_samples (needs 10)") != NULL,
		    fs->f[0].missing);
	findings__free(fs);
	factbase__free(fb);

	fb = fb_struct(true, true, 72, 1, 20); /* above, below 4x: lower confidence */
	fs = eval(base_rule, fb);
	if (!ASSERT_NOT_NULL(fs, "findings") || !ASSERT_EQ(fs->nr, 1, "one finding"))
		return;
	ASSERT_EQ(fs->f[0].status, FINDING_FIRED, "fired");
	findings__free(fs);
	factbase__free(fb);
}

void test_rules__inconclusive_when_first(void)
{
	char rule[2048];
	struct factbase *fb = fb_struct(true, true, 72, 1, 100);
	struct findings *fs;

	snprintf(rule, sizeof(rule), "%sinconclusive_when: struct.size > 70\n"
		 "inconclusive_why: cannot tell here\n", base_rule);
	fs = eval(rule, fb);
	if (!ASSERT_NOT_NULL(fs, "findings") || !ASSERT_EQ(fs->nr, 1, "one finding"))
		return;
	ASSERT_EQ(fs->f[0].status, FINDING_INCONCLUSIVE, "inconclusive_when wins over when");
	ASSERT_STREQ(fs->f[0].missing, "cannot tell here", "inconclusive_why");
	findings__free(fs);
	factbase__free(fb);
}

void test_rules__ranked_by_gain(void)
{
	struct factbase *fb = factbase__new();
	struct findings *fs;
	int a, b;
	struct entity e = { .scope = SCOPE_STRUCT, .parent = -1 };

	factbase__mark(fb, EV_LAYOUT, true, NULL);
	factbase__mark(fb, EV_ADDR, true, NULL);
	snprintf(e.struct_name, sizeof(e.struct_name), "small");
	a = factbase__add(fb, &e);
	snprintf(e.struct_name, sizeof(e.struct_name), "big");
	b = factbase__add(fb, &e);
	factbase__set(fb, a, "struct.size", 80, TIER_STATIC);
	factbase__set(fb, a, "struct.hot", 1, TIER_SW_ADDR);
	factbase__set(fb, a, "struct.addr_samples", 20, TIER_SW_ADDR);
	factbase__set(fb, b, "struct.size", 80, TIER_STATIC);
	factbase__set(fb, b, "struct.hot", 1, TIER_SW_ADDR);
	factbase__set(fb, b, "struct.addr_samples", 500, TIER_SW_ADDR);
	fs = eval(base_rule, fb);
	if (!ASSERT_NOT_NULL(fs, "findings") || !ASSERT_EQ(fs->nr, 2, "two findings"))
		return;
	ASSERT_STREQ(fs->f[0].struct_name, "big", "largest gain first");
	ASSERT_EQ(fs->f[0].count, 2, "count of entities");
	findings__free(fs);
	factbase__free(fb);
}

void test_rules__json_and_sarif(void)
{
	struct factbase *fb = fb_struct(true, true, 72, 1, 100);
	struct findings *fs = eval(base_rule, fb);
	struct json_object *j, *f0, *v;
	char path[] = "/tmp/ma-sarif-XXXXXX";
	int fd;

	if (!ASSERT_NOT_NULL(fs, "findings"))
		return;
	fs->f[0].line = 7;
	snprintf(fs->f[0].file, sizeof(fs->f[0].file), "/src/foo.c");
	j = findings__to_json(fs);
	f0 = json_object_array_get_idx(j, 0);
	ASSERT_TRUE(json_object_object_get_ex(f0, "status", &v) &&
			    !strcmp(json_object_get_string(v), "fired"), "status");
	ASSERT_TRUE(json_object_object_get_ex(f0, "estimated_gain", &v) && v, "gain object");
	json_object_put(j);

	fd = mkstemp(path);
	if (!ASSERT_TRUE(fd >= 0, "temp file"))
		return;
	close(fd);
	ASSERT_OK(findings__write_sarif(fs, path), "write sarif");
	j = json_object_from_file(path);
	unlink(path);
	if (!ASSERT_NOT_NULL(j, "sarif parses"))
		return;
	ASSERT_TRUE(json_object_object_get_ex(j, "version", &v) &&
			    !strcmp(json_object_get_string(v), "2.1.0"), "version");
	json_object_put(j);
	findings__free(fs);
	factbase__free(fb);
}

void test_rules__parse_errors(void)
{
	static const struct {
		const char *find, *repl, *want;
	} cases[] = {
		{ "severity: warning", "severity: severe", "t.yaml:4: severity 'severe'" },
		{ "when: struct.hot && struct.size > 64", "when: line.stride > 1",
		  "t.yaml:9: 'when' uses 'line.stride', a line metric" },
		{ "example: x\n", "", "t.yaml:1: 'example' is missing" },
		{ "title: Test", "title: [a]", "t.yaml:2: 'title' must be a single value" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048], err[256];
		const char *at = strstr(base_rule, cases[i].find);
		struct rule r;

		snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - base_rule), base_rule,
			 cases[i].repl, at + strlen(cases[i].find));
		if (!ASSERT_ERR(rule__parse_buffer("t.yaml", text, strlen(text), &r, err, sizeof(err)),
				cases[i].want))
			continue;
		if (strncmp(err, cases[i].want, strlen(cases[i].want)))
			test__fail(__FILE__, __LINE__, "error '%s', expected '%s...'", err, cases[i].want);
	}
}

void test_rules__replay_roundtrip(void)
{
	struct factbase *fb = fb_struct(true, true, 72, 1, 100), *back = NULL;
	struct json_object *o = factbase__to_json(fb);
	char err[128];
	double v;

	ASSERT_OK(factbase__from_json(o, &back, err, sizeof(err)), err);
	if (back) {
		ASSERT_TRUE(back->replay, "replayed facts are marked");
		ASSERT_OK(factbase__get(back, 0, "struct.size", &v, NULL), "fact survives");
		ASSERT_NEAR(v, 72, 0, "value");
		ASSERT_TRUE(factbase__has(back, "layout", NULL), "evidence kind survives");
		ASSERT_FALSE(factbase__has(back, "simulation", NULL), "missing kind survives");
	}
	json_object_put(o);
	factbase__free(back);
	factbase__free(fb);
}

/* caused_by: a finding whose cause fired at the same entity is folded and names it. */
void test_rules__caused_by(void)
{
	static const char cause[] =
		"id: cause\ntitle: C\npaper: \"1\"\nseverity: warning\nfor-each: struct\n"
		"when: struct.hot\nevidence: [struct.size]\nmessage: m\nadvice: a\nfix: f\n"
		"example: x\n";
	static const char effect[] =
		"id: effect\ntitle: E\npaper: \"1\"\nseverity: warning\nfor-each: struct\n"
		"when: struct.size > 64\nevidence: [struct.size]\nmessage: m\nadvice: a\nfix: f\n"
		"caused_by:\n  cause: struct.size < 1000\nexample: x\n";
	struct ruleset rs = { 0 };
	struct factbase *fb = factbase__new();
	struct entity e = { .scope = SCOPE_STRUCT, .parent = -1 };
	struct findings *fs = NULL;
	struct json_object *j;
	char err[256];
	int a, b, c, folded = 0, named = 0;

	rs.rules = calloc(2, sizeof(*rs.rules));
	if (!ASSERT_OK(rule__parse_buffer("cause.yaml", cause, strlen(cause), &rs.rules[0], err,
					  sizeof(err)), "parse cause") ||
	    !ASSERT_OK(rule__parse_buffer("effect.yaml", effect, strlen(effect), &rs.rules[1], err,
					  sizeof(err)), "parse effect"))
		return;
	rs.nr_rules = 2;
	ASSERT_EQ(rs.rules[1].nr_caused_by, 1, "one cause");
	/* a: both fire and the condition holds; b: both fire, condition false; c: effect alone */
	snprintf(e.struct_name, sizeof(e.struct_name), "a");
	a = factbase__add(fb, &e);
	snprintf(e.struct_name, sizeof(e.struct_name), "b");
	b = factbase__add(fb, &e);
	snprintf(e.struct_name, sizeof(e.struct_name), "c");
	c = factbase__add(fb, &e);
	factbase__set(fb, a, "struct.size", 100, TIER_STATIC);
	factbase__set(fb, a, "struct.hot", 1, TIER_SW_ADDR);
	factbase__set(fb, b, "struct.size", 5000, TIER_STATIC);
	factbase__set(fb, b, "struct.hot", 1, TIER_SW_ADDR);
	factbase__set(fb, c, "struct.size", 100, TIER_STATIC);
	factbase__set(fb, c, "struct.hot", 0, TIER_SW_ADDR);
	ruleset__eval_facts(&rs, fb, &fs);
	if (!ASSERT_NOT_NULL(fs, "findings") || !ASSERT_EQ(fs->nr, 5, "2 causes + 3 effects"))
		goto out;
	for (int i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->f[i];

		if (strcmp(f->id, "effect"))
			continue;
		if (!strcmp(f->struct_name, "a")) {
			ASSERT_TRUE(f->folded, "caused: folded");
			ASSERT_STREQ(f->caused_by, "cause", "names its cause");
			ASSERT_EQ(f->severity, SEV_INFO, "caused: info");
		} else {
			ASSERT_FALSE(f->folded, "not caused: printed");
			ASSERT_STREQ(f->caused_by, "", "no cause");
		}
		folded += f->folded;
	}
	ASSERT_EQ(folded, 1, "one effect folded");
	ASSERT_EQ(fs->nr_folded, 1, "counted as folded");
	j = findings__to_json(fs);
	for (size_t i = 0; i < json_object_array_length(j); i++) {
		struct json_object *v;

		if (json_object_object_get_ex(json_object_array_get_idx(j, i), "caused_by", &v))
			named += !strcmp(json_object_get_string(v), "cause");
	}
	ASSERT_EQ(named, 1, "JSON names the cause once");
	json_object_put(j);
out:
	findings__free(fs);
	factbase__free(fb);
	for (int i = 0; i < rs.nr_rules; i++)
		rule__release(&rs.rules[i]);
	free(rs.rules);
}

/* caused_by must map ids to conditions. */
void test_rules__caused_by_malformed(void)
{
	static const char bad[] =
		"id: effect\ntitle: E\npaper: \"1\"\nseverity: warning\nfor-each: struct\n"
		"when: struct.size > 64\nevidence: [struct.size]\nmessage: m\nadvice: a\nfix: f\n"
		"caused_by: [cause]\nexample: x\n";
	struct rule r;
	char err[256] = "";

	ASSERT_TRUE(rule__parse_buffer("effect.yaml", bad, strlen(bad), &r, err, sizeof(err)) != 0,
		    "a list is refused");
	ASSERT_TRUE(strstr(err, "caused_by") != NULL, "the error names the key");
}
