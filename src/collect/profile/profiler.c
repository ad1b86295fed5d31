// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "profile" collector (see profiler.h).  Life cycle, as driven by 'run':
 *   open     load bpf/profile.bpf.c sized and configured, put the target's
 *            pid in the process set, open the sampling and fault events on
 *            the target (per task, inherited) and attach the programs, open
 *            the side-band ring (failures are counted, never fatal)
 *   started  the khugepaged programs' deadline
 *   poll     read the side-band ring (perf's fork/exit/comm records of the
 *            target's tasks) and refresh the memory maps of live processes
 *            every 100 ms; load the khugepaged programs when it is time
 *   at_exit  /proc/PID/smaps of the stopped target: regions + THP state
 *   finish   read every map once, symbolise, build struct profile
 */
#include "collect/profile/profiler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "model/addr.h"
#include "symbols/decode.h"
#include "collect/evring.h"
#include "base/log.h"
#include "collect/maprecs.h"
#include "machine/pmu.h"
#include "symbols/procmaps.h"
#include "model/profile.h"
#include "model/report.h"
#include "symbols/symbolizer.h"
#include "machine/sysinfo.h"
#include "base/util.h"

#include "bpf/profile.h" /* BPF-shared types */
#include "profile.skel.h"
#include "thp.skel.h"
#include "tick.skel.h"

_Static_assert(sizeof(struct prof_hot_key) == 24, "prof_hot_key layout");
_Static_assert(sizeof(struct prof_hot_val) == 24, "prof_hot_val layout");
_Static_assert(sizeof(struct prof_stack_key) == 16, "prof_stack_key layout");
_Static_assert(sizeof(struct prof_fault_site_key) == 16, "prof_fault_site_key layout");
_Static_assert(sizeof(struct prof_fault_val) == 40, "prof_fault_val layout");
_Static_assert(sizeof(struct prof_chunk_key) == 16, "prof_chunk_key layout");
_Static_assert(sizeof(struct prof_chunk_val) == 88, "prof_chunk_val layout");
_Static_assert(sizeof(struct prof_bucket) == 16, "prof_bucket layout");
_Static_assert(sizeof(struct prof_thp_val) == 32, "prof_thp_val layout");
_Static_assert(sizeof(struct prof_regs_rec) == 40 + 8 * AS_NR_REGS, "prof_regs_rec layout");
_Static_assert(PROF_NR_REGS == AS_NR_REGS, "prof_regs_rec holds the sw-addr registers");

/*
 * Page-fault samples a second in a fault storm.  The page-faults event runs
 * in frequency mode: the period is 1 (every fault a sample) until faults come
 * faster than this, then the kernel raises it.  A fault the event counts but
 * does not sample costs what perf stat's counter costs (an add); a traced
 * fault cost 100-150 ns more, 5 % of a first-touch fault in a guest.  A
 * sample's period is approximate: when the task is scheduled in, the kernel
 * re-arms the event and the next sample reports the newly computed period,
 * not the faults since the last one.  At 4000 Hz a 5000-fault phase before a
 * 50000-fault storm comes out within 2 %; at 1000 Hz one sample after exec
 * carried 3000-13000 faults and the phase vanished.
 */
#define FAULT_HZ 4000
#define BUCKET_NS 10000000ULL	/* 10 ms timeline buckets ... */
#define NR_BUCKETS 60000	/* ... for 10 minutes */
#define MAPS_REFRESH_NS 100000000ULL
#define WARM_FIRST_NS 250000000ULL	/* symbolising while running: see warm_symbols */
#define WARM_EVERY_NS 2000000000ULL
#define WARM_BUDGET_NS 25000000ULL
#define MAX_SNAPS 16		/* memory-map snapshots kept per process */
#define TOP_STACKS 20
#define MAX_CPUS 1024
/*
 * When the tick sampler starts loading, into the run: loading it takes
 * 15-35 ms of CPU (the kernel's BTF), which a program that ends sooner
 * (the ones that run for milliseconds) is spared; cpu-clock samples it.
 */
#define TICK_DELAY_NS 40000000ULL

struct proc {
	pid_t pid, parent;
	char comm[16];
	char exe[256];			/* the executable it runs, "" unknown */
	bool exe_pending;		/* exec'd: its first executable mapping names it */
	bool live;			/* a snapshot from /proc since its last exec */
	bool recs_first;		/* snaps[0] is from its records, taken at exit */
	bool execed, exited;
	struct maprecs recs;		/* mappings, from the side-band records */
	struct procmaps **snaps;	/* oldest first; the last one is the newest */
	int nr_snaps;
	struct procmaps *at_exit;	/* smaps at exit (main process), also in snaps */
	/*
	 * Between fault windows (see fw_*): at its last read, its own faults
	 * (minflt + majflt) and its reaped children's (cminflt + cmajflt);
	 * the part of the latter already counted through those children.
	 */
	uint64_t flt_own, flt_c, flt_debt;
	bool flt_done;			/* its last count is in (or it could not be read) */
};

struct ev_slot {
	struct profile_event info;
	int *fds;			/* per task (see open_task_event); NULL: not ours */
	struct bpf_link **links;
	int nr;				/* entries of links (and fds) */
};

/*
 * The khugepaged programs (bpf/thp.bpf.c), loaded on a thread once the
 * target has run for a while (see thp_delay_ns).  Collapses anywhere on the
 * system before they were attached are counted from /proc/vmstat.
 */
struct thp_load {
	pthread_t thread;
	bool running, started;
	int procs_fd;
	struct thp_bpf *skel;
	struct bpf_link *links[2];
	int err;		/* -errno of the first failure */
	const char *what;	/* what failed */
	uint64_t ns;
	uint64_t delay_ns;	/* into the run */
	uint64_t sleep_ms;	/* khugepaged's scan_sleep_millisecs */
	uint64_t t_attached;	/* CLOCK_MONOTONIC when both were attached, 0 */
	bool vm_ok;		/* /proc/vmstat readable at the start and at attach */
	uint64_t vm0[2], vm1[2]; /* thp_collapse_alloc(_failed) at the start, at attach */
};

/*
 * The tick sampler (bpf/tick.bpf.c), loaded on a thread as the target
 * starts; until it is attached, the profile samples cpu-clock at the tick's
 * rate (see open_sampling).
 */
struct tick_load {
	pthread_t thread;
	bool started;
	bool running;		/* the thread was started and not joined */
	volatile bool done;	/* the thread is finished (its result is in) */
	bool live;		/* the tick counts; the cpu-clock events are off */
	unsigned int hz;
	bool regs_out;
	int fds[6];		/* procs hot stacks stack_counts regs_ring stats */
	struct tick_bpf *skel;
	struct bpf_link *link;
	int err;		/* -errno of the first failure */
	const char *what;	/* what failed */
	uint64_t ns;		/* the thread's time */
	uint64_t t_live;	/* CLOCK_MONOTONIC when it went live */
};

/* A per-task event (inherited by threads and children) with a program on it. */
struct task_event {
	int *fds;		/* the process, or each of its threads with -p */
	struct bpf_link **links;
	int nr;
};

/*
 * A fault site's or chunk's sampled periods at one time (fw_snap): the keys
 * of both maps are 16 bytes, compared as bytes.
 */
struct site_snap {
	unsigned char k[16];
	uint64_t periods;
};

/* The sites (0) and chunks (1) at one time, each sorted by key. */
struct fw_snapshot {
	struct site_snap *e[2];
	int n[2];
};

/* The faults between two windows, and the sites and chunks they are given. */
struct fault_gap {
	uint64_t faults;
	struct fw_snapshot last;	/* periods of the window's last FW_ARM_NS or more */
};

/* Fault windows: see "fault windows" below. */
struct fault_win {
	bool on;			/* not --all-faults */
	bool open;			/* the page-faults event is open */
	bool frozen;			/* the final count is taken */
	struct perf_event_attr attr;	/* the event, to open it again */
	int nr;				/* windows opened (the first is from the start) */
	uint64_t t_open;		/* when the window opened */
	uint64_t open_ns;		/* the closed windows' time */
	uint64_t closed;		/* the closed windows' counts */
	uint64_t last_count, last_t;	/* the processes' faults at the window's last poll */
	double rate;			/* faults a second at the last window's close */
	int odd;			/* gap polls in a row at a rate unlike it */
	struct fw_snapshot arm;		/* at a poll before the close */
	bool armed;
	uint64_t arm_t;
	uint64_t storm_t;		/* the first poll of this storm, 0: none */
	struct fault_gap *gaps;
	int nr_gaps;
	uint64_t gap_t0, gap_last_t;	/* the gap's start, its last count */
	int gap_procs;			/* processes known when the gap began */
	uint64_t gap_faults;		/* all gaps' */
	uint64_t pending;		/* read at an exit, not yet in a bucket */
	uint64_t *buckets;		/* gap faults by timeline bucket (NR_BUCKETS) */
	int lost;			/* processes that ended in a gap unread */
	int reopen_failed;
};

struct prof_state {
	struct profile_bpf *skel;
	struct evring *side;	/* fork/exit/comm records of the target's tasks */
	bool side_shared;	/* those records come from the sw-addr collector's ring */
	uint64_t procs_full;	/* children left out of the process set (thp.bpf.c) */
	bool started;
	pid_t pid;
	bool attached;
	int nr_cpus;
	struct ev_slot evs[PROF_MAX_EVENTS];
	int nr_evs;
	struct task_event faults, major;
	bool major_ok;
	bool faults_ok;
	unsigned int fault_hz;
	struct fault_win fw;
	struct thp_load thp;
	bool tick_planned;	/* the tick samples (profile__tick_plan) */
	struct tick_load tick;
	struct ring_buffer *regs_rb;	/* regs_ring, read into the sw-addr collector */
	struct run_shared *shared;
	int attach_failed;
	struct proc *procs;
	int nr_procs, cap_procs;
	struct symbolizer *sym;	/* built while the target runs (see warm_symbols) */
	uint64_t next_warm;	/* CLOCK_MONOTONIC of the next pass, 0: none yet */
	uint64_t t0, t_open, t_start, last_refresh, t_end;
};

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static struct proc *proc_get(struct prof_state *st, pid_t pid, bool create);
static void fw_proc_exited(struct prof_state *st, struct proc *p);
static void fw_poll(struct prof_state *st, uint64_t now);
static uint64_t fw_gap_count(struct prof_state *st, uint64_t now);
static bool fw_provide(void *ctx, struct provided_count *out);
static void apportion(uint64_t **v, int n, uint64_t from, uint64_t to);

/* The process's name from /proc (a launched program's, once it has exec'd). */
static void proc_read_comm(struct proc *p)
{
	char path[64], buf[sizeof(p->comm)];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p->pid);
	if (!read_line(path, buf, sizeof(buf)))
		memcpy(p->comm, buf, sizeof(p->comm));
}

/* The executable P runs, from /proc (kept as it was when P is gone). */
static void proc_read_exe(struct proc *p)
{
	char path[64], buf[sizeof(p->exe)];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = '\0';
	memcpy(p->exe, buf, (size_t)n + 1);
	p->exe_pending = false;
}

static struct proc *proc_get(struct prof_state *st, pid_t pid, bool create)
{
	for (int i = 0; i < st->nr_procs; i++)
		if (st->procs[i].pid == pid)
			return &st->procs[i];
	if (!create)
		return NULL;
	if (st->nr_procs == st->cap_procs) {
		/* pointers into procs are taken anew after every proc_get(..., true) */
		st->cap_procs = st->cap_procs ? 2 * st->cap_procs : 16;
		st->procs = xrealloc(st->procs, st->cap_procs * sizeof(*st->procs));
	}
	memset(&st->procs[st->nr_procs], 0, sizeof(*st->procs));
	st->procs[st->nr_procs].pid = pid;
	return &st->procs[st->nr_procs++];
}

/* Takes a snapshot of PID's maps; keeps it only when the map changed. */
static void proc_snapshot(struct prof_state *st, struct proc *p, bool smaps)
{
	struct procmaps *m;

	if (p->exited && !smaps && !p->recs.changed)
		return;
	m = p->exited && !smaps ? NULL : procmaps__capture(p->pid, smaps);
	if (m) {
		proc_read_exe(p);
		p->live = true;
	}
	/* gone already (a short-lived child): what its mapping records said */
	if (!m && !smaps && p->recs.changed) {
		m = maprecs__procmaps(&p->recs, p->pid);
		/*
		 * The records miss what was unmapped: after a snapshot from /proc
		 * they only add mappings made since, as the oldest snapshot (see
		 * finish_regions).
		 */
		if (m && p->live) {
			if (p->nr_snaps == MAX_SNAPS) {
				procmaps__free(m);
				return;
			}
			p->snaps = xrealloc(p->snaps, (p->nr_snaps + 1) * sizeof(*p->snaps));
			memmove(&p->snaps[1], &p->snaps[0], p->nr_snaps * sizeof(*p->snaps));
			p->snaps[0] = m;
			p->nr_snaps++;
			p->recs_first = true;
			return;
		}
	}
	if (!m)
		return;
	if (!smaps && p->nr_snaps && procmaps__same(p->snaps[p->nr_snaps - 1], m)) {
		procmaps__free(m);
		return;
	}
	if (p->nr_snaps == MAX_SNAPS) {
		/*
		 * A map that keeps changing: drop the second oldest snapshot (the
		 * oldest has the start-up libraries), so that fds stay bounded.
		 */
		struct procmaps *old = p->snaps[1];

		if (old == p->at_exit)
			p->at_exit = NULL;
		symbolizer__forget(st->sym, old);
		procmaps__free(old);
		memmove(&p->snaps[1], &p->snaps[2], (MAX_SNAPS - 2) * sizeof(*p->snaps));
		p->nr_snaps--;
	}
	p->snaps = xrealloc(p->snaps, (p->nr_snaps + 1) * sizeof(*p->snaps));
	p->snaps[p->nr_snaps++] = m;
	if (smaps)
		p->at_exit = m;
}

/* Adds a child process to the set thp.bpf.c filters khugepaged activity by. */
static void track_proc(struct prof_state *st, pid_t pid)
{
	__u32 tgid = (__u32)pid;
	__u64 zero = 0;

	if (st->skel && bpf_map_update_elem(bpf_map__fd(st->skel->maps.procs), &tgid, &zero,
					    BPF_NOEXIST) && errno != EEXIST)
		st->procs_full++;
}

/*
 * A record of the side-band ring: perf writes them for the tasks the
 * per-task event follows (the target and everything it forks).
 */
static void on_side_record(void *ctx, const struct perf_event_header *h)
{
	struct prof_state *st = ctx;
	const uint32_t *v = (const void *)(h + 1);
	size_t body = h->size - sizeof(*h);
	struct proc *p, *parent;

	switch (h->type) {
	case PERF_RECORD_FORK: /* pid, ppid, tid, ptid, time */
		if (body < 16 || v[0] == v[1])
			return; /* a new thread */
		p = proc_get(st, (pid_t)v[0], true);
		p->parent = (pid_t)v[1];
		parent = proc_get(st, p->parent, false);
		if (parent && !p->comm[0])
			memcpy(p->comm, parent->comm, sizeof(p->comm));
		if (parent && !p->exe[0])
			memcpy(p->exe, parent->exe, sizeof(p->exe));
		if (parent && !p->recs.n)
			maprecs__copy(&p->recs, &parent->recs);
		track_proc(st, p->pid);
		/*
		 * At the fork its memory is its parent's: a copy of the parent's
		 * newest snapshot stands for reading /proc, which cost a shell
		 * running hundreds of short commands a tenth of its time.  Its
		 * exec, the refresh every MAPS_REFRESH_NS and its exit take its own.
		 */
		if (parent && parent->nr_snaps && !p->nr_snaps) {
			p->snaps = xmalloc(sizeof(*p->snaps));
			p->snaps[0] = procmaps__dup(parent->snaps[parent->nr_snaps - 1], p->pid);
			p->nr_snaps = 1;
			p->live = true;
		} else {
			proc_snapshot(st, p, false);
		}
		break;
	case PERF_RECORD_EXIT: /* pid, ppid, tid, ptid, time */
		if (body < 16 || v[0] != v[2])
			return; /* a thread other than the leader */
		p = proc_get(st, (pid_t)v[0], true);
		fw_proc_exited(st, p);
		p->exited = true;
		proc_snapshot(st, p, false); /* from its records, if it had no maps read */
		break;
	case PERF_RECORD_MMAP2: {
		struct maprec m;
		pid_t pid;

		if (!maprec__parse(h, &pid, &m))
			break;
		p = proc_get(st, pid, true);
		/* an exec maps the program before its interpreter and libraries */
		if (p->exe_pending && (m.prot & PROT_EXEC) && m.path[0] == '/') {
			snprintf(p->exe, sizeof(p->exe), "%s", m.path);
			p->exe_pending = false;
		}
		maprecs__add(&p->recs, &m, (size_t)sysconf(_SC_PAGESIZE));
		break;
	}
	case PERF_RECORD_COMM: /* pid, tid, comm */
		if (body <= 8 || v[0] != v[1])
			return; /* a thread renamed */
		p = proc_get(st, (pid_t)v[0], true);
		snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(body - 8), (const char *)(v + 2));
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* the new image's mappings are recorded next */
			maprecs__clear(&p->recs);
			p->execed = true;
			p->exe[0] = '\0';
			p->exe_pending = true;
			p->live = false;
			proc_snapshot(st, p, false);
		}
		break;
	}
}

/*
 * The side-band ring: a dummy software event on the target, per CPU and
 * inherited, with fork/exit and comm records on.  It never samples.  The
 * sw-addr collector's ring has these records too, and where it is open the
 * profile takes them from there (see run_shared.side_drain).
 */
static void open_side(struct prof_state *st, struct report *r)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.task = 1,
		.comm = 1,
		.comm_exec = 1,
		/* mappings: a child gone before its maps were read (code, regions) */
		.mmap = 1,
		.mmap2 = 1,
		.mmap_data = 1,
		.disabled = !st->attached,
		.enable_on_exec = !st->attached,
	};
	char why[160] = "";

	if (st->shared && st->shared->side_drain) {
		st->side_shared = true;
		st->shared->side_sink = on_side_record;
		st->shared->side_sink_ctx = st;
		return;
	}
	/* 64 KiB a CPU: a build's burst of execs writes about 1 KiB of mapping records each */
	st->side = evring__open(&a, st->pid, 4, why, sizeof(why));
	if (!st->side) {
		st->attach_failed++;
		report__add_provenance(r, "profile", "cannot follow the target's processes (%s): "
				       "children's code is not symbolised", why);
		return;
	}
	if (st->attached)
		evring__add_threads(st->side, &a, st->pid);
}

/* The side-band records written since the last drain, to on_side_record. */
static void drain_side(struct prof_state *st)
{
	if (st->side)
		evring__drain(st->side, on_side_record, st);
	else if (st->side_shared && st->shared->side_drain)
		st->shared->side_drain(st->shared->side_drain_ctx);
}

static void close_fds(int *fds, struct bpf_link **links, int n)
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

/* The program for sampling event I: each has its own (see bpf/profile.bpf.c). */
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
static void tick_start(struct prof_state *st);

static int open_sampling(struct prof_state *st, const struct run_ctx *ctx, struct report *r)
{
	unsigned int freq = ctx->freq_hz ? ctx->freq_hz : PROFILER_DEFAULT_HZ;
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
	st->tick.hz = profile__tick_plan(ctx, NULL, 0);
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
		/* tick_start() at the first poll TICK_DELAY_NS into the run */
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

/* --no-sample means counting only: no sampling and no tracing. */
static bool profile_wanted(const struct run_ctx *ctx)
{
	return ctx->sample;
}

static void profile_destroy(void *state);

/* ---- the BPF object, loaded ahead on a thread ---------------------------- */

struct skel_load {
	struct profile_bpf *skel;
	int err;		/* -errno */
	bool opened;		/* failed in load (not open) when err */
	uint64_t open_ns, load_ns;
};

static struct {
	pthread_t thread;
	bool running;
	bool held;		/* joined, res not taken yet */
	struct skel_load res;
} preload;

/* Waits for the preload, whose result stays for skel_take(); NULL: none started. */
static const struct skel_load *preload_wait(void)
{
	if (preload.running) {
		pthread_join(preload.thread, NULL);
		preload.running = false;
		preload.held = true;
	}
	return preload.held ? &preload.res : NULL;
}

static void skel_load(struct skel_load *l)
{
	uint64_t t = now_ns();

	memset(l, 0, sizeof(*l));
	l->skel = profile_bpf__open();
	l->open_ns = now_ns() - t;
	if (!l->skel) {
		l->err = -errno;
		return;
	}
	l->opened = true;
	l->skel->rodata->bucket_ns = BUCKET_NS;
	l->skel->rodata->nr_buckets = NR_BUCKETS;
	bpf_map__set_max_entries(l->skel->maps.timeline, NR_BUCKETS);
	/*
	 * Without a hardware PMU the one sampling event is cpu-clock, slot 0:
	 * the other three programs would be verified for nothing (about a
	 * third of the load).
	 */
	if (!pmu__hw_exposed()) {
		bpf_program__set_autoload(l->skel->progs.on_sample1, false);
		bpf_program__set_autoload(l->skel->progs.on_sample2, false);
		bpf_program__set_autoload(l->skel->progs.on_sample3, false);
	}
	t = now_ns();
	l->err = profile_bpf__load(l->skel);
	l->load_ns = now_ns() - t;
	if (l->err) {
		profile_bpf__destroy(l->skel);
		l->skel = NULL;
	}
}

/*
 * libbpf reads the kernel's BTF (5-6 MB) into two fresh buffers: 2800 page
 * faults, a third of a load.  The profile object needs no BTF (see
 * profile.bpf.c), but the tick and khugepaged objects, loaded later by
 * other threads, do.  This thread's malloc arena gets a region advised for
 * transparent huge pages first; once the thread ends, glibc hands its arena
 * to the next thread that needs one, whose buffers then reuse the region: a
 * few 2 MiB faults instead (the tick sampler was ready after a median of
 * 16 ms over 8 runs, against 20 ms without).  Big blocks come from the
 * arena, not from mmap, while the thresholds are raised; a no-op where THP
 * is off.
 */
#define PRELOAD_ARENA (16 << 20)

static void prepare_arena(void)
{
	char *p;
	uintptr_t a, e;

	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	p = malloc(PRELOAD_ARENA);
	if (!p)
		return;
	a = ((uintptr_t)p + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1);
	e = ((uintptr_t)p + PRELOAD_ARENA) & ~(uintptr_t)((2 << 20) - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
	free(p);
}

static void *preload_main(void *arg)
{
	(void)arg;
	prepare_arena();
	skel_load(&preload.res);
	return NULL;
}

void profile__preload(void)
{
	if (preload.running || preload.held)
		return;
	preload.running = !pthread_create(&preload.thread, NULL, preload_main, NULL);
}

/* The preloaded object when there is one, else loaded now. */
static void skel_take(struct skel_load *l)
{
	if (!preload.running && !preload.held) {
		skel_load(l);
		return;
	}
	preload_wait();
	preload.held = false;
	*l = preload.res;
	memset(&preload.res, 0, sizeof(preload.res));
}

void profile__preload_discard(void)
{
	struct skel_load l;

	if (!preload.running && !preload.held)
		return;
	skel_take(&l);
	if (l.skel)
		profile_bpf__destroy(l.skel);
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
static bool task_event_add_threads(struct task_event *te, int *cap, struct perf_event_attr *attr,
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
		if (!task_event_add_threads(te, &cap, attr, prog, st->pid, &err))
			return -errno;
	} else {
		/* the corked child: counting starts when it execs the target */
		attr->disabled = 1;
		attr->enable_on_exec = 1;
		task_event_add(te, &cap, attr, prog, st->pid, &err);
	}
	if (!te->nr) {
		close_fds(te->fds, te->links, 0);
		memset(te, 0, sizeof(*te));
		return err ? err : -ESRCH;
	}
	return te->nr;
}

/* The events' count summed over the tasks (read() includes inherited children). */
static bool task_event_count(const struct task_event *te, uint64_t *count)
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

static void open_faults(struct prof_state *st, struct report *r)
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

/* ---- khugepaged programs, loaded while the target runs ------------------- */

/* System-wide collapses so far (thp_collapse_alloc and _failed in /proc/vmstat). */
static bool vmstat_collapses(uint64_t v[2])
{
	char *t = read_file("/proc/vmstat", NULL), *l, *save = NULL;
	int found = 0;

	for (l = t ? strtok_r(t, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long n;

		if (sscanf(l, "thp_collapse_alloc %llu", &n) == 1) {
			v[0] = n;
			found |= 1;
		} else if (sscanf(l, "thp_collapse_alloc_failed %llu", &n) == 1) {
			v[1] = n;
			found |= 2;
		}
	}
	free(t);
	return found == 3;
}

/*
 * When the khugepaged programs attach: attaching a tracepoint patches kernel
 * text (IPIs to every CPU, 10-30 ms in a guest), and so does detaching it,
 * which is worth it only for a run that khugepaged can reach.  khugepaged
 * wakes every scan_sleep_millisecs (10 s by default) and scans a few MiB;
 * the programs attach a quarter of that into the run, at most 2.5 s, and
 * /proc/vmstat tells whether anything collapsed before.
 */
static uint64_t thp_delay_ns(uint64_t *sleep_ms)
{
	uint64_t ms;

	if (read_u64_file("/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs",
			  &ms))
		ms = 10000;
	*sleep_ms = ms;
	ms /= 4;
	return (ms < 2500 ? ms : 2500) * 1000000ULL;
}

static void *thp_main(void *arg)
{
	struct thp_load *t = arg;
	uint64_t t0 = now_ns();

	t->skel = thp_bpf__open();
	if (!t->skel) {
		t->err = -errno;
		t->what = "open";
		goto out;
	}
	t->err = bpf_map__reuse_fd(t->skel->maps.procs, t->procs_fd);
	if (t->err) {
		t->what = "share the process set with";
		goto out;
	}
	t->err = thp_bpf__load(t->skel);
	if (t->err) {
		t->what = "load";
		goto out;
	}
	t->links[0] = bpf_program__attach(t->skel->progs.on_scan_pmd);
	if (!t->links[0]) {
		t->err = -errno;
		t->what = "attach mm_khugepaged_scan_pmd for";
		goto out;
	}
	t->links[1] = bpf_program__attach(t->skel->progs.on_collapse);
	if (!t->links[1]) {
		t->err = -errno;
		t->what = "attach mm_collapse_huge_page for";
		goto out;
	}
	t->t_attached = now_ns();
	t->vm_ok = t->vm_ok && vmstat_collapses(t->vm1);
out:
	t->ns = now_ns() - t0;
	return NULL;
}

static void thp_start(struct prof_state *st)
{
	st->thp.started = true;
	st->thp.procs_fd = bpf_map__fd(st->skel->maps.procs);
	st->thp.running = !pthread_create(&st->thp.thread, NULL, thp_main, &st->thp);
	if (!st->thp.running) {
		st->thp.err = -EAGAIN;
		st->thp.what = "start a thread to load";
	}
}

static void thp_join(struct prof_state *st)
{
	if (!st->thp.running)
		return;
	pthread_join(st->thp.thread, NULL);
	st->thp.running = false;
	pr_debug("profile: khugepaged programs ready after %.1f ms%s%s", st->thp.ns / 1e6,
		 st->thp.err ? ": failed to " : "", st->thp.err ? st->thp.what : "");
}

static void thp_destroy(struct thp_load *t)
{
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(t->links[i]);
	thp_bpf__destroy(t->skel);
}

/* ---- the tick sampler, in a virtual machine ------------------------------- */

static struct {
	bool decided;
	unsigned int hz;
	char why[160];
} tick_plan;

unsigned int profile__tick_plan(const struct run_ctx *ctx, char *why, size_t len)
{
	const struct skel_load *l;
	char nohz[64];

	if (!ctx->sample || ctx->freq_hz || sysinfo__hypervisor() <= 0 || pmu__hw_exposed())
		return 0; /* cpu-clock asked for, or cheap, or hardware events sample */
	if (!tick_plan.decided) {
		tick_plan.decided = true;
		sysinfo__nohz_full(nohz, sizeof(nohz));
		l = preload_wait();
		if (!l) {
			profile__preload();
			l = preload_wait();
		}
		tick_plan.hz = sysinfo__kernel_hz();
#if !defined(__x86_64__)
		snprintf(tick_plan.why, sizeof(tick_plan.why), "not on x86-64");
#else
		if (sysinfo__cpu_flag("fred") > 0)
			snprintf(tick_plan.why, sizeof(tick_plan.why),
				 "FRED entry: a tick cannot tell user from kernel mode");
#endif
		else if (nohz[0])
			snprintf(tick_plan.why, sizeof(tick_plan.why),
				 "CPUs %s run without a tick (nohz_full)", nohz);
		else if (access("/sys/kernel/btf/vmlinux", R_OK))
			snprintf(tick_plan.why, sizeof(tick_plan.why), "no kernel BTF");
		else if (!tick_plan.hz)
			snprintf(tick_plan.why, sizeof(tick_plan.why),
				 "the tick rate is unknown (no /boot/config-RELEASE or /proc/config.gz)");
		else if (!l || !l->skel)
			snprintf(tick_plan.why, sizeof(tick_plan.why), "the BPF object did not load");
		if (tick_plan.why[0])
			tick_plan.hz = 0;
	}
	if (why && len)
		snprintf(why, len, "%s", tick_plan.why);
	return tick_plan.hz;
}

static void *tick_main(void *arg)
{
	struct tick_load *t = arg;
	uint64_t t0 = now_ns();
	struct bpf_map *maps[6];
	LIBBPF_OPTS(bpf_test_run_opts, run);

	t->skel = tick_bpf__open();
	if (!t->skel) {
		t->err = -errno;
		t->what = "open its BPF object";
		goto out;
	}
	maps[0] = t->skel->maps.procs;
	maps[1] = t->skel->maps.hot;
	maps[2] = t->skel->maps.stacks;
	maps[3] = t->skel->maps.stack_counts;
	maps[4] = t->skel->maps.regs_ring;
	maps[5] = t->skel->maps.stats;
	for (int i = 0; i < 6; i++) {
		t->err = bpf_map__reuse_fd(maps[i], t->fds[i]);
		if (t->err) {
			t->what = "share the profile's maps";
			goto out;
		}
	}
	t->skel->rodata->tick_ns = 1000000000ULL / t->hz;
	t->skel->rodata->regs_out = t->regs_out;
	t->err = tick_bpf__load(t->skel);
	if (t->err) {
		t->what = "load its BPF object";
		goto out;
	}
	t->err = bpf_prog_test_run_opts(bpf_program__fd(t->skel->progs.find_tick_fn), &run);
	if (t->err) {
		t->err = -errno;
		t->what = "look up the tick's timer function";
		goto out;
	}
	if (!t->skel->bss->tick_fn) {
		t->err = -ENOENT;
		t->what = "find tick_nohz_handler or tick_sched_timer in the kernel's symbols";
		goto out;
	}
	t->link = bpf_program__attach(t->skel->progs.on_tick);
	if (!t->link) {
		t->err = -errno;
		t->what = "attach to hrtimer_expire_entry";
	}
out:
	t->ns = now_ns() - t0;
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void tick_start(struct prof_state *st)
{
	struct tick_load *t = &st->tick;

	t->started = true;
	t->fds[0] = bpf_map__fd(st->skel->maps.procs);
	t->fds[1] = bpf_map__fd(st->skel->maps.hot);
	t->fds[2] = bpf_map__fd(st->skel->maps.stacks);
	t->fds[3] = bpf_map__fd(st->skel->maps.stack_counts);
	t->fds[4] = bpf_map__fd(st->skel->maps.regs_ring);
	t->fds[5] = bpf_map__fd(st->skel->maps.stats);
	t->running = !pthread_create(&t->thread, NULL, tick_main, t);
	if (!t->running) {
		t->err = -EAGAIN;
		t->what = "start its loading thread";
		t->done = true;
	}
}

/*
 * Once the tick sampler is attached: the cpu-clock events go off (their
 * inherited copies in every thread and child too), then the tick counts.
 * TARGET_RUNS false: the target is gone, the switch is not made.
 */
static void tick_switch(struct prof_state *st, bool target_runs)
{
	struct tick_load *t = &st->tick;
	struct ev_slot *s = &st->evs[0];

	if (!t->running || !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE))
		return;
	pthread_join(t->thread, NULL);
	t->running = false;
	pr_debug("profile: tick sampler ready after %.1f ms%s%s", t->ns / 1e6,
		 t->err ? ": failed to " : "", t->err ? t->what : "");
	if (t->err || !target_runs)
		return;
	for (int i = 0; s->fds && i < s->nr; i++)
		ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	t->skel->bss->live = 1;
	t->live = true;
	t->t_live = now_ns();
	if (st->shared) {
		snprintf(st->shared->regs_event, sizeof(st->shared->regs_event), "tick");
		st->shared->regs_period_ns = 1000000000ULL / t->hz;
	}
}

static void tick_destroy(struct tick_load *t)
{
	if (t->running) {
		pthread_join(t->thread, NULL);
		t->running = false;
	}
	bpf_link__destroy(t->link);
	tick_bpf__destroy(t->skel);
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

static int profile_open(void **state, const struct run_ctx *ctx, struct report *r)
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
	proc_get(st, ctx->pid, true);
	if (st->attached) {
		proc_read_comm(proc_get(st, ctx->pid, false));
		proc_read_exe(proc_get(st, ctx->pid, false));
	}
	/* processes are followed with or without BPF: their maps name regions and code */
	open_side(st, r);

	t_a = now_ns();

	skel_take(&l);
	t_c = now_ns();
	st->skel = l.skel;
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
	open_faults(st, r);
	/* the counters take page_faults from it (one event less on every fault) */
	if (st->faults_ok && ctx->shared) {
		ctx->shared->fault_count = fw_provide;
		ctx->shared->fault_count_ctx = st;
	}

	if (ctx->sample)
		open_sampling(st, ctx, r);
	else
		report__add_provenance(r, "sampling", "hot-spot sampling off (--no-sample)");
	pr_debug("profile: BPF open %.1f ms, load %.1f ms (waited %.1f ms for them), attach %.1f ms",
		 l.open_ns / 1e6, l.load_ns / 1e6, (t_c - t_a) / 1e6, (now_ns() - t_c) / 1e6);
	return 0;
}

static void profile_started(void *state)
{
	struct prof_state *st = state;
	struct proc *p;

	if (!st)
		return;
	st->started = true;
	/* the program's exec is done: its first exec record came before the events were on */
	p = proc_get(st, st->pid, false);
	if (!st->attached && p) {
		p->execed = true;
		proc_read_comm(p);
		proc_read_exe(p);
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
	st->thp.vm_ok = vmstat_collapses(st->thp.vm0);
	st->thp.delay_ns = thp_delay_ns(&st->thp.sleep_ms);
	if (!st->thp.delay_ns)
		thp_start(st);
}

static void warm_symbols(struct prof_state *st);

static int profile_poll(void *state)
{
	struct prof_state *st = state;
	uint64_t now;

	if (!st)
		return 0;
	drain_side(st);
	now = now_ns();
	fw_poll(st, now);
	if (st->started && st->tick_planned && !st->tick.started &&
	    now - st->t_start >= TICK_DELAY_NS)
		tick_start(st);
	if (st->started)
		tick_switch(st, true);
	if (st->skel && st->started && !st->thp.started && now - st->t_start >= st->thp.delay_ns)
		thp_start(st);
	if (now - st->last_refresh >= MAPS_REFRESH_NS && st->started) {
		st->last_refresh = now;
		for (int i = 0; i < st->nr_procs; i++)
			proc_snapshot(st, &st->procs[i], false);
	}
	if (st->skel && st->started) {
		if (!st->next_warm) {
			st->next_warm = st->t_start + WARM_FIRST_NS;
		} else if (now >= st->next_warm) {
			warm_symbols(st);
			st->next_warm = now_ns() + WARM_EVERY_NS;
		}
	}
	return 0;
}

static void profile_at_exit(void *state, pid_t pid)
{
	struct prof_state *st = state;
	struct proc *p;

	if (!st)
		return;
	drain_side(st);
	p = proc_get(st, pid, true);
	proc_snapshot(st, p, true);
	/* between fault windows: its last count, while it is stopped */
	if (st->fw.on && !st->fw.open && st->fw.nr_gaps && !st->fw.frozen) {
		fw_gap_count(st, now_ns());
		p = proc_get(st, pid, false);
		p->flt_done = true;
	}
	/* Children still alive keep their maps until finish; take them now too. */
	for (int i = 0; i < st->nr_procs; i++)
		if (st->procs[i].pid != pid)
			proc_snapshot(st, &st->procs[i], false);
}

/* ---- finish: maps -> struct profile -------------------------------------- */

static void read_stats(struct prof_state *st, uint64_t *out)
{
	int fd = bpf_map__fd(st->skel->maps.stats);
	__u64 *vals = xcalloc(st->nr_cpus, sizeof(__u64));

	for (__u32 i = 0; i < PROF_ST__COUNT; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int c = 0; c < st->nr_cpus; c++)
			out[i] += vals[c];
	}
	free(vals);
}

static bool same_mapping(const struct procmap *a, const struct procmap *b)
{
	return a && b && a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && !strcmp(a->path, b->path);
}

/*
 * The snapshot of PID (or of its parents) to look ADDR up in: the oldest
 * that maps it as the newest does.  The same address then always gets the
 * same snapshot, and with it the libdwfl session built for it, both while
 * the target runs (warm_symbols) and at the end.
 */
static const struct procmaps *maps_for(struct prof_state *st, pid_t pid, uint64_t addr)
{
	int lo;

	for (int depth = 0; depth < 16 && pid > 0; depth++) {
		struct proc *p = proc_get(st, pid, false);

		if (!p)
			return NULL;
		/* the records' snapshot only for what no snapshot from /proc maps */
		lo = p->recs_first && p->nr_snaps > 1;
		for (int i = p->nr_snaps - 1; i >= lo; i--) {
			const struct procmap *pm = procmaps__find(p->snaps[i], addr);

			if (!pm)
				continue;
			for (int j = lo; j < i; j++)
				if (same_mapping(procmaps__find(p->snaps[j], addr), pm))
					return p->snaps[j];
			return p->snaps[i];
		}
		if (lo && procmaps__find(p->snaps[0], addr))
			return p->snaps[0];
		/* A forked child without exec shares its parent's layout. */
		if (p->execed && p->nr_snaps)
			return NULL;
		pid = p->parent;
	}
	return NULL;
}

/*
 * Reads a whole hash map in batches of 4096 (one syscall each, instead of two
 * per entry: 100k fault pages took 0.3 s the slow way); falls back to
 * get_next_key + lookup where batches are not supported.
 */
struct map_iter {
	int fd;
	size_t ksz, vsz;
	char *keys, *vals;
	__u32 n, i;
	bool started, done, slow;
	__u64 cursor;
	char prev[64];
};

#define MAP_BATCH 4096

static void map_iter_init(struct map_iter *it, int fd, size_t ksz, size_t vsz)
{
	memset(it, 0, sizeof(*it));
	it->fd = fd;
	it->ksz = ksz;
	it->vsz = vsz;
	it->keys = xcalloc(MAP_BATCH, ksz);
	it->vals = xcalloc(MAP_BATCH, vsz);
}

static bool map_iter_next(struct map_iter *it, void *key, void *val)
{
	while (it->i == it->n) {
		__u32 count = MAP_BATCH;
		__u64 out = 0;
		int err;

		if (it->done)
			goto end;
		if (it->slow) {
			if (bpf_map_get_next_key(it->fd, it->started ? it->prev : NULL, it->prev))
				goto end;
			it->started = true;
			if (bpf_map_lookup_elem(it->fd, it->prev, val))
				continue;
			memcpy(key, it->prev, it->ksz);
			return true;
		}
		err = bpf_map_lookup_batch(it->fd, it->started ? &it->cursor : NULL, &out, it->keys,
					   it->vals, &count, NULL);
		if (err && errno != ENOENT) {
			if (!it->started && it->ksz <= sizeof(it->prev)) {
				it->slow = true; /* no batch operations: one entry at a time */
				continue;
			}
			goto end;
		}
		it->started = true;
		it->cursor = out;
		it->done = err != 0;
		it->n = count;
		it->i = 0;
	}
	memcpy(key, it->keys + it->i * it->ksz, it->ksz);
	memcpy(val, it->vals + it->i * it->vsz, it->vsz);
	it->i++;
	return true;
end:
	free(it->keys);
	free(it->vals);
	it->keys = it->vals = NULL;
	it->done = true;
	it->n = it->i = 0;
	return false;
}

/* qsort that accepts an empty (NULL) array. */
static void sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (base && n > 1)
		qsort(base, n, size, cmp);
}

/* ---- fault windows --------------------------------------------------------- */

/*
 * In a fault storm the page-faults event is open only in windows.  Every
 * fault on the system pays for the event while one exists, enabled or not
 * (tests/bench/fault_event.c: 3 % of a first-touch fault in a guest, and as
 * much again for counting and sampling it): a storm ran 7 % slower with it
 * open throughout.  So once faults come faster than FW_STORM a second, the
 * event is closed, and the faults until it opens again are counted from the
 * processes' own counters (minflt + majflt in /proc/PID/stat, read every
 * poll and when a process ends).  The first window lasts FW_FIRST_NS from
 * the start; the next ones FW_NEXT_NS, one every FW_GAP_NS, or at once when
 * the rate between windows drops below the storm rate or leaves half to
 * twice that of the window before for two polls, or a process starts (a new
 * phase).  The faults
 * of a gap get the sites and chunks of the window's last FW_ARM_NS or more,
 * from the storm's second poll on (snapshots of the site and chunk maps
 * before the close and at it), and their timeline buckets the polls that
 * counted them.  Neither the rate nor the gaps tell a new fault site that
 * starts at the old one's rate: until the next window its faults are the
 * old site's.
 * --all-faults keeps the event open throughout.
 */
#define FW_STORM 20000.0
#define FW_FIRST_NS 60000000ULL
#define FW_NEXT_NS 50000000ULL
#define FW_GAP_NS 1000000000ULL
#define FW_ARM_NS 15000000ULL
#define FW_ARM_LEAD_NS 45000000ULL	/* snapshots start this long before a window's end */

/*
 * The faults of process PID (all its threads, alive or gone): its own
 * (minflt + majflt) and those of the children it has reaped (cminflt +
 * cmajflt), where a child that ends between two reads is counted in full.
 */
static bool proc_faults(pid_t pid, uint64_t *own, uint64_t *children)
{
	char path[64], buf[1024], *p;
	unsigned long long v[4];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	/* after the name in parentheses: state ppid pgrp session tty tpgid flags minflt cminflt majflt */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3]) != 4)
		return false;
	*own = v[0] + v[2];
	*children = v[1] + v[3];
	return true;
}

static int cmp_site_key(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void fw_snap_free(struct fw_snapshot *x)
{
	free(x->e[0]);
	free(x->e[1]);
	memset(x, 0, sizeof(*x));
}

/* One map's periods now, sorted by key: the fault sites' or the chunks'. */
static int fw_snap_map(int fd, size_t vsz, size_t off, struct site_snap **out)
{
	unsigned char k[16];
	char *v = xmalloc(vsz);
	struct map_iter it;
	struct site_snap *s = NULL;
	int n = 0, cap = 0;

	map_iter_init(&it, fd, sizeof(k), vsz);
	while (map_iter_next(&it, k, v)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			s = xrealloc(s, cap * sizeof(*s));
		}
		memcpy(s[n].k, k, sizeof(k));
		memcpy(&s[n++].periods, v + off, sizeof(uint64_t));
	}
	free(v);
	sort_array(s, n, sizeof(*s), cmp_site_key);
	*out = s;
	return n;
}

static void fw_snap(struct prof_state *st, struct fw_snapshot *x)
{
	x->n[0] = fw_snap_map(bpf_map__fd(st->skel->maps.fault_sites), sizeof(struct prof_fault_val),
			      offsetof(struct prof_fault_val, count), &x->e[0]);
	x->n[1] = fw_snap_map(bpf_map__fd(st->skel->maps.fault_chunks), sizeof(struct prof_chunk_val),
			      offsetof(struct prof_chunk_val, faults), &x->e[1]);
}

/* CUR - OLD (both sorted): the periods added in between, in CUR. */
static int fw_snap_diff(struct site_snap *cur, int n, const struct site_snap *old, int nr_old)
{
	int out = 0;

	for (int i = 0; i < n; i++) {
		const struct site_snap *o = nr_old ? bsearch(cur[i].k, old, nr_old, sizeof(*old),
							    cmp_site_key) : NULL;
		uint64_t before = o ? o->periods : 0;

		if (cur[i].periods > before) {
			memcpy(cur[out].k, cur[i].k, sizeof(cur[i].k));
			cur[out++].periods = cur[i].periods - before;
		}
	}
	return out;
}

/* The gap's faults in proportion to X's periods (into them). */
static void fw_snap_share(struct site_snap *x, int n, uint64_t faults)
{
	uint64_t **v = xcalloc(n ? n : 1, sizeof(*v)), sum = 0;

	for (int i = 0; i < n; i++) {
		sum += x[i].periods;
		v[i] = &x[i].periods;
	}
	apportion(v, n, sum, faults);
	free(v);
}

/* Spreads N faults counted over [A, B) over the timeline buckets they cover. */
static void fw_bucket(struct prof_state *st, uint64_t a, uint64_t b, uint64_t n)
{
	struct fault_win *fw = &st->fw;
	uint64_t ia, ib, given = 0;

	if (!n)
		return;
	if (!fw->buckets)
		fw->buckets = xcalloc(NR_BUCKETS, sizeof(*fw->buckets));
	a = a > st->t0 ? a - st->t0 : 0;
	b = b > st->t0 ? b - st->t0 : 0;
	if (b <= a)
		a = b ? b - 1 : 0;
	ia = a / BUCKET_NS;
	ib = (b - 1) / BUCKET_NS;
	if (ib >= NR_BUCKETS)
		ib = NR_BUCKETS - 1;
	if (ia > ib)
		ia = ib;
	for (uint64_t i = ia; i < ib; i++) {
		uint64_t end = (i + 1) * BUCKET_NS, start = i == ia ? a : i * BUCKET_NS;
		uint64_t part = (uint64_t)((unsigned __int128)n * (end - start) / (b - a));

		fw->buckets[i] += part;
		given += part;
	}
	fw->buckets[ib] += n - given;
}

/*
 * Process P is done: its parent, when it reaps P, gets P's faults in its
 * children's count, of which what was counted of P (its last read) is a debt
 * paid off that count.  Without a parent being read, the faults since P's
 * last read are lost (it was reaped unread, or by a process not followed).
 */
static void fw_proc_done(struct prof_state *st, struct proc *p, bool read)
{
	struct proc *parent = p->parent ? proc_get(st, p->parent, false) : NULL;

	p->flt_done = true;
	if (parent && !parent->flt_done)
		parent->flt_debt += p->flt_own + p->flt_c;
	else if (!read)
		st->fw.lost++;
}

/* Reads P: the faults since its last read, 0 when it is gone. */
static uint64_t fw_read_proc(struct prof_state *st, struct proc *p)
{
	uint64_t own, c, d_own, d_c, pay;

	if (!proc_faults(p->pid, &own, &c)) {
		fw_proc_done(st, p, false);
		return 0;
	}
	d_own = own > p->flt_own ? own - p->flt_own : 0;
	d_c = c > p->flt_c ? c - p->flt_c : 0;
	pay = d_c < p->flt_debt ? d_c : p->flt_debt;
	p->flt_debt -= pay;
	p->flt_own = own;
	p->flt_c = c;
	if (p->exited) /* a zombie: its counts are final */
		fw_proc_done(st, p, true);
	return d_own + d_c - pay;
}

/* Reads the processes not done yet: the faults they added since. */
static uint64_t fw_read_procs(struct prof_state *st)
{
	uint64_t sum = 0;

	for (int i = 0; i < st->nr_procs; i++)
		if (!st->procs[i].flt_done)
			sum += fw_read_proc(st, &st->procs[i]);
	return sum;
}

/* The own faults of the processes not ended: a rate, not a count (see fw_poll). */
static uint64_t fw_own_faults(struct prof_state *st)
{
	uint64_t sum = 0, own, c;

	for (int i = 0; i < st->nr_procs; i++)
		if (!st->procs[i].exited && !st->procs[i].flt_done &&
		    proc_faults(st->procs[i].pid, &own, &c))
			sum += own;
	return sum;
}

/* The faults since the gap's last count, into the gap and the timeline. */
static uint64_t fw_gap_count(struct prof_state *st, uint64_t now)
{
	struct fault_win *fw = &st->fw;
	uint64_t n = fw_read_procs(st) + fw->pending;

	fw->pending = 0;
	fw->gaps[fw->nr_gaps - 1].faults += n;
	fw->gap_faults += n;
	fw_bucket(st, fw->gap_last_t, now, n);
	fw->gap_last_t = now;
	return n;
}

/* A process ended (its exit record): between windows, its last count now. */
static void fw_proc_exited(struct prof_state *st, struct proc *p)
{
	if (!st->fw.on || st->fw.open || !st->fw.nr_gaps || p->flt_done)
		return;
	p->exited = true;
	st->fw.pending += fw_read_proc(st, p);
}

/* Closes the event at NOW; SNAP: the maps now (taken over). */
static void fw_close(struct prof_state *st, uint64_t now, struct fw_snapshot *snap)
{
	struct fault_win *fw = &st->fw;
	struct fault_gap *g;
	uint64_t c = 0;

	for (int i = 0; i < st->faults.nr; i++)
		ioctl(st->faults.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	if (read_counts_sum(st->faults.fds, st->faults.nr, &c, NULL, NULL))
		fw->closed += c;
	/*
	 * The counts the gap starts from: faults after the disable are the
	 * gap's.  A process that ended in the window was counted there; so is
	 * a zombie, whose parent's children's count will grow by it.
	 */
	for (int i = 0; i < st->nr_procs; i++) {
		struct proc *p = &st->procs[i];

		if (p->flt_done)
			continue;
		if (!proc_faults(p->pid, &p->flt_own, &p->flt_c))
			p->flt_done = true;
		else if (p->exited)
			fw_proc_done(st, p, true);
	}
	close_fds(st->faults.fds, st->faults.links, st->faults.nr);
	memset(&st->faults, 0, sizeof(st->faults));
	fw->open = false;
	fw->open_ns += now - fw->t_open;
	fw->gaps = xrealloc(fw->gaps, (fw->nr_gaps + 1) * sizeof(*fw->gaps));
	g = &fw->gaps[fw->nr_gaps++];
	g->faults = 0;
	for (int m = 0; m < 2; m++)
		snap->n[m] = fw_snap_diff(snap->e[m], snap->n[m], fw->arm.e[m], fw->arm.n[m]);
	g->last = *snap;
	fw_snap_free(&fw->arm);
	fw->armed = false;
	fw->gap_t0 = fw->gap_last_t = now;
	fw->gap_procs = st->nr_procs;
	fw->odd = 0;
	pr_debug("profile: fault window %d closed after %.0f ms at %.0f faults/s",
		 fw->nr, (now - fw->t_open) / 1e6, fw->rate);
}

/* Opens the event again on every thread of every process not ended. */
static void fw_reopen(struct prof_state *st, uint64_t now)
{
	struct fault_win *fw = &st->fw;
	struct task_event *te = &st->faults;
	struct perf_event_attr attr = fw->attr;
	int cap = 0, err = 0;

	attr.disabled = 1;
	attr.enable_on_exec = 0;
	attr.inherit = 1;
	for (int i = 0; i < st->nr_procs; i++)
		if (!st->procs[i].exited && !st->procs[i].flt_done)
			task_event_add_threads(te, &cap, &attr, st->skel->progs.on_fault,
					       st->procs[i].pid, &err);
	/* the gap ends where the new events start counting */
	fw_gap_count(st, now);
	if (!te->nr) {
		if (err) {
			fw->reopen_failed++;
			pr_debug("profile: cannot open the page-faults event again: %s", strerror(-err));
		}
		close_fds(te->fds, te->links, 0);
		memset(te, 0, sizeof(*te));
		return;	/* counted from /proc until the end */
	}
	for (int i = 0; i < te->nr; i++)
		ioctl(te->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	fw->open = true;
	fw->nr++;
	fw->t_open = fw->last_t = now_ns();
	fw->last_count = fw_own_faults(st);
	fw->storm_t = 0;
	pr_debug("profile: fault window %d opened after a gap of %.0f ms (%" PRIu64 " faults)",
		 fw->nr, (now - fw->gap_t0) / 1e6, fw->gaps[fw->nr_gaps - 1].faults);
}

static void fw_poll(struct prof_state *st, uint64_t now)
{
	struct fault_win *fw = &st->fw;
	uint64_t c, len, before;
	double rate;

	if (!fw->on || fw->frozen || !st->started || !st->faults_ok)
		return;
	if (!fw->open) {
		before = fw->gap_last_t;
		if (now - before < 5000000)
			return;
		rate = fw_gap_count(st, now) * 1e9 / (now - before);
		fw->odd = rate > 2 * fw->rate || rate < fw->rate / 2 ? fw->odd + 1 : 0;
		/* a new process is a new phase: the window before has none of its sites */
		if (now - fw->gap_t0 >= FW_GAP_NS || rate < FW_STORM || fw->odd >= 2 ||
		    st->nr_procs > fw->gap_procs)
			fw_reopen(st, now);
		return;
	}
	/*
	 * The rate from /proc, not from the event: reading a per-task event
	 * whose task runs on another CPU interrupts that CPU (an IPI, a VM
	 * exit in a guest) every poll.
	 */
	if (now - fw->last_t < 5000000)
		return;
	c = fw_own_faults(st);
	rate = c > fw->last_count ? (c - fw->last_count) * 1e9 / (now - fw->last_t) : 0;
	fw->last_count = c;
	fw->last_t = now;
	if (rate < FW_STORM) {
		fw_snap_free(&fw->arm);	/* the storm starts again from here */
		fw->armed = false;
		fw->storm_t = 0;
		return;
	}
	/*
	 * The interval up to the storm's first poll may hold the phase before
	 * it (a program's first touches, then its storm at the same rate): the
	 * snapshots start one poll later.
	 */
	if (!fw->storm_t)
		fw->storm_t = now;
	len = fw->nr == 1 ? FW_FIRST_NS : FW_NEXT_NS;
	if (now - fw->t_open + FW_ARM_LEAD_NS < len || now - fw->storm_t < FW_ARM_NS)
		return;
	if (fw->armed && now - fw->arm_t >= FW_ARM_NS && now - fw->t_open >= len) {
		struct fw_snapshot snap;

		fw_snap(st, &snap);
		fw->rate = rate;
		fw_close(st, now, &snap);
		return;
	}
	if (!fw->armed || now - fw->arm_t >= FW_ARM_NS) {
		fw_snap_free(&fw->arm);
		fw_snap(st, &fw->arm);
		fw->armed = true;
		fw->arm_t = now;
	}
}

/* The last count of a gap the run ends in (once). */
static void fw_final(struct prof_state *st)
{
	struct fault_win *fw = &st->fw;

	if (fw->frozen)
		return;
	fw->frozen = true;
	if (fw->on && !fw->open && fw->nr_gaps)
		fw_gap_count(st, now_ns());
}

/* The page-faults event's count over all windows (false: it never opened). */
static bool fw_window_count(struct prof_state *st, uint64_t *n)
{
	uint64_t c = 0;

	if (!st->faults_ok)
		return false;
	if (st->faults.nr && !task_event_count(&st->faults, &c))
		return false;
	*n = st->fw.closed + c;
	return true;
}

/* The counters' page_faults (event_set__provide). */
static bool fw_provide(void *ctx, struct provided_count *out)
{
	struct prof_state *st = ctx;
	uint64_t ena = 0, run = 0, w;

	fw_final(st);
	if (!fw_window_count(st, &w))
		return false;
	out->count = w + st->fw.gap_faults;
	if (!st->fw.nr_gaps) {
		if (st->faults.nr)
			read_counts_sum(st->faults.fds, st->faults.nr, &w, &ena, &run);
		out->enabled_ns = ena;
		out->running_ns = run;
		snprintf(out->note, sizeof(out->note), "the fault sampler's count");
	} else {
		/* complete: the processes' own counts between the windows */
		out->enabled_ns = out->running_ns = now_ns() - st->t_start;
		snprintf(out->note, sizeof(out->note),
			 "the fault sampler's windows and /proc/PID/stat between");
	}
	return true;
}

static int cmp_hot(const void *a, const void *b)
{
	const struct profile_hotspot *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static int cmp_sum(const void *a, const void *b)
{
	const struct profile_hotsum *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct profile_fault_site *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct profile_stack *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* Adds H into the summary array (by function, or by file:line when BY_LINE). */
static void sum_add(struct profile_hotsum **arr, int *n, const struct profile_hotspot *h,
		    pid_t tid, bool by_line)
{
	const struct profile_loc *l = &h->loc;
	struct profile_hotsum *s = NULL;

	for (int i = 0; i < *n; i++) {
		struct profile_hotsum *c = &(*arr)[i];

		if (c->ev != h->ev || c->tid != tid || strcmp(c->module, l->module))
			continue;
		if (by_line ? (c->line == l->line && !strcmp(c->file, l->file) &&
			       (l->line || !strcmp(c->function, l->function))) :
			      !strcmp(c->function, l->function)) {
			s = c;
			break;
		}
	}
	if (!s) {
		*arr = xrealloc(*arr, (*n + 1) * sizeof(**arr));
		s = &(*arr)[(*n)++];
		memset(s, 0, sizeof(*s));
		s->tid = tid;
		s->ev = h->ev;
		memcpy(s->module, l->module, sizeof(s->module));
		memcpy(s->function, l->function, sizeof(s->function));
		memcpy(s->file, l->file, sizeof(s->file));
		s->line = l->line;
		if (by_line)
			memcpy(s->inlined_from, l->inlined_from, sizeof(s->inlined_from));
	} else if (!by_line && h->samples > 0 && l->line) {
		/* keep the hottest line of the function: hot[] arrives sorted */
		if (!s->line) {
			memcpy(s->file, l->file, sizeof(s->file));
			s->line = l->line;
		}
	}
	s->samples += h->samples;
	s->kernel_samples += h->kernel_samples;
	s->est_events += h->est_events;
}

/*
 * Lines for the addresses that matter: RANK < 200 and at least 0.2 % of
 * their event's samples and 10 samples (sites: of the faults, and 50 faults);
 * the others get them only from DWARF already loaded.
 */
static enum sym_detail hot_detail(int rank, uint64_t samples, uint64_t total)
{
	return rank < 200 && samples >= 10 && samples * 500 >= total ? SYM_LINES
								       : SYM_LINES_IF_LOADED;
}

static enum sym_detail site_detail(int rank, uint64_t faults, uint64_t total)
{
	return rank < 200 && faults >= 50 && faults * 500 >= total ? SYM_LINES
								    : SYM_LINES_IF_LOADED;
}

/*
 * Skid: a non-precise sample is charged to the instruction before its ip,
 * unless most of them were kernel-mode ones (their user ip is the faulting
 * instruction).
 */
static bool charge_prev(bool precise, uint64_t kernel_samples, uint64_t samples)
{
	return !precise && kernel_samples * 2 <= samples;
}

static void finish_hot(struct prof_state *st, struct profile *p, struct symbolizer *sym)
{
	int fd = bpf_map__fd(st->skel->maps.hot);
	struct prof_hot_key k;
	struct prof_hot_val v;
	struct map_iter it;
	pid_t first_tid = 0;
	bool threads_differ = false;
	int cap = 0;

	for (int i = 0; i < st->nr_evs; i++)
		p->events[p->nr_events++] = st->evs[i].info;
	map_iter_init(&it, fd, sizeof(k), sizeof(v));
	while (map_iter_next(&it, &k, &v)) {
		struct profile_hotspot *h;

		if (p->nr_hot == cap) {
			cap = cap ? cap * 2 : 256;
			p->hot = xrealloc(p->hot, cap * sizeof(*p->hot));
		}
		h = &p->hot[p->nr_hot++];
		memset(h, 0, sizeof(*h));
		h->pid = (pid_t)k.tgid;
		h->tid = (pid_t)k.tid;
		h->ev = (int)k.ev < p->nr_events ? (int)k.ev : 0;
		h->samples = v.samples;
		h->kernel_samples = v.kernel_samples;
		h->est_events = (double)v.period_sum;
		h->loc.ip = k.ip;
		if (h->ev < p->nr_events) {
			p->events[h->ev].samples += v.samples;
			p->events[h->ev].kernel_samples += v.kernel_samples;
			p->events[h->ev].est_events += h->est_events;
		}
	}
	sort_array(p->hot, p->nr_hot, sizeof(*p->hot), cmp_hot);
	for (int i = 0; i < p->nr_hot; i++) {
		struct profile_hotspot *h = &p->hot[i];
		uint64_t ip = h->loc.ip;
		enum sym_detail d = hot_detail(i, h->samples, p->events[h->ev].samples);
		const struct procmaps *m = maps_for(st, h->pid, ip);

		h->charged_ip = ip;
		if (charge_prev(p->events[h->ev].precise, h->kernel_samples, h->samples))
			symbolizer__prev_insn(sym, m, ip, &h->charged_ip);
		if (symbolizer__resolve(sym, m, h->charged_ip, false, d, &h->loc) < 0)
			p->loss.unresolved += h->samples;
		h->loc.ip = ip;
	}

	for (int i = 0; i < p->nr_hot; i++) {
		const struct profile_hotspot *h = &p->hot[i];

		sum_add(&p->funcs, &p->nr_funcs, h, 0, false);
		sum_add(&p->lines, &p->nr_lines, h, 0, true);
		sum_add(&p->thread_funcs, &p->nr_thread_funcs, h, h->tid, false);
	}
	sort_array(p->funcs, p->nr_funcs, sizeof(*p->funcs), cmp_sum);
	sort_array(p->lines, p->nr_lines, sizeof(*p->lines), cmp_sum);
	sort_array(p->thread_funcs, p->nr_thread_funcs, sizeof(*p->thread_funcs), cmp_sum);
	for (int i = 0; i < p->nr_funcs; i++)
		if (p->events[p->funcs[i].ev].samples)
			p->funcs[i].share = (double)p->funcs[i].samples /
					    p->events[p->funcs[i].ev].samples;
	for (int i = 0; i < p->nr_lines; i++)
		if (p->events[p->lines[i].ev].samples)
			p->lines[i].share = (double)p->lines[i].samples /
					    p->events[p->lines[i].ev].samples;

	/* Threads: count them; keep per-thread rows only when their hottest functions differ. */
	{
		pid_t seen[256];
		int ns = 0;
		char top0[128] = "";

		for (int i = 0; i < p->nr_thread_funcs; i++) {
			struct profile_hotsum *t = &p->thread_funcs[i];
			bool known = false;

			for (int j = 0; j < ns; j++)
				known |= seen[j] == t->tid;
			if (known)
				continue;
			if (ns < (int)ARRAY_SIZE(seen))
				seen[ns++] = t->tid;
			/* the first row of each thread is its hottest function */
			if (!first_tid) {
				first_tid = t->tid;
				memcpy(top0, t->function, sizeof(top0));
			} else if (strcmp(top0, t->function)) {
				threads_differ = true;
			}
		}
		p->nr_threads = ns;
		for (int i = 0; i < p->nr_thread_funcs; i++)
			if (p->events[p->thread_funcs[i].ev].samples)
				p->thread_funcs[i].share = (double)p->thread_funcs[i].samples /
							   p->events[p->thread_funcs[i].ev].samples;
		if (ns < 2 || !threads_differ) {
			free(p->thread_funcs);
			p->thread_funcs = NULL;
			p->nr_thread_funcs = 0;
		}
	}
}

static void finish_stacks(struct prof_state *st, struct profile *p, struct symbolizer *sym)
{
	int fd = bpf_map__fd(st->skel->maps.stack_counts);
	int sfd = bpf_map__fd(st->skel->maps.stacks);
	struct prof_stack_key k;
	struct prof_stack_key *keys = NULL;
	struct profile_stack *all = NULL;
	int n = 0, cap = 0;

	struct prof_hot_val v;
	struct map_iter it;

	map_iter_init(&it, fd, sizeof(k), sizeof(v));
	while (map_iter_next(&it, &k, &v)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			all = xrealloc(all, cap * sizeof(*all));
			keys = xrealloc(keys, cap * sizeof(*keys));
		}
		/* only the header now: frames are resolved for the top ones */
		memset(&all[n], 0, offsetof(struct profile_stack, frames));
		all[n].pid = (pid_t)k.tgid;
		all[n].ev = (int)k.ev;
		all[n].samples = v.samples;
		all[n].est_events = (double)v.period_sum;
		all[n].nr_frames = (int)k.stackid; /* temporary: the stack id */
		keys[n] = k;
		n++;
	}
	/* sort an index by samples */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n && i < TOP_STACKS; j++)
			if (all[j].samples > all[i].samples) {
				struct profile_stack t;
				struct prof_stack_key tk = keys[i];

				memcpy(&t, &all[i], offsetof(struct profile_stack, frames));
				memcpy(&all[i], &all[j], offsetof(struct profile_stack, frames));
				memcpy(&all[j], &t, offsetof(struct profile_stack, frames));
				keys[i] = keys[j];
				keys[j] = tk;
			}
	if (n > TOP_STACKS)
		n = TOP_STACKS;
	p->stacks = xcalloc(n ? n : 1, sizeof(*p->stacks));
	for (int i = 0; i < n; i++) {
		__u64 ips[PROF_STACK_DEPTH] = { 0 };
		struct profile_stack *s = &p->stacks[p->nr_stacks];
		__u32 id = (__u32)keys[i].stackid;

		memcpy(s, &all[i], offsetof(struct profile_stack, frames));
		s->nr_frames = 0;
		if (bpf_map_lookup_elem(sfd, &id, ips))
			continue;
		for (int f = 0; f < PROF_STACK_DEPTH && ips[f] && s->nr_frames < PROFILE_MAX_FRAMES; f++)
			symbolizer__resolve(sym, maps_for(st, s->pid, ips[f]), ips[f], f > 0,
					    SYM_LINES_IF_LOADED, &s->frames[s->nr_frames++]);
		p->nr_stacks++;
	}
	sort_array(p->stacks, p->nr_stacks, sizeof(*p->stacks), cmp_stack);
	free(all);
	free(keys);
}

/* The profile's name for each kind of mapping procmaps tells apart. */
static const enum profile_region_kind region_kind[MAPK__COUNT] = {
	[MAPK_HEAP] = REGION_HEAP, [MAPK_STACK] = REGION_STACK, [MAPK_ANON] = REGION_ANON,
	[MAPK_FILE] = REGION_FILE, [MAPK_OTHER] = REGION_OTHER,
};

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Whether the regions from FIRST on (one process's) cover [START, END): a
 * mapping of an earlier snapshot that they do not cover was unmapped, or
 * shrunk, before exit (a freed 64 MiB buffer merged with the anonymous
 * mapping next to it).  Only that process's regions are looked at: a build
 * runs hundreds of processes, and scanning all of them for every mapping
 * took 70 ms at the end of a run of 300 short-lived ones.
 */
static bool covered(const struct profile *p, int first, uint64_t start, uint64_t end)
{
	uint64_t (*v)[2] = NULL, at = start;
	int n = 0;

	for (int q = first; q < p->nr_regions; q++) {
		const struct profile_region *o = &p->regions[q];

		if (o->end <= start || end <= o->start)
			continue;
		if (o->start <= start && end <= o->end) {
			free(v);
			return true;
		}
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n][0] = o->start;
		v[n++][1] = o->end;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_range);
	for (int i = 0; i < n && v[i][0] <= at; i++)
		if (v[i][1] > at)
			at = v[i][1];
	free(v);
	return at >= end;
}

/* The regions of every process: the smaps snapshot at exit first, then
 * mappings of earlier snapshots the later ones do not cover (unmapped or
 * shrunk before exit), then those only its mapping records had (see
 * proc_snapshot). */
static void finish_regions(struct prof_state *st, struct profile *p)
{
	int cap = 0;

	for (int i = 0; i < st->nr_procs; i++) {
		struct proc *pr = &st->procs[i];
		int first = p->nr_regions;	/* pr's regions follow (procs are unique) */

		for (int s = pr->nr_snaps - 1; s >= 0; s--) {
			const struct procmaps *m = pr->snaps[s];

			for (int j = 0; j < m->n; j++) {
				const struct procmap *pm = &m->v[j];
				struct profile_region *r;

				if (covered(p, first, pm->start, pm->end))
					continue;
				if (p->nr_regions == cap) {
					cap = cap ? cap * 2 : 64;
					p->regions = xrealloc(p->regions, cap * sizeof(*p->regions));
				}
				r = &p->regions[p->nr_regions++];
				memset(r, 0, sizeof(*r));
				r->pid = pr->pid;
				r->start = pm->start;
				r->end = pm->end;
				r->size = pm->end - pm->start;
				memcpy(r->perms, pm->perms, sizeof(r->perms));
				memcpy(r->path, pm->path, sizeof(r->path));
				r->kind = region_kind[pm->kind];
				r->at_exit = m == pr->at_exit || s == pr->nr_snaps - 1;
				r->has_smaps = pm->has_smaps;
				r->rss = pm->rss;
				r->anon_huge = pm->anon_huge;
				r->thp_eligible = pm->thp_eligible;
				r->madv_hugepage = pm->hg;
				r->madv_nohugepage = pm->nh;
				r->aligned_2m = !(pm->start & ((2ULL << 20) - 1)) &&
						!(pm->end & ((2ULL << 20) - 1));
				r->large = (r->kind == REGION_ANON || r->kind == REGION_HEAP) &&
					   r->size >= (2ULL << 20);
			}
		}
	}
}

static int region_of(const struct profile *p, pid_t pid, uint64_t addr)
{
	for (int i = 0; i < p->nr_regions; i++)
		if (p->regions[i].pid == pid && addr >= p->regions[i].start &&
		    addr < p->regions[i].end)
			return i;
	return -1;
}

static int cmp_region_faults(const void *a, const void *b)
{
	const struct profile_region *x = a, *y = b;

	if (x->faults != y->faults)
		return x->faults < y->faults ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid - y->pid;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_site_loc(const void *a, const void *b)
{
	const struct profile_fault_site *x = a, *y = b;
	int c;

	if (x->kernel_mode != y->kernel_mode)
		return x->kernel_mode ? 1 : -1;
	if ((c = strcmp(x->loc.module, y->loc.module)) || (c = strcmp(x->loc.file, y->loc.file)))
		return c;
	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	/* without a line, one site per function */
	return strcmp(x->loc.function, y->loc.function);
}

static int cmp_site_loc_pid(const void *a, const void *b)
{
	const struct profile_fault_site *x = a, *y = b;
	int c = cmp_site_loc(a, b);

	return c ? c : x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * One site per source line (several instructions of a line fault alike), or
 * per function where there is no line information, over all processes
 * (forked workers, the runs of one program a script starts): it keeps the
 * pid and region of the process with most of its faults.
 */
static void merge_sites(struct profile *p)
{
	uint64_t best = 0;	/* the most faults of one instruction in the group */
	int out = 0;

	sort_array(p->sites, p->nr_sites, sizeof(*p->sites), cmp_site_loc_pid);
	for (int i = 0; i < p->nr_sites; i++) {
		struct profile_fault_site *d = out ? &p->sites[out - 1] : NULL;
		const struct profile_fault_site *s = &p->sites[i];

		if (d && !cmp_site_loc(d, s)) {
			if (s->pid != p->sites[i - 1].pid)
				d->nr_procs++;
			if (s->count > best) {
				best = s->count;
				d->pid = s->pid;
				d->loc.ip = s->loc.ip;
				d->loc.rel = s->loc.rel;
				d->region = s->region;
			}
			d->count += s->count;
			d->reads += s->reads;
			d->writes += s->writes;
			d->instr += s->instr;
			d->samples += s->samples;
			d->rw_unknown += s->rw_unknown;
			d->major += s->major;
			d->minor += s->minor;
			continue;
		}
		best = s->count;
		p->sites[out] = *s;
		p->sites[out++].nr_procs = 1;
	}
	p->nr_sites = out;
}

static const struct profile_fault_site *sort_sites;

static int cmp_site_idx(const void *a, const void *b)
{
	return cmp_site(&sort_sites[*(const int *)a], &sort_sites[*(const int *)b]);
}

/*
 * Splits a site's estimated faults into reads and writes by its faulting
 * instruction: a load faults for reading, a store or read-modify-write for
 * writing.  Kernel-mode faults (the kernel copying to or from user memory)
 * and instructions without an explicit memory operand stay unknown.
 */
static void site_rw(struct prof_state *st, struct symbolizer *sym, struct profile_fault_site *s)
{
	uint8_t code[16];
	struct mem_operand op;
	int n;

	s->reads = s->writes = 0;
	s->rw_unknown = s->count;
	if (s->kernel_mode)
		return;
	if (s->instr) {
		s->reads = s->instr < s->count ? s->instr : s->count;
		s->rw_unknown = s->count - s->reads;
		if (!s->rw_unknown)
			return;
	}
	n = symbolizer__code(sym, maps_for(st, s->pid, s->loc.ip), s->loc.ip, code, sizeof(code));
	if (n <= 0 || addrsample__decode(code, (size_t)n, s->loc.ip, &op) || op.skip != AS_OK)
		return;
	if (op.write)
		s->writes = s->rw_unknown;
	else if (op.read)
		s->reads += s->rw_unknown;
	else
		return;
	s->rw_unknown = 0;
}

struct share {
	uint64_t rem;
	int i;
};

static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->i - y->i;
}

/*
 * Largest-remainder rescaling: the n values *v[i], summing to FROM, become
 * integers summing to TO, each within 1 of v[i] * TO / FROM.  The samples'
 * periods give the shape of the faults (by site, region, 10 ms); the
 * page-faults event's count gives their number (see FAULT_HZ: a period is
 * approximate, and throttled samples are missing from the sum).
 */
static void apportion(uint64_t **v, int n, uint64_t from, uint64_t to)
{
	struct share *sh;
	uint64_t given = 0;

	if (!n || !from || from == to)
		return;
	sh = xcalloc(n, sizeof(*sh));
	for (int i = 0; i < n; i++) {
		unsigned __int128 x = (unsigned __int128)*v[i] * to;

		sh[i].rem = (uint64_t)(x % from);
		sh[i].i = i;
		*v[i] = (uint64_t)(x / from);
		given += *v[i];
	}
	/* the largest remainders get the units the rounding down left over */
	qsort(sh, n, sizeof(*sh), cmp_share);
	for (int i = 0; i < n && given < to; i++, given++)
		(*v[sh[i].i])++;
	free(sh);
}

/*
 * A chunk's fault counts CNT (all, major) to the regions holding the pages
 * its samples saw, in proportion to their pages; PAGES: count those pages
 * as faulted.  *LAST: the region found last (chunks come in address order).
 */
static void chunk_to_regions(struct profile *p, const struct prof_chunk_key *ck,
			     const struct prof_chunk_val *cv, const uint64_t cnt[2], int *last,
			     bool pages)
{
	int ri_of[16], nr = 0, big = 0;
	uint64_t np[16], total = 0, given[2] = { 0 };

	for (int w = 0; w < PROF_CHUNK_PAGES / 64; w++) {
		for (uint64_t bits = cv->pages[w]; bits; bits &= bits - 1) {
			uint64_t addr = (ck->chunk << PROF_CHUNK_SHIFT) +
					((uint64_t)(w * 64 + __builtin_ctzll(bits)) << PROF_PAGE_SHIFT);
			int ri, j;

			if (*last >= 0 && p->regions[*last].pid == (pid_t)ck->tgid &&
			    addr >= p->regions[*last].start && addr < p->regions[*last].end)
				ri = *last;
			else
				ri = region_of(p, (pid_t)ck->tgid, addr);
			if (ri < 0)
				continue;
			*last = ri;
			if (pages)
				p->regions[ri].pages_faulted++;
			for (j = 0; j < nr && ri_of[j] != ri; j++)
				;
			if (j == nr) {
				if (nr == (int)ARRAY_SIZE(ri_of))
					continue;
				ri_of[nr] = ri;
				np[nr++] = 0;
			}
			np[j]++;
			total++;
		}
	}
	if (!total)
		return;
	for (int j = 0; j < nr; j++) {
		struct profile_region *rg = &p->regions[ri_of[j]];
		uint64_t part[2];

		if (np[j] > np[big])
			big = j;
		for (int c = 0; c < 2; c++) {
			part[c] = cnt[c] * np[j] / total;
			given[c] += part[c];
		}
		rg->faults += part[0];
		rg->major += part[1];
	}
	/* rounding remainders to the chunk's biggest region */
	p->regions[ri_of[big]].faults += cnt[0] - given[0];
	p->regions[ri_of[big]].major += cnt[1] - given[1];
}

/*
 * The faults of each gap between windows, to the sites its last window's
 * last part sampled (in proportion to their periods then).  OVER takes the
 * shares of sites the map no longer has (none: its entries stay).
 */
static void fw_gaps_to_sites(struct prof_state *st, struct profile *p, uint64_t over[2])
{
	struct site_snap *idx = xcalloc(p->nr_sites ? p->nr_sites : 1, sizeof(*idx));

	for (int i = 0; i < p->nr_sites; i++) {
		struct prof_fault_site_key k = { .tgid = (__u32)p->sites[i].pid,
						 .kernel = p->sites[i].kernel_mode,
						 .ip = p->sites[i].loc.ip };

		memcpy(idx[i].k, &k, sizeof(k));
		idx[i].periods = (uint64_t)i;
	}
	sort_array(idx, p->nr_sites, sizeof(*idx), cmp_site_key);
	for (int g = 0; g < st->fw.nr_gaps; g++) {
		struct fault_gap *gap = &st->fw.gaps[g];
		struct site_snap *e = gap->last.e[0];

		if (!gap->last.n[0] || !gap->faults)
			continue;
		fw_snap_share(e, gap->last.n[0], gap->faults);
		for (int i = 0; i < gap->last.n[0]; i++) {
			const struct site_snap *x = p->nr_sites ?
				bsearch(e[i].k, idx, p->nr_sites, sizeof(*idx), cmp_site_key) : NULL;
			struct prof_fault_site_key k;

			memcpy(&k, e[i].k, sizeof(k));
			if (x)
				p->sites[x->periods].count += e[i].periods;
			else
				over[k.kernel ? 1 : 0] += e[i].periods;
		}
	}
	free(idx);
}

static void finish_faults(struct prof_state *st, struct profile *p, struct symbolizer *sym,
			  const uint64_t *stats)
{
	int fd = bpf_map__fd(st->skel->maps.fault_sites);
	struct prof_fault_site_key k;
	struct prof_fault_val fv;
	struct prof_chunk_key ck;
	struct prof_chunk_val cv;
	struct map_iter it;
	uint64_t *site_addr = NULL;
	uint64_t over[2] = { stats[PROF_ST_SITE_FULL], stats[PROF_ST_SITE_FULL_KERNEL] };
	int cap = 0, last = -1;
	uint64_t win, unplaced = 0;
	bool rescale;

	p->faults_measured = st->faults_ok;
	p->major_measured = st->major_ok;
	p->fault_hz = st->fault_hz;
	p->fault_samples = stats[PROF_ST_FAULT_SAMPLES];
	p->fault_max_period = stats[PROF_ST_FAULT_MAX_PERIOD];
	p->faults_exact = p->fault_max_period <= 1;
	p->faults_user = stats[PROF_ST_SITE_FULL];
	p->faults_kernel = stats[PROF_ST_SITE_FULL_KERNEL];
	p->rw_unknown = p->faults_user + p->faults_kernel;
	p->major = stats[PROF_ST_FAULTS_MAJOR];

	map_iter_init(&it, fd, sizeof(k), sizeof(fv));
	while (map_iter_next(&it, &k, &fv)) {
		struct profile_fault_site *s;

		if (p->nr_sites == cap) {
			cap = cap ? cap * 2 : 64;
			p->sites = xrealloc(p->sites, cap * sizeof(*p->sites));
			site_addr = xrealloc(site_addr, cap * sizeof(*site_addr));
		}
		s = &p->sites[p->nr_sites];
		memset(s, 0, sizeof(*s));
		s->pid = (pid_t)k.tgid;
		s->kernel_mode = k.kernel;
		s->count = fv.count;
		s->samples = fv.samples;
		s->instr = fv.instr;
		s->major = fv.major;
		s->minor = fv.count > fv.major ? fv.count - fv.major : 0;
		if (k.kernel)
			p->faults_kernel += fv.count;
		else
			p->faults_user += fv.count;
		s->loc.ip = k.ip;
		s->region = -1;
		site_addr[p->nr_sites++] = fv.last_addr;
	}
	p->fault_periods = p->faults_user + p->faults_kernel;
	/* the event's own count is exact; without it, the samples' estimate */
	fw_final(st);
	if (!fw_window_count(st, &win))
		win = p->fault_periods;
	/* and between its windows, the processes' own counts */
	p->faults = win + st->fw.gap_faults;
	p->fault_windows = st->fw.nr;
	p->fault_gap_faults = st->fw.gap_faults;
	p->fault_open_ns = st->fw.open_ns + (st->fw.open ? st->t_end - st->fw.t_open : 0);
	p->fault_gap_lost = st->fw.lost;
	for (int g = 0; g < st->fw.nr_gaps; g++)
		if (!st->fw.gaps[g].last.n[0])
			unplaced += st->fw.gaps[g].faults; /* shared as the windows' faults */
	p->minor = p->faults > p->major ? p->faults - p->major : 0;
	if (p->faults != p->fault_periods)
		p->faults_exact = false; /* samples throttled or lost, or faults between windows */
	rescale = p->fault_periods && (p->faults != p->fault_periods || st->fw.nr_gaps);
	if (rescale) {
		/* the sites (and the faults of sites that found the map full) */
		uint64_t **v = xcalloc(p->nr_sites + 2, sizeof(*v));
		uint64_t *periods = xcalloc(p->nr_sites + 1, sizeof(*periods)); /* before the rescale */
		int n = 0;

		for (int i = 0; i < p->nr_sites; i++) {
			periods[i] = p->sites[i].count;
			v[n++] = &p->sites[i].count;
		}
		v[n++] = &over[0];
		v[n++] = &over[1];
		apportion(v, n, p->fault_periods, win + unplaced);
		free(v);
		fw_gaps_to_sites(st, p, over);
		p->faults_user = over[0];
		p->faults_kernel = over[1];
		for (int i = 0; i < p->nr_sites; i++) {
			struct profile_fault_site *f = &p->sites[i];

			/* the instruction fetches are a part of the periods: the same part of the count */
			f->instr = periods[i] ? (uint64_t)(((unsigned __int128)f->instr * f->count +
							   periods[i] / 2) / periods[i]) : 0;
			if (f->count < f->major)
				f->count = f->major;
			f->minor = f->count - f->major;
			if (f->kernel_mode)
				p->faults_kernel += f->count;
			else
				p->faults_user += f->count;
		}
		free(periods);
	}
	p->fault_est = p->faults_user + p->faults_kernel;
	p->rw_unknown = over[0] + over[1];

	/* lines for the sites that matter (>= 0.2 % of the faults and 50 faults) */
	{
		int *order = xcalloc(p->nr_sites ? p->nr_sites : 1, sizeof(int));

		for (int i = 0; i < p->nr_sites; i++)
			order[i] = i;
		sort_sites = p->sites;
		sort_array(order, p->nr_sites, sizeof(int), cmp_site_idx);
		for (int r = 0; r < p->nr_sites; r++) {
			struct profile_fault_site *s = &p->sites[order[r]];
			uint64_t ip = s->loc.ip;
			enum sym_detail d = site_detail(r, s->count, p->fault_est);

			symbolizer__resolve(sym, maps_for(st, s->pid, ip), ip, s->kernel_mode, d,
					    &s->loc);
			s->loc.ip = ip;
			site_rw(st, sym, s);
			p->reads += s->reads;
			p->writes += s->writes;
			p->rw_unknown += s->rw_unknown;
		}
		free(order);
	}

	/*
	 * Chunks -> regions: each page that faulted counts for the region holding
	 * it; a chunk's fault counts go to its regions in proportion to their
	 * pages (exact for a chunk inside one region, the usual case).
	 */
	fd = bpf_map__fd(st->skel->maps.fault_chunks);
	map_iter_init(&it, fd, sizeof(ck), sizeof(cv));
	while (map_iter_next(&it, &ck, &cv)) {
		const uint64_t cnt[2] = { cv.faults, cv.major };

		chunk_to_regions(p, &ck, &cv, cnt, &last, true);
	}
	if (rescale && p->nr_regions) {
		/* the minor parts, to the windows' count: major faults are each a sample */
		uint64_t *minor = xcalloc(p->nr_regions, sizeof(*minor)), **v, sum = 0;
		uint64_t unplaced_chunks = 0;

		for (int g = 0; g < st->fw.nr_gaps; g++)
			if (!st->fw.gaps[g].last.n[1])
				unplaced_chunks += st->fw.gaps[g].faults;
		v = xcalloc(p->nr_regions, sizeof(*v));
		for (int i = 0; i < p->nr_regions; i++) {
			const struct profile_region *rg = &p->regions[i];

			minor[i] = rg->faults > rg->major ? rg->faults - rg->major : 0;
			sum += minor[i];
			v[i] = &minor[i];
		}
		if (sum)
			apportion(v, p->nr_regions, sum,
				  (uint64_t)(((unsigned __int128)sum * (win + unplaced_chunks) +
					      p->fault_periods / 2) / p->fault_periods));
		for (int i = 0; i < p->nr_regions; i++)
			p->regions[i].faults = minor[i] + p->regions[i].major;
		free(v);
		free(minor);
	}
	/* the faults between windows, as the chunks of each window's last part */
	for (int g = 0; g < st->fw.nr_gaps && p->nr_regions; g++) {
		struct fault_gap *gap = &st->fw.gaps[g];
		struct site_snap *e = gap->last.e[1];

		if (!gap->last.n[1] || !gap->faults)
			continue;
		fw_snap_share(e, gap->last.n[1], gap->faults);
		for (int i = 0; i < gap->last.n[1]; i++) {
			const uint64_t cnt[2] = { e[i].periods, 0 };

			memcpy(&ck, e[i].k, sizeof(ck));
			if (e[i].periods && !bpf_map_lookup_elem(fd, &ck, &cv))
				chunk_to_regions(p, &ck, &cv, cnt, &last, false);
		}
	}
	/* sort regions by faults, then name each site's region */
	sort_array(p->regions, p->nr_regions, sizeof(*p->regions), cmp_region_faults);
	for (int i = 0; i < p->nr_sites; i++) {
		p->sites[i].region = region_of(p, p->sites[i].pid, site_addr[i]);
		if (p->sites[i].region >= 0)
			p->regions[p->sites[i].region].writes += p->sites[i].writes;
	}
	merge_sites(p);
	sort_array(p->sites, p->nr_sites, sizeof(*p->sites), cmp_site);
	free(site_addr);

	/* timeline */
	{
		int tfd = bpf_map__fd(st->skel->maps.timeline);
		/* faults before started() were bucketed from the t0 set at open */
		uint64_t dur = (st->t_end > st->t_open ? st->t_end - st->t_open : 0);
		int n = (int)(dur / BUCKET_NS) + 2;
		uint64_t sum = 0;

		if (n > NR_BUCKETS)
			n = NR_BUCKETS;
		p->bucket_ns = BUCKET_NS;
		p->timeline = xcalloc(n, sizeof(*p->timeline));
		for (__u32 i = 0; i < (__u32)n; i++) {
			struct prof_bucket b;

			if (bpf_map_lookup_elem(tfd, &i, &b))
				continue;
			p->timeline[i].faults = b.faults;
			p->timeline[i].major = b.major;
			sum += b.faults;
			if (b.faults || b.major)
				p->nr_buckets = (int)i + 1;
		}
		if (rescale && p->nr_buckets) {
			/* the windows' buckets to the windows' count ... */
			uint64_t **v = xcalloc(p->nr_buckets, sizeof(*v));

			for (int i = 0; i < p->nr_buckets; i++)
				v[i] = &p->timeline[i].faults;
			apportion(v, p->nr_buckets, sum,
				  (uint64_t)(((unsigned __int128)sum * win +
					      p->fault_periods / 2) / p->fault_periods));
			free(v);
		}
		/* ... and the gaps' as they were counted */
		for (int i = 0; st->fw.buckets && i < n; i++) {
			p->timeline[i].faults += st->fw.buckets[i];
			if (st->fw.buckets[i] && i >= p->nr_buckets)
				p->nr_buckets = i + 1;
		}
	}
}

static void finish_thp(struct prof_state *st, struct profile *p, struct report *r)
{
	struct thp_load *t = &st->thp;
	int fd = -1;
	__u32 k, next, *prev = NULL;
	uint64_t vm[2];

	if (st->skel) {
		thp_join(st);
		if (t->skel && !t->err)
			fd = bpf_map__fd(t->skel->maps.thp);
		else if (t->what)
			report__add_provenance(r, "huge_pages", "khugepaged activity not measured: cannot %s the khugepaged programs: %s (they need kernel BTF)",
					       t->what, strerror(-t->err));
	}
	p->thp_measured = fd >= 0;
	p->thp_delay_ns = t->delay_ns;
	if (p->thp_measured)
		p->thp_watch_from_ns = t->t_attached > st->t_start ? t->t_attached - st->t_start : 0;
	/* what khugepaged did system-wide while the programs were not attached */
	if (p->thp_measured ? t->vm_ok : t->vm_ok && vmstat_collapses(vm)) {
		const uint64_t *end = p->thp_measured ? t->vm1 : vm;

		p->thp_unwatched_known = true;
		p->thp_unwatched.collapse_ok = end[0] - t->vm0[0];
		p->thp_unwatched.collapse_fail = end[1] - t->vm0[1];
	}
	if (st->skel && !t->started && st->started)
		report__add_provenance(r, "huge_pages", "khugepaged programs not attached: the run ended before %.1f s (khugepaged wakes every %.1f s); %s",
				       t->delay_ns / 1e9, t->sleep_ms / 1e3,
				       p->thp_unwatched_known ? "collapses counted system-wide from /proc/vmstat" : "/proc/vmstat unreadable");
	if (fd >= 0) {
		int sfd = bpf_map__fd(t->skel->maps.thp_stats);
		__u32 idx = PROF_THP_NO_OWNER;
		__u64 *v = xcalloc(st->nr_cpus, sizeof(*v)), n = 0;

		if (!bpf_map_lookup_elem(sfd, &idx, v))
			for (int c = 0; c < st->nr_cpus; c++)
				n += v[c];
		free(v);
		if (n)
			report__add_provenance(r, "huge_pages", "%" PRIu64 " khugepaged events on an mm without an owner task (kernel without CONFIG_MEMCG?): not attributed",
					       (uint64_t)n);
	}
	if (sysinfo__thp_mode(p->thp_mode, sizeof(p->thp_mode)) < 0)
		p->thp_mode[0] = '\0';
	if (sysinfo__thp_defrag(p->thp_defrag, sizeof(p->thp_defrag)) < 0)
		p->thp_defrag[0] = '\0';
	while (fd >= 0 && bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct prof_thp_val v;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		p->thp.scan_pmd += v.scan_pmd;
		p->thp.collapse_ok += v.collapse_ok;
		p->thp.collapse_fail += v.collapse_fail;
	}
}

/*
 * Symbolising while the target runs.  The libdwfl sessions, DWARF and
 * build-id cache that finish needs are built here, on memadvise's CPU while
 * the program runs on another, instead of after it exits: 3-5 ms of a short
 * run's wall time with small programs, far more with big libraries.  Each
 * pass reads the hot-spot and fault-site maps, ranks them as finish will and
 * resolves, within WARM_BUDGET_NS, what is not cached yet; maps_for() hands
 * out the same snapshot then and at the end, so finish finds the sessions.
 * The first pass runs WARM_FIRST_NS into the run (a shorter run is
 * symbolised at the end, as before), then every WARM_EVERY_NS.
 */
struct warm_ent {
	pid_t pid;
	uint64_t ip, weight, kernel;
	int ev;
};

static int cmp_warm(const void *a, const void *b)
{
	const struct warm_ent *x = a, *y = b;

	return x->weight < y->weight ? 1 : x->weight > y->weight ? -1 : 0;
}

static void warm_push(struct warm_ent **a, int *n, int *cap, struct warm_ent e)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*a = xrealloc(*a, *cap * sizeof(**a));
	}
	(*a)[(*n)++] = e;
}

static void warm_symbols(struct prof_state *st)
{
	struct warm_ent *hot = NULL, *sites = NULL;
	int nh = 0, ns = 0, hcap = 0, scap = 0, i = 0, j = 0;
	uint64_t totals[PROF_MAX_EVENTS] = { 0 }, faults = 0, t0 = now_ns();
	struct map_iter it;
	struct prof_hot_key hk;
	struct prof_hot_val hv;
	struct prof_fault_site_key fk;
	struct prof_fault_val fv;
	struct profile_loc loc;

	if (!st->sym)
		st->sym = symbolizer__new();
	map_iter_init(&it, bpf_map__fd(st->skel->maps.hot), sizeof(hk), sizeof(hv));
	while (map_iter_next(&it, &hk, &hv)) {
		int ev = (int)hk.ev < st->nr_evs ? (int)hk.ev : 0;

		warm_push(&hot, &nh, &hcap, (struct warm_ent){ (pid_t)hk.tgid, hk.ip, hv.samples,
							       hv.kernel_samples, ev });
		totals[ev] += hv.samples;
	}
	map_iter_init(&it, bpf_map__fd(st->skel->maps.fault_sites), sizeof(fk), sizeof(fv));
	while (map_iter_next(&it, &fk, &fv)) {
		warm_push(&sites, &ns, &scap,
			  (struct warm_ent){ (pid_t)fk.tgid, fk.ip, fv.count, fk.kernel, 0 });
		faults += fv.count;
	}
	sort_array(hot, nh, sizeof(*hot), cmp_warm);
	sort_array(sites, ns, sizeof(*sites), cmp_warm);
	while ((i < nh || j < ns) && now_ns() - t0 < WARM_BUDGET_NS) {
		/* the heavier of the next hot spot and the next fault site first */
		if (i < nh && (j >= ns || hot[i].weight * (faults ? faults : 1) >=
						  sites[j].weight * (totals[hot[i].ev] ? totals[hot[i].ev] : 1))) {
			const struct warm_ent *e = &hot[i];
			const struct procmaps *m = maps_for(st, e->pid, e->ip);
			uint64_t ip = e->ip;

			if (charge_prev(st->evs[e->ev].info.precise, e->kernel, e->weight))
				symbolizer__prev_insn(st->sym, m, e->ip, &ip);
			symbolizer__resolve(st->sym, m, ip, false,
					    hot_detail(i, e->weight, totals[e->ev]), &loc);
			i++;
		} else {
			const struct warm_ent *e = &sites[j];

			symbolizer__resolve(st->sym, maps_for(st, e->pid, e->ip), e->ip, e->kernel,
					    site_detail(j, e->weight, faults), &loc);
			j++;
		}
	}
	pr_debug("profile: symbolised %d of %d hot spots and %d of %d fault sites while running in %.1f ms",
		 i, nh, j, ns, (now_ns() - t0) / 1e6);
	free(hot);
	free(sites);
}

/* Where the hot spots came from, when the tick was to sample them. */
static void tick_provenance(struct prof_state *st, struct profile *p, struct report *r,
			    const uint64_t *stats)
{
	struct tick_load *t = &st->tick;
	struct profile_event *e = p->nr_events ? &p->events[0] : NULL;

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

static int profile_finish(void *state, struct report *r)
{
	struct prof_state *st = state;
	struct symbolizer *sym;
	struct profile *p;
	uint64_t stats[PROF_ST__COUNT];
	uint64_t t[7];

	if (!st)
		return -ENODEV;
	st->t_end = now_ns();
	/* stop sampling before reading */
	tick_switch(st, false);
	if (st->tick.live)
		st->tick.skel->bss->live = 0;
	for (int e = 0; e < st->nr_evs; e++)
		for (int i = 0; st->evs[e].fds && i < st->evs[e].nr; i++)
			ioctl(st->evs[e].fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < st->faults.nr; i++)
		ioctl(st->faults.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < st->major.nr; i++)
		ioctl(st->major.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	drain_side(st);
	/* a target that was not stopped at exit (-p): take what is still there */
	for (int i = 0; i < st->nr_procs; i++) {
		struct proc *pr = &st->procs[i];

		if (pr->pid == st->pid && !pr->at_exit)
			proc_snapshot(st, pr, true);
		else if (!pr->nr_snaps || pr->recs.changed)
			proc_snapshot(st, pr, false);
	}

	p = xcalloc(1, sizeof(*p));
	/* the one built while the target ran, with its sessions and cache */
	sym = st->sym ? st->sym : symbolizer__new();
	st->sym = NULL;
	memset(stats, 0, sizeof(stats));
	p->duration_ns = st->t0 ? st->t_end - st->t0 : 0;
	t[0] = now_ns();
	if (st->skel) {
		read_stats(st, stats);
		finish_hot(st, p, sym);
	}
	t[1] = now_ns();
	if (st->skel)
		finish_stacks(st, p, sym);
	t[2] = now_ns();
	/* regions and their THP state come from /proc: also without BPF */
	finish_regions(st, p);
	t[3] = now_ns();
	if (st->skel)
		finish_faults(st, p, sym, stats);
	else
		sort_array(p->regions, p->nr_regions, sizeof(*p->regions), cmp_region_faults);
	t[4] = now_ns();
	finish_thp(st, p, r);
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
			    !(parent = proc_get(st, c->parent, false)))
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
		struct profile_proc *pp = &p->procs[p->nr_procs++];

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
	if (r->profile)
		profile__free(r->profile);
	r->profile = p;
	return 0;
}

static void profile_destroy(void *state)
{
	struct prof_state *st = state;

	if (!st)
		return;
	for (int e = 0; e < st->nr_evs; e++)
		close_fds(st->evs[e].fds, st->evs[e].links, st->evs[e].nr);
	close_fds(st->faults.fds, st->faults.links, st->faults.nr);
	close_fds(st->major.fds, st->major.links, st->major.nr);
	for (int g = 0; g < st->fw.nr_gaps; g++)
		fw_snap_free(&st->fw.gaps[g].last);
	free(st->fw.gaps);
	fw_snap_free(&st->fw.arm);
	free(st->fw.buckets);
	thp_join(st);
	thp_destroy(&st->thp);
	ring_buffer__free(st->regs_rb);
	tick_destroy(&st->tick);
	if (st->side)
		evring__close(st->side);
	profile_bpf__destroy(st->skel);
	symbolizer__free(st->sym); /* before the snapshots it refers to */
	for (int i = 0; i < st->nr_procs; i++) {
		for (int s = 0; s < st->procs[i].nr_snaps; s++)
			procmaps__free(st->procs[i].snaps[s]);
		free(st->procs[i].snaps);
		maprecs__clear(&st->procs[i].recs);
	}
	free(st->procs);
	free(st);
}

const struct collector collector_profile = {
	.name = "profile",
	.wanted = profile_wanted,
	.open = profile_open,
	.started = profile_started,
	.poll = profile_poll,
	.at_exit = profile_at_exit,
	.finish = profile_finish,
	.destroy = profile_destroy,
};
