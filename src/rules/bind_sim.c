// SPDX-License-Identifier: GPL-2.0-only
/* The cache simulation (sim.h) -> run and line facts. */
#include "rules/bind_int.h"
#include "model/sim.h"

void bind__sim(struct binder *b)
{
	const struct sim_report *s = b->r->sim;
	struct factbase *fb = b->fb;

	if (!s)
		return;
	factbase__mark(fb, EV_SIM, true, NULL);
	factbase__set(fb, -1, "sim.refs", (double)(s->total[SIM_DR] + s->total[SIM_DW]), s->tier);
	factbase__set(fb, -1, "sim.d1_misses", (double)(s->total[SIM_D1MR] + s->total[SIM_D1MW]),
		      s->tier);
	factbase__set(fb, -1, "sim.ll_misses", (double)(s->total[SIM_DLMR] + s->total[SIM_DLMW]),
		      s->tier);
	factbase__set(fb, -1, "sim.d1_miss_ratio", s->l1d_miss_ratio, s->tier);
	if (s->has[SIM_BC]) {
		factbase__set(fb, -1, "sim.branches", (double)(s->total[SIM_BC] + s->total[SIM_BI]),
			      s->tier);
		factbase__set(fb, -1, "sim.branch_misses",
			      (double)(s->total[SIM_BCM] + s->total[SIM_BIM]), s->tier);
	}
	for (int i = 0; i < s->nr_lines; i++) {
		const struct sim_line *l = &s->lines[i];
		int idx = binder__line_entity(b, l->function, l->file, l->line);

		if (idx < 0)
			continue;
		factbase__set(fb, idx, "line.sim_refs", (double)(l->ev[SIM_DR] + l->ev[SIM_DW]), s->tier);
		factbase__set(fb, idx, "line.sim_d1_misses", (double)(l->ev[SIM_D1MR] + l->ev[SIM_D1MW]),
			      s->tier);
		factbase__set(fb, idx, "line.sim_ll_misses", (double)(l->ev[SIM_DLMR] + l->ev[SIM_DLMW]),
			      s->tier);
		if (s->has[SIM_BC]) {
			factbase__set(fb, idx, "line.sim_branches", (double)(l->ev[SIM_BC] + l->ev[SIM_BI]),
				      s->tier);
			factbase__set(fb, idx, "line.sim_branch_misses",
				      (double)(l->ev[SIM_BCM] + l->ev[SIM_BIM]), s->tier);
		}
	}
}
