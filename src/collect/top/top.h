/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The collector of 'memadvise top': every refresh reads /proc (CPU time,
 * page faults, RSS, smaps_rollup's huge pages) for every process the user
 * may see, drains bpf/top.bpf.c's tick samples (the hottest function of
 * each process) and, for the process drilled into, its faults by line and
 * its memory map, into a model/top.h frame.  It never draws; it may block
 * on /proc and on symbolising, so the caller runs it off the drawing
 * thread.
 */
#ifndef __MA_COLLECT_TOP_H
#define __MA_COLLECT_TOP_H

#include <stdbool.h>
#include <sys/types.h>

#include "model/top.h"

struct top_opts {
	const pid_t *pids;	/* -p: only these processes (NULL: all) */
	int nr_pids;
	bool threads;		/* one row per thread */
	bool all_users;		/* --all: under sudo, every user's processes too */
	uid_t only_uid;		/* (uid_t)-1: no filter; else the sudo user's */
	bool no_bpf;		/* no tick sampling (tests, --no-sample) */
};

struct top_collector;

/* Opens the collector; a BPF failure is no error (the header says why). 0 or -errno. */
int top_collector__open(struct top_collector **c, const struct top_opts *o);
/* One refresh: a new frame into *OUT (the caller frees it). 0 or -errno. */
int top_collector__refresh(struct top_collector *c, struct top_frame **out);
/* Drill into PID from the next refresh on (0: leave the drill-down). */
void top_collector__drill(struct top_collector *c, pid_t pid);
void top_collector__set_threads(struct top_collector *c, bool threads);
/* Adds a process to the -p list (memadvise top -- CMD). */
void top_collector__add_pid(struct top_collector *c, pid_t pid);
void top_collector__close(struct top_collector *c);

#endif
