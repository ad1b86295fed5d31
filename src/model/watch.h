/* SPDX-License-Identifier: GPL-2.0-only */
/* Hardware watchpoint results (tier watchpoint): hits per point, thread and code site. */
#ifndef __MA_MODEL_WATCH_H
#define __MA_MODEL_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "model/report.h"
#include "model/site.h"

#define WATCH_MAX 4		/* debug registers per thread on x86 */
/*
 * Hits a point takes before it stops (each traps): 4 points, 20000 hits,
 * about 0.6 s of traps.  Per point, so that one thread's writes cannot use
 * up the budget of a point whose thread the host has not run yet.
 */
#define WATCH_HIT_LIMIT 5000
#define WATCH_MAX_THREADS 16
#define WATCH_MAX_IPS 8

struct watch_spec {
	char name[128];	 /* "counters.a", "0x601040" */
	uint64_t addr;	 /* run-time address, or link-time when link_time */
	bool link_time;	 /* add the executable's load bias once it is known */
	int len;	 /* 1, 2, 4 or 8, addr aligned to it */
	bool rw;	 /* reads and writes (else writes only) */
	int member_off;	 /* offset inside the symbol, -1 when not a member */
	int member_size; /* the member's declared size (may exceed len) */
	bool automatic;	 /* proposed by data-address sampling (--watch auto) */
};

struct watch_point {
	struct watch_spec spec;	 /* addr is the run-time address */
	int pid;		 /* process watched (with its threads) */
	bool armed;
	uint64_t armed_after_ns; /* from the start of the run */
	char why[128];		 /* why not armed */
	uint64_t hits;
	bool stopped;		 /* reached WATCH_HIT_LIMIT: watching it stopped */
	int nr_threads;
	struct { int tid; uint64_t hits; } threads[WATCH_MAX_THREADS];
	bool more_threads;
	int nr_ips;
	struct { uint64_t ip; uint64_t hits; struct sym_site loc; } ips[WATCH_MAX_IPS];
};

/* Watched addresses in one cache line and the threads that wrote them. */
struct watch_line {
	uint64_t line;
	int nr_points;
	int points[WATCH_MAX];	/* indexes into watch_report.pts */
	int writer_threads;	/* distinct threads over the line's points */
	bool false_sharing;	/* different threads wrote different points */
	bool true_sharing;	/* one point written by >= 2 threads */
};

struct watch_report {
	enum tier tier;		/* TIER_WATCHPOINT */
	uint64_t hit_limit;	/* per point */
	bool limited;		/* some point stopped at the hit limit */
	uint64_t total_hits, lost;
	uint64_t armed_after_ns; /* from the start (PIE: after exec) */
	int nr;
	struct watch_point pts[WATCH_MAX];
	int nr_lines;
	struct watch_line lines[WATCH_MAX];
};

void watch_report__free(struct watch_report *w);

#endif
