/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The "profile" collector: BPF sampling of code hot spots, page faults by
 * site/page/region/time, huge-page state of large regions and khugepaged
 * activity (bpf/sampler.bpf.c, bpf/thp.bpf.c).  Results go to report->sampling (model/sampling.h).
 */
#ifndef __MA_SAMPLER_H
#define __MA_SAMPLER_H

#include "collect/collector.h"

/* Default sampling frequency: keeps the wall-time overhead under 3 %. */
#define SAMPLER_DEFAULT_HZ 999

extern const struct collector collector_sampler;

/*
 * Starts opening and loading the BPF object on a thread, so that it overlaps
 * what comes before the collector opens (rules, counters, the target's start);
 * the collector's open takes the result.  discard() releases an unused one.
 */
void sampler__preload(void);
void sampler__preload_discard(void);

/*
 * In a virtual machine without -F and without hardware sampling events, hot
 * code and the sw-addr collector's samples come from the scheduler tick
 * (bpf/tick.bpf.c), which costs no timer interrupt of its own.  Returns the
 * tick's rate (HZ) when that is the plan for this run, else 0, and in WHY
 * (when not NULL) the reason a guest cannot have it ("" when it can, or
 * when it is not a guest).  Waits for the preloaded BPF object.
 */
unsigned int sampler__tick_plan(const struct run_ctx *ctx, char *why, size_t len);

#endif
