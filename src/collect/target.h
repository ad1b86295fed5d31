/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measured program: launched corked (started, held before exec so that
 * counters and samplers attach first) or attached to by PID.  The main
 * thread is ptrace-seized (no other stops) only to be told when it exits
 * while its address space is still mapped.
 */
#ifndef __MA_TARGET_H
#define __MA_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct target;

/*
 * Resolves ARGV[0] through PATH, starts the program's process and holds it
 * before it execs the program (a vfork()ed child: see target.c).
 * -ENOENT / -EACCES / -ENOEXEC when the program cannot be run (checked
 * before forking; the message is the caller's to print), -ECHILD when the
 * process died before it was ready.
 */
int target__launch(struct target **t, char *const argv[], unsigned int flags);
/*
 * Flag: hold the program at its exec-stop, mapped but before its first
 * instruction (its load address is known then): target__start() returns
 * with it held, until target__resume_exec().
 */
#define TARGET_STOP_AT_EXEC 1u
/* Attaches to a running process; -ESRCH when there is none, -EPERM, -EINVAL for a kernel thread. */
int target__attach_pid(struct target **t, pid_t pid);
/* target__start() failed and said why itself. */
#define TARGET_ERR_REPORTED 1
/*
 * Releases the corked child: it drops to the sudo user if any, then execs.
 * Returns once it exec'ed: 0, or -errno of a failed exec (reported by the
 * child; the message is the caller's to print), or TARGET_ERR_REPORTED.
 */
int target__start(struct target *t);
/* Lets the program held at its exec-stop go (nothing when it is not held). */
void target__resume_exec(struct target *t);

pid_t target__pid(const struct target *t);
const char *target__exe(const struct target *t); /* resolved path, or NULL */
bool target__is_attached(const struct target *t);
/* Whether the exit-stop hook could be armed (ptrace allowed). */
bool target__can_stop_at_exit(const struct target *t);
/*
 * Signal-delivery-stops after which tracing (for the exit-stop) ends: each
 * costs a round trip through memadvise, the exit-stop saves about as much
 * as ten of them.
 */
#define TARGET_MAX_SIGNAL_STOPS 10
/* How many signals the target took before tracing ended for them; 0 when it did not. */
int target__signal_stops(const struct target *t);

enum target_state {
	TARGET_RUNNING,
	TARGET_AT_EXIT,	 /* main thread stopped at exit: address space still there */
	TARGET_GONE,	 /* exited or killed; status known for a launched child */
};

/*
 * Handles whatever happened to the target since the last call, waiting at
 * most TIMEOUT_MS.  Signals for the target are passed on to it.  At
 * TARGET_AT_EXIT, call target__resume() after looking at /proc/PID.
 */
enum target_state target__wait(struct target *t, int timeout_ms);
void target__resume(struct target *t);
/* Sends SIG to the target (the whole process). */
int target__kill(struct target *t, int sig);
/* Stops tracing an attached process and leaves it running. */
void target__detach(struct target *t);

/* Exit status as a shell reports it: code, or 128+N for signal N; -1 unknown. */
int target__exit_status(const struct target *t);
int target__term_signal(const struct target *t);

/* Cancels a child that never started, reaps a launched one, detaches an attached one. */
void target__destroy(struct target *t);

#endif
