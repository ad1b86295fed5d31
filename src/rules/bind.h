/* SPDX-License-Identifier: GPL-2.0-only */
/* Binding a run's report into the rules' fact base (see facts.h). */
#ifndef __MA_BIND_H
#define __MA_BIND_H

#include <stddef.h>

#include "rules/facts.h"
#include "model/report.h"

struct rules_input;

/*
 * Where the machine profile of 'memadvise calibrate' is read from:
 * $MEMADVISE_PROFILE, else $XDG_CACHE_HOME/memadvise/machine.json, else
 * ~/.cache/memadvise/machine.json.  0 when it exists, -ENOENT otherwise.
 */
int bind__machine_profile_path(char *buf, size_t len);

/*
 * The sections modules attach to the snapshot (profile, data addresses,
 * simulation, watchpoints) and the layouts of its program, IN's.
 */
void bind__sections(const struct rules_input *in, struct factbase *fb);

#endif
