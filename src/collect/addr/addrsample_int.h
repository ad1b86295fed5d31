/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Data-address sampling's state, shared by its files: addrsample.c (the
 * collector: records, samples, aggregates) and decode_ip.c (what a newly
 * sampled IP's instruction accesses, decoded once).
 */
#ifndef __MA_COLLECT_ADDR_ADDRSAMPLE_INT_H
#define __MA_COLLECT_ADDR_ADDRSAMPLE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/u64map.h"
#include "collect/addr/addrsample.h"
#include "collect/maprecs.h"

/*
 * The cpu-clock rate when none is asked for.  A guest pays for every timer
 * sample with exits to the hypervisor: 20-50 us a sample on our nested KVM
 * guests (in-process, perf record alone pays the same), 1-2.5 % of a
 * workload's time at 500 Hz.  So a guest samples on the scheduler tick
 * (sampler__tick_plan) and uses this lower rate only where the tick cannot
 * serve.  Bare metal pays 1-2 us and gets the denser rate.
 */
#define AS_DEFAULT_HZ 1000
#define AS_GUEST_HZ 500
#define AS_MAX_SWEEP 16384	/* bytes of a function swept linearly */
#define AS_MAX_DELTAS 8192	/* per IP */
#define AS_KEEP_IPS 200
#define AS_LINE_IPS 30		/* IPs (with >= 1% of the samples) given source lines */
#define AS_KEEP_REGIONS 64
#define AS_KEEP_SHARED 64
#define AS_LINE_THREADS 4	/* threads tracked per line internally */
#define AS_LINE_WRITERS 4	/* writing IPs counted per line */
#define AS_MAPS_REFRESH_NS 10000000ULL
#define AS_MAX_PROCS 64		/* processes (target and children) decoded */

/* --- the collector ------------------------------------------------------- */

struct aspace;

#define AS_SET_WORDS 16		/* bitmap of L1D set indexes (up to 1024 sets) */

struct ip_agg {
	struct addr_ip out;
	uint64_t sets[AS_SET_WORDS];
	struct aspace *sp;	/* the process it was sampled in */
	bool stale;		/* from an image the process exec'd away from */
	uint64_t last_exact;	/* 0 = none */
	struct aspace *last_sp;	/* the process whose address last_exact is */
	bool decoded_once;
	uint64_t img_ino, img_off;	/* its code: file and offset (img_ino 0: anonymous) */
	uint32_t img_path;		/* the file's path, hashed */
	int64_t *deltas;
	size_t nr_deltas;
};

struct line_agg {
	uint64_t line;
	int nr;
	bool more;
	struct { int tid; uint64_t reads, writes, rmask, wmask; } t[AS_LINE_THREADS];
	/* the IPs that wrote it (index + 1) and their writes: the most counted */
	struct { uint32_t ip; uint32_t writes; } w[AS_LINE_WRITERS];
	struct aspace *sp;	 /* the process whose memory it is (any, when shared) */
	bool proposed;		 /* handed to the watchpoints (--watch auto) */
};

struct region_agg {
	struct addr_region r;
};

struct code_page {
	uint64_t addr;
	uint8_t *bytes; /* NULL: unreadable */
};

/* One process's address space: the target, or a child it forked or exec'd. */
#define AS_JUMP_CACHE 64

struct aspace {
	pid_t pid;
	struct maprecs recs;	   /* its executable mappings, from records */
	bool maps_from_recs;	   /* maps is the records' (the process was gone) */
	bool sampled;		   /* IPs point at it: it stays */
	bool exited;
	uint32_t serial;	   /* tells its private lines from another's (>= 1) */
	uint64_t sym_refresh_ns;
	struct code_page *pages;   /* code read once per page */
	size_t nr_pages, cap_pages;
	struct u64map page_idx;
	struct u64map ip_idx;	   /* ip -> index into addrsample.ips + 1 */
	struct procmaps *maps;	   /* regions and symbols: as->sym knows it */
	int *map_region;	   /* maps->v[i] -> index into regions */
	uint64_t maps_read_ns;
	/* the jumps of the functions last looked at (joined()) */
	struct {
		uint64_t fstart, end;
		struct as_jump *j;	/* sorted by target */
		size_t n;
	} jumps[AS_JUMP_CACHE];
	unsigned int next_jumps;
};

struct addrsample {
	pid_t pid;
	unsigned int freq_hz;
	struct evring *ring;
	bool sideband_only;	/* ring has no samples: they come to addrsample__sink */
	bool finished;		/* addrsample__finish ran: records go to side_sink only */
	struct run_shared *shared; /* regs_drain, when sideband_only; side_sink */
	bool kernel_ticks;	/* the event samples kernel mode too */
	struct symbolizer *sym;
	struct aspace *spaces[AS_MAX_PROCS];
	int nr_spaces;
	uint32_t nr_serials;
	int line_size;
	int l1_sets;
	size_t page_size;

	struct addr_report tot; /* counters only */

	struct ip_agg *ips;
	size_t nr_ips, cap_ips;
	struct u64map last_ea;	   /* (ip index + 1) << 32 | tid -> index into eas + 1 */
	uint64_t *eas;
	size_t nr_eas, cap_eas;
	struct u64map ip_lines, ip_pages, all_lines, all_pages;
	struct footprint fp;	   /* samples per IP, thread and line */
	struct u64map ip_region;   /* (ip index + 1) << 32 | region + 1 -> count */
	struct u64map img_idx;	   /* code_key() -> index into ips + 1 */

	struct line_agg *lines;
	size_t nr_lines, cap_lines;
	struct u64map line_idx;

	struct region_agg *regions;
	size_t nr_regions, cap_regions;
};

/* Reads SP's maps again (its regions and symbols); the records' when it is gone. */
void addrsample__read_maps(struct addrsample *as, struct aspace *sp);
/*
 * Decodes IA's instruction once (the access before the sampled IP, its loop,
 * siblings, joins and where its base came from): decode_ip.c.
 */
void addrsample__decode_ip(struct addrsample *as, struct aspace *sp, struct ip_agg *ia);

#endif
