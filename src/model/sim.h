/* SPDX-License-Identifier: GPL-2.0-only */
/* Simulation results (Valgrind cachegrind): counts of a modelled machine, per source line. */
#ifndef __MA_MODEL_SIM_H
#define __MA_MODEL_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/report.h"

/* cachegrind's events, in the order of its 'events:' line. */
enum sim_ev {
	SIM_IR, SIM_I1MR, SIM_ILMR, SIM_DR, SIM_D1MR, SIM_DLMR, SIM_DW, SIM_D1MW, SIM_DLMW,
	SIM_BC, SIM_BCM, SIM_BI, SIM_BIM, SIM_EV__COUNT,
};
const char *sim_ev__name(enum sim_ev e); /* "Ir", "D1mr", ... */

struct sim_cache {
	uint64_t size;
	int line, ways;
};

/*
 * The modelled machine's caches, pinned (a budget file's 'geometry') rather
 * than read from this host: every runner then simulates the same machine.
 * A cache with size 0 is left to the host's (sysfs) geometry.
 */
struct sim_geometry {
	struct sim_cache i1, d1, ll;
};

/*
 * Whether cachegrind can model cache C: sets and line size powers of two,
 * size = sets * ways * line.  0, or -EINVAL with the reason in WHY.
 */
int sim_cache__check(const struct sim_cache *c, char *why, size_t len);

/* Counts of one source line (cachegrind keys by file, function, line). */
struct sim_line {
	char file[200];	    /* "???" without debug info */
	char function[128];
	int line;	    /* 0 without line info */
	uint64_t ev[SIM_EV__COUNT];
};

struct sim_report {
	enum tier tier;	    /* TIER_SIMULATION */
	char tool[32];	    /* "cachegrind" */
	char cmd[256];
	struct sim_cache i1, d1, ll; /* from the file's desc: lines */
	bool has[SIM_EV__COUNT];     /* events the file had */
	uint64_t total[SIM_EV__COUNT];
	/* derived, < 0 when an input is missing */
	double l1d_miss_ratio;	/* (D1mr + D1mw) / (Dr + Dw) */
	double l1i_miss_ratio;	/* I1mr / Ir */
	double lld_miss_ratio;	/* (DLmr + DLmw) / (Dr + Dw) */
	double ll_miss_ratio;	/* (ILmr + DLmr + DLmw) / (Ir + Dr + Dw) */
	double branch_miss_ratio; /* (Bcm + Bim) / (Bc + Bi) */
	struct sim_line *lines;	/* by D1 misses (D1mr + D1mw), descending */
	int nr_lines;
	int nr_lines_total;	/* lines in the file, before keeping the top */
	char note[200];		/* geometry adjustments, e.g. LL sets rounded */
};

uint64_t sim_line__d1_misses(const struct sim_line *l);
void sim_report__free(struct sim_report *s);

#endif
