// SPDX-License-Identifier: GPL-2.0-only
#include "model/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "model/profile.h"
#include "rules/rules.h"
#include "collect/addr/addrsample.h"
#include "collect/sim.h"
#include "collect/watch.h"
#include "base/util.h"

static const char *const tier_names[TIER__COUNT] = {
	[TIER_PRECISE] = "precise",	    [TIER_COUNTING] = "counting",
	[TIER_SOFTWARE] = "software",	    [TIER_SW_ADDR] = "sw-addr",
	[TIER_WATCHPOINT] = "watchpoint", [TIER_SIMULATION] = "simulation",
	[TIER_STATIC] = "static",
};

const char *tier__name(enum tier t)
{
	return (unsigned)t < TIER__COUNT ? tier_names[t] : "unknown";
}

struct report *report__new(void)
{
	struct report *r = xcalloc(1, sizeof(*r));

	r->schema_version = REPORT_SCHEMA_VERSION;
	gethostname(r->hostname, sizeof(r->hostname) - 1);
	return r;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	free(r->counters);
	free(r->metrics);
	free(r->prov);
	profile__free(r->profile);
	findings__free(r->findings);
	addr_profile__free(r->addr);
	sim_report__free(r->sim);
	watch_report__free(r->watch);
	free(r);
}

void report__add_provenance(struct report *r, const char *what, const char *fmt, ...)
{
	struct provenance *p;
	va_list ap;

	r->prov = xrealloc(r->prov, (r->nr_prov + 1) * sizeof(*r->prov));
	p = &r->prov[r->nr_prov++];
	memset(p, 0, sizeof(*p));
	snprintf(p->what, sizeof(p->what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(p->detail, sizeof(p->detail), fmt, ap);
	va_end(ap);
}

struct counter *report__add_counter(struct report *r)
{
	struct counter *c;

	r->counters = xrealloc(r->counters, (r->nr_counters + 1) * sizeof(*r->counters));
	c = &r->counters[r->nr_counters++];
	memset(c, 0, sizeof(*c));
	return c;
}

const struct counter *report__counter(const struct report *r, const char *name)
{
	for (int i = 0; i < r->nr_counters; i++)
		if (!strcmp(r->counters[i].name, name))
			return &r->counters[i];
	return NULL;
}

static const struct counter *counted(const struct report *r, const char *name)
{
	const struct counter *c = report__counter(r, name);

	return c && c->counted ? c : NULL;
}

static void add_metric(struct report *r, const char *name, const char *unit, double v,
		       enum tier tier, const char *formula)
{
	struct metric *m;

	if (!isfinite(v))
		return;
	r->metrics = xrealloc(r->metrics, (r->nr_metrics + 1) * sizeof(*r->metrics));
	m = &r->metrics[r->nr_metrics++];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	snprintf(m->formula, sizeof(m->formula), "%s", formula);
	m->value = v;
	m->tier = tier;
}

static enum tier worse(enum tier a, enum tier b)
{
	return a > b ? a : b;
}

void report__derive_metrics(struct report *r)
{
	static const struct {
		const char *num, *rate, *mpki;
	} per_instr[] = {
		{ "l1d_miss", "l1d_miss_rate", "l1d_mpki" },
		{ "llc_miss", "llc_miss_rate", "llc_mpki" },
		{ "dtlb_miss", "dtlb_miss_rate", "dtlb_mpki" },
		{ "branch_miss", "branch_miss_rate", "branch_mpki" },
	};
	const struct counter *cyc = counted(r, "cycles"), *ins = counted(r, "instructions");
	const struct counter *clk = counted(r, "task_clock"), *pf = counted(r, "page_faults");
	char f[80];

	free(r->metrics);
	r->metrics = NULL;
	r->nr_metrics = 0;
	if (cyc && ins && ins->scaled > 0) {
		add_metric(r, "cpi", "cycles_per_instr", cyc->scaled / ins->scaled,
			   worse(cyc->tier, ins->tier), "cycles / instructions");
		add_metric(r, "ipc", "instr_per_cycle", ins->scaled / cyc->scaled,
			   worse(cyc->tier, ins->tier), "instructions / cycles");
	}
	for (size_t i = 0; ins && ins->scaled > 0 && i < ARRAY_SIZE(per_instr); i++) {
		const struct counter *c = counted(r, per_instr[i].num);

		if (!c)
			continue;
		snprintf(f, sizeof(f), "%s / instructions", per_instr[i].num);
		add_metric(r, per_instr[i].rate, "ratio", c->scaled / ins->scaled,
			   worse(c->tier, ins->tier), f);
		snprintf(f, sizeof(f), "1000 * %s / instructions", per_instr[i].num);
		add_metric(r, per_instr[i].mpki, "per_kilo_instr", 1000.0 * c->scaled / ins->scaled,
			   worse(c->tier, ins->tier), f);
	}
	if (clk && clk->scaled > 0 && r->target.wall_ns > 0)
		add_metric(r, "cpu_utilization", "cpus", clk->scaled / (double)r->target.wall_ns,
			   clk->tier, "task_clock / wall time");
	if (pf && r->target.wall_ns > 0)
		add_metric(r, "page_faults_per_sec", "per_sec",
			   pf->scaled * 1e9 / (double)r->target.wall_ns, pf->tier,
			   "page_faults / wall time");
}

/* ------------------------------------------------------------------ text */

static const char *fmt_value(const struct counter *c, char *buf, size_t len)
{
	if (!strcmp(c->name, "task_clock"))
		snprintf(buf, len, "%.2f ms", c->scaled / 1e6);
	else
		snprintf(buf, len, "%.0f", c->scaled);
	return buf;
}

static void print_wrapped(FILE *f, const char *indent, const char *text, int width)
{
	int col = (int)strlen(indent), start = 1;
	const char *p = text;

	fputs(indent, f);
	while (*p) {
		int n = (int)strcspn(p, " ");

		if (!start && col + 1 + n > width) {
			fprintf(f, "\n%s", indent);
			col = (int)strlen(indent);
			start = 1;
		}
		if (!start) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", n, p);
		col += n;
		start = 0;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void report__print_text(const struct report *r, FILE *f, bool wide)
{
	const struct target_info *t = &r->target;
	int width = wide ? 200 : 79;
	char buf[64];

	fprintf(f, "memadvise: %s\n", t->command);
	if (t->attached)
		fprintf(f, "  attached to pid %d for %.2f s%s\n", t->pid, t->wall_ns / 1e9,
			t->exited ? " (it exited)" : "");
	else if (t->term_signal)
		fprintf(f, "  pid %d killed by signal %d (%s) after %.2f s\n", t->pid,
			t->term_signal, strsignal(t->term_signal), t->wall_ns / 1e9);
	else if (t->exited)
		fprintf(f, "  pid %d exited with status %d after %.2f s\n", t->pid, t->exit_code,
			t->wall_ns / 1e9);
	if (t->interrupted)
		fprintf(f, "  interrupted: the report covers what ran until Ctrl-C\n");

	fprintf(f, "\n%-19s %13s  %-9s %s\n", "COUNTER", "VALUE", "TIER", "NOTE");
	for (int i = 0; i < r->nr_counters; i++) {
		const struct counter *c = &r->counters[i];

		if (!c->counted) {
			char line[512];

			snprintf(line, sizeof(line), "%-19s %13s  %-9s %s", c->name,
				 "not supported", tier__name(c->tier), c->reason);
			if ((int)strlen(line) > width)
				snprintf(line + width - 3, sizeof(line) - (width - 3), "...");
			fprintf(f, "%s\n", line);
			continue;
		}
		const char *tier = tier__name(c->tier);
		int pad = 9 - (int)strlen(tier) + 1;	/* to the NOTE column */

		fprintf(f, "%-19s %13s  %s", c->name, fmt_value(c, buf, sizeof(buf)), tier);
		if (c->note[0])
			fprintf(f, "%*s%s", pad, "", c->note);
		else if (c->running_ns < c->enabled_ns)
			fprintf(f, "%*sscaled: counted %.1f%% of the time", pad, "",
				100.0 * c->running_ns / (double)c->enabled_ns);
		fputc('\n', f);
	}
	if (r->nr_metrics) {
		fprintf(f, "\n%-19s %13s  %-9s %s\n", "METRIC", "VALUE", "TIER", "FORMULA");
		for (int i = 0; i < r->nr_metrics; i++) {
			const struct metric *m = &r->metrics[i];
			char line[256];

			char v[32];

			snprintf(v, sizeof(v), m->value >= 1000 ? "%.0f" : "%.4g", m->value);
			snprintf(line, sizeof(line), "%-19s %13s  %-9s %s", m->name, v,
				 tier__name(m->tier), m->formula);
			if ((int)strlen(line) > width)
				line[width] = 0;
			fprintf(f, "%s\n", line);
		}
	}
	if (r->profile)
		profile__print_text(r->profile, f, wide);
	if (r->sim)
		sim_report__print_text(r->sim, f, wide);
	if (r->addr)
		addr_profile__print_text(r->addr, f, wide);
	if (r->watch)
		watch_report__print_text(r->watch, f, wide);
	if (r->nr_prov) {
		fprintf(f, "\nNOTES\n");
		for (int i = 0; i < r->nr_prov; i++) {
			char line[300];

			snprintf(line, sizeof(line), "%s: %s", r->prov[i].what, r->prov[i].detail);
			print_wrapped(f, "  ", line, width);
		}
	}
	if (r->findings)
		findings__print_text(r->findings, f, wide);
}

/* ------------------------------------------------------------------ JSON */

static struct json_object *jstr(const char *s)
{
	return json_object_new_string(s ? s : "");
}

struct json_object *report__to_json(const struct report *r)
{
	const struct target_info *t = &r->target;
	struct json_object *o = json_object_new_object(), *jt, *arr, *tool, *feat;

	json_object_object_add(o, "schema_version", json_object_new_int(r->schema_version));
	tool = json_object_new_object();
	json_object_object_add(tool, "name", jstr("memadvise"));
	json_object_object_add(tool, "version", jstr(MA_VERSION));
	feat = json_object_new_array();
	json_object_array_add(feat, jstr("bpf"));
	json_object_array_add(feat, jstr("pfm"));
	json_object_array_add(feat, jstr("dwarf"));
	json_object_object_add(tool, "features", feat);
	json_object_object_add(o, "tool", tool);
	json_object_object_add(o, "hostname", jstr(r->hostname));
	json_object_object_add(o, "timestamp_ns", json_object_new_uint64(r->timestamp_ns));

	jt = json_object_new_object();
	json_object_object_add(jt, "command", jstr(t->command));
	json_object_object_add(jt, "exe", t->exe[0] ? jstr(t->exe) : NULL);
	if (t->layout_exe[0])
		json_object_object_add(jt, "layout_exe", jstr(t->layout_exe));
	json_object_object_add(jt, "pid", json_object_new_int(t->pid));
	json_object_object_add(jt, "attached", json_object_new_boolean(t->attached));
	json_object_object_add(jt, "exited", json_object_new_boolean(t->exited));
	json_object_object_add(jt, "exit_code",
			       t->exited && !t->attached ? json_object_new_int(t->exit_code) : NULL);
	json_object_object_add(jt, "term_signal",
			       t->term_signal ? json_object_new_int(t->term_signal) : NULL);
	json_object_object_add(jt, "interrupted", json_object_new_boolean(t->interrupted));
	json_object_object_add(jt, "wall_ns", json_object_new_uint64(t->wall_ns));
	json_object_object_add(o, "target", jt);

	arr = json_object_new_array();
	for (int i = 0; i < r->nr_counters; i++) {
		const struct counter *c = &r->counters[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "name", jstr(c->name));
		json_object_object_add(e, "event", jstr(c->event));
		json_object_object_add(e, "tier", jstr(tier__name(c->tier)));
		json_object_object_add(e, "supported", json_object_new_boolean(c->counted));
		if (c->counted) {
			json_object_object_add(e, "value", json_object_new_double(c->scaled));
			json_object_object_add(e, "raw", json_object_new_uint64(c->raw));
			json_object_object_add(e, "enabled_ns", json_object_new_uint64(c->enabled_ns));
			json_object_object_add(e, "running_ns", json_object_new_uint64(c->running_ns));
			json_object_object_add(e, "scaled",
					       json_object_new_boolean(c->running_ns < c->enabled_ns));
			if (c->derived[0])
				json_object_object_add(e, "derived", jstr(c->derived));
			if (c->note[0])
				json_object_object_add(e, "note", jstr(c->note));
		} else {
			/* Never a number for a counter that did not count. */
			json_object_object_add(e, "value", jstr("not supported"));
			json_object_object_add(e, "reason", jstr(c->reason));
			if (c->err)
				json_object_object_add(e, "errno", json_object_new_int(-c->err));
		}
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "events", arr);

	arr = json_object_new_object();
	for (int i = 0; i < r->nr_metrics; i++) {
		const struct metric *m = &r->metrics[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "value", json_object_new_double(m->value));
		json_object_object_add(e, "unit", jstr(m->unit));
		json_object_object_add(e, "tier", jstr(tier__name(m->tier)));
		json_object_object_add(e, "formula", jstr(m->formula));
		json_object_object_add(arr, m->name, e);
	}
	json_object_object_add(o, "metrics", arr);

	arr = json_object_new_array();
	for (int i = 0; i < r->nr_prov; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "what", jstr(r->prov[i].what));
		json_object_object_add(e, "detail", jstr(r->prov[i].detail));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "provenance", arr);
	if (r->profile)
		json_object_object_add(o, "profile", profile__to_json(r->profile));
	if (r->findings)
		json_object_object_add(o, "findings", findings__to_json(r->findings));
	if (r->addr)
		json_object_object_add(o, "data_addresses", addr_profile__to_json(r->addr));
	if (r->sim)
		json_object_object_add(o, "simulation", sim_report__to_json(r->sim));
	if (r->watch)
		json_object_object_add(o, "watchpoints", watch_report__to_json(r->watch));
	return o;
}

int report__emit(const struct report *r, const char *path, bool json, bool pretty, bool wide)
{
	FILE *f = stdout;
	int err = 0;

	if (path && strcmp(path, "-")) {
		f = fopen(path, "we");
		if (!f)
			return -errno;
	}
	if (json) {
		struct json_object *o = report__to_json(r);

		fputs(json_object_to_json_string_ext(o, (pretty ? JSON_C_TO_STRING_PRETTY : 0) |
							     JSON_C_TO_STRING_NOSLASHESCAPE),
		      f);
		fputc('\n', f);
		json_object_put(o);
	} else {
		report__print_text(r, f, wide);
	}
	if (fflush(f) || ferror(f))
		err = -EIO;
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	return err;
}
