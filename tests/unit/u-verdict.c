// SPDX-License-Identifier: GPL-2.0-only
/* The verdict (rules/verdict.c) on hand-made snapshots. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/addr.h"
#include "model/findings.h"
#include "model/report.h"
#include "model/sampling.h"
#include "rules/facts.h"
#include "rules/verdict.h"

/* A run of WALL s with CPU s of CPU time, KSHARE of the tick samples in the kernel. */
static struct report *run_of(double wall, double cpu, double kshare)
{
	struct report *r = report__new();
	struct counter *c = report__add_counter(r);
	struct sampling *p = calloc(1, sizeof(*p));

	snprintf(c->name, sizeof(c->name), "task_clock");
	c->counted = true;
	c->scaled = cpu * 1e9;
	c->tier = TIER_SOFTWARE;
	r->target.wall_ns = (uint64_t)(wall * 1e9);
	snprintf(p->events[0].unit, sizeof(p->events[0].unit), "ns");
	p->events[0].samples = 1000;
	p->events[0].kernel_samples = (uint64_t)(1000 * kshare);
	p->nr_events = 1;
	p->sys_measured = true;
	p->futex_long_min_ns = 20000000;
	r->sampling = p;
	return r;
}

static enum bound bound_of(struct report *r, struct verdict *v)
{
	struct factbase *fb = factbase__new();

	factbase__set(fb, -1, "machine.llc_size", 32 << 20, TIER_STATIC);
	verdict__compute(r, fb, v);
	factbase__free(fb);
	return v->known ? v->bound : BOUND_UNKNOWN;
}

void test_verdict__kernel(void)
{
	struct report *r = run_of(2, 1.8, 0.82);
	struct verdict v;
	char why[160];

	r->sampling->sys_calls = 400000;
	r->sampling->sys_ns = 1500000000;
	ASSERT_EQ(bound_of(r, &v), BOUND_KERNEL, "82% of the samples in the kernel");
	ASSERT_STREQ(v.missing, "memory and compute not told apart: no data-address samples were taken",
		     "says what it cannot tell");
	ASSERT_FALSE(verdict__moves(&v, "struct-holes", why, sizeof(why)), "layout demoted");
	ASSERT_TRUE(strstr(why, "kernel-bound") != NULL, why);
	ASSERT_EQ(v.busy_bound, BOUND_KERNEL, "busy bound");
	ASSERT_TRUE(verdict__moves(&v, "page-fault-storm", why, sizeof(why)), "faults kept");
	report__free(r);
}

void test_verdict__idle_not_preempted(void)
{
	struct report *r = run_of(1, 0.3, 0);
	struct verdict v;

	/* 0.7 s off the CPU, all of it runnable: preempted, not idle */
	r->sampling->runq_ns = 700000000;
	ASSERT_EQ(bound_of(r, &v), BOUND_USER, "preempted user code is still user-bound");
	r->sampling->runq_ns = 0;
	r->sampling->sleep_ns = 700000000;
	ASSERT_EQ(bound_of(r, &v), BOUND_IDLE, "sleeping is idle");
	report__free(r);
}

void test_verdict__locks_and_joins(void)
{
	struct report *r = run_of(1, 1, 0);
	struct verdict v;

	/* three threads waiting on short futex calls most of the run */
	r->sampling->futex_calls = r->sampling->futex_lock_calls = 5000;
	r->sampling->futex_ns = r->sampling->futex_lock_ns = 2500000000ULL;
	r->sampling->sleep_ns = 2500000000ULL;
	ASSERT_EQ(bound_of(r, &v), BOUND_LOCKS, "short futex waits are locks");
	/* short condition waits (FUTEX_WAIT_BITSET): waiting for another thread's work */
	r->sampling->futex_lock_calls = 0;
	r->sampling->futex_lock_ns = 0;
	r->sampling->sleep_ns = 0;
	ASSERT_EQ(bound_of(r, &v), BOUND_USER, "condition waits are not locks");
	/* one join of the whole run: parked, not a lock */
	r->sampling->futex_calls = r->sampling->futex_long_calls = 1;
	r->sampling->futex_ns = r->sampling->futex_long_ns = 1000000000;
	r->sampling->sleep_ns = r->sampling->sleep_long_ns = 1000000000;
	ASSERT_EQ(bound_of(r, &v), BOUND_USER, "a thread in pthread_join is not the bound");
	report__free(r);
}

void test_verdict__memory_from_scattered_lines(void)
{
	struct report *r = run_of(1, 1, 0);
	struct addr_report *a = calloc(1, sizeof(*a));
	struct verdict v;

	a->samples = 200;
	a->nr_ips = 2;
	a->ips = calloc(2, sizeof(*a->ips));
	/* a chase over 128 MiB: every sample a new line */
	a->ips[0].samples = a->ips[0].decoded = a->ips[0].lines = 150;
	a->ips[0].top_region_start = 1 << 20;
	a->ips[0].top_region_end = (1 << 20) + (128 << 20);
	/* a small table: the same lines again */
	a->ips[1].samples = a->ips[1].decoded = 50;
	a->ips[1].lines = 4;
	a->ips[1].top_region_end = 4096;
	r->addr = a;
	ASSERT_EQ(bound_of(r, &v), BOUND_MEMORY, "75% of the samples on scattered lines");
	ASSERT_STREQ(v.level, "main memory", "the level");
	ASSERT_STREQ(tier__name(v.tier), "sw-addr", "the tier");
	/* the same scatter within an L3-resident mapping is not memory-bound */
	a->ips[0].top_region_end = a->ips[0].top_region_start + (8 << 20);
	ASSERT_EQ(bound_of(r, &v), BOUND_COMPUTE, "lines within the LLC");
	report__free(r);
}

void test_verdict__unknown_without_cpu_time(void)
{
	struct report *r = report__new();
	struct verdict v;

	r->target.wall_ns = 1000000000;
	ASSERT_EQ(bound_of(r, &v), BOUND_UNKNOWN, "no task_clock");
	ASSERT_TRUE(strstr(v.missing, "task_clock") != NULL, v.missing);
	report__free(r);
}
