/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between the files of collect/top/: the collector's state. */
#ifndef __MA_COLLECT_TOP_INTERNAL_H
#define __MA_COLLECT_TOP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/top/top.h"
#include "model/sampling.h"

struct top_bpf;
struct bpf_link;
struct symbolizer;
struct procmaps;

/* What one process (or thread) read last time: the rates are differences. */
struct top_pstate {
	pid_t pid, tgid;
	uint64_t start_time;		/* /proc/PID/stat field 22: a reused pid is another process */
	uint64_t minflt, majflt, ticks;
	bool thp_known;
	uint64_t anon, anon_huge;
	uint64_t thp_read_ns;		/* when smaps_rollup was read */
	char hot[128];			/* the last hottest function named */
};

/* One tick sample bucket drained from the map. */
struct top_sample {
	pid_t tgid, tid;
	uint64_t ip;
	bool kernel;
	uint64_t n;
};

/* A process's memory map, for naming its code (kept while it lives). */
struct top_maps {
	pid_t pid;
	uint64_t start_time;
	struct procmaps *m;
	uint64_t taken_ns;
	bool seen;
};

/* The drilled process's samples since the drill began, per ip. */
struct top_drill_ip {
	uint64_t ip;
	uint64_t samples, kernel_samples;
};

struct top_collector {
	struct top_opts o;
	pid_t *pids;
	int nr_pids;
	uint64_t seq, last_ns;
	long clk_tck;
	unsigned int page_size;

	struct top_pstate *procs, *threads;
	int nr_procs, nr_threads;

	bool vm_known;
	uint64_t pgfault, pgmajfault, khuge_collapsed;
	double spark[TOP_SPARK];
	int nr_spark;

	/* bpf/top.bpf.c */
	struct top_bpf *skel;
	struct bpf_link *tick_link, *fault_link;
	bool sampling;
	unsigned int tick_hz;
	char sampling_why[128];
	uint64_t lost_seen;
	struct top_sample *samples;
	int nr_samples, cap_samples;

	struct symbolizer *sym;
	struct top_maps *maps;
	int nr_maps, cap_maps;

	/* the drill-down */
	pid_t drill_pid, drill_want;
	uint64_t drill_start, drill_since;
	struct top_drill_ip *dips;
	int nr_dips, cap_dips;
	char pmu_why[96];
	bool pmu;
};

/* bpf.c */
void top_bpf_open(struct top_collector *c);
void top_bpf_drain(struct top_collector *c);
int top_bpf_watch(struct top_collector *c, pid_t pid);
int top_bpf_faults(struct top_collector *c, struct sampling_fault_site **out, int *nr);
void top_bpf_close(struct top_collector *c);

/* names.c */
struct procmaps *top_maps_get(struct top_collector *c, pid_t pid, uint64_t start_time,
			      uint64_t ip);
void top_maps_sweep(struct top_collector *c);
int top_name_ip(struct top_collector *c, pid_t pid, uint64_t start_time, uint64_t ip,
		bool lines, struct sampling_loc *loc);

/* procscan.c */
const struct top_pstate *top_proc_find(const struct top_collector *c, pid_t pid);

/* drill.c */
struct report *top_drill_snapshot(struct top_collector *c, const struct top_pstate *p,
				  const char *comm);

#endif
