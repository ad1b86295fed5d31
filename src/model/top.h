/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One refresh of 'memadvise top': the machine's memory meters, one row per
 * process (or thread), and the process drilled into as a report snapshot
 * (model/report.h, with its sampling section), which the rules read as
 * they read a run's.  Filled by collect/top/, drawn by report/top*.c.
 *
 * Rates are per second over the refresh interval.  A value that was not
 * measured is marked so (the *_known flags, -1 counts), never 0.
 */
#ifndef __MA_MODEL_TOP_H
#define __MA_MODEL_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/report.h"

#define TOP_SPARK 60		/* seconds of fault history in the header */

struct top_header {
	uint64_t seq;			/* refresh number, from 1 */
	uint64_t time_ns;		/* CLOCK_REALTIME of the refresh */
	double interval_s;		/* what the rates are over */
	char thp_mode[16];		/* always / madvise / never, "" unknown */
	char thp_defrag[32];
	bool mem_known;			/* /proc/meminfo read */
	uint64_t anon, anon_huge;	/* bytes: AnonPages, AnonHugePages */
	bool faults_known;		/* /proc/vmstat read */
	double minflt_s, majflt_s;	/* system-wide */
	double spark[TOP_SPARK];	/* faults/s, oldest first */
	int nr_spark;
	bool khuge_known;		/* khugepaged's sysfs counters read */
	uint64_t khuge_collapsed, khuge_scans;	/* totals since boot */
	double khuge_collapsed_s;
	/* hardware counters: none on a machine without a PMU (pmu_why says why) */
	bool pmu;
	char pmu_why[96];
	/* code samples: the scheduler tick (tick_hz), or why there are none */
	bool sampling;
	unsigned int tick_hz;
	char sampling_why[128];
	uint64_t samples_lost;
	int nr_procs, nr_threads;	/* rows shown are filtered from these */
	int nr_hidden;			/* other users' processes not shown (sudo without --all) */
};

struct top_row {
	pid_t pid;			/* the process (tgid) */
	pid_t tid;			/* thread mode: the thread; else 0 */
	uid_t uid;
	char comm[16];
	char state;
	int nr_threads;
	double cpu_pct;			/* of one CPU */
	double minflt_s, majflt_s;
	uint64_t rss;			/* bytes */
	bool thp_known;			/* smaps_rollup read */
	uint64_t anon, anon_huge;	/* bytes */
	uint64_t samples;		/* tick samples in the interval */
	char hot[128];			/* hottest function, "" none or not named yet */
	int nr_findings;		/* live findings (drilled process only), -1 unknown */
	bool is_new;			/* first seen this refresh: no rates yet */
};

/* A hot function or line of the drilled process (cumulative since the drill began). */
struct top_hot {
	char function[128];
	char file[256];
	int line;			/* 0: the function's row */
	uint64_t samples;
	double share;
};

struct top_drill {
	pid_t pid;			/* 0: none */
	char comm[16];
	uint64_t since_ns;		/* drill began (CLOCK_MONOTONIC) */
	struct report *snap;		/* samples, faults and regions since then; NULL not yet */
	struct findings *findings;	/* the rules on snap; NULL not evaluated yet */
	char findings_why[160];		/* why there are none, when findings is NULL */
};

struct top_frame {
	struct top_header hdr;
	struct top_row *rows;
	int nr_rows;
	struct top_drill drill;
};

void top_frame__free(struct top_frame *f);
const char *top__thp_share(const struct top_row *r, char *buf, size_t len);

#endif
