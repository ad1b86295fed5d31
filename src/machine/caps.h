/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What this machine can measure, found by trying: each check opens (and
 * closes) the real thing on the calling process - a perf event, a BPF
 * program, a uprobe, a watchpoint - rather than trusting a config file.
 * Used by 'memadvise probe', by 'run' to pick collectors, and by tests to
 * decide skips.  Every check returns whether the capability works and, when
 * it does not, fills a one-line reason (with the errno) and a hint.
 */
#ifndef __MA_CAPS_H
#define __MA_CAPS_H

#include <stdbool.h>
#include <stdint.h>

/* Capability numbers (linux/capability.h) that matter to memadvise. */
enum {
	MA_CAP_SYS_PTRACE = 19,
	MA_CAP_SYS_ADMIN = 21,
	MA_CAP_SYS_RESOURCE = 24,
	MA_CAP_PERFMON = 38,
	MA_CAP_BPF = 39,
};

struct cap {
	bool ok;
	int err;	  /* positive errno of the failing step, 0 when none applies */
	char reason[200]; /* why not, one line ("" when ok) */
	char hint[200];	  /* what would make it work ("" when nothing can) */
	char detail[200]; /* what was found: the event opened, a version, ... */
};

/* A hardware PMU the kernel exposes and on which 'cycles' opens. */
bool caps__hw_pmu(struct cap *c);
/* Opens generic event NAME (pmu.h) on this process, trying its candidates in order. */
bool caps__event(const char *name, struct cap *c);
/* Precise sampling with data addresses: Intel PEBS or AMD IBS op (detail says which). */
bool caps__precise(struct cap *c);
/* Loads a trivial BPF program (socket filter). */
bool caps__bpf(struct cap *c);
/* /sys/kernel/btf/vmlinux present and parsed by libbpf (needed for CO-RE). */
bool caps__btf(struct cap *c);
/* Opens a uprobe perf event on a function of this executable. */
bool caps__uprobes(struct cap *c);
/* Tracepoint SYS:NAME exists in tracefs and opens; NAME NULL checks the group SYS. */
bool caps__tracepoint(const char *sys, const char *name, struct cap *c);
/* A hardware write watchpoint on a local variable counts exactly. */
bool caps__watchpoint(struct cap *c);
/* kprobe perf events (not needed by memadvise). */
bool caps__kprobes(struct cap *c);
/* fentry BPF programs (not needed by memadvise). */
bool caps__fentry(struct cap *c);
/* An external program answering '--version' (valgrind, pahole); version in detail. */
bool caps__tool(const char *prog, struct cap *c);

/* Effective capability set of this process (/proc/self/status CapEff); 0 or -errno. */
int caps__effective(uint64_t *eff);
/* Whether capability number CAP (CAP_PERFMON = 38 ...) is effective. */
bool caps__has(int cap);
/* The tracefs mount point ("/sys/kernel/tracing"), or NULL when not mounted. */
const char *caps__tracefs(void);

#endif
