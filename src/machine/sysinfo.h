/* SPDX-License-Identifier: GPL-2.0-only */
/* Facts about this machine read from sysfs and procfs (never from getconf). */
#ifndef __MA_SYSINFO_H
#define __MA_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

struct cache_level {
	int level;	      /* 1, 2, 3 */
	char type[16];	      /* "Data", "Instruction", "Unified" */
	uint64_t size;	      /* bytes */
	int line;	      /* coherency_line_size */
	int ways;	      /* 0 when sysfs does not say */
	int sets;
	char shared_cpus[64]; /* shared_cpu_list */
};

/* Caches of cpu0 from /sys/devices/system/cpu/cpu0/cache; returns the count or -errno. */
int sysinfo__caches(struct cache_level *out, int max);
/* The data cache of a level (1: L1d, 2: L2, 3: L3), or NULL. */
const struct cache_level *sysinfo__cache(const struct cache_level *c, int n, int level);
/* L1d line size, 64 when sysfs does not say. */
int sysinfo__cacheline(void);
/* The bracketed choice of a sysfs multiple-choice file, e.g. THP 'enabled' -> "madvise". */
int sysinfo__thp_mode(char *buf, size_t len);
int sysinfo__thp_defrag(char *buf, size_t len);
/* kernel.perf_event_paranoid, or -errno. */
int sysinfo__perf_paranoid(int *level);
/* CPU vendor/model from /proc/cpuinfo ("AuthenticAMD", family, model, "AMD EPYC ..."). */
int sysinfo__cpu(char *vendor, size_t vlen, int *family, int *model, char *name, size_t nlen);
/* True when the CPU says it runs under a hypervisor (cpuinfo flag 'hypervisor'). */
int sysinfo__hypervisor(void);
int sysinfo__nr_cpus(void);
/*
 * The kernel's tick rate (CONFIG_HZ), from /boot/config-RELEASE or
 * /proc/config.gz; 0 when neither says.
 */
unsigned int sysinfo__kernel_hz(void);
/* True when the cpuinfo flags include FLAG (a whole word, e.g. "fred"). */
int sysinfo__cpu_flag(const char *flag);
/* The CPUs that run without a tick when busy (nohz_full=), "" when none. */
void sysinfo__nohz_full(char *buf, size_t len);
/* CPUs this process may run on: its affinity mask, which a cgroup may narrow. */
int sysinfo__nr_allowed_cpus(void);
/*
 * Time the hypervisor ran something else while this guest's CPUs wanted to
 * run ("steal" of /proc/stat, all CPUs), in ns; 0 or -errno.
 */
int sysinfo__steal_ns(uint64_t *ns);

#endif
