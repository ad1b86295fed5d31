// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "profile" collector (see profiler.h).  Life cycle, as driven by 'run':
 *   open     load bpf/sampler.bpf.c sized and configured, put the target's
 *            pid in the process set, open the sampling and fault events on
 *            the target (per task, inherited) and attach the programs, open
 *            the side-band ring (failures are counted, never fatal)
 *   started  the khugepaged programs' deadline
 *   poll     read the side-band ring (perf's fork/exit/comm records of the
 *            target's tasks) and refresh the memory maps of live processes
 *            every 100 ms; load the khugepaged programs when it is time
 *   at_exit  /proc/PID/smaps of the stopped target: regions + THP state
 *   finish   read every map once, symbolise, build struct sampling
 */
#include "collect/sampling/sampler.h"
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/log.h"
#include "base/u64map.h"
#include "base/util.h"
#include "collect/evring.h"
#include "machine/sysinfo.h"
#include "model/report.h"

#include "sampler.skel.h"
#include "tracing.skel.h"

/* --no-sample means counting only: no sampling and no tracing. */
static bool sampler_wanted(const struct run_ctx *ctx)
{
	return ctx->sample;
}

static int sampler_open(void **state, const struct run_ctx *ctx, struct report *r)
{
	struct prof_state *st = xcalloc(1, sizeof(*st));
	__u32 tgid = (__u32)ctx->pid;
	__u64 zero = 0;
	struct skel_load l;
	uint64_t t_a, t_c;

	*state = st;
	st->pid = ctx->pid;
	st->attached = ctx->attached;
	st->shared = ctx->shared;
	st->nr_cpus = libbpf_num_possible_cpus();
	if (st->nr_cpus <= 0 || st->nr_cpus > MAX_CPUS)
		st->nr_cpus = sysinfo__nr_cpus();
	prof_proc_get(st, ctx->pid, true);
	if (st->attached) {
		prof_proc_read_comm(prof_proc_get(st, ctx->pid, false));
		prof_proc_read_exe(prof_proc_get(st, ctx->pid, false));
	}
	/* processes are followed with or without BPF: their maps name regions and code */
	prof_open_side(st, r);

	t_a = now_ns();

	prof_skel_take(&l);
	t_c = now_ns();
	st->skel = l.skel;
	st->tr = l.tr;
	st->tr_pending = l.tr_pending;
	if (!l.opened) {
		report__add_provenance(r, "profile", "cannot open the BPF object: %s", strerror(-l.err));
		return 0;
	}
	if (l.err) {
		report__add_provenance(r, "profile", "cannot load the BPF programs: %s (needs root or CAP_BPF+CAP_PERFMON)",
				       strerror(-l.err));
		return 0; /* regions and huge pages still come from /proc */
	}
	bpf_map_update_elem(bpf_map__fd(st->skel->maps.procs), &tgid, &zero, BPF_ANY);
	st->t0 = st->t_open = now_ns();
	st->skel->bss->t0_ns = st->t0;
	st->fw.on = !ctx->all_faults;
	prof_open_faults(st, r);
	/* the counters take page_faults from it (one event less on every fault) */
	if (st->faults_ok && ctx->shared) {
		ctx->shared->fault_count = prof_fw_provide;
		ctx->shared->fault_count_ctx = st;
	}

	if (ctx->sample) {
		prof_open_sampling(st, ctx, r);
		/*
		 * the system-call programs now if their object is loaded, else
		 * as the target runs (sampler_poll): the target does not wait
		 * for the kernel's BTF to be parsed
		 */
		if (!st->tr_pending || prof_tracing_take(&st->tr, false)) {
			st->tr_pending = false;
			prof_systime_open(st, r);
		} else {
			st->systime_deferred = true;
		}
	} else {
		report__add_provenance(r, "sampling", "hot-spot sampling off (--no-sample)");
	}
	pr_debug("profile: BPF open %.1f ms, load %.1f ms (waited %.1f ms for them), attach %.1f ms",
		 l.open_ns / 1e6, l.load_ns / 1e6, (t_c - t_a) / 1e6, (now_ns() - t_c) / 1e6);
	return 0;
}

static void sampler_started(void *state)
{
	struct prof_state *st = state;
	struct proc *p;

	if (!st)
		return;
	st->started = true;
	/* the program's exec is done: its first exec record came before the events were on */
	p = prof_proc_get(st, st->pid, false);
	if (!st->attached && p) {
		p->execed = true;
		prof_proc_read_comm(p);
		prof_proc_read_exe(p);
	}
	if (!st->skel)
		return;
	/*
	 * t0 stays the time of open (a few ms earlier): moving it now would
	 * bucket the faults of the exec, already counted, on another origin.
	 */
	st->last_refresh = 0;
	st->t_start = now_ns();
	st->fw.t_open = st->fw.last_t = st->t_start;
	st->thp.vm_ok = prof_vmstat_collapses(st->thp.vm0);
	st->thp.delay_ns = prof_thp_delay_ns(&st->thp.sleep_ms);
	if (!st->thp.delay_ns)
		prof_thp_start(st);
}


static int sampler_poll(void *state)
{
	struct prof_state *st = state;
	uint64_t now;

	if (!st)
		return 0;
	prof_drain_side(st);
	now = now_ns();
	prof_fw_poll(st, now);
	if (st->tr_pending && prof_tracing_take(&st->tr, false)) {
		st->tr_pending = false;
		if (st->systime_deferred) {
			st->systime_late_ns = st->started ? now - st->t_start : 0;
			prof_systime_open(st, NULL);
		}
	}
	if (st->started && st->tick_planned && !st->tick.started && !st->tr_pending &&
	    now - st->t_start >= TICK_DELAY_NS)
		prof_tick_start(st);
	if (st->started)
		prof_tick_switch(st, true);
	if (st->skel && st->started && !st->thp.started && now - st->t_start >= st->thp.delay_ns)
		prof_thp_start(st);
	if (now - st->last_refresh >= MAPS_REFRESH_NS && st->started) {
		st->last_refresh = now;
		for (int i = 0; i < st->nr_procs; i++)
			prof_proc_snapshot(st, &st->procs[i], false);
	}
	if (st->skel && st->started) {
		if (!st->next_warm) {
			st->next_warm = st->t_start + WARM_FIRST_NS;
		} else if (now >= st->next_warm) {
			prof_warm_symbols(st);
			st->next_warm = now_ns() + WARM_EVERY_NS;
		}
	}
	return 0;
}

static void sampler_at_exit(void *state, pid_t pid)
{
	struct prof_state *st = state;
	struct proc *p;

	if (!st)
		return;
	prof_drain_side(st);
	p = prof_proc_get(st, pid, true);
	prof_proc_snapshot(st, p, true);
	/* between fault windows: its last count, while it is stopped */
	if (st->fw.on && !st->fw.open && st->fw.nr_gaps && !st->fw.frozen) {
		prof_fw_gap_count(st, now_ns());
		p = prof_proc_get(st, pid, false);
		p->flt_done = true;
	}
	/* Children still alive keep their maps until finish; take them now too. */
	for (int i = 0; i < st->nr_procs; i++)
		if (st->procs[i].pid != pid)
			prof_proc_snapshot(st, &st->procs[i], false);
}

/* Where the hot spots came from, when the tick was to sample them. */
static void tick_provenance(struct prof_state *st, struct sampling *p, struct report *r,
			    const uint64_t *stats)
{
	struct tick_load *t = &st->tick;
	struct sampling_event *e = p->nr_events ? &p->events[0] : NULL;

	if (t->live) {
		if (e) {
			snprintf(e->name, sizeof(e->name), "tick");
			snprintf(e->encoding, sizeof(e->encoding),
				 "tracepoint timer:hrtimer_expire_entry (the tick's hrtimer), "
				 "perf::PERF_COUNT_SW_CPU_CLOCK before");
		}
		report__add_provenance(r, "sampling", "hot spots from the scheduler tick at %u Hz "
				       "(software tier): in a guest no timer interrupt of their own "
				       "(-F: cpu-clock); %" PRIu64 " of %" PRIu64 " samples from the "
				       "tick, the first %.0f ms from cpu-clock", t->hz, stats[PROF_ST_TICKS], stats[PROF_ST_SAMPLES],
				       (t->t_live - (st->t_start ? st->t_start : st->t_open)) / 1e6);
	} else {
		char err[200] = "the target ended before its sampler was attached";

		if (t->err)
			snprintf(err, sizeof(err), "its sampler failed to %s: %s", t->what,
				 strerror(-t->err));
		report__add_provenance(r, "sampling", "hot spots from cpu-clock at %u Hz (software "
				       "tier): the scheduler tick would have sampled, but %s", t->hz,
				       err);
	}
	if (p->loss.regs_lost)
		report__add_provenance(r, "sw_addr", "%" PRIu64 " samples lost: the register ring "
				       "was full", p->loss.regs_lost);
}

static int sampler_finish(void *state, struct report *r)
{
	struct prof_state *st = state;
	struct symbolizer *sym;
	struct sampling *p;
	uint64_t stats[PROF_ST__COUNT];
	uint64_t t[7];
	struct prof_maps maps;

	if (!st)
		return -ENODEV;
	st->t_end = now_ns();
	/*
	 * the target ended before the tracing object was loaded: its programs
	 * never ran (the load is waited for at the teardown, after the report)
	 */
	if (st->tr_pending) {
		if (st->systime_deferred && !st->systime_err) {
			st->systime_err = -ETIME;
			report__add_provenance(r, "syscalls", "time in system calls not measured: "
					       "the program ended before the system-call programs "
					       "were loaded");
		}
	}
	if (st->systime_what)
		report__add_provenance(r, "syscalls", "time in system calls not measured: cannot "
				       "%s the sys_enter/sys_exit/sched_switch programs: %s",
				       st->systime_what, strerror(-st->systime_err));
	else if (st->systime && st->systime_late_ns)
		report__add_provenance(r, "syscalls", "time in system calls measured from %.1f ms "
				       "into the run: the system-call programs were loaded while "
				       "the program ran", st->systime_late_ns / 1e6);
	/* stop sampling before reading */
	prof_tick_switch(st, false);
	if (st->tick.live)
		st->tick.skel->bss->live = 0;
	for (int e = 0; e < st->nr_evs; e++)
		for (int i = 0; st->evs[e].fds && i < st->evs[e].nr; i++)
			ioctl(st->evs[e].fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < st->faults.nr; i++)
		ioctl(st->faults.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < st->major.nr; i++)
		ioctl(st->major.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	prof_drain_side(st);
	/* a target that was not stopped at exit (-p): take what is still there */
	for (int i = 0; i < st->nr_procs; i++) {
		struct proc *pr = &st->procs[i];

		if (pr->pid == st->pid && !pr->at_exit)
			prof_proc_snapshot(st, pr, true);
		else if (!pr->nr_snaps || pr->recs.changed)
			prof_proc_snapshot(st, pr, false);
	}

	p = xcalloc(1, sizeof(*p));
	/* the one built while the target ran, with its sessions and cache */
	sym = st->sym ? st->sym : symbolizer__new();
	st->sym = NULL;
	memset(stats, 0, sizeof(stats));
	p->duration_ns = st->t0 ? st->t_end - st->t0 : 0;
	t[0] = now_ns();
	if (st->skel) {
		prof_maps__of_skel(&maps, st->skel);
		prof_read_stats(st, stats);
		prof_finish_hot(st, &maps, p, sym);
	}
	t[1] = now_ns();
	if (st->skel)
		prof_finish_stacks(st, &maps, p, sym);
	t[2] = now_ns();
	/*
	 * Regions and their THP state come from /proc: also without BPF.  Of
	 * the other processes only those with faults sampled: a shell loop of
	 * 300 short commands maps 13743 regions of which 7 fault, and reading
	 * them all out was a third of the profile's work after the exit.
	 */
	if (st->skel) {
		struct prof_chunk_key ck;
		struct prof_chunk_val cv;
		struct map_iter it;
		struct u64map active = { 0 };
		bool added;

		prof_map_iter_open(&it, &maps.fault_chunks, sizeof(ck), sizeof(cv));
		while (prof_map_iter_next(&it, &ck, &cv))
			if (ck.tgid)
				*u64map__get(&active, ck.tgid, &added) = 1;
		prof_finish_regions(st, p, &active);
		u64map__free(&active);
	} else {
		prof_finish_regions(st, p, NULL);
	}
	t[3] = now_ns();
	if (st->skel)
		prof_finish_faults(st, &maps, p, sym, stats);
	else
		prof_sort_array(p->regions, p->nr_regions, sizeof(*p->regions), prof_cmp_region_faults);
	t[4] = now_ns();
	prof_finish_thp(st, p, r);
	prof_finish_systime(st, p, r, sym);
	t[5] = now_ns();
	symbolizer__free(sym);
	t[6] = now_ns();
	pr_debug("profile: read-out: hot spots %.1f ms, stacks %.1f ms, regions %.1f ms, faults %.1f ms, THP %.1f ms, symbolizer freed %.1f ms",
		 (t[1] - t[0]) / 1e6, (t[2] - t[1]) / 1e6, (t[3] - t[2]) / 1e6, (t[4] - t[3]) / 1e6,
		 (t[5] - t[4]) / 1e6, (t[6] - t[5]) / 1e6);

	/*
	 * A child that did not exec has its parent's name and executable (it
	 * was not running when they were read); the rings are per CPU, so its
	 * fork record may have been read before its parent's.
	 */
	for (bool more = true; more;) {
		more = false;
		for (int i = 0; i < st->nr_procs; i++) {
			struct proc *c = &st->procs[i], *parent;

			if (!c->parent || c->parent == c->pid ||
			    !(parent = prof_proc_get(st, c->parent, false)))
				continue;
			if (!c->comm[0] && parent->comm[0]) {
				memcpy(c->comm, parent->comm, sizeof(c->comm));
				more = true;
			}
			if (!c->exe[0] && !c->execed && parent->exe[0]) {
				memcpy(c->exe, parent->exe, sizeof(c->exe));
				more = true;
			}
		}
	}
	p->procs = xcalloc(st->nr_procs, sizeof(*p->procs));
	for (int i = 0; i < st->nr_procs; i++) {
		struct sampler_proc *pp = &p->procs[p->nr_procs++];

		pp->pid = st->procs[i].pid;
		pp->parent = st->procs[i].parent;
		memcpy(pp->comm, st->procs[i].comm, sizeof(pp->comm));
		memcpy(pp->exe, st->procs[i].exe, sizeof(pp->exe));
		pp->execed = st->procs[i].execed;
		pp->exited = st->procs[i].exited;
		pp->maps = st->procs[i].nr_snaps > 0;
	}

	p->loss.hot_full = stats[PROF_ST_HOT_FULL];
	p->loss.stack_err = stats[PROF_ST_STACK_ERR];
	p->loss.stack_full = stats[PROF_ST_STACK_FULL];
	p->loss.site_full = stats[PROF_ST_SITE_FULL] + stats[PROF_ST_SITE_FULL_KERNEL];
	p->loss.page_full = stats[PROF_ST_PAGE_FULL];
	p->loss.timeline_late = stats[PROF_ST_TIMELINE_LATE];
	p->loss.regs_lost = stats[PROF_ST_REGS_LOST];
	p->loss.regs_known = st->regs_rb != NULL;
	p->loss.proc_events_known = st->side || (st->side_shared && st->shared->side_ring);
	p->loss.proc_events = st->side ? evring__lost(st->side)
			    : p->loss.proc_events_known ? evring__lost(st->shared->side_ring) : 0;
	p->loss.procs_full = st->procs_full;
	p->loss.attach_failed = st->attach_failed;

	if (st->tick_planned)
		tick_provenance(st, p, r, stats);
	if (p->loss.hot_full)
		report__add_provenance(r, "sampling", "%" PRIu64 " samples not aggregated by ip: map full",
				       p->loss.hot_full);
	if (p->loss.page_full)
		report__add_provenance(r, "page_faults", "%" PRIu64 " faults not aggregated by address (map full): region counts are low",
				       p->loss.page_full);
	if (p->loss.site_full)
		report__add_provenance(r, "page_faults", "%" PRIu64 " faults not aggregated by site: map full",
				       p->loss.site_full);
	if (p->loss.proc_events || p->loss.procs_full)
		report__add_provenance(r, "profile", "processes and regions not fully followed: %" PRIu64 " fork, exit, exec and mapping records lost%s, %" PRIu64 " processes not tracked",
				       p->loss.proc_events,
				       st->side_shared && !st->tick_planned ? " (sw_addr's ring: with its samples)" : "",
				       p->loss.procs_full);
	if (st->faults_ok && !p->faults_exact)
		report__add_provenance(r, "page_faults", "faults by site, region and time estimated from %" PRIu64 " samples of the page-faults event (at most %u a second, up to %" PRIu64 " faults each; their periods sum to %" PRIu64 ") and scaled to the counted total",
				       p->fault_samples, p->fault_hz, p->fault_max_period, p->fault_periods);
	if (st->faults_ok && p->fault_gap_faults)
		report__add_provenance(r, "page_faults", "fault storm: the event was open %.0f of %.0f ms (%d windows; --all-faults: always); %" PRIu64 " faults between counted from /proc/PID/stat, given the sites of each window's last %.0f+ ms",
				       p->fault_open_ns / 1e6, p->duration_ns / 1e6, p->fault_windows,
				       p->fault_gap_faults, FW_ARM_NS / 1e6);
	if (p->fault_gap_lost)
		report__add_provenance(r, "page_faults", "%d processes ended between fault windows unread: their faults since the last poll (20 ms) are missing",
				       p->fault_gap_lost);
	if (st->fw.reopen_failed)
		report__add_provenance(r, "page_faults", "the page-faults event failed to open again %d times: faults counted from /proc/PID/stat to the end, unsampled",
				       st->fw.reopen_failed);
	if (r->sampling)
		sampling__free(r->sampling);
	r->sampling = p;
	return 0;
}

static void sampler_destroy(void *state)
{
	struct prof_state *st = state;

	if (!st)
		return;
	for (int e = 0; e < st->nr_evs; e++)
		prof_close_fds(st->evs[e].fds, st->evs[e].links, st->evs[e].nr);
	prof_close_fds(st->faults.fds, st->faults.links, st->faults.nr);
	prof_close_fds(st->major.fds, st->major.links, st->major.nr);
	for (int g = 0; g < st->fw.nr_gaps; g++)
		prof_fw_snap_free(&st->fw.gaps[g].last);
	free(st->fw.gaps);
	prof_fw_snap_free(&st->fw.arm);
	free(st->fw.buckets);
	prof_thp_join(st);
	prof_thp_destroy(&st->thp);
	prof_systime_destroy(st);
	ring_buffer__free(st->regs_rb);
	prof_tick_destroy(&st->tick);
	if (st->tr_pending)
		prof_tracing_take(&st->tr, true);
	prof_tracing_destroy(&st->tr);
	if (st->side)
		evring__close(st->side);
	sampler_bpf__destroy(st->skel);
	symbolizer__free(st->sym); /* before the snapshots it refers to */
	for (int i = 0; i < st->nr_procs; i++) {
		for (int s = 0; s < st->procs[i].nr_snaps; s++)
			procmaps__free(st->procs[i].snaps[s]);
		free(st->procs[i].snaps);
		maprecs__clear(&st->procs[i].recs);
	}
	free(st->procs);
	u64map__free(&st->proc_idx);
	free(st);
}

const struct collector collector_sampler = {
	.name = "profile",
	.wanted = sampler_wanted,
	.open = sampler_open,
	.started = sampler_started,
	.poll = sampler_poll,
	.at_exit = sampler_at_exit,
	.finish = sampler_finish,
	.destroy = sampler_destroy,
};
