/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-CPU perf sampling rings for one target: one event per CPU opened with
 * pid=target, cpu=N, inherit=1 (an inherited per-task event cannot be
 * mmapped, so every thread of the target is covered this way), each with
 * its own mmapped ring that evring__drain() empties.
 */
#ifndef __MA_EVRING_H
#define __MA_EVRING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct evring;

/*
 * Called for every record but PERF_RECORD_LOST (which is counted): samples,
 * and COMM/MMAP records when the attr asked for them.  rec points at the
 * header.
 */
typedef void (*evring_sample_fn)(void *ctx, const struct perf_event_header *rec);

/*
 * Opens attr on every online CPU for pid (attr->inherit is forced on) with a
 * ring of 2^pages_order data pages each.  NULL + errno when no CPU could be
 * opened; *why gets a short reason.
 */
struct evring *evring__open(struct perf_event_attr *attr, pid_t pid, int pages_order,
			    char *why, size_t why_len);
/*
 * Adds the threads of an already running process (other than pid itself):
 * their events write into the same per-CPU rings.  Threads they create
 * later follow by inheritance.  Returns the number of threads added.
 */
int evring__add_threads(struct evring *er, struct perf_event_attr *attr, pid_t pid);
/* Drains every ring; returns the number of records delivered. */
uint64_t evring__drain(struct evring *er, evring_sample_fn fn, void *ctx);
int evring__enable(struct evring *er, bool on);
/* The same ioctl on every CPU's event; 0 or the first -errno. */
int evring__ioctl(struct evring *er, unsigned long req, void *arg);
uint64_t evring__lost(const struct evring *er);	/* PERF_RECORD_LOST total */
int evring__nr_cpus(const struct evring *er);
/* The events' fds (one per CPU, then those of threads added); returns how many (at most MAX). */
int evring__fds(const struct evring *er, int *out, int max);
void evring__close(struct evring *er);

/* perf_event_open(2); returns the fd or -errno. */
int evring__sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags);

#endif
