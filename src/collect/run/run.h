/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One measured run of a target ('memadvise run'): the program started and
 * held before exec, or a running process attached to, with the counters and
 * every collector (collector.h) on it.  The stages, in order:
 *
 *   run__launch   prepare the simulation and the counters; start the
 *                 command held before exec (or attach to the pid)
 *   run__open     open the counters and the collectors on the target
 *   run__measure  release it and poll the collectors until it exits (or -d
 *                 ends, or Ctrl-C), then read the counters and the
 *                 collectors' results into the report
 *   run__free     close everything (also after a failed stage)
 *
 * Between the stages the caller may do work of its own that overlaps the
 * run's preparation ('memadvise run' loads the rules on a thread between
 * launch and measure).  The run fills the report; it applies no rules and
 * writes no output.  Errors are printed (error: and hint:) where they occur;
 * the stages return 0 or nonzero after one.
 */
#ifndef __MA_RUN_H
#define __MA_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/watch.h"

struct report;
struct sim_geometry;

struct run_opts {
	pid_t pid;		/* -p: attach to it; 0: launch argv */
	char *const *argv;	/* the command to launch (pid 0) */
	uint64_t duration_ns;	/* -d (with pid), 0 = until Ctrl-C */
	const char *events;	/* -e list, NULL = the default set */
	unsigned int freq_hz;	/* -F, 0 = each sampler's own */
	bool no_sample;		/* count only */
	bool all_faults;	/* no fault windows */
	bool sim;		/* run under cachegrind */
	const struct sim_geometry *sim_pin; /* sim: caches pinned (NULL: the host's) */
	int sim_keep;		/* sim: source lines kept (sim_run__new()) */
	bool no_streams;	/* --no-streams: no uprobes on the hot instructions */
	double stream_budget;	/* --stream-budget PCT / 100, 0 = default */
	const char *watch[WATCH_MAX];	/* --watch expressions, "auto" */
	int nr_watch;
};

struct run;

/* OPTS and R are kept (not copied) until run__free. */
int run__launch(struct run **runp, const struct run_opts *opts, struct report *r);
int run__open(struct run *run);
int run__measure(struct run *run);
/* Restores the signal handlers run__measure set and frees; NULL is fine. */
void run__free(struct run *run);
/*
 * SIGINT, SIGTERM and SIGHUP: blocked from main()'s start for 'run', so
 * that one sent before run__measure sets their handlers ends the run as a
 * later one does; run__measure unblocks them.
 */
void run__stop_signals(sigset_t *set);

/* -vv: how long each phase took, for whoever chases the fixed overhead. */
void run__phase(const char *what);

#endif
