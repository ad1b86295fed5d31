// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int sim_cache__check(const struct sim_cache *c, char *why, size_t len)
{
	uint64_t sets;

	if (c->line <= 0 || !pow2(c->line)) {
		snprintf(why, len, "line size %d is not a power of two", c->line);
		return -EINVAL;
	}
	if (c->ways <= 0) {
		snprintf(why, len, "%d ways: give at least 1", c->ways);
		return -EINVAL;
	}
	if (!c->size || c->size % ((uint64_t)c->ways * c->line)) {
		snprintf(why, len, "size %" PRIu64 " is not a multiple of ways x line (%d x %d)",
			 c->size, c->ways, c->line);
		return -EINVAL;
	}
	sets = c->size / ((uint64_t)c->ways * c->line);
	if (!pow2(sets)) {
		snprintf(why, len, "%" PRIu64 " sets (size / ways / line) is not a power of two", sets);
		return -EINVAL;
	}
	return 0;
}
