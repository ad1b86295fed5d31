// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "model/sim.h"
#include "base/util.h"

static const char *const ev_names[SIM_EV__COUNT] = {
	"Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

const char *sim_ev__name(enum sim_ev e)
{
	return e < SIM_EV__COUNT ? ev_names[e] : "?";
}

uint64_t sim_line__d1_misses(const struct sim_line *l)
{
	return l->ev[SIM_D1MR] + l->ev[SIM_D1MW];
}

void sim_report__free(struct sim_report *s)
{
	if (!s)
		return;
	free(s->lines);
	free(s);
}
