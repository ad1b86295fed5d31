/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The simulation tier: the program runs under Valgrind's cachegrind with
 * cache and branch simulation and this machine's cache geometry from sysfs
 * ('run --sim'), or the geometry a budget file pins ('check').  The counts are exact for the *modelled* machine (inclusive LRU
 * caches, a simple branch predictor), not measurements of this one, and
 * every output says "simulation".
 */
#ifndef __MA_SIM_H
#define __MA_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/report.h"
#include "model/sim.h"


/*
 * Parses the text of a cachegrind.out file.  keep > 0 keeps that many lines.
 * 0 or -EINVAL with *errline set to the offending line number.
 */
int sim__parse(const char *text, int keep, struct sim_report **out, int *errline);
int sim__parse_file(const char *path, int keep, struct sim_report **out, int *errline);

/*
 * 'run --sim' and 'check': wraps argv in the valgrind command line (output
 * into a private temporary directory).  PIN (NULL: none) fixes the caches it
 * gives a size to; the others are this host's.  KEEP is how many source
 * lines the report keeps (0: the top SIM_KEEP_LINES, < 0: all of them, for
 * per-function and per-line budgets).  NULL + errno: ENOENT when valgrind
 * is not installed, EINVAL when a pinned cache is one cachegrind cannot
 * model (sim_cache__check()).  After the run, sim_run__collect() parses
 * the output into r->sim and removes the directory; sim_run__free() removes
 * it too.
 */
#define SIM_KEEP_LINES 200

struct sim_run;
struct sim_run *sim_run__new(char *const *argv, const struct sim_geometry *pin, int keep);

char *const *sim_run__argv(const struct sim_run *s);
/* The simulated program's resolved path (not valgrind's), NULL if not found. */
const char *sim_run__program(const struct sim_run *s);
int sim_run__collect(struct sim_run *s, struct report *r);
void sim_run__free(struct sim_run *s);

#endif
