/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event names -> perf_event_attr, through libpfm4 per CPU model with perf's
 * generic events as fallback.  memadvise's stable generic names:
 *   hardware: cycles instructions l1d_miss dtlb_miss llc_miss branch_miss
 *   software: task_clock page_faults minor_faults major_faults
 *             context_switches cpu_migrations
 * Anything else is taken as a raw libpfm4 event string ("pmu::EVENT:UMASK").
 */
#ifndef __MA_PMU_H
#define __MA_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

#include "model/report.h"

struct pmu_event {
	char name[48];		      /* as asked: generic name or raw string */
	char encoding[128];	      /* "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", "perf::cycles" */
	struct perf_event_attr attr;  /* type/config/config1/config2 filled, rest zero */
	enum tier tier;		      /* TIER_COUNTING (hardware) or TIER_SOFTWARE */
	bool hardware;
};

/* pfm_initialize() once; 0 or -errno. Honours LIBPFM_FORCE_PMU (tests). */
int pmu__init(void);
/* True for one of the generic names above. */
bool pmu__is_generic(const char *name);
/* The generic names, NULL-terminated (hardware first). */
extern const char *const pmu__generic_names[];
/*
 * Candidate encodings for NAME in preference order: for a generic hardware
 * name, the host PMU's libpfm4 event first, then perf's generic
 * PERF_TYPE_HARDWARE / HW_CACHE event.  A raw string has one candidate.
 * Returns how many were written (>= 1), -ENOENT for an unknown name, -EINVAL
 * for a malformed raw string.
 */
int pmu__candidates(const char *name, struct pmu_event *out, int max);
/*
 * Precise-sampling events for a generic miss NAME, best first:
 *   l1d_miss llc_miss dtlb_miss branch_miss loads stores
 * Intel: PEBS events from libpfm4 (MEM_LOAD_RETIRED.L1_MISS/.L3_MISS,
 * MEM_INST_RETIRED.STLB_MISS_LOADS, load latency with config1 = ldlat, ...)
 * with attr.precise_ip = 2.  AMD: one IBS op event, attr.type read from
 * /sys/bus/event_source/devices/ibs_op/type (cnt_ctl, and l3missonly for
 * llc_miss where the PMU has it).
 * Each attr also carries a suggested sample_period and the PERF_SAMPLE_* bits
 * the event fills (IP|TID|ADDR, plus DATA_SRC|WEIGHT for load latency and
 * IBS); tier is TIER_PRECISE.  Opening may still fail (no PMU in a guest):
 * use pmu__strerror_open.
 * Returns how many were written, -ENOENT for an unknown NAME, -EOPNOTSUPP
 * when the host has no precise source (no libpfm4 model, no ibs_op PMU).
 */
int pmu__sampling_candidates(const char *name, struct pmu_event *out, int max);
/* One-line meaning of a generic name ("L1 data cache lines brought in ..."), or NULL. */
const char *pmu__describe(const char *name);
/* Dynamic type of a sysfs PMU ("ibs_op", "uprobe", "cpu"), or -ENOENT. */
int pmu__sysfs_type(const char *pmu_name);
/* Tests only: read PMUs from DIR instead of /sys/bus/event_source/devices (NULL restores). */
void pmu__set_sysfs_root(const char *dir);
/* The name of the default (host) PMU libpfm4 detected, e.g. "amd64_fam19h_zen3", or NULL. */
const char *pmu__host_pmu_name(void);
/* Whether the kernel exposes a hardware PMU (/sys/bus/event_source/devices/cpu* present). */
bool pmu__hw_exposed(void);
/*
 * Explains a perf_event_open errno for ATTR in one line for users:
 * ENOENT on a guest without a PMU -> "no hardware PMU: virtualized guest", EACCES -> paranoid
 * level and capabilities, EMFILE -> ulimit -n, EBUSY, EOPNOTSUPP, EINVAL (which fields).
 */
void pmu__strerror_open(int err, const struct perf_event_attr *attr, char *buf, size_t len);

#endif
