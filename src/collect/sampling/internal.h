/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of the "profile" collector share (profiler.h is its public
 * header): its state, the processes it follows, its fault windows, and the
 * functions one file calls in another.
 *   collector.c  the collector's table and life cycle
 *   procs.c      processes followed, their memory maps, side-band records
 *   events.c     the sampling and page-fault events on the target
 *   load.c       the BPF objects (preloaded on a thread), the tick sampler
 *   tracing.c    the programs that need the kernel's BTF, in one object
 *   thp.c        the khugepaged programs, huge-page state at finish
 *   systime.c    time in system calls and futex waits (bpf/systime.bpf.c)
 *   faults.c     fault windows in a fault storm
 *   readout.c    the maps read into struct sampling: hot spots, stacks, regions
 *   sites.c      the maps read into struct sampling: fault sites, regions' faults, timeline
 *   warm.c       symbolising while the target runs
 */
#ifndef __MA_PROFILE_INTERNAL_H
#define __MA_PROFILE_INTERNAL_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <bpf/libbpf.h>

#include "collect/collector.h"
#include "base/u64map.h"
#include "collect/maprecs.h"
#include "model/sampling.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"

#include "bpf/sampler.h" /* BPF-shared types */

struct sampler_bpf;
struct tracing_bpf;
struct evring;
struct report;


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
#define WARM_FIRST_NS 250000000ULL	/* symbolising while running: see prof_warm_symbols */
#define WARM_EVERY_NS 2000000000ULL
#define WARM_BUDGET_NS 25000000ULL
#define MAX_SNAPS 16		/* memory-map snapshots kept per process */
#define TOP_STACKS 20
#define MAX_CPUS 1024
/*
 * When the tick sampler is attached, into the run: attaching a tracepoint
 * patches kernel text (IPIs to every CPU), which a program that ends sooner
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
	struct sampling_event info;
	int *fds;			/* per task (see open_task_event); NULL: not ours */
	struct bpf_link **links;
	int nr;				/* entries of links (and fds) */
};

/*
 * The tracing object (tracing.c): the tick and system-call programs, which
 * need the kernel's BTF, in one object, or when that does not load, each
 * group in an object of its own.  The khugepaged programs (TR_THP) come
 * later, from the same object with the others left out (thp.c).
 */
enum tr_group { TR_TICK, TR_SYSTIME, TR_THP, TR__COUNT };

struct tracing_load {
	struct tracing_bpf *obj[TR__COUNT];	/* the object of each group's programs, NULL */
	bool owned[TR__COUNT];		/* obj[g] is destroyed through g */
	int err[TR__COUNT];		/* -errno; -EOPNOTSUPP: not loaded here */
	const char *what[TR__COUNT];	/* what failed */
	bool tried;
	bool split;			/* loaded group by group */
	uint64_t ns;
};

/*
 * The khugepaged programs (bpf/thp.bpf.c), loaded from the tracing object
 * with the others left out, on a thread once the target has run for a
 * while (see prof_thp_delay_ns).  Collapses anywhere on the
 * system before they were attached are counted from /proc/vmstat.
 */
struct thp_load {
	pthread_t thread;
	bool running, started;
	struct sampler_bpf *sampler;	/* whose process set it shares */
	struct tracing_bpf *skel;
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
 * The tick sampler (bpf/tick.bpf.c), loaded ahead with the other programs
 * of the tracing object and attached on a thread as the target starts;
 * until it is attached, the profile samples cpu-clock at the tick's rate
 * (see prof_open_sampling).
 */
struct tick_load {
	pthread_t thread;
	bool started;
	bool running;		/* the thread was started and not joined */
	volatile bool done;	/* the thread is finished (its result is in) */
	bool live;		/* the tick counts; the cpu-clock events are off */
	unsigned int hz;
	bool regs_out;
	uint64_t since_ns;	/* attached: CLOCK_MONOTONIC of the attach, else 0 */
	struct tracing_bpf *skel;	/* NULL: not loaded (err, what) */
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

struct prof_state {
	struct sampler_bpf *skel;
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
	struct tracing_load tr;		/* the tracing object(s) */
	bool tr_pending;		/* tr is still loading (prof_tracing_take) */
	struct tracing_bpf *systime;	/* NULL: system calls not traced */
	struct bpf_link *systime_links[3];
	int systime_err;		/* -errno of its load or attach */
	const char *systime_what;	/* what failed, when there was no report to say it */
	bool systime_deferred;		/* attached once tr is loaded, as the target runs */
	uint64_t systime_late_ns;	/* how far into the run it was attached */
	bool tick_planned;	/* the tick samples (sampler__tick_plan) */
	struct tick_load tick;
	struct ring_buffer *regs_rb;	/* regs_ring, read into the sw-addr collector */
	struct run_shared *shared;
	int attach_failed;
	struct proc *procs;
	int nr_procs, cap_procs;
	struct u64map proc_idx;		/* pid -> index in procs + 1 (the first with that pid) */
	struct symbolizer *sym;	/* built while the target runs (see prof_warm_symbols) */
	uint64_t next_warm;	/* CLOCK_MONOTONIC of the next pass, 0: none yet */
	uint64_t t0, t_open, t_start, last_refresh, t_end;
};



/* procs.c */
void prof_proc_read_comm(struct proc *p);
void prof_proc_read_exe(struct proc *p);
struct proc *prof_proc_get(struct prof_state *st, pid_t pid, bool create);
void prof_proc_snapshot(struct prof_state *st, struct proc *p, bool smaps);
void prof_open_side(struct prof_state *st, struct report *r);
void prof_drain_side(struct prof_state *st);
const struct procmaps *prof_maps_for(struct prof_state *st, pid_t pid, uint64_t addr);

/* events.c */
void prof_close_fds(int *fds, struct bpf_link **links, int n);
bool prof_task_event_add_threads(struct task_event *te, int *cap, struct perf_event_attr *attr,
				 struct bpf_program *prog, pid_t pid, int *err);
bool prof_task_event_count(const struct task_event *te, uint64_t *count);
int prof_open_sampling(struct prof_state *st, const struct run_ctx *ctx, struct report *r);
void prof_open_faults(struct prof_state *st, struct report *r);

/* load.c */
struct skel_load {
	struct sampler_bpf *skel;
	int err;		/* -errno */
	bool opened;		/* failed in load (not open) when err */
	uint64_t open_ns, load_ns;
	/* the tracing object, loaded after it (not attached) */
	struct tracing_load tr;
	bool tr_pending;	/* still loading on the preload thread: prof_tracing_take() */
};

void prof_skel_take(struct skel_load *l);
/*
 * The tracing object the preload thread loads after the sampler object
 * (prof_skel_take() gave tr_pending): into *TR once loaded, true; false
 * when it is not yet and WAIT is false.
 */
bool prof_tracing_take(struct tracing_load *tr, bool wait);
void prof_tick_start(struct prof_state *st);
void prof_tick_switch(struct prof_state *st, bool target_runs);
void prof_tick_destroy(struct tick_load *t);

/* thp.c */
bool prof_vmstat_collapses(uint64_t v[2]);
uint64_t prof_thp_delay_ns(uint64_t *sleep_ms);
void prof_thp_start(struct prof_state *st);
void prof_thp_join(struct prof_state *st);
void prof_thp_destroy(struct thp_load *t);
void prof_finish_thp(struct prof_state *st, struct sampling *p, struct report *r);

/* tracing.c */
int prof_tracing_open(struct tracing_bpf **out, struct sampler_bpf *s, unsigned int groups,
		      int first, const char **what);
void prof_tracing_load(struct tracing_load *tl, struct sampler_bpf *s);
void prof_tracing_destroy(struct tracing_load *tl);

/* systime.c */
void prof_systime_open(struct prof_state *st, struct report *r);
void prof_finish_systime(struct prof_state *st, struct sampling *p, struct report *r,
			 struct symbolizer *sym);
void prof_systime_destroy(struct prof_state *st);

/* faults.c */
int prof_cmp_site_key(const void *a, const void *b);
void prof_fw_snap_free(struct fw_snapshot *x);
void prof_fw_snap_share(struct site_snap *x, int n, uint64_t faults);
uint64_t prof_fw_gap_count(struct prof_state *st, uint64_t now);
void prof_fw_proc_exited(struct prof_state *st, struct proc *p);
void prof_fw_poll(struct prof_state *st, uint64_t now);
void prof_fw_final(struct prof_state *st);
bool prof_fw_window_count(struct prof_state *st, uint64_t *n);
bool prof_fw_provide(void *ctx, struct provided_count *out);

/* readout.c */
/*
 * A map that finish reads: the BPF map itself (FD), or its contents recorded
 * as the map holds them, N keys and N values laid out per bpf/sampler.h (an
 * array map's keys are its indexes), so that the read-out also runs on
 * recorded contents without BPF.
 */
struct prof_map {
	int fd;			/* the map; < 0: KEYS and VALS */
	const void *keys, *vals;
	int n;
};

/* The profile object's maps that finish reads. */
struct prof_maps {
	struct prof_map hot, stack_counts, stacks, fault_sites, fault_chunks, timeline;
};

/*
 * Reads a whole hash map in batches of 4096 (one syscall each, instead of two
 * per entry: 100k fault pages took 0.3 s the slow way); falls back to
 * get_next_key + lookup where batches are not supported.  Recorded contents
 * (struct prof_map) are read from REC_KEYS and REC_VALS.
 */
struct map_iter {
	int fd;
	size_t ksz, vsz;
	char *keys, *vals;
	__u32 n, i;
	bool started, done, slow;
	__u64 cursor;
	char prev[64];
	const char *rec_keys, *rec_vals;
};

void prof_map_iter_init(struct map_iter *it, int fd, size_t ksz, size_t vsz);
bool prof_map_iter_next(struct map_iter *it, void *key, void *val);
/* prof_map_iter_init() on a map or on recorded contents. */
void prof_map_iter_open(struct map_iter *it, const struct prof_map *m, size_t ksz, size_t vsz);
/* The value of KEY in M into VAL: 0, or -ENOENT (as bpf_map_lookup_elem). */
int prof_map_lookup(const struct prof_map *m, size_t ksz, size_t vsz, const void *key, void *val);
void prof_maps__of_skel(struct prof_maps *m, struct sampler_bpf *skel);
/* qsort that accepts an empty (NULL) array. */
void prof_sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void prof_read_stats(struct prof_state *st, uint64_t *out);
enum sym_detail prof_hot_detail(int rank, uint64_t samples, uint64_t total);
enum sym_detail prof_site_detail(int rank, uint64_t faults, uint64_t total);
bool prof_charge_prev(bool precise, uint64_t kernel_samples, uint64_t samples);
/*
 * The read-out (finish): the maps M into P.  They use of ST the events
 * (nr_evs, evs), the processes and their snapshots (prof_maps_for), the
 * fault windows and the run's times; none of them needs BPF.
 */
void prof_finish_hot(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
		     struct symbolizer *sym);
void prof_finish_stacks(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
			struct symbolizer *sym);
/* ACTIVE (pids, NULL: all): the processes other than the main one whose regions are read */
void prof_finish_regions(struct prof_state *st, struct sampling *p, const struct u64map *active);

/* sites.c */
int prof_cmp_region_faults(const void *a, const void *b);
void prof_apportion(uint64_t **v, int n, uint64_t from, uint64_t to);
/* STATS: the stats map's counts summed over the CPUs (prof_read_stats). */
void prof_finish_faults(struct prof_state *st, const struct prof_maps *m, struct sampling *p,
			struct symbolizer *sym, const uint64_t *stats);

/* warm.c */
void prof_warm_symbols(struct prof_state *st);

#endif
