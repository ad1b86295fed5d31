/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sampling results of 'memadvise run' (collect/sampling/; its JSON section and
 * provenance name is "profile"):
 * code hot spots, page faults, memory regions with their huge-page state,
 * and what was lost on the way.  A plain data structure: the rules engine and
 * the emitters read it, nothing in it points back into the collector.
 *
 * Conventions:
 *  - Every array is sorted, biggest first, and owns its memory
 *    (sampling__free releases everything).
 *  - Strings are fixed arrays, "" when unknown (never NULL).  A location
 *    without debug information has file "" and line 0.
 *  - "samples" are raw samples of the sampling event; "est_events" =
 *    sum of the sample periods (for cpu-clock: nanoseconds of CPU time, for
 *    a miss event: estimated misses).  The event says which (events[ev]).
 *  - The page-fault total is the page-faults event's exact count (with, in
 *    a fault storm, the processes' own counts between its windows); the
 *    breakdowns (sites, regions, timeline) are estimates from its samples.
 *  - pid is the process (thread-group id), tid the thread; tid 0 in an
 *    aggregated row means "all threads".
 */
#ifndef __MA_MODEL_SAMPLING_H
#define __MA_MODEL_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "model/report.h"

struct json_object;

#define SAMPLING_MAX_FRAMES 32

/* A symbolised code address. */
struct sampling_loc {
	uint64_t ip;		  /* runtime address in the process */
	uint64_t rel;		  /* address relative to its module (as in the file) */
	char module[128];	  /* basename of the ELF file, "[unknown]" when unmapped */
	char function[128];	  /* innermost function (an inlined one when inlined) */
	char inlined_from[128];	  /* the function it is inlined into, "" when not inlined */
	char file[256];		  /* source file of the line */
	int line;		  /* 0 when there is no line information */
};

/* One sampling event that was used. */
struct sampling_event {
	char name[48];		  /* "cpu-clock", "llc_miss", ... */
	char encoding[128];	  /* what was opened */
	char unit[16];		  /* unit of est_events: "ns" (cpu-clock), "events" */
	enum tier tier;		  /* TIER_SOFTWARE, TIER_COUNTING or TIER_PRECISE */
	bool precise;		  /* precise_ip > 0 */
	bool freq;		  /* frequency mode (period varies) */
	uint64_t freq_hz;	  /* asked frequency */
	uint64_t period;	  /* fixed period (freq == false) */
	int nr_cpus;		  /* per-CPU events opened */
	uint64_t samples;	  /* samples of the target */
	uint64_t kernel_samples;  /* of which taken in kernel mode */
	double est_events;	  /* sum of periods */
};

/*
 * A hot code address of one thread (raw, per ip).  loc.ip is the sampled ip;
 * loc's function and line are those of charged_ip: for events that interrupt
 * after the stalled instruction retired (cpu-clock, non-precise counters) the
 * instruction before the sampled one, else the sampled one.
 */
struct sampling_hotspot {
	pid_t pid, tid;
	int ev;			  /* index into events[] */
	struct sampling_loc loc;
	uint64_t charged_ip;
	uint64_t samples;
	uint64_t kernel_samples;  /* samples in kernel mode on behalf of this ip (faults, syscalls) */
	double est_events;
};

/* Hot spots aggregated by function (funcs[], thread_funcs[]) or source line (lines[]). */
struct sampling_hotsum {
	pid_t tid;		  /* 0: all threads; else one thread (thread_funcs[]) */
	int ev;
	char module[128];
	char function[128];
	char inlined_from[128];	  /* lines[] only: the caller it is inlined into */
	char file[256];		  /* lines[]: the line's file; funcs[]: file of the hottest line */
	int line;		  /* lines[]: the line; funcs[]: the hottest line */
	uint64_t samples;
	uint64_t kernel_samples;
	double est_events;
	double share;		  /* samples / all samples of this event, 0..1 */
};

/* A user call stack (frame 0 = sampled ip). */
struct sampling_stack {
	pid_t pid;
	int ev;
	uint64_t samples;
	double est_events;
	int nr_frames;
	struct sampling_loc frames[SAMPLING_MAX_FRAMES];
};

/*
 * Page faults of one code location (faulting instruction).  Counts are
 * estimates from samples (each stands for its period of faults; exact when
 * every fault was a sample); major faults are exact.  Reads and writes come
 * from decoding the faulting instruction: a fault in kernel mode, or at an
 * instruction without an explicit memory operand (call, push), is neither.
 */
struct sampling_fault_site {
	pid_t pid;		  /* the process with most of its faults */
	int nr_procs;		  /* processes that faulted there (the same code) */
	bool kernel_mode;	  /* taken in kernel mode (copy to/from user): loc is the syscall site */
	struct sampling_loc loc;
	uint64_t count, samples, reads, writes, rw_unknown, instr, major, minor;
	int region;		  /* index into regions[] of its last faulting address, -1 unknown */
};

enum sampling_region_kind {
	REGION_HEAP,		  /* [heap] (brk) */
	REGION_STACK,		  /* [stack] */
	REGION_ANON,		  /* anonymous mmap */
	REGION_FILE,		  /* file mapping: path */
	REGION_OTHER,		  /* [vdso], [vvar], ... */
};
const char *sampling__region_kind_name(enum sampling_region_kind k);

/*
 * Faults per faulted page, estimated from S samples standing for F faults
 * that saw D distinct pages (capture-recapture: each of N pages faults R
 * times, each fault sampled with p = S/F; S/D = Rp / (1 - (1-p)^R)).  LOWER:
 * the bound with the repeated samples (S - D) two standard deviations low
 * (none when every fault was a sample: then S/D is exact).
 * 1 when nothing repeated; 0 when D is 0 (unknown).
 */
double sampling__faults_per_page(uint64_t s, uint64_t d, uint64_t f, bool lower);
/* Which allocator made a region: what fix applies to it. */
enum sampling_region_alloc {
	REGION_ALLOC_UNKNOWN,
	REGION_ALLOC_MALLOC_BRK,	/* the main arena's [heap] */
	REGION_ALLOC_MALLOC_CHUNK,	/* one malloc block over mmap_threshold */
	REGION_ALLOC_MALLOC_ARENA,	/* a thread arena's heap */
	REGION_ALLOC_MMAP,		/* mmap by the program (no malloc header) */
	REGION_ALLOC_STATIC,		/* .bss after the data of an ELF file */
	REGION_ALLOC_STACK,
};
/* "malloc heap (brk)", "mmap", ...; what 'allocation' says in JSON */
const char *sampling__region_alloc_name(enum sampling_region_alloc a);

/* A memory region (VMA) of a target process. */
struct sampling_region {
	pid_t pid;
	uint64_t start, end, size;
	enum sampling_region_kind kind;
	char perms[8];		  /* "rw-p" */
	char path[256];		  /* file path or "[heap]"...; "" for anonymous */
	/*
	 * Faults on its pages (estimated, as a site's).  Counted per 2 MiB chunk
	 * of address space: a chunk shared with another region is split in
	 * proportion to each one's sampled pages.  Writes: of the faults of the
	 * sites whose last sampled address is in the region.
	 */
	uint64_t faults, writes, major;
	uint64_t pages_faulted;	  /* distinct 4 KiB pages seen in samples (all when faults_exact) */
	/*
	 * Re-faulting: the samples that saw its pages fault (S) and the faults
	 * they stood for (F, the periods while the event was open), against
	 * the distinct pages they saw (pages_faulted, D).  A page faults
	 * again only after it was unmapped, zapped or made read-only again.
	 */
	uint64_t fault_samples, fault_sampled;
	bool at_exit;		  /* seen in the snapshot at exit (else only earlier) */
	/* Huge pages (from /proc/PID/smaps at exit; has_smaps false = unknown). */
	bool has_smaps;
	uint64_t rss;		  /* bytes */
	uint64_t anon_huge;	  /* AnonHugePages, bytes */
	int thp_eligible;	  /* THPeligible 0/1, -1 unknown */
	bool madv_hugepage;	  /* VmFlags hg */
	bool madv_nohugepage;	  /* VmFlags nh */
	bool aligned_2m;	  /* start and end on 2 MiB boundaries */
	bool large;		  /* anonymous (incl. heap) and >= 2 MiB: a huge-page candidate */
	enum sampling_region_alloc alloc; /* read at exit (has_smaps); else from the kind */
};

struct sampling_bucket {
	uint64_t faults;
	uint64_t major;
};

/* khugepaged / MADV_COLLAPSE activity seen on the target's mm. */
struct sampling_thp {
	uint64_t scan_pmd, collapse_ok, collapse_fail;
};

/* A process of the target (the main one first, then forked children). */
struct sampler_proc {
	pid_t pid, parent;
	char comm[16];
	char exe[256];		  /* the executable it ran last, "" unknown */
	bool execed, exited;
	bool maps;		  /* its memory map was captured (symbols, regions) */
};

/*
 * What was lost or not measured (0 means nothing lost).  A count whose
 * collector did not run is not 0 but unknown: JSON null.
 */
struct sampling_loss {
	uint64_t hot_full;	  /* samples not aggregated by ip: map full */
	uint64_t stack_err;	  /* samples without a user stack (collision or no stack) */
	uint64_t stack_full;
	uint64_t site_full;	  /* faults not aggregated by site: map full */
	uint64_t page_full;	  /* faults not aggregated by address (region counts are low) */
	uint64_t timeline_late;	  /* faults after the last timeline bucket */
	uint64_t proc_events;	  /* fork/exec/exit records dropped */
	bool proc_events_known;	  /* the side-band ring was open */
	uint64_t procs_full;	  /* children not followed */
	uint64_t unresolved;	  /* samples whose ip is in no captured mapping */
	uint64_t regs_lost;	  /* register records the BPF ring had no room for */
	bool regs_known;	  /* samples went through that ring (tick plan) */
	int attach_failed;	  /* programs or events that could not attach */
};

struct sampling {
	/* hot spots (nr_events == 0: sampling was off or failed) */
	struct sampling_event events[4];
	int nr_events;
	struct sampling_hotspot *hot;	int nr_hot;
	struct sampling_hotsum *funcs;	int nr_funcs;
	struct sampling_hotsum *lines;	int nr_lines;
	struct sampling_hotsum *thread_funcs; int nr_thread_funcs; /* only when threads differ */
	int nr_threads;			/* threads that were sampled */
	struct sampling_stack *stacks;	int nr_stacks;

	/*
	 * Page faults (faults_measured false: the event failed).  faults is the
	 * page-faults event's count, exact as perf stat's; the breakdowns are
	 * estimated from its samples (frequency mode, fault_hz samples a second
	 * at most; fault_periods is the sum of their periods) and scaled to
	 * that count: fault_est, their sum, is faults unless sites were lost.
	 */
	bool faults_measured;
	bool major_measured;		/* major-faults event attached */
	bool faults_exact;		/* every fault was a sample (period 1 throughout) */
	unsigned int fault_hz;
	uint64_t faults, fault_samples, fault_est, fault_periods, fault_max_period;
	/*
	 * Fault windows (collect/sampling/faults.c): in a storm the event was open only in
	 * fault_windows windows, for fault_open_ns; fault_gap_faults of the
	 * faults came from the processes' own counts between them, and
	 * fault_gap_lost processes ended between them unread.
	 */
	int fault_windows, fault_gap_lost;
	uint64_t fault_open_ns, fault_gap_faults;
	uint64_t faults_user, faults_kernel, reads, writes, rw_unknown; /* estimated */
	uint64_t major, minor;
	struct sampling_fault_site *sites; int nr_sites;
	uint64_t bucket_ns;
	struct sampling_bucket *timeline; int nr_buckets; /* trailing empty buckets dropped */

	/* regions and huge pages */
	struct sampling_region *regions;	int nr_regions;
	/* processes other than the main one with no fault sampled: regions not read */
	int regions_unread_procs;
	char thp_mode[16];		/* always / madvise / never, "" unknown */
	char thp_defrag[32];
	bool thp_measured;		/* khugepaged programs (bpf/thp.bpf.c) attached */
	struct sampling_thp thp;		/* summed over the target's processes */
	uint64_t thp_delay_ns;		/* the programs attach this far into the run */
	uint64_t thp_watch_from_ns;	/* when they did (thp_measured) */
	bool thp_unwatched_known;	/* /proc/vmstat was read */
	struct sampling_thp thp_unwatched; /* collapses system-wide while not attached */

	/*
	 * Time in system calls (sys_measured false: not traced), summed over
	 * the target's threads from sys_enter to sys_exit: on the CPU in the
	 * kernel or blocked there; futex calls are lock and condition waits,
	 * "long" ones (futex_long_min_ns or more) threads parked for a phase.
	 */
	bool sys_measured;
	uint64_t sys_ns, sys_calls, futex_ns, futex_calls;
	uint64_t futex_long_ns, futex_long_calls, futex_long_min_ns;
	/* off the CPU (sched_switch): blocked or sleeping; runnable, waiting for a CPU */
	uint64_t sleep_ns, runq_ns;
	uint64_t sleep_long_ns;	/* of sleep_ns, sleeps of futex_long_min_ns or more */
	/* short futex waits for a lock (FUTEX_WAIT, FUTEX_LOCK_PI): not condition waits */
	uint64_t futex_lock_ns, futex_lock_calls;
	/* those waits per lock word, longest total first (at most SAMPLING_MAX_LOCKS) */
	struct sampling_lock *locks;	int nr_locks;
	int locks_dropped;		/* lock words left out: past the cap, or the map was full */

	struct sampler_proc *procs;	int nr_procs;
	struct sampling_loss loss;
	uint64_t duration_ns;		/* from start to the end of sampling */
};


/*
 * Short lock waits on one futex word (the address of a mutex: glibc's lock
 * word is its first field), from the futex tracepoints: how long and how
 * often threads slept because another thread held it.
 */
#define SAMPLING_MAX_LOCKS 32
struct sampling_lock {
	int32_t pid;
	uint64_t uaddr;
	uint64_t wait_ns, waits;
	int threads;		/* waiting threads (a lower bound: tids hashed to 64 bits) */
	char name[128];		/* the variable: "stats_lock", "lru_locks[3]"; "" unknown */
	char mapping[256];	/* "[heap]", the module's path, "anon" */
	char decl_file[256];	/* the variable's declaration (DWARF), "" unknown */
	int decl_line;
};

/*
 * The executable that ran most of the hot-code samples (its processes'
 * samples in code of that very file; PREFER, when tied), into EXE; its
 * samples, and the processes that ran it, into *SAMPLES and *PROCS; of all
 * samples *TOTAL.  False when no sample is in a known executable.
 */
bool sampling__hot_exe(const struct sampling *p, const char *prefer, char *exe, size_t len,
		      uint64_t *samples, int *procs, uint64_t *total);
void sampling__free(struct sampling *p);

#endif
