// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verdict: what bounds the run, from the tiers at hand.  The run's time
 * is split into parts and the biggest one names the bound:
 *   user code  CPU time (task_clock) less the kernel's share of the tick
 *              samples; split into memory and compute when data-address
 *              samples tell which instructions wait on scattered lines
 *   kernel     CPU time in kernel mode (system calls, page faults)
 *   locks      futex lock waits (FUTEX_WAIT on a word of 2, FUTEX_LOCK_PI: glibc's mutexes)
 *              shorter than SYSTIME_LONG_NS, from the syscall tracepoints;
 *              condition waits and joins (FUTEX_WAIT_BITSET) wait for another
 *              thread's work, which is the bound then
 *   idle       threads in short sleeps off the CPU (sched_switch) less their
 *              futex waits, or the wall time no thread ran nor waited for a
 *              CPU if more; without the tracepoints, wall less CPU time
 * All parts are thread time.  A thread parked in a long futex wait
 * (pthread_join while another computes) is in none of them, and neither is
 * time runnable but preempted: other processes' use of the CPUs is no
 * bound of the program's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/addr.h"
#include "model/sampling.h"
#include "rules/rules.h"
#include "rules/verdict.h"
#include "base/util.h"

/* Fewer address samples than this cannot split user time into memory and compute. */
#define VERDICT_MIN_ADDR_SAMPLES 50

static const struct counter *counter_of(const struct report *r, const char *name)
{
	for (int i = 0; i < r->nr_counters; i++)
		if (!strcmp(r->counters[i].name, name) && r->counters[i].counted)
			return &r->counters[i];
	return NULL;
}

/* The time-based sampling event (cpu-clock or the tick), NULL when none. */
static const struct sampling_event *time_event(const struct sampling *p)
{
	for (int i = 0; p && i < p->nr_events; i++)
		if (!strcmp(p->events[i].unit, "ns") && p->events[i].samples)
			return &p->events[i];
	return NULL;
}

static struct verdict_part *part_add(struct verdict *v, enum bound what, double s, enum tier t)
{
	struct verdict_part *x = &v->parts[v->nr_parts++];

	x->what = what;
	x->known = true;
	x->seconds = s > 0 ? s : 0;
	x->tier = t;
	return x;
}

/*
 * The share of the data-address samples at instructions that wait on
 * memory: their sampled lines are nearly all distinct (each sample a new
 * line) and the mapping they walk is larger than the last-level cache.
 * -1 when there are too few samples.
 */
static double memory_share(const struct addr_report *a, double llc, double *span_out)
{
	uint64_t mem = 0;
	double span_max = 0;

	if (!a || a->samples < VERDICT_MIN_ADDR_SAMPLES)
		return -1;
	for (int i = 0; i < a->nr_ips; i++) {
		const struct addr_ip *ip = &a->ips[i];
		double span = (double)(ip->top_region_end - ip->top_region_start);

		if (ip->decoded < 4 || ip->lines * 4 < ip->decoded * 3)
			continue;
		if (llc > 0 && span <= llc)
			continue;
		mem += ip->samples;
		if (span > span_max)
			span_max = span;
	}
	*span_out = span_max;
	return (double)mem / a->samples;
}

static void user_parts(struct verdict *v, const struct report *r, const struct factbase *fb,
		       double user)
{
	double llc = 0, span = 0, m;
	struct verdict_part *x;
	char a[32], b[32];

	factbase__get(fb, -1, "machine.llc_size", &llc, NULL);
	m = memory_share(r->addr, llc, &span);
	if (m < 0) {
		x = part_add(v, BOUND_USER, user, TIER_SOFTWARE);
		snprintf(x->evidence, sizeof(x->evidence),
			 "CPU time (task_clock) less the kernel's share of the tick samples");
		snprintf(v->missing, sizeof(v->missing), "memory and compute not told apart: %s",
			 r->addr ? "fewer than 50 data-address samples"
				 : "no data-address samples were taken");
		return;
	}
	x = part_add(v, BOUND_MEMORY, user * m, TIER_SW_ADDR);
	fmt_bytes(span, a, sizeof(a));
	fmt_bytes(llc, b, sizeof(b));
	snprintf(x->evidence, sizeof(x->evidence),
		 "%.0f%% of the data-address samples at loads and stores whose lines are all "
		 "distinct, in a mapping of up to %s (beyond the %s last-level cache)", 100 * m,
		 span > 0 ? a : "?", llc > 0 ? b : "?");
	if (m > 0)
		snprintf(v->level, sizeof(v->level), "main memory");
	x = part_add(v, BOUND_COMPUTE, user * (1 - m), TIER_SW_ADDR);
	snprintf(x->evidence, sizeof(x->evidence),
		 "the other %.0f%% of the data-address samples: no memory operand, or lines "
		 "that stay in the caches", 100 * (1 - m));
}

static void kernel_part(struct verdict *v, const struct report *r, const struct factbase *fb,
			double kernel, double ks)
{
	const struct sampling *p = r->sampling;
	struct verdict_part *x = part_add(v, BOUND_KERNEL, kernel, TIER_SOFTWARE);
	size_t off;
	double fault_ns;

	off = snprintf(x->evidence, sizeof(x->evidence),
		       "%.0f%% of the tick samples in kernel mode", 100 * ks);
	if (p && p->sys_measured && off < sizeof(x->evidence))
		off += snprintf(x->evidence + off, sizeof(x->evidence) - off,
				"; %llu system calls, %.3g s in them (tracepoints)",
				(unsigned long long)p->sys_calls, p->sys_ns / 1e9);
	if (p && p->faults_measured && off < sizeof(x->evidence)) {
		off += snprintf(x->evidence + off, sizeof(x->evidence) - off, "; %llu page faults",
				(unsigned long long)p->faults);
		if (!factbase__get(fb, -1, "machine.fault_ns", &fault_ns, NULL) &&
		    off < sizeof(x->evidence))
			snprintf(x->evidence + off, sizeof(x->evidence) - off,
				 ", ~%.3g s at the machine profile's %.0f ns each",
				 p->faults * fault_ns / 1e9, fault_ns);
	}
}

static void summarise(struct verdict *v, double total)
{
	const struct verdict_part *b = NULL;

	for (int i = 0; i < v->nr_parts; i++) {
		v->parts[i].share = total > 0 ? v->parts[i].seconds / total : 0;
		if (!b || v->parts[i].seconds > b->seconds)
			b = &v->parts[i];
	}
	v->known = b && total > 0;
	if (!v->known)
		return;
	{
		const struct verdict_part *c = NULL;
		double cpu = 0;

		for (int i = 0; i < v->nr_parts; i++) {
			const struct verdict_part *x = &v->parts[i];

			if (x->what == BOUND_LOCKS || x->what == BOUND_IDLE)
				continue;
			cpu += x->seconds;
			if (!c || x->seconds > c->seconds)
				c = x;
		}
		v->busy_bound = c && cpu > 0 ? c->what : BOUND_UNKNOWN;
		v->busy_share = c && cpu > 0 ? c->seconds / cpu : 0;
	}
	v->bound = b->what;
	v->tier = b->tier;
	/* a clear majority from counted time is firm; a split by sampled addresses less so */
	if (b->tier == TIER_SW_ADDR || b->share < 0.4)
		v->confidence = "low";
	else if (b->share < 0.6)
		v->confidence = "medium";
	else
		v->confidence = "high";
	if (b->what != BOUND_MEMORY)
		v->level[0] = '\0';
	snprintf(v->summary, sizeof(v->summary), "%s-bound: %.0f%% of the run's time (%.3g s); %s",
		 bound__name(b->what), 100 * b->share, b->seconds, b->evidence);
}

int verdict__compute(const struct report *r, const struct factbase *fb, struct verdict *v)
{
	const struct counter *tc = counter_of(r, "task_clock");
	const struct sampling_event *ev = time_event(r->sampling);
	const struct sampling *p = r->sampling;
	double wall = r->target.wall_ns / 1e9, cpu, ks = 0, locks = 0, total = 0;
	struct verdict_part *x;
	bool rough = false;	/* idle could be preemption: the verdict is a guess */

	memset(v, 0, sizeof(*v));
	v->confidence = "low";
	if (r->sim) {
		snprintf(v->missing, sizeof(v->missing), "the program ran under cachegrind (--sim): "
			 "its time is the simulator's");
		return -ENODATA;
	}
	if (!tc || wall <= 0) {
		snprintf(v->missing, sizeof(v->missing), "%s",
			 tc ? "no wall time" : "the CPU time (task_clock) was not counted");
		return -ENODATA;
	}
	cpu = tc->scaled / 1e9;
	if (ev)
		ks = (double)ev->kernel_samples / ev->samples;
	else
		snprintf(v->missing, sizeof(v->missing),
			 "no code samples: user and kernel time not told apart");
	if (ev)
		user_parts(v, r, fb, cpu * (1 - ks));
	else {
		x = part_add(v, BOUND_USER, cpu, TIER_SOFTWARE);
		snprintf(x->evidence, sizeof(x->evidence), "CPU time (task_clock), user and kernel");
	}
	if (ev)
		kernel_part(v, r, fb, cpu * ks, ks);
	if (p && p->sys_measured) {
		locks = p->futex_lock_ns / 1e9;
		x = part_add(v, BOUND_LOCKS, locks, TIER_SOFTWARE);
		snprintf(x->evidence, sizeof(x->evidence),
			 "%llu lock waits (FUTEX_WAIT, FUTEX_LOCK_PI) under %.0f ms took %.3g s of "
			 "thread time (sys_enter/sys_exit tracepoints); condition waits and joins "
			 "(%.3g s) and waits of %.0f ms or more count as threads waiting for others",
			 (unsigned long long)p->futex_lock_calls, p->futex_long_min_ns / 1e6, locks,
			 (p->futex_ns - p->futex_lock_ns) / 1e9, p->futex_long_min_ns / 1e6);
	}
	if (p && p->sys_measured) {
		/*
		 * Short sleeps are waits for work (a request, I/O); a long one is
		 * idle only when nothing else of the target ran meanwhile (a
		 * sleeper), not when a parent waits for its child or a background
		 * thread sleeps while others work: the wall time that no thread
		 * ran nor waited for a CPU bounds it.
		 */
		double short_sleep = (double)p->sleep_ns - (double)p->sleep_long_ns;
		double short_futex = (double)p->futex_ns - (double)p->futex_long_ns;
		double idle = short_sleep - short_futex;
		double gap = wall * 1e9 - cpu * 1e9 - (double)p->runq_ns;

		if (gap > idle)
			idle = gap;
		x = part_add(v, BOUND_IDLE, idle / 1e9, TIER_SOFTWARE);
		snprintf(x->evidence, sizeof(x->evidence),
			 "threads off the CPU in short sleeps (under %.0f ms) for %.3g s less their "
			 "futex waits, or wall time no thread ran nor waited for a CPU, %.3g s "
			 "(sched_switch); %.3g s runnable, waiting for a CPU other processes used, "
			 "counts nowhere", p->futex_long_min_ns / 1e6, (short_sleep - short_futex) / 1e9,
			 gap / 1e9, p->runq_ns / 1e9);
	} else {
		x = part_add(v, BOUND_IDLE, wall - cpu, TIER_SOFTWARE);
		snprintf(x->evidence, sizeof(x->evidence),
			 "wall time %.3g s less CPU time %.3g s: no thread on a CPU (sleeping, "
			 "blocked, or waiting for a CPU: not told apart without the tracepoints)",
			 wall, cpu);
		rough = true;
	}
	for (int i = 0; i < v->nr_parts; i++)
		total += v->parts[i].seconds;
	summarise(v, total);
	if (rough)
		v->confidence = "low";
	return v->known ? 0 : -ENODATA;
}

/*
 * Layout and access advice speeds up user code: it cannot move a kernel,
 * lock or idle bound.  Only a firm verdict demotes it, and only when user
 * code is a small part of the run (under VERDICT_USER_DEMOTE).
 */
#define VERDICT_USER_DEMOTE 0.25

bool verdict__moves(const struct verdict *v, const char *rule_id, char *why, size_t len)
{
	static const char *const user_rules[] = {
		"struct-holes",	    "cacheline-spanning", "hot-cold-split", "bad-alignment",
		"assoc-conflict",   "strided-traversal",  "streaming-stores", "tlb-pressure",
		"branch-mispredict",
	};
	double user = 0, cpu = 0;

	if (!v->known || !strcmp(v->confidence, "low"))
		return true;
	/* the user share of the CPU time: what user-code advice can shorten */
	for (int i = 0; i < v->nr_parts; i++) {
		if (v->parts[i].what == BOUND_MEMORY || v->parts[i].what == BOUND_COMPUTE ||
		    v->parts[i].what == BOUND_USER)
			user += v->parts[i].seconds;
		if (v->parts[i].what != BOUND_LOCKS && v->parts[i].what != BOUND_IDLE)
			cpu += v->parts[i].seconds;
	}
	user = cpu > 0 ? user / cpu : 1;
	for (size_t i = 0; i < sizeof(user_rules) / sizeof(user_rules[0]); i++) {
		if (strcmp(rule_id, user_rules[i]))
			continue;
		if ((v->bound == BOUND_KERNEL || v->bound == BOUND_LOCKS || v->bound == BOUND_IDLE) &&
		    user < VERDICT_USER_DEMOTE) {
			snprintf(why, len, "the run is %s-bound; user code is %.0f%% of its CPU time",
				 bound__name(v->bound), 100 * user);
			return false;
		}
		return true;
	}
	return true;
}
