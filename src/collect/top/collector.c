// SPDX-License-Identifier: GPL-2.0-only
/* The life cycle of 'memadvise top''s collector (collect/top/top.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/top/internal.h"
#include "base/util.h"
#include "machine/caps.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"

int top_collector__open(struct top_collector **out, const struct top_opts *o)
{
	struct top_collector *c = xcalloc(1, sizeof(*c));
	struct cap cap;

	c->o = *o;
	c->o.pids = NULL;
	if (o->nr_pids) {
		c->pids = xcalloc(o->nr_pids, sizeof(*c->pids));
		memcpy(c->pids, o->pids, o->nr_pids * sizeof(*c->pids));
		c->nr_pids = o->nr_pids;
	}
	c->clk_tck = sysconf(_SC_CLK_TCK);
	if (c->clk_tck <= 0)
		c->clk_tck = 100;
	c->page_size = (unsigned int)sysconf(_SC_PAGESIZE);
	c->sym = symbolizer__new();
	c->pmu = caps__hw_pmu(&cap);
	if (c->pmu)
		snprintf(c->pmu_why, sizeof(c->pmu_why), "not counted by top yet: see memadvise run");
	else
		snprintf(c->pmu_why, sizeof(c->pmu_why), "no PMU");
	top_bpf_open(c);
	*out = c;
	return 0;
}

void top_collector__drill(struct top_collector *c, pid_t pid)
{
	c->drill_want = pid;
}

void top_collector__set_threads(struct top_collector *c, bool threads)
{
	c->o.threads = threads;
}

void top_collector__add_pid(struct top_collector *c, pid_t pid)
{
	c->pids = xrealloc(c->pids, (c->nr_pids + 1) * sizeof(*c->pids));
	c->pids[c->nr_pids++] = pid;
}

void top_collector__close(struct top_collector *c)
{
	if (!c)
		return;
	top_bpf_close(c);
	for (int i = 0; i < c->nr_maps; i++) {
		symbolizer__forget(c->sym, c->maps[i].m);
		procmaps__free(c->maps[i].m);
	}
	free(c->maps);
	symbolizer__free(c->sym);
	free(c->procs);
	free(c->threads);
	free(c->dips);
	free(c->pids);
	free(c);
}
