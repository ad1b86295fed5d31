/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of 'memadvise calibrate': finding and running the example
 * workloads, parsing their "result key=value ..." lines, robust statistics,
 * knee detection on latency curves, a clock estimate, and SVG charts.
 */
#ifndef __MA_CALIBRATE_H
#define __MA_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CALIB_MAX_KV 16

/* One "result" line of an example: key=value pairs in order. */
struct calib_rec {
	int n;
	char key[CALIB_MAX_KV][24];
	char val[CALIB_MAX_KV][48];
};

struct calib_run {
	struct calib_rec *recs;
	int nr;
	char checksum[64]; /* "" when the program printed none */
	int status;	   /* exit status, 128+signal when killed */
	bool rt_failed;	   /* CALIB_RT was asked for but refused */
};

/* calib__run flags */
#define CALIB_RT 1 /* run under SCHED_FIFO so other tasks cannot interleave */

/*
 * The directory holding the example binaries: 'override' when given, then
 * $MEMADVISE_EXAMPLES, then ../../examples/bin next to this executable, then
 * MA_LIBEXECDIR/examples. 0 or -ENOENT.
 */
int calib__find_examples(const char *override, char *dir, size_t len);
/* Runs dir/prog with args (NULL-terminated, argv[0] excluded); 0 or -errno. */
int calib__run(const char *dir, const char *prog, const char *const *args, unsigned flags,
	       struct calib_run *out);
void calib_run__free(struct calib_run *r);
const char *calib_rec__get(const struct calib_rec *r, const char *key);
double calib_rec__num(const struct calib_rec *r, const char *key); /* NAN when absent */
/* Parses the output text of a run (exposed for tests). */
int calib__parse(const char *text, struct calib_run *out);

/* Sorts v in place; returns the median (NAN for n == 0). */
double calib__median(double *v, int n);

struct calib_point {
	double x;		/* working set (bytes) or count */
	double med, min, max;	/* ns */
};

/*
 * Index of the first point at or after 'from' whose median exceeds
 * factor * base, and so does the next point (one outlier is not a knee); -1.
 */
int calib__first_above(const struct calib_point *p, int n, int from, double base, double factor);
/* Median of the medians of the points with lo < x <= hi; NAN when none. */
double calib__plateau(const struct calib_point *p, int n, double lo, double hi);

/*
 * Core clock in GHz from chains of dependent register-register adds (one
 * cycle each on x86 cores; immediate adds are not used because recent cores
 * fold them at rename). Best of many short runs, under SCHED_FIFO when
 * allowed. NAN where this is not x86-64.
 */
double calib__clock_ghz(void);
/* "cpu MHz" of /proc/cpuinfo in GHz, NAN when absent. */
double calib__cpuinfo_ghz(void);

struct calib_mark {
	double x;
	const char *label;
};

/* Log-log line chart of p (x in bytes) with vertical marks; 0 or -errno. */
int calib__svg_latency(const char *path, const char *title, const struct calib_point *p, int n,
		       const struct calib_mark *marks, int nmarks);
/* Grouped bars: paper[i] next to here[i] (NAN: bar left out); 0 or -errno. */
int calib__svg_bars(const char *path, const char *title, const char *const *labels,
		    const double *paper, const double *here, int n, const char *unit);

#endif
