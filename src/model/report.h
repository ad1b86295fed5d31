/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report model: one immutable snapshot of what was measured about one
 * target, read by every output (text, JSON, SARIF) and by the rules
 * engine.  Producers fill it; emitters only read it.
 *
 * Every number carries the tier that produced it (see enum tier) and a
 * counter that did not count is marked so, never reported as 0.
 */
#ifndef __MA_REPORT_H
#define __MA_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define REPORT_SCHEMA_VERSION 1

struct json_object;

/* The capability ladder, best first.  Every finding and number names one. */
enum tier {
	TIER_PRECISE,	 /* PEBS/IBS precise sampling with data addresses */
	TIER_COUNTING,	 /* hardware counters */
	TIER_SOFTWARE,	 /* software events and tracepoints (incl. BPF on them) */
	TIER_SW_ADDR,	 /* software data-address sampling (regs + decode) */
	TIER_UPROBE_STREAM, /* exact address streams: uprobes on hot instructions */
	TIER_WATCHPOINT, /* hardware watchpoints */
	TIER_SIMULATION, /* cachegrind */
	TIER_STATIC,	 /* static DWARF layout facts */
	TIER__COUNT,
};
const char *tier__name(enum tier t);

/* One counter, as read: keep enabled/running time, scale on output. */
struct counter {
	char name[48];	     /* generic name: "cycles", "page_faults", ... */
	char event[128];     /* what was opened: "perf::PERF_COUNT_SW_PAGE_FAULTS" */
	enum tier tier;
	bool counted;	     /* false: 'reason' says why; value is meaningless */
	int err;	     /* -errno when the open or the read failed */
	bool opened;	     /* the event exists here (opened, or provided by a sampler) */
	char reason[160];
	uint64_t raw, enabled_ns, running_ns;
	double scaled;	     /* raw * enabled / running */
	char derived[48];    /* counted from others by this formula ("" : counted itself) */
	char note[64];	     /* where a counted value came from, when not its own counter */
};

/*
 * What a counter that did not count shows instead of a value: "not
 * supported" when its event could not be opened here, "not counted" when it
 * was opened but never ran (the program ended first, or the PMU never
 * scheduled it).
 */
static inline const char *counter__uncounted_label(const struct counter *c)
{
	return c->opened ? "not counted" : "not supported";
}

/* A derived ratio (CPI, MPKI, miss ratios): present only when inputs counted. */
struct metric {
	char name[48];
	char unit[16];	     /* "ratio", "per_kilo_instr", "cycles_per_instr", ... */
	double value;
	enum tier tier;
	char formula[80];
};

/* A provenance note: a fallback taken, a capability missing, samples lost. */
struct provenance {
	char what[48];	     /* "hardware_counters", "sampling", ... */
	char detail[200];
};

struct target_info {
	char command[512];   /* argv joined with spaces (for display) */
	pid_t pid;
	bool attached;	     /* -p PID */
	bool exited;	     /* target exited while measured */
	int exit_code;	     /* pass-through status: code or 128+signal */
	int term_signal;     /* 0 unless killed by a signal */
	bool interrupted;    /* Ctrl-C ended the measurement */
	uint64_t wall_ns;
	char exe[256];	     /* resolved executable path, for DWARF */
	/*
	 * The executable whose DWARF the rules read, when not exe: another
	 * program the target ran (sh -c, make) ran most of the samples.
	 */
	char layout_exe[256];
};

struct sampling;	      /* sampling results (model/sampling.h) */
struct findings;      /* rule findings (model/findings.h) */
struct addr_report;  /* data-address sampling, tier sw-addr (model/addr.h) */
struct watch_report;  /* hardware watchpoints, tier watchpoint (model/watch.h) */
struct sim_report;    /* cachegrind, tier simulation (model/sim.h) */
struct streams_report; /* address streams, tier uprobe-stream (model/streams.h) */

struct report {
	int schema_version;
	uint64_t timestamp_ns;	/* CLOCK_REALTIME at the end of measurement */
	char hostname[64];
	struct target_info target;

	struct counter *counters;
	int nr_counters;
	struct metric *metrics;
	int nr_metrics;
	struct provenance *prov;
	int nr_prov;

	struct sampling *sampling;  /* NULL when nothing was sampled */
	struct findings *findings; /* NULL when rules did not run */
	struct addr_report *addr; /* NULL unless data addresses were sampled */
	struct watch_report *watch; /* NULL unless watchpoints were placed */
	struct sim_report *sim;	   /* NULL unless run under --sim */
	struct streams_report *streams; /* NULL unless address streams were recorded */
};

struct report *report__new(void);
void report__free(struct report *r);
void report__add_provenance(struct report *r, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct counter *report__add_counter(struct report *r);
const struct counter *report__counter(const struct report *r, const char *name);
/* Computes the derived metrics from counters that counted. */
void report__derive_metrics(struct report *r);

#endif
