// SPDX-License-Identifier: GPL-2.0-only
/* The whole report: text, JSON, and where it is written. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "model/addr.h"
#include "model/findings.h"
#include "model/sampling.h"
#include "model/report.h"
#include "model/sim.h"
#include "model/watch.h"
#include "report/output.h"
#include "base/json.h"
#include "base/util.h"

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
	if (r->findings) {
		fputc('\n', f);
		verdict__print_text(r->findings, f, wide);
	}

	fprintf(f, "\n%-19s %13s  %-9s %s\n", "COUNTER", "VALUE", "TIER", "NOTE");
	for (int i = 0; i < r->nr_counters; i++) {
		const struct counter *c = &r->counters[i];

		if (!c->counted) {
			char line[512];

			snprintf(line, sizeof(line), "%-19s %13s  %-9s %s", c->name,
				 counter__uncounted_label(c), tier__name(c->tier), c->reason);
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
	if (r->sampling)
		sampling__print_text(r->sampling, f, wide);
	if (r->sim)
		sim_report__print_text(r->sim, f, wide);
	if (r->addr)
		addr_profile__print_text(r->addr, f, wide);
	if (r->streams)
		streams_report__print_text(r->streams, f, wide);
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

struct json_object *report__to_json(const struct report *r)
{
	const struct target_info *t = &r->target;
	struct json_object *o = json_object_new_object(), *jt, *arr, *tool, *feat;

	json_object_object_add(o, "schema_version", json_object_new_int(r->schema_version));
	tool = json_object_new_object();
	json_object_object_add(tool, "name", json_str("memadvise"));
	json_object_object_add(tool, "version", json_str(MA_VERSION));
	feat = json_object_new_array();
	json_object_array_add(feat, json_str("bpf"));
	json_object_array_add(feat, json_str("pfm"));
	json_object_array_add(feat, json_str("dwarf"));
	json_object_object_add(tool, "features", feat);
	json_object_object_add(o, "tool", tool);
	json_object_object_add(o, "hostname", json_str(r->hostname));
	json_object_object_add(o, "timestamp_ns", json_object_new_uint64(r->timestamp_ns));

	jt = json_object_new_object();
	json_object_object_add(jt, "command", json_str(t->command));
	json_object_object_add(jt, "exe", t->exe[0] ? json_str(t->exe) : NULL);
	if (t->layout_exe[0])
		json_object_object_add(jt, "layout_exe", json_str(t->layout_exe));
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
	if (r->findings)
		json_object_object_add(o, "verdict", verdict__to_json(r->findings));

	arr = json_object_new_array();
	for (int i = 0; i < r->nr_counters; i++) {
		const struct counter *c = &r->counters[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "name", json_str(c->name));
		json_object_object_add(e, "event", json_str(c->event));
		json_object_object_add(e, "tier", json_str(tier__name(c->tier)));
		json_object_object_add(e, "supported", json_object_new_boolean(c->counted));
		if (c->counted) {
			json_object_object_add(e, "value", json_object_new_double(c->scaled));
			json_object_object_add(e, "raw", json_object_new_uint64(c->raw));
			json_object_object_add(e, "enabled_ns", json_object_new_uint64(c->enabled_ns));
			json_object_object_add(e, "running_ns", json_object_new_uint64(c->running_ns));
			json_object_object_add(e, "scaled",
					       json_object_new_boolean(c->running_ns < c->enabled_ns));
			if (c->derived[0])
				json_object_object_add(e, "derived", json_str(c->derived));
			if (c->note[0])
				json_object_object_add(e, "note", json_str(c->note));
		} else {
			/* Never a number for a counter that did not count. */
			json_object_object_add(e, "value", json_str(counter__uncounted_label(c)));
			json_object_object_add(e, "reason", json_str(c->reason));
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
		json_object_object_add(e, "unit", json_str(m->unit));
		json_object_object_add(e, "tier", json_str(tier__name(m->tier)));
		json_object_object_add(e, "formula", json_str(m->formula));
		json_object_object_add(arr, m->name, e);
	}
	json_object_object_add(o, "metrics", arr);

	arr = json_object_new_array();
	for (int i = 0; i < r->nr_prov; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "what", json_str(r->prov[i].what));
		json_object_object_add(e, "detail", json_str(r->prov[i].detail));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "provenance", arr);
	if (r->sampling)
		json_object_object_add(o, "profile", sampling__to_json(r->sampling));
	if (r->findings)
		json_object_object_add(o, "findings", findings__to_json(r->findings));
	if (r->addr)
		json_object_object_add(o, "data_addresses", addr_profile__to_json(r->addr));
	if (r->streams)
		json_object_object_add(o, "address_streams", streams_report__to_json(r->streams));
	if (r->sim)
		json_object_object_add(o, "simulation", sim_report__to_json(r->sim));
	if (r->watch)
		json_object_object_add(o, "watchpoints", watch_report__to_json(r->watch));
	return o;
}

int report__emit(const struct report *r, FILE *f, bool json, bool pretty, bool wide)
{
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
	/* Buffered: a full disk shows at fflush(), with its errno. */
	if (fflush(f))
		return errno ? -errno : -EIO;
	return ferror(f) ? -EIO : 0;
}
