/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by bpf/systime.bpf.c and src/collect/sampling/systime.c: the
 * time the target's threads spent in system calls, and in futex calls
 * (lock and condition waits).  Fixed-width fields, no implicit padding.
 */
#ifndef __MA_BPF_SYSTIME_H
#define __MA_BPF_SYSTIME_H

/* Sums over the target's threads, per CPU. */
struct systime_val {
	__u64 sys_ns;		/* from sys_enter to sys_exit, all system calls */
	__u64 sys_calls;
	__u64 futex_ns;		/* of which futex and futex_waitv */
	__u64 futex_calls;
	__u64 futex_long_ns;	/* of which calls of SYSTIME_LONG_NS or more */
	__u64 futex_long_calls;
	__u64 sleep_ns;		/* off the CPU, blocked or sleeping (sched_switch) */
	__u64 runq_ns;		/* off the CPU, runnable: waiting for a CPU */
	__u64 sleep_long_ns;	/* of sleep_ns, sleeps of SYSTIME_LONG_NS or more */
	__u64 futex_lock_ns;	/* short futex waits of a lock (FUTEX_WAIT, FUTEX_LOCK_PI) */
	__u64 futex_lock_calls;
};

/*
 * Short lock waits per futex word (a mutex's address: glibc's lock word is
 * the mutex's first field): which lock the threads waited for.
 */
struct systime_lock_key {
	__u32 tgid;
	__u32 pad;
	__u64 uaddr;
};

struct systime_lock {
	__u64 wait_ns;
	__u64 waits;
	__u64 tid_bits;		/* bit (tid % 64) per waiting thread: a lower bound on their number */
};

#define SYSTIME_MAX_LOCKS 4096

/* A thread off the CPU since ts; runnable: it was preempted. */
struct systime_off {
	__u64 ts;
	__u64 runnable;
};

/*
 * A futex call this long is a thread parked for a phase of the run
 * (pthread_join, an idle worker's condition wait), not a wait for a lock
 * that another thread holds for a critical section (microseconds to a few
 * milliseconds, even with the holder preempted by a 4 ms tick).
 */
#define SYSTIME_LONG_NS 20000000ULL

/*
 * A futex call this long is a thread parked for a phase of the run
 * (pthread_join, an idle worker's condition wait), not a wait for a lock
 * that another thread holds for a critical section (microseconds to a few
 * milliseconds, even with the holder preempted by a 4 ms tick).
 */
#define SYSTIME_LONG_NS 20000000ULL

/* A call in flight, per thread. */
struct systime_start {
	__u64 ts;
	__u64 nr;		/* the call; for futex, its op in bits 32-63 */
};

#endif
