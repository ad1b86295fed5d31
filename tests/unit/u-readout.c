// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile's read-out (collect/profile/readout.c, sites.c) on recorded map
 * contents: keys and values laid out as bpf/sampler.h has them, read into a
 * struct sampling without BPF.  The addresses sampled are in no mapping, so
 * they resolve to "[unknown]" and the numbers alone are checked.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "base/util.h"
#include "collect/sampling/internal.h"
#include "model/sampling.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"

#define PID 100
#define REGION_A 0x7f0000000000ULL	/* 4 MiB, anonymous */
#define REGION_B 0x7f0001000000ULL	/* 2 MiB, anonymous */

static const char maps_text[] =
	"7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
	"7f0001000000-7f0001200000 rw-p 00000000 00:00 0 \n";

/* Every map recorded as empty; the caller fills the ones it needs. */
static void maps_empty(struct prof_maps *m)
{
	memset(m, 0, sizeof(*m));
	m->hot.fd = m->stack_counts.fd = m->stacks.fd = -1;
	m->fault_sites.fd = m->fault_chunks.fd = m->timeline.fd = -1;
}

/* A state with one cpu-clock event and, with MAPS, process PID and its maps. */
static struct prof_state *state_new(bool maps)
{
	struct prof_state *st = xcalloc(1, sizeof(*st));
	struct proc *p;

	st->nr_evs = 1;
	snprintf(st->evs[0].info.name, sizeof(st->evs[0].info.name), "cpu-clock");
	st->pid = PID;
	if (!maps)
		return st;
	p = prof_proc_get(st, PID, true);
	p->snaps = xcalloc(1, sizeof(*p->snaps));
	p->snaps[0] = procmaps__parse(PID, maps_text);
	p->nr_snaps = p->snaps[0] ? 1 : 0;
	return st;
}

static void state_free(struct prof_state *st)
{
	for (int i = 0; i < st->nr_procs; i++) {
		for (int s = 0; s < st->procs[i].nr_snaps; s++)
			procmaps__free(st->procs[i].snaps[s]);
		free(st->procs[i].snaps);
	}
	free(st->procs);
	free(st);
}

void test_readout__hot_spots(void)
{
	const struct prof_hot_key keys[] = {
		{ .tgid = PID, .tid = PID, .ip = 0x1000, .ev = 0 },
		{ .tgid = PID, .tid = PID + 1, .ip = 0x2000, .ev = 0 },
		{ .tgid = PID, .tid = PID, .ip = 0x3000, .ev = 0 },
	};
	const struct prof_hot_val vals[] = {
		{ .samples = 30, .kernel_samples = 5, .period_sum = 30000 },
		{ .samples = 10, .period_sum = 10000 },
		{ .samples = 60, .period_sum = 60000 },
	};
	struct prof_state *st = state_new(false);
	struct symbolizer *sym = symbolizer__new();
	struct sampling *p = xcalloc(1, sizeof(*p));
	struct prof_maps m;

	maps_empty(&m);
	m.hot = (struct prof_map){ .fd = -1, .keys = keys, .vals = vals, .n = 3 };
	prof_finish_hot(st, &m, p, sym);

	ASSERT_EQ(p->nr_events, 1, "the state's events");
	ASSERT_STREQ(p->events[0].name, "cpu-clock", "event name");
	ASSERT_EQ(p->events[0].samples, 100, "event samples summed");
	ASSERT_EQ(p->events[0].kernel_samples, 5, "event kernel samples summed");
	ASSERT_NEAR(p->events[0].est_events, 100000, 0.5, "event estimate: the periods");
	if (ASSERT_EQ(p->nr_hot, 3, "one hot spot per key")) {
		ASSERT_EQ(p->hot[0].samples, 60, "hottest first");
		ASSERT_EQ(p->hot[0].loc.ip, 0x3000, "its ip");
		ASSERT_EQ(p->hot[1].samples, 30, "second");
		ASSERT_EQ(p->hot[1].tid, PID, "its thread");
		ASSERT_EQ(p->hot[2].tid, PID + 1, "the other thread's");
		ASSERT_STREQ(p->hot[0].loc.module, "[unknown]", "no mapping: unknown module");
	}
	ASSERT_EQ(p->loss.unresolved, 100, "every sample unresolved");
	/* one unknown function: one row by function and by line, all the samples */
	if (ASSERT_EQ(p->nr_funcs, 1, "summary by function"))
		ASSERT_NEAR(p->funcs[0].share, 1.0, 1e-9, "its share");
	ASSERT_EQ(p->nr_lines, 1, "summary by line");
	ASSERT_EQ(p->nr_threads, 2, "threads counted");
	ASSERT_EQ(p->nr_thread_funcs, 0, "no per-thread rows: the same hottest function");
	sampling__free(p);
	symbolizer__free(sym);
	state_free(st);
}

void test_readout__stacks(void)
{
	const struct prof_stack_key keys[] = {
		{ .tgid = PID, .stackid = 5, .ev = 0 },
		{ .tgid = PID, .stackid = 9, .ev = 0 },
		{ .tgid = PID, .stackid = 11, .ev = 0 },	/* its stack is gone */
	};
	const struct prof_hot_val vals[] = {
		{ .samples = 7, .period_sum = 7000 },
		{ .samples = 12, .period_sum = 12000 },
		{ .samples = 1, .period_sum = 1000 },
	};
	const __u32 ids[] = { 5, 9 };
	__u64 ips[2][PROF_STACK_DEPTH] = { { 0x10, 0x20 }, { 0x30 } };
	struct prof_state *st = state_new(false);
	struct symbolizer *sym = symbolizer__new();
	struct sampling *p = xcalloc(1, sizeof(*p));
	struct prof_maps m;

	maps_empty(&m);
	m.stack_counts = (struct prof_map){ .fd = -1, .keys = keys, .vals = vals, .n = 3 };
	m.stacks = (struct prof_map){ .fd = -1, .keys = ids, .vals = ips, .n = 2 };
	prof_finish_stacks(st, &m, p, sym);

	if (ASSERT_EQ(p->nr_stacks, 2, "the stacks the stack map still has")) {
		ASSERT_EQ(p->stacks[0].samples, 12, "most samples first");
		ASSERT_EQ(p->stacks[0].nr_frames, 1, "its frames: up to the first 0");
		ASSERT_EQ(p->stacks[1].samples, 7, "then the other");
		ASSERT_EQ(p->stacks[1].nr_frames, 2, "two frames");
		ASSERT_NEAR(p->stacks[1].est_events, 7000, 0.5, "its estimate");
		ASSERT_EQ(p->stacks[1].pid, PID, "its process");
		ASSERT_STREQ(p->stacks[1].frames[0].module, "[unknown]", "frame resolved");
	}
	sampling__free(p);
	symbolizer__free(sym);
	state_free(st);
}

/*
 * Fault sites (two user-mode ones, one kernel-mode), the chunks of the two
 * regions, the timeline's buckets 0 and 2: 50 faults sampled, with periods.
 * EVENT_COUNT > 0: the page-faults event counted that many in its window.
 */
static struct sampling *faults_readout(uint64_t event_count)
{
	static const struct prof_fault_site_key site_keys[] = {
		{ .tgid = PID, .kernel = 0, .ip = 0x1000 },
		{ .tgid = PID, .kernel = 0, .ip = 0x2000 },
		{ .tgid = PID, .kernel = 1, .ip = 0x3000 },
	};
	static const struct prof_fault_val site_vals[] = {
		{ .count = 30, .samples = 3, .major = 2, .last_addr = REGION_A + 0x1000 },
		{ .count = 10, .samples = 1, .last_addr = REGION_B },
		{ .count = 10, .samples = 1, .last_addr = REGION_A + 0x2000 },
	};
	static const struct prof_chunk_key chunk_keys[] = {
		{ .tgid = PID, .chunk = REGION_A >> PROF_CHUNK_SHIFT },
		{ .tgid = PID, .chunk = REGION_B >> PROF_CHUNK_SHIFT },
	};
	static const struct prof_chunk_val chunk_vals[] = {
		{ .pages = { 0xf }, .faults = 40, .samples = 4, .major = 2 },	/* 4 pages */
		{ .pages = { 0x3 }, .faults = 10, .samples = 1 },		/* 2 pages */
	};
	static const __u32 bucket_keys[] = { 0, 2 };
	static const struct prof_bucket buckets[] = { { 20, 1 }, { 30, 0 } };
	uint64_t stats[PROF_ST__COUNT] = { 0 };
	struct prof_state *st = state_new(true);
	struct symbolizer *sym = symbolizer__new();
	struct sampling *p = xcalloc(1, sizeof(*p));
	struct prof_maps m;

	stats[PROF_ST_FAULT_SAMPLES] = 5;
	stats[PROF_ST_FAULT_MAX_PERIOD] = 10;
	stats[PROF_ST_FAULTS_MAJOR] = 2;
	st->faults_ok = event_count > 0;
	st->fw.closed = event_count;
	st->fault_hz = 4000;
	st->t_open = 1000;
	st->t_end = st->t_open + 35000000;	/* 35 ms: buckets 0-4 are read */
	maps_empty(&m);
	m.fault_sites = (struct prof_map){ .fd = -1, .keys = site_keys, .vals = site_vals, .n = 3 };
	m.fault_chunks = (struct prof_map){ .fd = -1, .keys = chunk_keys, .vals = chunk_vals, .n = 2 };
	m.timeline = (struct prof_map){ .fd = -1, .keys = bucket_keys, .vals = buckets, .n = 2 };
	prof_finish_regions(st, p, NULL);
	prof_finish_faults(st, &m, p, sym, stats);
	symbolizer__free(sym);
	state_free(st);
	return p;
}

void test_readout__faults_sampled(void)
{
	struct sampling *p = faults_readout(0);

	ASSERT_FALSE(p->faults_measured, "no page-faults event count");
	ASSERT_EQ(p->faults, 50, "without the event's count: the periods");
	ASSERT_EQ(p->fault_periods, 50, "periods summed");
	ASSERT_EQ(p->fault_samples, 5, "samples from the stats");
	ASSERT_FALSE(p->faults_exact, "periods up to 10: not exact");
	ASSERT_EQ(p->faults_user, 40, "user-mode faults");
	ASSERT_EQ(p->faults_kernel, 10, "kernel-mode faults");
	ASSERT_EQ(p->major, 2, "major faults from the stats");
	ASSERT_EQ(p->minor, 48, "the rest minor");
	ASSERT_EQ(p->rw_unknown, 50, "no code to decode: reads and writes unknown");
	/* the two user-mode sites share a (unknown) location: merged */
	if (ASSERT_EQ(p->nr_sites, 2, "sites merged by location")) {
		ASSERT_EQ(p->sites[0].count, 40, "the user-mode site first");
		ASSERT_FALSE(p->sites[0].kernel_mode, "user mode");
		ASSERT_EQ(p->sites[0].loc.ip, 0x1000, "the ip with most faults");
		ASSERT_EQ(p->sites[0].major, 2, "its major faults");
		ASSERT_EQ(p->sites[1].count, 10, "then the kernel-mode one");
		ASSERT_TRUE(p->sites[1].kernel_mode, "kernel mode");
	}
	if (ASSERT_EQ(p->nr_regions, 2, "a region per mapping")) {
		ASSERT_EQ(p->regions[0].start, REGION_A, "most faults first");
		ASSERT_EQ(p->regions[0].faults, 40, "its chunk's faults");
		ASSERT_EQ(p->regions[0].major, 2, "and major faults");
		ASSERT_EQ(p->regions[0].pages_faulted, 4, "pages sampled");
		ASSERT_TRUE(p->regions[0].large, "a 4 MiB anonymous region is large");
		ASSERT_EQ(p->regions[1].start, REGION_B, "the other region");
		ASSERT_EQ(p->regions[1].faults, 10, "its faults");
		ASSERT_EQ(p->regions[1].pages_faulted, 2, "its pages");
		if (p->nr_sites == 2)
			ASSERT_EQ(p->sites[0].region, 0, "the site's region: its last address's");
	}
	ASSERT_EQ(p->bucket_ns, 10000000, "10 ms buckets");
	if (ASSERT_EQ(p->nr_buckets, 3, "up to the last bucket with faults")) {
		ASSERT_EQ(p->timeline[0].faults, 20, "bucket 0");
		ASSERT_EQ(p->timeline[0].major, 1, "bucket 0 major");
		ASSERT_EQ(p->timeline[1].faults, 0, "bucket 1");
		ASSERT_EQ(p->timeline[2].faults, 30, "bucket 2");
	}
	sampling__free(p);
}

void test_readout__faults_scaled(void)
{
	/* the event counted twice the periods: everything doubles */
	struct sampling *p = faults_readout(100);

	ASSERT_TRUE(p->faults_measured, "the event's count");
	ASSERT_EQ(p->faults, 100, "the count, not the periods");
	ASSERT_EQ(p->fault_periods, 50, "periods as sampled");
	ASSERT_EQ(p->fault_est, 100, "sites scaled to the count");
	ASSERT_EQ(p->faults_user, 80, "user-mode faults scaled");
	ASSERT_EQ(p->faults_kernel, 20, "kernel-mode faults scaled");
	ASSERT_EQ(p->minor, 98, "minor: the count less the major faults");
	if (ASSERT_EQ(p->nr_sites, 2, "sites")) {
		ASSERT_EQ(p->sites[0].count, 80, "user-mode site scaled");
		ASSERT_EQ(p->sites[0].minor, 78, "its minor faults");
		ASSERT_EQ(p->sites[1].count, 20, "kernel-mode site scaled");
	}
	/* minor parts 38 and 10 scaled to 96; major faults are each a sample */
	if (ASSERT_EQ(p->nr_regions, 2, "regions")) {
		ASSERT_EQ(p->regions[0].faults, 78, "region A: 76 minor + 2 major");
		ASSERT_EQ(p->regions[1].faults, 20, "region B scaled");
	}
	if (ASSERT_EQ(p->nr_buckets, 3, "buckets")) {
		ASSERT_EQ(p->timeline[0].faults, 40, "bucket 0 scaled");
		ASSERT_EQ(p->timeline[2].faults, 60, "bucket 2 scaled");
	}
	sampling__free(p);
}
