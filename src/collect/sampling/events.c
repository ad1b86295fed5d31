// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf events the profile opens on the target, each with a program of
 * bpf/sampler.bpf.c attached: the sampling events (miss events on a PMU,
 * else cpu-clock, or the sw-addr collector's event) and the page-fault
 * events.
 */
#include "collect/sampling/internal.h"
#include "collect/sampling/sampler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/util.h"
#include "machine/pmu.h"
#include "model/report.h"

#include "sampler.skel.h"

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

void prof_close_fds(int *fds, struct bpf_link **links, int n)
{
	for (int i = 0; i < n; i++) {
		if (links && links[i])
			bpf_link__destroy(links[i]);
		if (fds && fds[i] >= 0)
			close(fds[i]);
	}
	free(fds);
	free(links);
}

static int open_task_event(struct prof_state *st, struct perf_event_attr *attr,
			   struct bpf_program *prog, struct task_event *te);

/* The program for sampling event I: each has its own (see bpf/sampler.bpf.c). */
static struct bpf_program *sample_prog(struct prof_state *st, int i)
{
	struct bpf_program *p[PROF_MAX_EVENTS] = {
		st->skel->progs.on_sample0, st->skel->progs.on_sample1,
		st->skel->progs.on_sample2, st->skel->progs.on_sample3,
	};

	return p[i & (PROF_MAX_EVENTS - 1)];
}

/* Opens ATTR on the target as sampling event S; how many tasks, or -errno. */
static int open_sampling_event(struct prof_state *st, struct perf_event_attr *attr,
			       struct ev_slot *s)
{
	struct task_event te = { 0 };
	int got = open_task_event(st, attr, sample_prog(st, st->nr_evs), &te);

	if (got <= 0)
		return got;
	s->fds = te.fds;
	s->links = te.links;
	s->nr = te.nr;
	return got;
}

/*
 * Attaches the sampling program to the sw-addr collector's event (see
 * run_shared): the program keeps every tick in its maps and passes the
 * user-mode ones on to that event's ring.  Returns the number of fds attached.
 */
static int attach_shared(struct prof_state *st, struct ev_slot *s, const struct run_shared *sh)
{
	int done = 0;

	st->skel->data->pass_ev = st->nr_evs;
	s->links = xcalloc(sh->nr_sw_fds, sizeof(*s->links));
	s->nr = sh->nr_sw_fds;
	for (int i = 0; i < sh->nr_sw_fds; i++) {
		s->links[i] = bpf_program__attach_perf_event(sample_prog(st, st->nr_evs),
							      sh->sw_fds[i]);
		if (s->links[i])
			done++;
	}
	if (!done) {
		st->skel->data->pass_ev = -1;
		free(s->links);
		s->links = NULL;
		s->nr = 0;
	}
	return done;
}

static const char *const hw_events[] = { "llc_miss", "l1d_miss", "dtlb_miss", "branch_miss" };

/* Miss events on a machine with a PMU; returns how many attached. */
static int open_pmu_sampling(struct prof_state *st, unsigned int freq, struct report *r)
{
	if (!pmu__hw_exposed() || pmu__init() < 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(hw_events) && st->nr_evs < PROF_MAX_EVENTS; i++) {
		struct pmu_event cand[4];
		int n = pmu__candidates(hw_events[i], cand, 4), got = -ENOENT;

		for (int c = 0; c < n && got < 0; c++) {
			struct ev_slot *s = &st->evs[st->nr_evs];

			if (!cand[c].hardware)
				continue;
			for (int precise = 2; precise >= 0 && got < 0; precise--) {
				struct perf_event_attr a = cand[c].attr;

				a.size = sizeof(a);
				a.freq = 1;
				a.sample_freq = freq;
				a.precise_ip = precise;
				a.exclude_hv = 1;
				a.exclude_kernel = 1;
				got = open_sampling_event(st, &a, s);
				if (got > 0) {
					snprintf(s->info.name, sizeof(s->info.name), "%s", hw_events[i]);
					snprintf(s->info.encoding, sizeof(s->info.encoding), "%s",
						 cand[c].encoding);
					snprintf(s->info.unit, sizeof(s->info.unit), "events");
					s->info.precise = precise > 0;
					s->info.tier = precise > 0 ? TIER_PRECISE : TIER_COUNTING;
					s->info.freq = true;
					s->info.freq_hz = freq;
					s->info.nr_cpus = st->nr_cpus;
					st->nr_evs++;
				}
			}
		}
		if (got < 0)
			report__add_provenance(r, "sampling", "%s: cannot sample: %s",
					       hw_events[i], strerror(-got));
	}
	return st->nr_evs;
}

static int on_regs(void *ctx, void *data, size_t size);
static void drain_regs(void *ctx);

int prof_open_sampling(struct prof_state *st, const struct run_ctx *ctx, struct report *r)
{
	unsigned int freq = ctx->freq_hz ? ctx->freq_hz : SAMPLER_DEFAULT_HZ;
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000000ULL / freq,
		.exclude_hv = 1,
	};
	uint64_t period = a.sample_period;
	struct ev_slot *s;
	bool shared;
	int got;

	if (open_pmu_sampling(st, freq, r) > 0)
		return 0;
	s = &st->evs[st->nr_evs];
	st->tick.hz = sampler__tick_plan(ctx, NULL, 0);
	/* attached: the children that ran before are not the target's */
	st->tick.since_ns = st->attached ? now_ns() : 0;
	if (st->tick.hz) {
		/* cpu-clock at the tick's rate until the tick sampler is attached */
		st->tick_planned = true;
		freq = st->tick.hz;
		period = a.sample_period = 1000000000ULL / freq;
		if (ctx->shared && ctx->shared->regs_sink) {
			st->regs_rb = ring_buffer__new(bpf_map__fd(st->skel->maps.regs_ring), on_regs,
						       st, NULL);
			if (st->regs_rb) {
				st->skel->bss->regs_out = 1;
				st->tick.regs_out = true;
				ctx->shared->regs_drain = drain_regs;
				ctx->shared->regs_drain_ctx = st;
				snprintf(ctx->shared->regs_event, sizeof(ctx->shared->regs_event),
					 "cpu-clock");
				ctx->shared->regs_period_ns = period;
			}
		}
		/* prof_tick_start() at the first poll TICK_DELAY_NS into the run */
	}
	shared = !st->tick_planned && ctx->shared && ctx->shared->nr_sw_fds &&
		 attach_shared(st, s, ctx->shared) > 0;
	if (shared) {
		freq = ctx->shared->sw_hz;
		period = ctx->shared->sw_period_ns;
	} else {
		got = open_sampling_event(st, &a, s);
		if (got < 0 && st->tick_planned) {
			/* the tick samples once attached; nothing before */
			st->attach_failed++;
			report__add_provenance(r, "sampling", "cannot sample cpu-clock until the "
					       "tick sampler is attached: %s", strerror(-got));
		} else if (got < 0) {
			st->attach_failed++;
			report__add_provenance(r, "sampling",
					       "cannot sample cpu-clock: %s: no hot spots",
					       strerror(-got));
			return got;
		}
	}
	snprintf(s->info.name, sizeof(s->info.name), "cpu-clock");
	snprintf(s->info.encoding, sizeof(s->info.encoding), "perf::PERF_COUNT_SW_CPU_CLOCK");
	snprintf(s->info.unit, sizeof(s->info.unit), "ns");
	s->info.tier = TIER_SOFTWARE;
	s->info.freq_hz = freq;
	s->info.period = period;
	s->info.nr_cpus = st->nr_cpus;
	st->nr_evs++;
	if (st->tick_planned)
		return 0; /* said at finish: whether the tick took over */
	report__add_provenance(r, "sampling", "hot spots from cpu-clock at %u Hz (software tier)%s: %s",
			       freq, shared ? ", on the data-address sampling event" : "",
			       pmu__hw_exposed() ?
			       "no miss event could be opened" :
			       "no hardware PMU exposed (virtualized guest?)");
	return 0;
}

/*
 * Opens ATTR on the target as a per-task event that its threads and children
 * inherit (with -p on each of its threads, as those exist already), with
 * PROG attached.  Returns how many were opened, or -errno of the first
 * failure when none was.
 */
/*
 * Opens ATTR on task TID with PROG attached and adds it to TE (*CAP: its
 * arrays' room).  *ERR keeps the first failure, as -errno: a thread that
 * just exited (ESRCH) is none.
 */
static void task_event_add(struct task_event *te, int *cap, struct perf_event_attr *attr,
			   struct bpf_program *prog, pid_t tid, int *err)
{
	int fd = (int)perf_event_open(attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	struct bpf_link *l;

	if (fd < 0) {
		if (!*err && errno != ESRCH)
			*err = -errno;
		return;
	}
	l = bpf_program__attach_perf_event(prog, fd);
	if (!l) {
		if (!*err)
			*err = -errno;
		close(fd);
		return;
	}
	if (te->nr == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		te->fds = xrealloc(te->fds, *cap * sizeof(*te->fds));
		te->links = xrealloc(te->links, *cap * sizeof(*te->links));
	}
	te->fds[te->nr] = fd;
	te->links[te->nr++] = l;
}

/* task_event_add() on every thread of process PID; false: no /proc/PID/task. */
bool prof_task_event_add_threads(struct task_event *te, int *cap, struct perf_event_attr *attr,
				   struct bpf_program *prog, pid_t pid, int *err)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d)))
		if (atoi(de->d_name) > 0)
			task_event_add(te, cap, attr, prog, atoi(de->d_name), err);
	closedir(d);
	return true;
}

static int open_task_event(struct prof_state *st, struct perf_event_attr *attr,
			   struct bpf_program *prog, struct task_event *te)
{
	int cap = 0, err = 0;

	attr->size = sizeof(*attr);
	attr->inherit = 1;
	memset(te, 0, sizeof(*te));
	if (st->attached) {
		if (!prof_task_event_add_threads(te, &cap, attr, prog, st->pid, &err))
			return -errno;
	} else {
		/* the corked child: counting starts when it execs the target */
		attr->disabled = 1;
		attr->enable_on_exec = 1;
		task_event_add(te, &cap, attr, prog, st->pid, &err);
	}
	if (!te->nr) {
		prof_close_fds(te->fds, te->links, 0);
		memset(te, 0, sizeof(*te));
		return err ? err : -ESRCH;
	}
	return te->nr;
}

/* The events' count summed over the tasks (read() includes inherited children). */
bool prof_task_event_count(const struct task_event *te, uint64_t *count)
{
	return read_counts_sum(te->fds, te->nr, count, NULL, NULL);
}

/* The highest sampling frequency the kernel allows (perf_event_max_sample_rate). */
static unsigned int max_sample_rate(void)
{
	char *t = read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);
	unsigned int hz = t ? (unsigned int)strtoul(t, NULL, 10) : 0;

	free(t);
	return hz;
}

void prof_open_faults(struct prof_state *st, struct report *r)
{
	struct perf_event_attr pf = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.freq = 1,
		.exclude_hv = 1,
		/* its count stands in for the page_faults counter: with its times */
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	struct perf_event_attr maj = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ,
		.sample_period = 1,
		.exclude_hv = 1,
	};
	unsigned int max = max_sample_rate();
	int got;

	st->fault_hz = max && max < FAULT_HZ ? max : FAULT_HZ;
	pf.sample_freq = st->fault_hz;
	st->fw.attr = pf;
	got = open_task_event(st, &pf, st->skel->progs.on_fault, &st->faults);
	st->faults_ok = got > 0;
	st->fw.open = st->faults_ok;
	st->fw.nr = st->faults_ok;
	if (!st->faults_ok) {
		st->attach_failed++;
		report__add_provenance(r, "page_faults", "page-faults event: %s: no fault numbers",
				       strerror(-got));
		return;
	}
	got = open_task_event(st, &maj, st->skel->progs.on_major, &st->major);
	st->major_ok = got > 0;
	if (!st->major_ok) {
		st->attach_failed++;
		report__add_provenance(r, "page_faults", "major faults not told apart: major-faults event: %s",
				       strerror(-got));
	}
}

/* regs_ring's records, to the sw-addr collector (run_shared.regs_sink). */
static int on_regs(void *ctx, void *data, size_t size)
{
	struct prof_state *st = ctx;

	if (size >= sizeof(struct prof_regs_rec) && st->shared && st->shared->regs_sink)
		st->shared->regs_sink(st->shared->regs_sink_ctx, data);
	return 0;
}

static void drain_regs(void *ctx)
{
	struct prof_state *st = ctx;

	if (st->regs_rb)
		ring_buffer__consume(st->regs_rb);
}
