/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hardware watchpoints (tier watchpoint): exact counts of the writes (or
 * reads and writes) to up to 4 addresses, per thread and per code location.
 * Watching the members of a global that share a cache line tells which
 * threads write which bytes of the line: false-sharing evidence on machines
 * without a PMU.  Every hit traps (about 30 us), so watching stops after a
 * hit budget and the report says so.
 */
#ifndef __MA_WATCH_H
#define __MA_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "symbols/addrsym.h"
#include "symbols/symbolizer.h"
#include "model/report.h"
#include "model/watch.h"


/*
 * Resolves "SYMBOL[.member...][:rw]" in the ELF symbol table (and DWARF for
 * members) of exe.  A struct without a member gives its members, up to max.
 * Also "0xADDR[/LEN][:rw]" (a run-time address).  Returns the number of
 * specs or -errno with a reason in err.
 */
int watch__resolve(const char *exe, const char *expr, struct watch_spec *out, int max,
		   char *err, size_t err_len);
/* Load bias of exe in a live process from /proc/PID/maps (0 for ET_EXEC). */
int watch__load_bias(pid_t pid, const char *exe, uint64_t *bias);

/* Groups points by cache line and decides sharing (pure; used by finish). */
void watch_report__lines(struct watch_report *w, int line_size);

/* Checks that every expression resolves in exe; prints error + hint. 0 or -errno. */
int watch__check(const char *exe, const char *const *exprs, int n);

/*
 * --watch auto: data-address sampling proposes the bytes that threads write
 * on a line written by two or more threads; the free watchpoint slots take
 * them while the program runs.  The proposals travel in the run's shared
 * context (run_shared); sh may be NULL (standalone use: nothing proposed).
 */
struct run_shared;
bool watch__auto(const struct run_shared *sh);
void watch__propose(struct run_shared *sh, pid_t pid, uint64_t addr, int len, const char *name);

/* Whether the expressions given with run --watch include "auto". */
bool watch__wants_auto(const char *const *exprs, int n);

/* Standalone use: specs to watch in pid (a corked child when launched). */
struct watch;
struct watch *watch__open(pid_t pid, const char *exe, const struct watch_spec *specs, int n,
			  bool launched, char *why, size_t why_len);
int watch__poll(struct watch *w);
void watch__at_exit(struct watch *w);
struct watch_report *watch__finish(struct watch *w);
void watch__close(struct watch *w);

extern const struct collector collector_watch;

#endif
