// SPDX-License-Identifier: GPL-2.0-only
/*
 * 'memadvise check' results: the table (budget, limit, measured, tier,
 * verdict), JSON (also the baseline format, read back by
 * check_report__from_json()) and JUnit XML, one test case per budget.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/util.h"
#include "model/check.h"
#include "report/output.h"

#define CHECK_SCHEMA_VERSION 1

static void value_text(bool has, double v, char *buf, size_t len)
{
	if (!has) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_num(v, buf, len);
}

void check_report__print_text(const struct check_report *cr, FILE *f, bool wide)
{
	int namew = wide ? 64 : 38, fails = 0, errors = 0;

	fprintf(f, "%-*s %10s %10s %-10s %s\n", namew, "BUDGET", "LIMIT", "MEASURED", "TIER",
		"VERDICT");
	for (int i = 0; i < cr->nr_items; i++) {
		const struct check_item *it = &cr->items[i];
		char lim[40], val[40], tmp[32];

		if (it->has_limit) {
			fmt_num(it->limit, tmp, sizeof(tmp));
			snprintf(lim, sizeof(lim), "%s %s", it->op, tmp);
		} else {
			snprintf(lim, sizeof(lim), "%s", !strcmp(it->op, "==") ? "shared"
							 : !strcmp(it->op, "!=") ? "apart" : "-");
		}
		value_text(it->has_value, it->value, val, sizeof(val));
		if (it->has_value && it->value_text[0])
			snprintf(val, sizeof(val), "%s", it->value_text);
		fprintf(f, "%-*.*s %10s %10s %-10s %s\n", namew, namew, it->name, lim, val,
			tier__name(it->tier), check_verdict__name(it->verdict));
		if ((int)strlen(it->name) > namew)
			fprintf(f, "  (budget: %s)\n", it->name);
		if (it->repeats > 1) {
			fmt_num(it->spread, tmp, sizeof(tmp));
			fprintf(f, "  median of %d runs, spread (max - min) %s\n", it->repeats, tmp);
		}
		if (it->has_baseline) {
			fmt_num(it->baseline, tmp, sizeof(tmp));
			fprintf(f, "  baseline %s\n", tmp);
		}
		if (it->detail[0])
			fprintf(f, "  %s: %s\n", it->verdict == CHECK_PASS ? "note" : "why", it->detail);
		fails += it->verdict == CHECK_FAIL;
		errors += it->verdict == CHECK_ERROR;
	}
	for (int i = 0; i < cr->nr_envs; i++) {
		const struct check_workload_env *e = &cr->envs[i];

		fprintf(f, "\nworkload %s: tier %s, %.2f s", e->name, e->fp.tier, e->wall_s);
		if (e->fp.geometry[0] && !strcmp(e->fp.tier, tier__name(TIER_SIMULATION)))
			fprintf(f, ", caches pinned %s (modelled, not measured)", e->fp.geometry);
		else if (e->fp.geometry[0])
			fprintf(f, ", this host's caches %s", e->fp.geometry);
		fputc('\n', f);
	}
	fprintf(f, "\n%s: %d budget%s, %d exceeded, %d not checked\n",
		check_verdict__name(check_report__verdict(cr)), cr->nr_items,
		cr->nr_items == 1 ? "" : "s", fails, errors);
}

static struct json_object *jnum(bool has, double v)
{
	return has && isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *fp_json(const struct check_fingerprint *fp)
{
	struct json_object *o = json_object_new_object();

	json_add(o, "tier", json_str(fp->tier));
	json_add(o, "cpu", json_str(fp->cpu));
	json_add(o, "kernel", json_str(fp->kernel));
	json_add(o, "geometry", json_str(fp->geometry));
	json_add(o, "build_id", json_str(fp->build_id));
	json_add(o, "tool", json_str(fp->tool));
	return o;
}

struct json_object *check_report__to_json(const struct check_report *cr)
{
	struct json_object *o = json_object_new_object(), *t, *a, *w;

	json_add(o, "schema_version", json_object_new_int(CHECK_SCHEMA_VERSION));
	t = json_object_new_object();
	json_add(t, "name", json_str("memadvise"));
	json_add(t, "version", json_str(MA_VERSION));
	json_add(o, "tool", t);
	json_add(o, "budget_file", json_str(cr->budget_file));
	json_add(o, "verdict", json_str(check_verdict__name(check_report__verdict(cr))));
	w = json_object_new_array();
	for (int i = 0; i < cr->nr_envs; i++) {
		struct json_object *e = json_object_new_object();

		json_add(e, "name", json_str(cr->envs[i].name));
		json_add(e, "wall_s", json_object_new_double(cr->envs[i].wall_s));
		json_add(e, "fingerprint", fp_json(&cr->envs[i].fp));
		json_object_array_add(w, e);
	}
	json_add(o, "workloads", w);
	a = json_object_new_array();
	for (int i = 0; i < cr->nr_items; i++) {
		const struct check_item *it = &cr->items[i];
		struct json_object *c = json_object_new_object();

		json_add(c, "name", json_str(it->name));
		json_add(c, "workload", json_str_or_null(it->workload[0] ? it->workload : NULL));
		json_add(c, "kind", json_str(it->kind));
		json_add(c, "metric", json_str(it->metric));
		json_add(c, "unit", json_str(it->unit));
		json_add(c, "op", it->has_limit ? json_str(it->op) : NULL);
		json_add(c, "limit", jnum(it->has_limit, it->limit));
		json_add(c, "tolerance", json_object_new_double(it->tolerance));
		json_add(c, "measured", jnum(it->has_value, it->value));
		if (it->value_text[0])
			json_add(c, "measured_text", json_str(it->value_text));
		if (it->repeats)
			json_add(c, "repeats", json_object_new_int(it->repeats));
		if (it->repeats > 1)
			json_add(c, "spread", json_object_new_double(it->spread));
		json_add(c, "tier", json_str(tier__name(it->tier)));
		json_add(c, "verdict", json_str(check_verdict__name(it->verdict)));
		json_add(c, "detail", json_str_or_null(it->detail[0] ? it->detail : NULL));
		if (it->has_baseline)
			json_add(c, "baseline", json_object_new_double(it->baseline));
		json_add(c, "budget_line", json_object_new_int(it->budget_line));
		json_object_array_add(a, c);
	}
	json_add(o, "checks", a);
	return o;
}

static const char *jget_str(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : NULL;
}

static void copy_str(char *dst, size_t len, struct json_object *o, const char *k)
{
	const char *s = jget_str(o, k);

	snprintf(dst, len, "%s", s ? s : "");
}

int check_report__from_json(const char *text, struct check_report **out, char *why, size_t len)
{
	struct json_object *o = json_tokener_parse(text), *v, *a;
	struct check_report *cr;

	*out = NULL;
	if (!o || !json_object_is_type(o, json_type_object)) {
		snprintf(why, len, "not JSON");
		json_object_put(o);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(o, "schema_version", &v) ||
	    json_object_get_int(v) != CHECK_SCHEMA_VERSION ||
	    !json_object_object_get_ex(o, "checks", &a) || !json_object_is_type(a, json_type_array)) {
		snprintf(why, len, "not a 'memadvise check' report of schema version %d",
			 CHECK_SCHEMA_VERSION);
		json_object_put(o);
		return -EINVAL;
	}
	cr = check_report__new(jget_str(o, "budget_file"));
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *c = json_object_array_get_idx(a, i), *m;
		struct check_item *it = check_report__add(cr, jget_str(c, "workload"), "metric", 0);

		copy_str(it->name, sizeof(it->name), c, "name");
		copy_str(it->metric, sizeof(it->metric), c, "metric");
		if (json_object_object_get_ex(c, "measured", &m) && m) {
			it->has_value = true;
			it->value = json_object_get_double(m);
		}
	}
	if (json_object_object_get_ex(o, "workloads", &a) && json_object_is_type(a, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			struct json_object *w = json_object_array_get_idx(a, i), *f;
			struct check_workload_env *e = check_report__add_env(cr, jget_str(w, "name") ?: "");

			if (!json_object_object_get_ex(w, "fingerprint", &f))
				continue;
			copy_str(e->fp.tier, sizeof(e->fp.tier), f, "tier");
			copy_str(e->fp.cpu, sizeof(e->fp.cpu), f, "cpu");
			copy_str(e->fp.kernel, sizeof(e->fp.kernel), f, "kernel");
			copy_str(e->fp.geometry, sizeof(e->fp.geometry), f, "geometry");
			copy_str(e->fp.build_id, sizeof(e->fp.build_id), f, "build_id");
			copy_str(e->fp.tool, sizeof(e->fp.tool), f, "tool");
		}
	}
	json_object_put(o);
	*out = cr;
	return 0;
}

/* --- JUnit XML ------------------------------------------------------------ */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* XML 1.0 has no control characters but tab, CR and LF */
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				fputc('?', f);
			else
				fputc(c, f);
		}
	}
}

static void junit_property(FILE *f, const char *name, const char *value)
{
	fputs("    <property name=\"", f);
	xml_text(f, name);
	fputs("\" value=\"", f);
	xml_text(f, value);
	fputs("\"/>\n", f);
}

static void junit_case(FILE *f, const struct check_report *cr, const struct check_item *it)
{
	const struct check_workload_env *e = it->workload[0] ? check_report__env(cr, it->workload)
							     : NULL;
	char lim[32] = "-", val[32] = "-", msg[512];

	if (it->has_limit)
		fmt_num(it->limit, lim, sizeof(lim));
	if (it->has_value)
		fmt_num(it->value, val, sizeof(val));
	fputs("  <testcase name=\"", f);
	xml_text(f, it->name);
	fputs("\" classname=\"memadvise.check.", f);
	xml_text(f, it->workload[0] ? it->workload : "layout");
	/* a workload's budgets share its run: each shows the run's time */
	fprintf(f, "\" time=\"%.3f\"", e ? e->wall_s : 0.0);
	if (it->verdict == CHECK_PASS) {
		fputs("/>\n", f);
		return;
	}
	snprintf(msg, sizeof(msg), "%s: measured %s, limit %s %s (tier %s)", it->name, val,
		 it->has_limit ? it->op : "", lim, tier__name(it->tier));
	fprintf(f, ">\n    <%s type=\"%s\" message=\"", it->verdict == CHECK_FAIL ? "failure" : "error",
		it->verdict == CHECK_FAIL ? "budget exceeded" : "not checked");
	xml_text(f, msg);
	fputs("\">", f);
	xml_text(f, it->detail);
	fprintf(f, " (%s:%d)</%s>\n  </testcase>\n", it->budget_file, it->budget_line,
		it->verdict == CHECK_FAIL ? "failure" : "error");
}

int check_report__write_junit(const struct check_report *cr, FILE *f, const char *hostname,
			      double wall_s)
{
	int fails = 0, errors = 0;
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	for (int i = 0; i < cr->nr_items; i++) {
		fails += cr->items[i].verdict == CHECK_FAIL;
		errors += cr->items[i].verdict == CHECK_ERROR;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuite name=\"memadvise check\" timestamp=\"%s\" hostname=\"", ts);
	xml_text(f, hostname && *hostname ? hostname : "localhost");
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.3f\">\n",
		cr->nr_items, fails, errors, wall_s);
	fputs("  <properties>\n", f);
	junit_property(f, "budget_file", cr->budget_file);
	for (int i = 0; i < cr->nr_envs; i++) {
		char name[96];

		snprintf(name, sizeof(name), "%s.tier", cr->envs[i].name);
		junit_property(f, name, cr->envs[i].fp.tier);
		if (cr->envs[i].fp.geometry[0]) {
			snprintf(name, sizeof(name), "%s.geometry", cr->envs[i].name);
			junit_property(f, name, cr->envs[i].fp.geometry);
		}
	}
	fputs("  </properties>\n", f);
	for (int i = 0; i < cr->nr_items; i++)
		junit_case(f, cr, &cr->items[i]);
	fputs("  <system-out/>\n  <system-err/>\n</testsuite>\n", f);
	return fflush(f) ? -errno : 0;
}
