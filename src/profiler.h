/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The "profile" collector: BPF sampling of code hot spots, page faults by
 * site/page/region/time, huge-page state of large regions and khugepaged
 * activity (bpf/profile.bpf.c, bpf/thp.bpf.c).  Results go to report->profile (profile.h).
 */
#ifndef __MA_PROFILER_H
#define __MA_PROFILER_H

#include "collector.h"

/* Default sampling frequency: keeps the wall-time overhead under 3 %. */
#define PROFILER_DEFAULT_HZ 999

extern const struct collector collector_profile;

/*
 * Starts opening and loading the BPF object on a thread, so that it overlaps
 * what comes before the collector opens (rules, counters, the target's start);
 * the collector's open takes the result.  discard() releases an unused one.
 */
void profile__preload(void);
void profile__preload_discard(void);

#endif
