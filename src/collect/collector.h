/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A collector measures something about the target while 'memadvise run'
 * runs it (BPF sampling, page faults, data-address sampling, watchpoints).
 * collect/run/run.c drives every collector in its table through the same
 * life cycle:
 *
 *   open      target known (a corked child before exec, or a live -p PID);
 *             attach here.  A failure is not fatal: the run goes on and the
 *             reason is recorded as provenance.
 *   started   the child was released (it execs now) or the attach is live
 *   poll      every 20 ms (POLL_MS) while the target runs: drain rings
 *   at_exit   the target's main thread is stopped at exit with its address
 *             space still mapped: drain the rings and read /proc/PID/{maps,
 *             smaps} here (no poll runs while it is stopped)
 *   finish    drain what is left, attach results to the report
 *   destroy   free everything (also after a failed open)
 */
#ifndef __MA_COLLECTOR_H
#define __MA_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "collect/event.h"
#include "model/addr.h"
#include "model/watch.h"

struct perf_event_header;
struct evring;

struct report;

/* A hot memory instruction data-address sampling found (run_shared.hot_insns). */
struct hot_insn {
	pid_t pid;		/* the process it was sampled in */
	uint64_t samples;	/* samples decoded to it */
	struct mem_operand op;	/* op.insn: the access instruction's address */
};

/* A watchpoint that data-address sampling proposes (--watch auto). */
struct watch_proposal {
	pid_t pid;
	struct watch_spec spec;
};

/*
 * What a collector offers those opened after it.  The sw-addr collector's
 * sampling event (cpu-clock with the user registers, one ring per CPU)
 * carries the profile collector's BPF program too: one timer interrupt per
 * sample instead of one for each collector.  In a virtual machine a timer
 * interrupt costs 20-35 us (two exits to the hypervisor): at 3000 a second
 * that was 6-10 % of the target's time, and there the scheduler tick
 * samples for both instead (regs_* below, sampler__tick_plan()).
 */
struct run_shared {
	int sw_fds[1024];	/* the event's fds (per CPU, then per thread with -p) */
	int nr_sw_fds;		/* 0: none to share */
	unsigned int sw_hz;
	uint64_t sw_period_ns;
	/* the fault sampler's count, which the counters take as page_faults */
	provided_count_fn fault_count;
	void *fault_count_ctx;
	/*
	 * Where the scheduler tick samples (sampler__tick_plan()): the sw-addr
	 * collector opens no sampling event, only its side-band records, and
	 * sets regs_sink; the profile's programs write the user-mode samples
	 * with their registers to a BPF ring, which regs_drain() empties into
	 * regs_sink (records laid out as perf's samples).  The sw-addr
	 * collector calls regs_drain after reading its own ring: mappings
	 * first, then the samples in them.
	 */
	void (*regs_sink)(void *ctx, const struct perf_event_header *rec);
	void *regs_sink_ctx;
	void (*regs_drain)(void *ctx);
	void *regs_drain_ctx;
	/* set by the profile: what the samples in the ring came from */
	char regs_event[48];	/* "tick", "cpu-clock" */
	uint64_t regs_period_ns;
	/*
	 * One side-band ring for both: the sw-addr collector's ring carries
	 * the fork, exit, comm and mapping records the profile follows the
	 * target's processes by.  A second ring would have perf write every
	 * record twice (a program that maps memory thousands of times a second
	 * pays for each) and would put one more event on every context switch.
	 * The sw-addr collector sets side_drain and side_ring; the profile
	 * sets side_sink, which then gets every record of that ring, also
	 * when side_drain is called after the sw-addr collector has finished.
	 */
	void (*side_drain)(void *ctx);
	void *side_drain_ctx;
	struct evring *side_ring;	/* for its lost-record count */
	void (*side_sink)(void *ctx, const struct perf_event_header *rec);
	void *side_sink_ctx;
	/*
	 * --watch auto: the sw-addr collector proposes the bytes that threads
	 * write on a line written by two or more threads (watch__propose());
	 * the watch collector arms them in its free slots while the program
	 * runs.
	 */
	bool watch_auto;
	/*
	 * The sw-addr collector's hot memory instructions so far, most
	 * sampled first (the address streams probe them): fills out, returns
	 * the count.
	 */
	int (*hot_insns)(void *ctx, struct hot_insn *out, int max);
	void *hot_insns_ctx;
	/* ... and where an instruction of a sampled process is (its source line); 0 or -1 */
	int (*insn_site)(void *ctx, pid_t pid, uint64_t insn, struct sym_site *out);
	int nr_watch_proposals;
	struct watch_proposal watch_proposals[WATCH_MAX];
};

struct run_ctx {
	pid_t pid;		/* the target's process (thread-group leader) */
	bool attached;		/* -p PID: already running, not our child */
	const char *exe;	/* resolved executable path, NULL if unknown */
	char *const *argv;	/* the command (NULL when attached) */
	unsigned int freq_hz;	/* sampling frequency asked for (-F), 0 = collector default */
	bool sample;		/* sampling allowed (not --no-sample) */
	bool streams;		/* address streams allowed (not --no-streams) */
	double stream_budget;	/* --stream-budget as a share (0: the collector's default) */
	bool all_faults;	/* --all-faults: no fault windows (see collect/sampling/faults.c) */
	uint64_t duration_ns;	/* -d, 0 = until exit */
	const char *const *watch;	/* --watch expressions (kept, not copied) */
	int nr_watch;
	struct run_shared *shared;	/* filled by collectors for the later ones */
};

struct collector {
	const char *name;
	bool (*wanted)(const struct run_ctx *ctx);
	int (*open)(void **state, const struct run_ctx *ctx, struct report *r);
	void (*started)(void *state);
	int (*poll)(void *state);
	void (*at_exit)(void *state, pid_t pid);
	int (*finish)(void *state, struct report *r);
	void (*destroy)(void *state);
};

#endif
