// SPDX-License-Identifier: GPL-2.0-only
/*
 * The steps of 'memadvise calibrate': runs the example workloads on this
 * machine, derives latency per cache level, cache-size knees, L1d
 * associativity, TLB-miss penalty, bandwidth, false-sharing and atomic
 * costs, and compares them with the paper's numbers. All numbers are
 * wall-clock timings of real runs (tier "software"); cycles are estimated
 * from a measured clock.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "machine/calibrate_run.h"
#include "base/json.h"
#include "base/log.h"
#include "base/util.h"

#define MAX_POINTS CAL_MAX_POINTS /* points of one latency sweep */

static void progress(struct cal *c, const char *what)
{
	c->step++;
	if (log__verbosity() < LOG_INFO)
		return;
	if (c->tty)
		fprintf(stderr, "\r\033[Kcalibrate: [%d/%d] %s", c->step, c->nsteps, what);
	else
		fprintf(stderr, "calibrate: [%d/%d] %s\n", c->step, c->nsteps, what);
}

static void note(struct cal *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct cal *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_array_add(c->notes, json_str(buf));
}

/* Runs one example; on failure records a note and returns -errno. */
static int run_flags(struct cal *c, const char *prog, const char *const *args, unsigned flags,
		     struct calib_run *r)
{
	int err = calib__run(c->dir, prog, args, flags, r);

	if (r->rt_failed && !c->rt_noted) {
		note(c, "SCHED_FIFO refused: the workloads share the CPUs with other tasks");
		c->rt_noted = true;
	}
	if (err || !r->nr) {
		char key[64];

		c->failed++;
		/* Say it once per program, not once per round. */
		snprintf(key, sizeof(key), " %s ", prog);
		if (!strstr(c->failed_progs, key) &&
		    strlen(c->failed_progs) + strlen(key) < sizeof(c->failed_progs)) {
			strcat(c->failed_progs, key);
			if (c->tty)
				fputc('\n', stderr);
			pr_warn("example '%s' failed (%s%d%s)", prog,
				r->status == 127 ? "not found or not executable, exit " : "exit ",
				r->status, r->nr ? "" : ", no result line");
			note(c, "example '%s' failed (exit %d); its numbers are missing", prog, r->status);
		}
		calib_run__free(r);
		return err ? err : -EIO;
	}
	return 0;
}

static int run(struct cal *c, const char *prog, const char *const *args, struct calib_run *r)
{
	return run_flags(c, prog, args, c->realtime ? CALIB_RT : 0, r);
}

/* Median over rounds of one numeric key of the first result line of each run. */
struct series {
	double v[32];
	int n;
	char checksum[64];
	bool checksum_differs;
};

static void series_add(struct series *s, const struct calib_run *r, const char *key)
{
	double x = calib_rec__num(&r->recs[0], key);

	if (!isnan(x) && s->n < 32)
		s->v[s->n++] = x;
	if (!s->checksum[0])
		snprintf(s->checksum, sizeof(s->checksum), "%s", r->checksum);
	else if (strcmp(s->checksum, r->checksum))
		s->checksum_differs = true;
}

static double series_median(struct series *s, double *min, double *max)
{
	double m = calib__median(s->v, s->n); /* sorts */

	if (min)
		*min = s->n ? s->v[0] : NAN;
	if (max)
		*max = s->n ? s->v[s->n - 1] : NAN;
	return m;
}

static struct json_object *jd(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static struct json_object *series_json(struct series *s)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	double mn, mx, med = series_median(s, &mn, &mx);

	json_object_object_add(o, "median", jd(med));
	json_object_object_add(o, "min", jd(mn));
	json_object_object_add(o, "max", jd(mx));
	for (int i = 0; i < s->n; i++)
		json_object_array_add(a, json_object_new_double(s->v[i]));
	json_object_object_add(o, "runs", a);
	return o;
}

static void check(struct cal *c, const char *id, const char *claim, const char *paper,
		  const char *here, double value, int holds, const char *criterion)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_str(id));
	json_object_object_add(o, "claim", json_str(claim));
	json_object_object_add(o, "paper", json_str(paper));
	json_object_object_add(o, "here", json_str(here));
	json_object_object_add(o, "value", jd(value));
	/* holds: 1 yes, 0 no, -1 not measured */
	json_object_object_add(o, "holds", holds < 0 ? NULL : json_object_new_boolean(holds));
	json_object_object_add(o, "criterion", json_str(criterion));
	json_object_array_add(c->checks, o);
}

const char *calib__fmt_size(uint64_t b, char *buf, size_t len)
{
	if (!b)
		return "-";
	return fmt_bytes((double)b, buf, len);
}

/* ---- steps ------------------------------------------------------------------ */

static void step_clock(struct cal *c)
{
	double meas, nominal = calib__cpuinfo_ghz(), maxf = NAN;
	uint64_t khz;

	progress(c, "clock estimate");
	if (!read_u64_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", &khz) && khz)
		maxf = (double)khz / 1e6;
	meas = calib__clock_ghz();
	if (!isnan(meas) && meas > 0.2 && meas < 10) {
		c->mp.ghz = meas;
		snprintf(c->mp.ghz_source, sizeof(c->mp.ghz_source),
			 "dependent-add loop (no PMU); cpuinfo says %.3f GHz", nominal);
	} else if (!isnan(maxf)) {
		c->mp.ghz = maxf;
		snprintf(c->mp.ghz_source, sizeof(c->mp.ghz_source),
			 "cpufreq cpuinfo_max_freq (nominal, not measured)");
	} else if (!isnan(nominal)) {
		c->mp.ghz = nominal;
		snprintf(c->mp.ghz_source, sizeof(c->mp.ghz_source),
			 "/proc/cpuinfo 'cpu MHz' (nominal, not measured)");
	} else {
		snprintf(c->mp.ghz_source, sizeof(c->mp.ghz_source), "unknown: no cycles reported");
	}
	json_object_object_add(c->out, "clock_ghz_measured", jd(meas));
	json_object_object_add(c->out, "clock_ghz_cpuinfo", jd(nominal));
	json_object_object_add(c->out, "clock_ghz_cpufreq_max", jd(maxf));
}

static void set_level(struct cal *c, enum mp_level_id id, double lo, double hi)
{
	struct mp_level *l = &c->mp.level[id];
	double mn = INFINITY, mx = 0, mid = 0, centre = log2(sqrt(lo * hi));

	l->latency_ns = calib__plateau(c->best, c->nlat, lo, hi);
	l->median_ns = calib__plateau(c->lat, c->nlat, lo, hi);
	if (isnan(l->latency_ns))
		return;
	for (int i = 0; i < c->nlat; i++) {
		if (c->lat[i].x <= lo || c->lat[i].x > hi)
			continue;
		mn = fmin(mn, c->lat[i].min);
		mx = fmax(mx, c->lat[i].max);
		if (!mid || fabs(log2(c->lat[i].x) - centre) < fabs(log2(mid) - centre))
			mid = c->lat[i].x;
	}
	l->spread_ns = mx - mn;
	l->at_ws = (uint64_t)mid;
	if (!isnan(c->mp.ghz))
		l->latency_cycles = l->latency_ns * c->mp.ghz;
}

static void step_latency(struct cal *c)
{
	const char *args[] = { "--order", "random", "--npad", "7", "--sweep",
			       c->quick ? "1K:8M" : "1K:256M", "--fine", "--reps", "5",
			       "--budget", c->quick ? "2" : "6", NULL };
	struct json_object *curve;
	double meds[MAX_POINTS][32];
	int nmed[MAX_POINTS] = { 0 };
	struct calib_run r;

	progress(c, "latency sweep (random walk, 64-byte elements)");
	/*
	 * The whole sweep runs once per round, so a busy phase of whatever shares
	 * the core (another guest on the SMT sibling) spoils one round, not all:
	 * per working set the best repetition of all rounds is kept.
	 */
	/* --quick sweeps less far, and so can afford two more rounds. */
	for (int k = 0; k < c->rounds + (c->quick ? 2 : 0); k++) {
		if (run(c, "list_walk", args, &r))
			return;
		if (k == 0)
			c->nlat = r.nr < MAX_POINTS ? r.nr : MAX_POINTS;
		for (int i = 0; i < c->nlat && i < r.nr; i++) {
			struct calib_point *p = &c->lat[i], *b = &c->best[i];
			double x = calib_rec__num(&r.recs[i], "ws"), med = calib_rec__num(&r.recs[i], "ns_per_elem");
			double mn = calib_rec__num(&r.recs[i], "min"), mx = calib_rec__num(&r.recs[i], "max");

			if (k == 0) {
				*p = (struct calib_point){ x, med, mn, mx };
				*b = (struct calib_point){ x, mn, mn, mn };
			}
			p->min = fmin(p->min, mn);
			p->max = fmax(p->max, mx);
			b->med = b->min = b->max = p->min;
			if (nmed[i] < 32)
				meds[i][nmed[i]++] = med;
		}
		calib_run__free(&r);
	}
	curve = json_object_new_array();
	for (int i = 0; i < c->nlat; i++) {
		struct calib_point *p = &c->lat[i];
		struct json_object *o = json_object_new_object();

		p->med = calib__median(meds[i], nmed[i]);
		json_object_object_add(o, "ws", json_object_new_int64((int64_t)p->x));
		json_object_object_add(o, "ns", jd(p->med));
		json_object_object_add(o, "min", jd(p->min));
		json_object_object_add(o, "max", jd(p->max));
		json_object_array_add(curve, o);
	}
	json_object_object_add(c->out, "latency_curve", curve);

	/*
	 * Knees, on the best of the repetitions: the L1d size lies between the last
	 * point at the small-size plateau and the first above 1.5x it, and so on.
	 */
	struct calib_point *p = c->best;
	int n = c->nlat, from = 0;
	double base1 = calib__plateau(p, n, 1024, 4096);

	while (from < n && p[from].x <= 4096)
		from++;
	int i1 = calib__first_above(p, n, from, base1, 1.5);
	if (i1 <= 0) {
		note(c, "no L1d knee in the latency curve");
		return;
	}
	/* The size lies between the last point at the plateau and the first above it. */
	double l1 = sqrt(p[i1 - 1].x * p[i1].x);
	c->mp.level[MP_L1D].detected_size = (uint64_t)l1;
	set_level(c, MP_L1D, 1024, 4096 > l1 / 2 ? 4096 : l1 / 2);

	double base2 = calib__plateau(p, n, 2 * l1, 8 * l1);
	for (from = i1; from < n && p[from].x <= 2 * l1; from++)
		;
	int i2 = calib__first_above(p, n, from, base2, 2.0);
	if (i2 <= 0) {
		note(c, "no L2 knee in the latency curve up to %.0f bytes", p[n - 1].x);
		return;
	}
	double l2 = sqrt(p[i2 - 1].x * p[i2].x);
	c->mp.level[MP_L2].detected_size = (uint64_t)l2;
	set_level(c, MP_L2, 2 * l1, 8 * l1 < l2 ? 8 * l1 : l2);

	double base3 = calib__plateau(p, n, 2 * l2, 8 * l2);
	for (from = i2; from < n && p[from].x <= 8 * l2; from++)
		;
	int i3 = calib__first_above(p, n, from, base3, 1.6);
	if (i3 > 0) {
		c->mp.level[MP_L3].detected_size = (uint64_t)sqrt(p[i3 - 1].x * p[i3].x);
		set_level(c, MP_L3, 2 * l2, 8 * l2);
	} else if (c->mp.level[MP_L3].sysfs_size) {
		note(c, "no knee between L2 and memory: the L3 (%llu KiB in sysfs) is not separable "
			"from DRAM in this curve",
		     (unsigned long long)c->mp.level[MP_L3].sysfs_size >> 10);
	}
	/* Memory: the largest working sets (these include TLB misses with 4 KiB pages). */
	if (p[n - 1].x >= 4 * l2)
		set_level(c, MP_DRAM, p[n - 1].x / 4.1, p[n - 1].x);
}

static void step_walk(struct cal *c)
{
	const char *seq[] = { "--order", "seq", "--npad", "0", "--ws", "64M", "--reps", "3",
			      "--budget", c->quick ? "10" : "25", NULL };
	const char *rnd[] = { "--order", "random", "--npad", "0", "--ws", "64M", "--reps", "3",
			      "--budget", c->quick ? "10" : "25", NULL };
	struct series s = { 0 }, q = { 0 };
	struct json_object *o = json_object_new_object();
	struct calib_run r;

	progress(c, "sequential vs random walk at 64 MiB");
	for (int k = 0; k < c->rounds; k++) {
		if (!run(c, "list_walk", seq, &r)) {
			series_add(&s, &r, "min");
			calib_run__free(&r);
		}
		if (!run(c, "list_walk", rnd, &r)) {
			series_add(&q, &r, "min");
			calib_run__free(&r);
		}
	}
	c->mp.walk_ws = 64u << 20;
	/* Best of all repetitions of all rounds: interference only adds time. */
	series_median(&s, &c->mp.seq_ns, NULL);
	series_median(&q, &c->mp.rand_ns, NULL);
	json_object_object_add(o, "ws", json_object_new_int64(64 << 20));
	json_object_object_add(o, "npad", json_object_new_int(0));
	json_object_object_add(o, "seq_best_ns", series_json(&s));
	json_object_object_add(o, "random_best_ns", series_json(&q));
	json_object_object_add(o, "ratio", jd(c->mp.rand_ns / c->mp.seq_ns));
	json_object_object_add(c->out, "walk", o);
}

static void step_assoc(struct cal *c)
{
	char sweep[16];
	const char *args[] = { "--stride", "4096", "--sweep", sweep, "--reps", "3", "--steps",
			       c->quick ? "300000" : "1000000", NULL };
	struct calib_point p[MAX_POINTS];
	struct json_object *a;
	struct calib_run r;
	int n = 0, ways = c->mp.l1d_ways_sysfs;

	snprintf(sweep, sizeof(sweep), "%d", ways > 12 ? 2 * ways : 24);
	progress(c, "L1d associativity (4096-byte stride)");
	if (run(c, "assoc_conflict", args, &r))
		return;
	a = json_object_new_array();
	for (int i = 0; i < r.nr && n < MAX_POINTS; i++, n++) {
		struct json_object *o = json_object_new_object();

		p[n].x = calib_rec__num(&r.recs[i], "count");
		p[n].med = calib_rec__num(&r.recs[i], "ns_per_elem");
		json_object_object_add(o, "count", json_object_new_int((int)p[n].x));
		json_object_object_add(o, "ns", jd(p[n].med));
		json_object_array_add(a, o);
	}
	calib_run__free(&r);
	json_object_object_add(c->out, "assoc", a);
	double base = calib__plateau(p, n, 0, 4);
	int k = calib__first_above(p, n, 4, base, 1.5);
	if (k > 0)
		c->mp.l1d_ways = (int)p[k - 1].x;
	else
		note(c, "no associativity knee up to %s elements 4096 bytes apart", sweep);
}

static void step_tlb(struct cal *c)
{
	const char *range = c->quick ? "4:8192" : "4:16384";
	const char *page[] = { "--layout", "page", "--sweep", range, "--reps", "3", "--steps",
			       c->quick ? "300000" : "1000000", NULL };
	const char *packed[] = { "--layout", "packed", "--sweep", range, "--reps", "3", "--steps",
				 c->quick ? "300000" : "1000000", NULL };
	struct calib_point pg[32], pk[32];
	struct json_object *a;
	struct calib_run r;
	int n = 0, m = 0;

	progress(c, "TLB (one entry per page vs packed)");
	if (run(c, "tlb", page, &r))
		return;
	for (int i = 0; i < r.nr && n < 32; i++, n++) {
		pg[n].x = calib_rec__num(&r.recs[i], "pages");
		pg[n].med = calib_rec__num(&r.recs[i], "ns_per_access");
	}
	calib_run__free(&r);
	if (run(c, "tlb", packed, &r))
		return;
	for (int i = 0; i < r.nr && m < 32; i++, m++) {
		pk[m].x = calib_rec__num(&r.recs[i], "pages");
		pk[m].med = calib_rec__num(&r.recs[i], "ns_per_access");
	}
	calib_run__free(&r);
	if (n != m || n < 4) {
		note(c, "TLB sweeps differ in length; no TLB numbers");
		return;
	}
	a = json_object_new_array();
	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "entries", json_object_new_int((int)pg[i].x));
		json_object_object_add(o, "page_ns", jd(pg[i].med));
		json_object_object_add(o, "packed_ns", jd(pk[i].med));
		json_object_array_add(a, o);
	}
	json_object_object_add(c->out, "tlb", a);
	double base = calib__plateau(pg, n, 0, 16);
	int k = calib__first_above(pg, n, 3, base, 1.3);
	if (k > 0)
		c->mp.dtlb_entries = (int)pg[k - 1].x;
	double dmax = pg[n - 1].med - pk[n - 1].med;
	c->mp.tlb_miss_ns = dmax > 0 ? dmax : NAN;
	for (int i = 0; dmax > 0 && k > 0 && i < n; i++)
		if (pg[i].x >= 4 * c->mp.dtlb_entries && pg[i].med - pk[i].med >= 0.5 * dmax) {
			c->mp.stlb_entries = (int)pg[i - 1].x;
			break;
		}
}

static double one_num(struct cal *c, const char *prog, const char *const *args, const char *key)
{
	struct calib_run r;
	double v;

	if (run(c, prog, args, &r))
		return NAN;
	v = calib_rec__num(&r.recs[0], key);
	calib_run__free(&r);
	return v;
}

static void step_bandwidth(struct cal *c)
{
	const char *size = c->quick ? "64M" : "256M", *passes = c->quick ? "2" : "3";
	const char *modes[4][8] = {
		{ "--mode", "read", "--size", size, "--passes", passes, NULL },
		{ "--mode", "write", "--size", size, "--passes", passes, NULL },
		{ "--mode", "copy", "--size", size, "--passes", passes, NULL },
		{ "--mode", "write", "--nt", "--size", size, "--passes", passes, NULL },
	};
	static const char *names[] = { "read", "write", "copy", "nt_write" };
	struct series s[4] = { 0 };
	struct json_object *o = json_object_new_object();

	progress(c, "sequential bandwidth");
	for (int k = 0; k < c->rounds; k++)
		for (int m = 0; m < 4; m++) {
			double v = one_num(c, "bandwidth", modes[m], "gb_per_s");

			if (!isnan(v) && s[m].n < 32)
				s[m].v[s[m].n++] = v;
		}
	c->mp.bw_read_gbs = series_median(&s[0], NULL, NULL);
	c->mp.bw_write_gbs = series_median(&s[1], NULL, NULL);
	c->mp.bw_copy_gbs = series_median(&s[2], NULL, NULL);
	c->mp.bw_nt_write_gbs = series_median(&s[3], NULL, NULL);
	json_object_object_add(o, "size", json_str(size));
	for (int m = 0; m < 4; m++)
		json_object_object_add(o, names[m], series_json(&s[m]));
	json_object_object_add(c->out, "bandwidth_gb_per_s", o);
}

/* Both threads ran on CPUs of their own, at the same time, for most of the run. */
static bool concurrent(const struct calib_run *r)
{
	double overlap = calib_rec__num(&r->recs[0], "overlap");
	double cpus = calib_rec__num(&r->recs[0], "cpus");

	return overlap >= 0.75 && cpus >= 2;
}

/*
 * Shared vs padded counters, in pairs. A pair counts only when both runs
 * were concurrent: in a guest whose virtual CPUs the host does not run at
 * once, or a cgroup that allows one CPU, the threads take turns, the line
 * never moves, and the ratio would look like "no penalty" when nothing was
 * measured. Such pairs are retried (at most 3x the rounds) and counted.
 */
static void step_false_sharing(struct cal *c)
{
	const char *iters = c->quick ? "1000000" : "5000000";
	const char *bad[] = { "--threads", "2", "--layout", "shared", "--iters", iters, NULL };
	const char *good[] = { "--threads", "2", "--layout", "padded", "--iters", iters, NULL };
	const char *ping[] = { "--threads", "2", "--op", "pingpong", "--iters",
			       c->quick ? "100000" : "500000", NULL };
	struct series s = { 0 }, g = { 0 }, h = { 0 };
	struct json_object *o = json_object_new_object();
	struct calib_run r, rg;
	int allowed = sysinfo__nr_allowed_cpus(), apart = 0, tries = 0;
	uint64_t steal0 = 0, steal1 = 0, t0 = now_ns();
	bool have_steal = !sysinfo__steal_ns(&steal0);
	double min_overlap = 1, handoff_min;

	progress(c, "false sharing (2 threads)");
	for (; allowed >= 2 && s.n < c->rounds && tries < 3 * c->rounds; tries++) {
		if (run(c, "false_sharing", bad, &r))
			break;
		if (run(c, "false_sharing", good, &rg)) {
			calib_run__free(&r);
			break;
		}
		min_overlap = fmin(min_overlap, calib_rec__num(&r.recs[0], "overlap"));
		if (concurrent(&r) && concurrent(&rg)) {
			series_add(&s, &r, "ns_per_inc");
			series_add(&g, &rg, "ns_per_inc");
		} else {
			apart++;
		}
		calib_run__free(&r);
		calib_run__free(&rg);
		if (!run(c, "false_sharing", ping, &r)) {
			if (concurrent(&r))
				series_add(&h, &r, "ns_per_inc");
			calib_run__free(&r);
		}
	}
	have_steal = have_steal && !sysinfo__steal_ns(&steal1);
	c->mp.false_sharing_ns = series_median(&s, NULL, NULL);
	c->mp.no_sharing_ns = series_median(&g, NULL, NULL);
	/* A hand-off is only ever slowed down by interference: the best run. */
	series_median(&h, &handoff_min, NULL);
	c->mp.line_handoff_ns = handoff_min;
	json_object_object_add(o, "threads", json_object_new_int(2));
	json_object_object_add(o, "shared_ns_per_inc", series_json(&s));
	json_object_object_add(o, "padded_ns_per_inc", series_json(&g));
	json_object_object_add(o, "ratio", jd(c->mp.false_sharing_ns / c->mp.no_sharing_ns));
	json_object_object_add(o, "line_handoff_ns", jd(c->mp.line_handoff_ns));
	json_object_object_add(o, "pairs_not_concurrent", json_object_new_int(apart));
	json_object_object_add(o, "allowed_cpus", json_object_new_int(allowed));
	if (have_steal) {
		double wall = (double)(now_ns() - t0) * sysinfo__nr_cpus();

		c->fs_steal_pct = wall > 0 ? 100.0 * (double)(steal1 - steal0) / wall : NAN;
		json_object_object_add(o, "steal_pct", jd(c->fs_steal_pct));
	}
	json_object_object_add(c->out, "false_sharing", o);
	if (allowed < 2)
		note(c, "%d CPU allowed to this process: the false-sharing threads take turns on it, "
			"no line ping-pong", allowed);
	else if (apart)
		note(c, "false sharing: %d of %d pairs of runs were not concurrent (a thread's overlap "
			"down to %.0f%%): the host did not run both virtual CPUs at once; %s",
		     apart, tries, 100 * fmax(min_overlap, 0),
		     s.n ? "only concurrent pairs are used" : "the penalty was not measured");
}

static void step_atomics(struct cal *c)
{
	static const char *ops[] = { "add", "fetch-add", "cas", "local" };
	const char *iters = c->quick ? "500000" : "2000000";
	struct series s[4] = { 0 };
	struct json_object *o = json_object_new_object();
	struct calib_run r;

	progress(c, "atomic increments (2 threads)");
	for (int k = 0; k < c->rounds; k++)
		for (int m = 0; m < 4; m++) {
			const char *args[] = { "--op", ops[m], "--threads", "2", "--iters", iters, NULL };

			if (!run(c, "atomic_inc", args, &r)) {
				series_add(&s[m], &r, "ns_per_inc");
				calib_run__free(&r);
			}
		}
	c->mp.atomic_add_ns = series_median(&s[0], NULL, NULL);
	c->mp.atomic_fetch_add_ns = series_median(&s[1], NULL, NULL);
	c->mp.atomic_cas_ns = series_median(&s[2], NULL, NULL);
	c->mp.atomic_local_ns = series_median(&s[3], NULL, NULL);
	for (int m = 0; m < 4; m++)
		json_object_object_add(o, ops[m], series_json(&s[m]));
	json_object_object_add(c->out, "atomics_ns_per_inc", o);
}

static void step_matmul(struct cal *c, const char *svg_path)
{
	static const char *vars[] = { "naive", "transposed", "tiled", "vector" };
	const char *size = "1000"; /* the paper's N; N = 512 would add 4 KiB-stride set conflicts */
	struct series s[4] = { 0 };
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct calib_run r;
	double med[4];
	bool differs = false;

	progress(c, "matrix multiply, 4 variants, N=1000");
	for (int k = 0; k < (c->quick && c->rounds > 2 ? 2 : c->rounds); k++)
		for (int m = 0; m < 4; m++) {
			const char *args[] = { "--variant", vars[m], "--size", size, NULL };

			if (!run(c, "matmul", args, &r)) {
				series_add(&s[m], &r, "ns");
				calib_run__free(&r);
			}
		}
	for (int m = 0; m < 4; m++) {
		series_median(&s[m], &med[m], NULL); /* best of the rounds */
		if (s[m].checksum_differs || strcmp(s[m].checksum, s[0].checksum))
			differs = true;
	}
	json_object_object_add(o, "n", json_object_new_int(atoi(size)));
	for (int m = 0; m < 4; m++) {
		struct json_object *e = series_json(&s[m]);

		c->mm_rel[m] = 100 * med[m] / med[0];
		json_object_object_add(e, "variant", json_str(vars[m]));
		json_object_object_add(e, "best_ns", jd(med[m]));
		json_object_object_add(e, "relative_pct", jd(c->mm_rel[m]));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "variants", a);
	json_object_object_add(o, "checksums_agree", json_object_new_boolean(!differs));
	json_object_object_add(c->out, "matmul", o);
	if (differs)
		note(c, "matmul variants printed different checksums");
	if (svg_path) {
		static const double paper[] = { 100, 23.4, 17.3, 9.47 };
		int err = calib__svg_bars(svg_path, "Matrix multiply, % of the naive time (Table 6.2)",
					  vars, paper, c->mm_rel, 4, "%");

		if (err)
			pr_warn("cannot write '%s': %s", svg_path, strerror(-err));
	}
}

static void step_matrix_init(struct cal *c, double out[4])
{
	static const char *combos[4][2] = { { "row", "normal" }, { "col", "normal" },
					    { "row", "nt" },	 { "col", "nt" } };
	static const char *names[] = { "row_normal", "col_normal", "row_nt", "col_nt" };
	struct json_object *o = json_object_new_object();

	progress(c, "matrix initialisation, row/column, normal/non-temporal");
	for (int m = 0; m < 4; m++) {
		const char *args[] = { "--order", combos[m][0], "--store", combos[m][1], "--size",
				       c->quick ? "1500" : "3000", "--reps", "3", NULL };

		out[m] = one_num(c, "matrix_init", args, "ns");
		json_object_object_add(o, names[m], jd(out[m]));
	}
	json_object_object_add(c->out, "matrix_init_ns", o);
}

static double step_huge(struct cal *c)
{
	const char *ws = c->quick ? "64M" : "512M";
	const char *off[] = { "--thp", "off", "--ws", ws, "--steps", "2000000", NULL };
	const char *on[] = { "--thp", "on", "--ws", ws, "--steps", "2000000", NULL };
	struct json_object *o = json_object_new_object();
	struct calib_run r;
	double t_off = NAN, t_on = NAN, huge_kb = NAN;

	progress(c, c->quick ? "huge pages, random walk over 64 MiB"
			     : "huge pages, random walk over 512 MiB");
	t_off = one_num(c, "huge_pages", off, "ns_per_elem");
	if (!run(c, "huge_pages", on, &r)) {
		t_on = calib_rec__num(&r.recs[0], "ns_per_elem");
		huge_kb = calib_rec__num(&r.recs[0], "anon_huge_kb");
		calib_run__free(&r);
	}
	json_object_object_add(o, "ws", json_str(ws));
	json_object_object_add(o, "ns_4k", jd(t_off));
	json_object_object_add(o, "ns_thp", jd(t_on));
	json_object_object_add(o, "anon_huge_kb", jd(huge_kb));
	json_object_object_add(c->out, "huge_pages", o);
	if (huge_kb == 0) {
		char mode[32] = "?";

		sysinfo__thp_mode(mode, sizeof(mode));
		note(c, "MADV_HUGEPAGE got no huge pages (THP mode '%s')", mode);
		return NAN;
	}
	return 100 * (t_off - t_on) / t_off;
}

static void step_faults(struct cal *c)
{
	const char *batches = c->quick ? "20" : "100";
	const char *fresh[] = { "--buffer", "fresh", "--batches", batches, NULL };
	const char *reuse[] = { "--buffer", "reuse", "--batches", batches, NULL };
	struct calib_run a, b;

	progress(c, "page faults (fresh vs reused buffer)");
	if (run(c, "page_faults", fresh, &a))
		return;
	if (run(c, "page_faults", reuse, &b)) {
		calib_run__free(&a);
		return;
	}
	double dn = calib_rec__num(&a.recs[0], "ns") - calib_rec__num(&b.recs[0], "ns");
	double df = calib_rec__num(&a.recs[0], "minor_faults") -
		    calib_rec__num(&b.recs[0], "minor_faults");
	if (df > 0 && dn > 0)
		c->mp.page_fault_ns = dn / df;
	calib_run__free(&a);
	calib_run__free(&b);
}

/* ---- report ----------------------------------------------------------------- */

static void checks_all(struct cal *c, const double init[4], double huge_pct)
{
	struct machine_profile *mp = &c->mp;
	char here[64];
	double v;
	int holds;

	v = c->mm_rel[1];
	snprintf(here, sizeof(here), "%.1f%%", v);
	check(c, "matmul-transposed", "transposed matmul takes a fraction of the naive time", "23.4%",
	      here, v, isnan(v) ? -1 : v <= 50, "<= 50% of naive at N=1000");
	snprintf(here, sizeof(here), "100/%.0f/%.0f/%.0f%%", c->mm_rel[1], c->mm_rel[2], c->mm_rel[3]);
	check(c, "matmul-order", "naive > transposed > tiled > vectorised", "100/23/17/9.5%", here,
	      NAN, isnan(c->mm_rel[3]) ? -1 : 100 > c->mm_rel[1] && c->mm_rel[1] > c->mm_rel[2],
	      "naive > transposed > tiled (vector shown)");
	v = mp->rand_ns / mp->seq_ns;
	snprintf(here, sizeof(here), "%.0fx (%.1f/%.1f ns)", v, mp->rand_ns, mp->seq_ns);
	check(c, "walk-random-vs-seq", "random walk beyond the caches costs far more than sequential",
	      "~50x (450/9 cyc)", here, v, isnan(v) ? -1 : v >= 5, ">= 5x at 64 MiB, NPAD=0");
	v = mp->level[MP_L1D].latency_cycles;
	snprintf(here, sizeof(here), "%.1f cyc (%.2f ns)", v, mp->level[MP_L1D].latency_ns);
	check(c, "l1d-latency", "L1d pointer chase costs 3-4 cycles", "3-4 cyc", here, v,
	      isnan(v) ? -1 : v >= 2 && v <= 6, "2..6 estimated cycles");
	for (int lv = MP_L1D; lv <= MP_L2; lv++) {
		const struct mp_level *l = &mp->level[lv];
		char paper[32], b1[32], b2[32];
		double ratio = (double)l->detected_size / (double)l->sysfs_size;

		snprintf(paper, sizeof(paper), "sysfs %s", calib__fmt_size(l->sysfs_size, b1, sizeof(b1)));
		snprintf(here, sizeof(here), "%s", calib__fmt_size(l->detected_size, b2, sizeof(b2)));
		check(c, lv == MP_L1D ? "l1d-size" : "l2-size",
		      lv == MP_L1D ? "latency knee at the L1d size" : "latency knee at the L2 size", paper,
		      here, (double)l->detected_size,
		      !l->detected_size || !l->sysfs_size ? -1 : ratio >= 0.5 && ratio <= 2,
		      "within a factor 2 of sysfs");
	}
	snprintf(here, sizeof(here), "%d (sysfs %d)", mp->l1d_ways, mp->l1d_ways_sysfs);
	check(c, "l1d-assoc", "4096-byte stride knee = L1d associativity", "8 (knee > 8)", here,
	      mp->l1d_ways ? mp->l1d_ways : NAN,
	      !mp->l1d_ways || !mp->l1d_ways_sysfs ? -1 : mp->l1d_ways == mp->l1d_ways_sysfs,
	      "equals sysfs ways_of_associativity");
	snprintf(here, sizeof(here), "%d / %d entries", mp->dtlb_entries, mp->stlb_entries);
	check(c, "tlb-knee", "one element per page shows a knee at the DTLB size", "64 entries", here,
	      mp->dtlb_entries ? mp->dtlb_entries : NAN, mp->dtlb_entries ? 1 : 0,
	      "a knee exists (sizes differ by CPU)");
	snprintf(here, sizeof(here), "%.0f%% faster%s", huge_pct, c->quick ? " (64 MiB)" : "");
	check(c, "huge-pages", "huge pages speed up the random walk over 512 MiB", "38% faster", here,
	      huge_pct, isnan(huge_pct) || c->quick ? -1 : huge_pct >= 10,
	      ">= 10% faster at 512 MiB (not judged with --quick)");
	v = mp->false_sharing_ns / mp->no_sharing_ns;
	if (isnan(v))
		snprintf(here, sizeof(here), "not measured");
	else if (isnan(mp->line_handoff_ns))
		snprintf(here, sizeof(here), "%.1fx", v);
	else
		snprintf(here, sizeof(here), "%.1fx (hand-off %.0f ns)", v, mp->line_handoff_ns);
	/*
	 * Not judged when the threads never ran at once (NAN), or when the host
	 * took more than a tenth of the CPUs' time meanwhile: the line then moves
	 * less often than the program asks, and a low ratio measures the host.
	 */
	holds = isnan(v) ? -1 : v >= 1.5 ? 1 : c->fs_steal_pct > 10 ? -1 : 0;
	if (!isnan(v) && holds < 0)
		note(c, "false sharing not judged: the host took %.0f%% of the CPUs' time (steal) "
			"during the runs", c->fs_steal_pct);
	check(c, "false-sharing", "one shared line vs one line per thread, 2 threads", "3.9x (390%)",
	      here, v, holds, ">= 1.5x when both threads run at once");
	v = mp->atomic_cas_ns / mp->atomic_fetch_add_ns;
	snprintf(here, sizeof(here), "%.1fx", v);
	check(c, "cas-vs-fetch-add", "CAS loop costs more than fetch-add", "3.5x (4 thr)", here, v,
	      isnan(v) ? -1 : v >= 1.5, ">= 1.5x with 2 threads");
	v = init[1] / init[0];
	snprintf(here, sizeof(here), "%.1fx", v);
	check(c, "init-col-vs-row", "column-wise init is slower than row-wise", "2.6x", here, v,
	      isnan(v) ? -1 : v >= 2, ">= 2x");
	v = init[2] / init[0];
	snprintf(here, sizeof(here), "%.2fx", v);
	check(c, "init-nt-row", "non-temporal row-wise init as fast as normal", "1.0x", here, v,
	      isnan(v) ? -1 : v <= 1.2, "<= 1.2x of normal");
	v = init[3] / init[1];
	snprintf(here, sizeof(here), "%.2fx", v);
	check(c, "init-nt-col", "non-temporal column-wise init is worse than normal", "1.26x", here, v,
	      isnan(v) ? -1 : v > 1, "> 1x of normal");
}


/* ---- session ---------------------------------------------------------------- */

struct cal *cal__new(void)
{
	struct cal *c = xcalloc(1, sizeof(*c));

	c->rounds = 3;
	c->realtime = true;
	c->fs_steal_pct = NAN;
	return c;
}

void cal__delete(struct cal *c)
{
	if (!c)
		return;
	json_object_put(c->out);
	json_object_put(c->checks);
	json_object_put(c->notes);
	free(c);
}

void cal__prepare(struct cal *c)
{
	machine_profile__init(&c->mp);
	c->tty = isatty(STDERR_FILENO);
	c->nsteps = 12;
	c->out = json_object_new_object();
	c->checks = json_object_new_array();
	c->notes = json_object_new_array();
	c->mp.quick = c->quick;
	c->mp.nr_cpus = sysinfo__nr_cpus();
	c->mp.hypervisor = sysinfo__hypervisor() > 0;
	{
		char vendor[32] = "", name[128] = "";
		int family = 0, model = 0;
		time_t now = time(NULL);
		struct tm tm;

		sysinfo__cpu(vendor, sizeof(vendor), &family, &model, name, sizeof(name));
		snprintf(c->mp.cpu_model, sizeof(c->mp.cpu_model), "%s", name[0] ? name : vendor);
		gmtime_r(&now, &tm);
		strftime(c->mp.created, sizeof(c->mp.created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	c->ncaches = sysinfo__caches(c->caches, 8);
	for (int lv = 1; lv <= 3 && c->ncaches > 0; lv++) {
		const struct cache_level *cl = sysinfo__cache(c->caches, c->ncaches, lv);

		if (cl) {
			c->mp.level[lv - 1].sysfs_size = cl->size;
			if (lv == 1)
				c->mp.l1d_ways_sysfs = cl->ways;
		}
	}
	if (c->mp.hypervisor)
		note(c, "virtual machine: other guests share the caches and memory; timings are noisy");
}

void cal__measure(struct cal *c, const char *matmul_svg)
{
	double init[4] = { NAN, NAN, NAN, NAN }, huge_pct;

	step_clock(c);
	step_latency(c);
	step_walk(c);
	step_assoc(c);
	step_tlb(c);
	step_bandwidth(c);
	step_false_sharing(c);
	step_atomics(c);
	step_matmul(c, matmul_svg);
	step_matrix_init(c, init);
	huge_pct = step_huge(c);
	step_faults(c);
	if (c->tty && log__verbosity() >= LOG_INFO)
		fprintf(stderr, "\r\033[K");
	checks_all(c, init, huge_pct);
}
