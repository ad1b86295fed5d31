/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measurements of 'memadvise calibrate': one session runs the example
 * workloads step by step, fills a machine profile, keeps the details and the
 * checks against the paper's numbers as JSON, and draws the charts.  The
 * command parses the options, chooses the paths and prints the result.
 */
#ifndef __MA_CALIBRATE_RUN_H
#define __MA_CALIBRATE_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine/calibrate.h"
#include "machine/machine_profile.h"
#include "machine/sysinfo.h"

#define CAL_MAX_POINTS 96

struct json_object;

struct cal {
	char dir[PATH_MAX];
	bool quick;
	int rounds;
	int step, nsteps;
	bool tty;
	struct machine_profile mp;
	struct cache_level caches[8];
	int ncaches;
	struct json_object *out;    /* details for -j */
	struct json_object *checks;
	struct json_object *notes;
	struct calib_point lat[CAL_MAX_POINTS];  /* as reported: median, min, max of the repetitions */
	struct calib_point best[CAL_MAX_POINTS]; /* med = min: interference only ever adds time */
	int nlat;
	bool rt_noted;
	char failed_progs[512];	    /* " name " of every example that failed */
	bool realtime;		    /* run the examples under SCHED_FIFO */
	double mm_rel[4];	    /* matmul relative to naive, % */
	double fs_steal_pct;	    /* host steal during the false-sharing step, NAN unknown */
	int failed;
};

/* A session with the defaults: 3 rounds, under SCHED_FIFO.  Never NULL. */
struct cal *cal__new(void);
void cal__delete(struct cal *c);
/*
 * Reads what sysfs and /proc say of this machine into c->mp and opens the
 * JSON details, checks and notes; c->dir, quick, rounds and realtime are set.
 */
void cal__prepare(struct cal *c);
/*
 * Runs every step (minutes; seconds with --quick), then the checks.
 * matmul_svg: the path of the matmul chart, NULL for none.
 */
void cal__measure(struct cal *c, const char *matmul_svg);
/* The latency chart (warns when it cannot be written; none below 2 points). */
void cal__write_latency_svg(const struct cal *c, const char *path);

/* A size as "32 KiB", or "-" when 0 (not measured). */
const char *calib__fmt_size(uint64_t b, char *buf, size_t len);

#endif
