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

#include "model/sampling.h"
#include "model/addr.h"
#include "model/findings.h"
#include "model/sim.h"
#include "model/watch.h"
#include "model/streams.h"
#include "base/util.h"

static const char *const tier_names[TIER__COUNT] = {
	[TIER_PRECISE] = "precise",	    [TIER_COUNTING] = "counting",
	[TIER_SOFTWARE] = "software",	    [TIER_SW_ADDR] = "sw-addr",
	[TIER_UPROBE_STREAM] = "uprobe-stream",
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
	sampling__free(r->sampling);
	findings__free(r->findings);
	addr_profile__free(r->addr);
	streams_report__free(r->streams);
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

