/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Software data-address sampling (tier sw-addr): cpu-clock samples with the
 * user registers, the instruction *before* the sampled IP decoded with
 * capstone (the timer interrupt is taken after the stalled load retires),
 * and its effective address computed from the sampled registers.  This
 * samples where time is spent, weighted by stall time: a proxy for the
 * accesses that miss, not a precise (PEBS/IBS) data source.
 */
#ifndef __MA_ADDRSAMPLE_H
#define __MA_ADDRSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/u64map.h"
#include "symbols/addrsym.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"
#include "model/addr.h"
#include "symbols/decode.h"
#include "model/report.h"


/*
 * The stride of an access stream sampled at random times: deltas between
 * consecutive addresses are multiples k*stride, so the stride is the most
 * common gcd of consecutive deltas.  Returns it (0 when unknown); *frac gets
 * the fraction of non-zero deltas that are multiples of it.
 */
int64_t addrsample__stride(const int64_t *deltas, size_t n, double *frac);
/*
 * Fraction of the non-zero deltas with the sign of stride (1 = a monotonic
 * walk); jumps back over half the walk's span or more (a repeated walk
 * starting its next pass) are left out.
 */
double addrsample__monotonic(const int64_t *deltas, size_t n, int64_t stride);
/*
 * A walk repeated faster than the samples come: its sampled positions move
 * by about the same amount each period, modulo the span walked, so the
 * deltas' phases (delta mod span, over the span) gather; at random they do
 * not.  Rayleigh's statistic n R^2 of those phases: about 1 at random,
 * 9 or more with probability 1e-4 (addr_ip__cyclic's bound).
 */
double addrsample__cyclic_z(const int64_t *deltas, size_t n);
/*
 * The samples per (IP, thread, line) of a run (footprint.c): what
 * addrsample__pool_spans() needs to bound each source line's footprint.
 */
struct fp_rec {
	uint32_t ipi, tid;	/* the collector's IP index, the thread */
	uint64_t line;		/* address >> 6 */
	uint32_t count;
};
struct footprint {
	struct u64map idx;	/* hash of (ipi, tid, line) -> index into recs + 1 */
	struct fp_rec *recs;
	size_t nr, cap;
};
void footprint__add(struct footprint *fp, uint32_t ipi, uint32_t tid, uint64_t line);
void footprint__free(struct footprint *fp);
/*
 * Sets line_span_lines, line_span_pages and line_span_samples of P's IPs
 * (addr_ip.agg: the collector's index, below NR_AGG): the footprint of
 * their source line's walk in one address space, one thread's (the
 * largest), from all the line's IPs.
 */
void addrsample__pool_spans(const struct footprint *fp, size_t nr_agg, struct addr_report *p);


/*
 * Standalone use (tests, other collectors): attach to a process (a corked
 * child that has not exec'd yet when enable_on_exec) and sample it.
 */
struct addrsample;
struct perf_event_header;
/* The cpu-clock rate without -F: lower in a virtualized guest (see the .c). */
unsigned int addrsample__default_hz(void);
/*
 * FREQ_HZ 0: addrsample__default_hz().  SIDEBAND_ONLY: no sampling event,
 * only the mapping and task records; the samples (with their registers, as
 * perf lays them out) are handed to addrsample__sink().
 */
struct addrsample *addrsample__open(pid_t pid, unsigned int freq_hz, bool enable_on_exec,
				    bool sideband_only, char *why, size_t why_len);
/* A sample from elsewhere (run_shared.regs_sink): a PERF_RECORD_SAMPLE as the ring has them. */
void addrsample__sink(void *ctx, const struct perf_event_header *rec);
/*
 * Drains the ring (ctx: the addrsample) and hands every record to
 * run_shared.side_sink as well; also after addrsample__finish, until close.
 */
void addrsample__drain_side(void *ctx);
int addrsample__poll(struct addrsample *as);
/* The target is still mapped (stopped at exit): drain and read what is left. */
void addrsample__at_exit(struct addrsample *as);
/* Drains, aggregates and symbolises; the caller owns the result. */
struct addr_report *addrsample__finish(struct addrsample *as);
void addrsample__close(struct addrsample *as);

extern const struct collector collector_addrsample;

#endif
