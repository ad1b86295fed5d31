// SPDX-License-Identifier: GPL-2.0-only
/* The simulation section (cachegrind) as JSON and text. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/sim.h"
#include "report/output.h"
#include "base/json.h"
#include "base/util.h"

static struct json_object *jratio(double v)
{
	return v < 0 ? NULL : json_object_new_double(v);
}

static struct json_object *cache_json(const struct sim_cache *c)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "size", json_object_new_int64(c->size));
	json_object_object_add(o, "line", json_object_new_int(c->line));
	json_object_object_add(o, "ways", json_object_new_int(c->ways));
	return o;
}

struct json_object *sim_report__to_json(const struct sim_report *s)
{
	struct json_object *o = json_object_new_object(), *t, *g, *a;

	json_object_object_add(o, "tier", json_str(tier__name(s->tier)));
	json_object_object_add(o, "tool", json_str(s->tool));
	json_object_object_add(o, "note", json_str(
		"counts of a simulated machine (cachegrind), not measured on this one"));
	if (s->note[0])
		json_object_object_add(o, "geometry_note", json_str(s->note));
	g = json_object_new_object();
	json_object_object_add(g, "I1", cache_json(&s->i1));
	json_object_object_add(g, "D1", cache_json(&s->d1));
	json_object_object_add(g, "LL", cache_json(&s->ll));
	json_object_object_add(o, "caches", g);
	t = json_object_new_object();
	for (int e = 0; e < SIM_EV__COUNT; e++)
		if (s->has[e])
			json_object_object_add(t, sim_ev__name(e), json_object_new_int64(s->total[e]));
	json_object_object_add(o, "totals", t);
	json_object_object_add(o, "l1d_miss_ratio", jratio(s->l1d_miss_ratio));
	json_object_object_add(o, "l1i_miss_ratio", jratio(s->l1i_miss_ratio));
	json_object_object_add(o, "lld_miss_ratio", jratio(s->lld_miss_ratio));
	json_object_object_add(o, "ll_miss_ratio", jratio(s->ll_miss_ratio));
	json_object_object_add(o, "branch_miss_ratio", jratio(s->branch_miss_ratio));
	json_object_object_add(o, "lines_total", json_object_new_int(s->nr_lines_total));
	a = json_object_new_array();
	for (int i = 0; i < s->nr_lines; i++) {
		const struct sim_line *l = &s->lines[i];
		struct json_object *e = json_object_new_object(), *c = json_object_new_object();

		json_object_object_add(e, "file", json_str(l->file));
		json_object_object_add(e, "function", json_str(l->function));
		json_object_object_add(e, "line", json_object_new_int(l->line));
		json_object_object_add(e, "d1_misses", json_object_new_int64(sim_line__d1_misses(l)));
		for (int k = 0; k < SIM_EV__COUNT; k++)
			if (s->has[k])
				json_object_object_add(c, sim_ev__name(k), json_object_new_int64(l->ev[k]));
		json_object_object_add(e, "counts", c);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "lines", a);
	return o;
}

static void print_ratio(FILE *f, const char *name, double v)
{
	if (v < 0)
		fprintf(f, "  %-24s not simulated\n", name);
	else
		fprintf(f, "  %-24s %6.2f%%\n", name, 100.0 * v);
}

static void cache_text(char *buf, size_t len, const char *name, const struct sim_cache *c)
{
	char b[32];

	snprintf(buf, len, "%s %s %d-way", name, fmt_bytes(c->size, b, sizeof(b)), c->ways);
}

void sim_report__print_text(const struct sim_report *s, FILE *f, bool wide)
{
	char i1[48], d1[48], ll[48], a[32], b[32], c[32];
	int shown = 0;

	cache_text(i1, sizeof(i1), "I1", &s->i1);
	cache_text(d1, sizeof(d1), "D1", &s->d1);
	cache_text(ll, sizeof(ll), "LL", &s->ll);
	fprintf(f, "\nSIMULATION [%s: %s; modelled, not measured]\n", tier__name(s->tier), s->tool);
	fprintf(f, "  caches: %s, %s, %s, %d B lines\n", i1, d1, ll, s->d1.line);
	if (s->note[0])
		fprintf(f, "  %s\n", s->note);
	fprintf(f, "  instructions %s, data reads %s, data writes %s\n",
		fmt_count(s->total[SIM_IR], a, sizeof(a)), fmt_count(s->total[SIM_DR], b, sizeof(b)),
		fmt_count(s->total[SIM_DW], c, sizeof(c)));
	print_ratio(f, "L1D miss ratio (sim)", s->l1d_miss_ratio);
	print_ratio(f, "LL data miss ratio (sim)", s->lld_miss_ratio);
	print_ratio(f, "LL miss ratio (sim)", s->ll_miss_ratio);
	print_ratio(f, "branch miss ratio (sim)", s->branch_miss_ratio);
	for (int i = 0; i < s->nr_lines && shown < 10; i++) {
		const struct sim_line *l = &s->lines[i];
		char where[160];

		if (!sim_line__d1_misses(l))
			break;
		if (!shown++)
			fprintf(f, "  %9s %9s %9s  %s\n", "D1 miss", "LL miss", "D refs",
				"where (simulated)");
		snprintf(where, sizeof(where), "%.80s:%d %.60s", path_basename(l->file), l->line,
			 l->function);
		fprintf(f, "  %9s %9s %9s  %.*s\n", fmt_count(sim_line__d1_misses(l), a, sizeof(a)),
			fmt_count(l->ev[SIM_DLMR] + l->ev[SIM_DLMW], b, sizeof(b)),
			fmt_count(l->ev[SIM_DR] + l->ev[SIM_DW], c, sizeof(c)), wide ? 159 : 44,
			where);
	}
}
