/* SPDX-License-Identifier: GPL-2.0-only */
/* What bounds a run (struct verdict in model/findings.h), from its snapshot. */
#ifndef __MA_RULES_VERDICT_H
#define __MA_RULES_VERDICT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/findings.h"
#include "model/report.h"
#include "rules/facts.h"

/* Fills V from R (machine sizes and costs from FB).  0, or -ENODATA with v->missing. */
int verdict__compute(const struct report *r, const struct factbase *fb, struct verdict *v);

/* false (with WHY) when advice of RULE_ID cannot move V's bound. */
bool verdict__moves(const struct verdict *v, const char *rule_id, char *why, size_t len);

#endif
