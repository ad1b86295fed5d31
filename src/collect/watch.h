/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hardware watchpoints (tier watchpoint): exact counts of the writes (or
 * reads and writes) to up to 4 addresses, per thread and per code location.
 * Watching the members of a global that share a cache line tells which
 * threads write which bytes of the line: false-sharing evidence on machines
 * without a PMU.  Every hit traps (about 30 us), so watching stops after a
 * hit budget and the report says so.
 */
#ifndef __MA_WATCH_H
#define __MA_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "symbols/addrsym.h"
#include "symbols/symbolizer.h"
#include "model/report.h"

struct json_object;

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

/*
 * Resolves "SYMBOL[.member...][:rw]" in the ELF symbol table (and DWARF for
 * members) of exe.  A struct without a member gives its members, up to max.
 * Also "0xADDR[/LEN][:rw]" (a run-time address).  Returns the number of
 * specs or -errno with a reason in err.
 */
int watch__resolve(const char *exe, const char *expr, struct watch_spec *out, int max,
		   char *err, size_t err_len);
/* Load bias of exe in a live process from /proc/PID/maps (0 for ET_EXEC). */
int watch__load_bias(pid_t pid, const char *exe, uint64_t *bias);

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

struct json_object *watch_report__to_json(const struct watch_report *w);
void watch_report__print_text(const struct watch_report *w, FILE *f, bool wide);
void watch_report__free(struct watch_report *w);
/* Groups points by cache line and decides sharing (pure; used by finish). */
void watch_report__lines(struct watch_report *w, int line_size);

/* Checks that every expression resolves in exe; prints error + hint. 0 or -errno. */
int watch__check(const char *exe, const char *const *exprs, int n);

/*
 * --watch auto: data-address sampling proposes the bytes that threads write
 * on a line written by two or more threads; the free watchpoint slots take
 * them while the program runs.
 */
bool watch__auto(void);
void watch__propose(pid_t pid, uint64_t addr, int len, const char *name);

/* Expressions given with run --watch (kept, not copied); "auto" as above. */
void watch__set_exprs(const char *const *exprs, int n);

/* Standalone use: specs to watch in pid (a corked child when launched). */
struct watch;
struct watch *watch__open(pid_t pid, const char *exe, const struct watch_spec *specs, int n,
			  bool launched, char *why, size_t why_len);
int watch__poll(struct watch *w);
void watch__at_exit(struct watch *w);
struct watch_report *watch__finish(struct watch *w);
void watch__close(struct watch *w);

extern const struct collector collector_watch;

#endif
