// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binds the report sections of the other modules into the fact base; the
 * sections have a file each (bind_int.h), this one runs them in order and
 * holds the line entities they share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/bind.h"
#include "rules/bind_int.h"
#include "rules/rules.h"
#include "model/addr.h"
#include "base/util.h"

/* --- lines ----------------------------------------------------------------- */

/* "inc_cas.constprop.0" -> "inc_cas": GCC's clones keep the source name before the dot. */
void bind__base_function(const char *in, char *out, size_t len)
{
	const char *dot = strchr(in, '.');

	snprintf(out, len, "%.*s", dot && dot > in ? (int)(dot - in) : (int)strlen(in), in);
}

int binder__line_entity(struct binder *b, const char *function, const char *file, int line)
{
	struct entity e = { .scope = SCOPE_LINE, .parent = -1 };
	char fn[128];

	if (!file[0] || line <= 0)
		return -1;
	for (int i = 0; i < b->fb->nr_ents; i++) {
		const struct entity *x = &b->fb->ents[i];

		if (x->scope == SCOPE_LINE && x->line == line && !strcmp(x->file, file))
			return i;
	}
	bind__base_function(function, fn, sizeof(fn));
	snprintf(e.function, sizeof(e.function), "%s", fn);
	snprintf(e.file, sizeof(e.file), "%s", file);
	e.line = line;
	return factbase__add(b->fb, &e);
}

/* Lines known from one source only (a fault site, the simulation) were not hot in the others. */
static void bind_line_defaults(struct binder *b)
{
	struct factbase *fb = b->fb;
	static const char *const addr_zero[] = {
		"line.addr_samples", "line.stride", "line.stride_frac", "line.stride_monotonic",
		"line.in_order", "line.elem_stride", "line.span_lines",
		"line.lines", "line.pages", "line.l1_sets", "line.split_frac",
		"line.writes", "line.locked", "line.cas", "line.nt_store", "line.false_sharing",
		"line.true_sharing_threads",
	};
	double v;

	for (int i = 0; i < fb->nr_ents; i++) {
		if (fb->ents[i].scope != SCOPE_LINE)
			continue;
		if ((fb->have[EV_HOTSPOTS] || fb->have[EV_ADDR]) &&
		    factbase__get(fb, i, "line.samples", &v, NULL)) {
			factbase__set(fb, i, "line.samples", 0, TIER_SOFTWARE);
			factbase__set(fb, i, "line.share", 0, TIER_SOFTWARE);
		}
		/*
		 * only what nothing said: the address streams may have set some
		 * (a loop store's nt_store, the walk's order) on a line whose
		 * samples gave no address
		 */
		if (fb->have[EV_ADDR] && factbase__get(fb, i, "line.addr_samples", &v, NULL))
			for (size_t k = 0; k < ARRAY_SIZE(addr_zero); k++)
				if (factbase__get(fb, i, addr_zero[k], &v, NULL))
					factbase__set(fb, i, addr_zero[k], 0, b->r->addr->tier);
		if (fb->have[EV_FAULTS] && factbase__get(fb, i, "line.faults", &v, NULL)) {
			factbase__set(fb, i, "line.faults", 0, TIER_SOFTWARE);
			factbase__set(fb, i, "line.fault_share", 0, TIER_SOFTWARE);
		}
	}
}

void bind__sections(const struct rules_input *in, struct factbase *fb)
{
	struct binder b = { .r = in->snapshot, .fb = fb, .layouts = in->layouts, .line = 64 };
	double v;

	if (!factbase__get(fb, -1, "machine.line_size", &v, NULL) && v > 0)
		b.line = (uint32_t)v;
	bind__layout(&b);
	bind__sampling(&b);
	bind__addr(&b);
	bind__streams(&b);
	bind__struct_heat(&b);
	/* nothing sampled: every struct, for rules on static layout alone */
	if (!fb->have[EV_HOTSPOTS] && !fb->have[EV_ADDR])
		for (int i = 0; i < b.nr_sb; i++)
			binder__struct_entity(&b, &b.sb[i]);
	bind__sim(&b);
	bind__watch(&b);
	bind_line_defaults(&b);
	for (int i = 0; i < b.nr_sb; i++)
		free(b.sb[i].member_ent);
	free(b.sb);
}
