// SPDX-License-Identifier: GPL-2.0-only
#include "collect/target.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sudo.h"
#include "base/util.h"

struct target {
	pid_t pid;
	bool attached;
	bool started;
	bool traced;	     /* PTRACE_SEIZE'd with TRACEEXIT */
	bool at_exit;	     /* currently in the exit-stop */
	bool want_exec_stop; /* hold the program at its exec (TARGET_STOP_AT_EXEC) */
	bool at_exec;	     /* currently in that exec-stop */
	bool gone;
	int status;	     /* raw wait status */
	int go_fd;	     /* write end: releases the corked child */
	int err_fd;	     /* read end: the child's and the spawner's reports */
	struct spawn *spawn; /* until the release */
	int pidfd;	     /* -p without tracing: readable once the process exits; -1 */
	int sig_stops;	     /* signal-delivery-stops while traced */
	bool untraced_for_signals; /* tracing ended: too many of them */
	bool chld_blocked;   /* SIGCHLD blocked here, so that waiting can sleep on it */
	sigset_t old_mask;
	char exe[PATH_MAX];
};

static void stop_tracing_for_signals(struct target *t, int sig);

/* PATH search with execvp's rules, to fail before forking. */
static int resolve_exe(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int err = -ENOENT;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		struct stat st;

		if (stat(name, &st))
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (access(name, X_OK))
			return -EACCES;
		if (!realpath(name, out))
			snprintf(out, len, "%s", name);
		return 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		if (!stat(buf, &st) && !S_ISDIR(st.st_mode)) {
			if (!access(buf, X_OK)) {
				if (!realpath(buf, out))
					snprintf(out, len, "%s", buf);
				return 0;
			}
			err = -EACCES;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return err;
}

static void arm_exit_stop(struct target *t, bool at_exec)
{
	long opts = PTRACE_O_TRACEEXIT | (at_exec ? PTRACE_O_TRACEEXEC : 0);

	if (ptrace(PTRACE_SEIZE, t->pid, NULL, (void *)opts) == 0) {
		t->traced = true;
		t->want_exec_stop = at_exec;
		return;
	}
	pr_debug("cannot trace pid %d (%s): regions are read while it runs, not at its exit",
		 t->pid, strerror(errno));
}

/*
 * The corked child is a vfork()ed child of a short-lived spawner thread: it
 * runs on that thread's stack, in memadvise's memory, until it execs the
 * program.  The spawner is suspended in vfork() meanwhile, and the rest of
 * memadvise goes on (opening counters, loading BPF).  A fork()ed child would
 * share memadvise's pages copy-on-write: each page memadvise then wrote cost
 * a copy and a TLB-shootdown IPI, 80 and more per run, tens of milliseconds
 * in a guest.  Re-executing memadvise as a helper that waits costs the
 * exec and the loading of its libraries (5-7 ms before the helper was ready,
 * on the path to the program's start).  In the shared memory the child may
 * only make system calls: no malloc, no stdio, nothing that locks; what it
 * needs is prepared beforehand in struct spawn.
 *
 * The messages on the report pipe, in order: the child's 'r' (ready, with
 * its pid), then after the release 'e' (exec failed, errno) or 's' (could not
 * switch to the sudo user, errno) if anything, then always the spawner's 'x'
 * once vfork() returned (the child exec'ed or exited; val: its pid, or
 * -errno of vfork()).
 */
struct spawn_msg {
	char tag;
	int val;
} __attribute__((packed));

struct spawn {
	pthread_t thread;
	bool running;
	const char *exe;
	char *const *argv;
	int go_rd, go_wr;	/* release pipe: the child reads, memadvise writes */
	int rep_rd, rep_wr;	/* report pipe: the child and the spawner write */
	/* under sudo, the program runs as the user who invoked sudo, not as root */
	struct sudo_user user;	/* resolved beforehand */
};

static void child_report(int fd, char tag, int val)
{
	struct spawn_msg m = { .tag = tag, .val = val };

	if (write(fd, &m, sizeof(m)) < 0)
		_exit(127);
}

/* The vfork()ed child: system calls only (see above). */
static __attribute__((noreturn)) void corked_child(const struct spawn *s)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	char c;

	close(s->go_wr);
	close(s->rep_rd);
	/*
	 * Signals stay blocked (the spawner blocked them all) until the exec:
	 * memadvise's handlers must not run here.  Handled signals fall back to
	 * their defaults, and so do SIGINT, SIGTERM and SIGPIPE even where they
	 * were ignored; other ignored signals stay ignored, as exec keeps them.
	 */
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;

		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &old))
			continue;
		if (old.sa_handler != SIG_DFL &&
		    (old.sa_handler != SIG_IGN || sig == SIGPIPE || sig == SIGINT || sig == SIGTERM))
			sigaction(sig, &dfl, NULL);
	}
	/*
	 * glibc's own signals (32 and 33: cancellation and setxid), which its
	 * sigaction() refuses to touch, were once seen ignored here; the
	 * program gets them with their defaults too (struct kernel_sigaction:
	 * handler, flags, restorer, mask).
	 */
	for (int sig = 32; sig <= 33 && sig < SIGRTMIN; sig++) {
		unsigned long k[4] = { (unsigned long)SIG_DFL, 0, 0, 0 };

		syscall(SYS_rt_sigaction, sig, k, NULL, sizeof(k[3]));
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* the spawner waits in vfork() until the exec */
	child_report(s->rep_wr, 'r', (int)getpid());
	/* corked: exec only once memadvise has attached everything */
	if (read(s->go_rd, &c, 1) != 1)
		_exit(127);
	close(s->go_rd);
	prctl(PR_SET_PDEATHSIG, 0);
	if (sudo_user__drop(&s->user)) {
		child_report(s->rep_wr, 's', errno);
		_exit(127);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL); /* the program starts with no signal blocked */
	execve(s->exe, s->argv, environ);
	child_report(s->rep_wr, 'e', errno);
	_exit(127);
}

static void *spawner_main(void *arg)
{
	struct spawn *s = arg;
	struct spawn_msg m = { .tag = 'x' };
	sigset_t all;
	pid_t pid;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	pid = vfork();
	if (pid == 0)
		corked_child(s);
	m.val = pid < 0 ? -errno : pid;
	if (write(s->rep_wr, &m, sizeof(m)) < 0)
		pr_debug("cannot report the spawn's end: %s", strerror(errno));
	return NULL;
}

/* The next message of the report pipe; false at its end. */
static bool read_msg(int fd, struct spawn_msg *m)
{
	ssize_t n;

	do
		n = read(fd, m, sizeof(*m));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m);
}

static void spawn_free(struct spawn *s)
{
	if (!s)
		return;
	if (s->running)
		pthread_join(s->thread, NULL);
	if (s->go_rd >= 0)
		close(s->go_rd);
	if (s->rep_wr >= 0)
		close(s->rep_wr);
	sudo_user__free(&s->user);
	free(s);
}

int target__launch(struct target **out, char *const argv[], unsigned int flags)
{
	struct spawn_msg m = { 0 };
	struct spawn *s;
	struct target *t;
	int go[2], rep[2], err;

	t = xcalloc(1, sizeof(*t));
	t->go_fd = t->err_fd = t->pidfd = -1;
	err = resolve_exe(argv[0], t->exe, sizeof(t->exe));
	if (err)
		goto out_free;
	if (pipe2(go, O_CLOEXEC)) {
		err = -errno;
		goto out_free;
	}
	t->go_fd = go[1];
	if (pipe2(rep, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		goto out_close;
	}
	t->err_fd = rep[0];
	s = xcalloc(1, sizeof(*s));
	s->exe = t->exe;
	s->argv = argv;
	s->go_rd = go[0];
	s->go_wr = go[1];
	s->rep_rd = rep[0];
	s->rep_wr = rep[1];
	sudo_user__init(&s->user);
	err = -pthread_create(&s->thread, NULL, spawner_main, s);
	s->running = !err;
	/* ready, or could not start (not traced yet: nothing stops it on its way out) */
	if (!err && (!read_msg(t->err_fd, &m) || m.tag != 'r')) {
		bool x = m.tag == 'x';

		pr_debug("cannot start the program's process: %s",
			 x && m.val < 0 ? strerror(-m.val) : "it died before it was ready");
		err = x && m.val < 0 ? m.val : -ECHILD;
		if (x && m.val > 0)
			waitpid(m.val, NULL, __WALL);
	}
	if (err) {
		spawn_free(s);
		goto out_close;
	}
	t->pid = (pid_t)m.val;
	t->spawn = s;
	arm_exit_stop(t, flags & TARGET_STOP_AT_EXEC);
	*out = t;
	return 0;

out_close:
	close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
out_free:
	free(t);
	return err;
}

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

/* A kernel thread: flags, field 9 of /proc/PID/stat, has PF_KTHREAD. */
static bool is_kernel_thread(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long flags;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* the name, field 2, may hold spaces and parentheses: the last ')' ends it */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

int target__attach_pid(struct target **out, pid_t pid)
{
	struct target *t;
	char path[64];
	ssize_t n;

	if (pid <= 0 || kill(pid, 0)) {
		if (pid > 0 && errno == EPERM)
			return -EPERM;
		return -ESRCH;
	}
	if (is_kernel_thread(pid))
		return -EINVAL;
	t = xcalloc(1, sizeof(*t));
	t->pid = pid;
	t->attached = t->started = true;
	t->go_fd = t->err_fd = t->pidfd = -1;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, t->exe, sizeof(t->exe) - 1);
	if (n > 0)
		t->exe[n] = 0;
	else
		t->exe[0] = 0;
	arm_exit_stop(t, false);
	*out = t;
	return 0;
}

/*
 * A wait status of the child before it runs the program: its end; a
 * group-stop, kept; the exec-stop, held when asked for; else it goes on,
 * with the signal of a signal-delivery-stop.
 */
static void early_status(struct target *t, int st)
{
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		t->gone = true;
		t->traced = false;
		t->status = st;
	} else if (WIFSTOPPED(st)) {
		int ev = st >> 16;

		if (ev == PTRACE_EVENT_EXEC && t->want_exec_stop)
			t->at_exec = true; /* held for target__start */
		else if (ev == PTRACE_EVENT_STOP)
			ptrace(PTRACE_LISTEN, t->pid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)(ev ? 0 : WSTOPSIG(st)));
	}
}

/*
 * Lets a released child that has not exec'ed yet go on: it passes its
 * signals on (pending ones arrive once it unblocks them, before the exec),
 * and on its way out of a failed exec it does not wait at the exit-stop.
 */
static void unstick(struct target *t)
{
	int st;

	while (!t->gone && waitpid(t->pid, &st, WNOHANG | __WALL) == t->pid)
		early_status(t, st);
}

static void wait_exec_stop(struct target *t);

int target__start(struct target *t)
{
	struct spawn *s = t->spawn;
	struct spawn_msg m;
	int err = 0;

	if (t->started)
		return 0;
	t->started = true;
	if (write(t->go_fd, "g", 1) != 1)
		err = -errno;
	close(t->go_fd);
	t->go_fd = -1;
	/* the spawner's 'x' comes once the child exec'ed or exited */
	for (;;) {
		struct pollfd pfd = { .fd = t->err_fd, .events = POLLIN };
		int n = poll(&pfd, 1, 20);

		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0) {
			unstick(t);
			continue;
		}
		if (!read_msg(t->err_fd, &m) || m.tag == 'x')
			break;
		if (m.tag == 'e') {
			err = -m.val;
		} else if (m.tag == 's') {
			pr_err("cannot switch to the sudo user (uid %u) to run the program: %s",
			       (unsigned int)s->user.uid, strerror(m.val));
			pr_hint("run memadvise as that user, or without sudo's SUDO_UID in the environment");
			err = TARGET_ERR_REPORTED;
		}
	}
	close(t->err_fd);
	t->err_fd = -1;
	spawn_free(s);
	t->spawn = NULL;
	if (err) {
		t->want_exec_stop = false;
		unstick(t);
	} else if (t->want_exec_stop) {
		wait_exec_stop(t);
	}
	return err;
}

/*
 * Until the exec-stop (after the exec mapped the program, before its first
 * instruction), passing signals on, or until the program ended first.
 */
static void wait_exec_stop(struct target *t)
{
	int st;

	while (!t->at_exec && !t->gone) {
		if (waitpid(t->pid, &st, __WALL) == t->pid)
			early_status(t, st);
		else if (errno != EINTR)
			break;
	}
	t->want_exec_stop = false;
}

void target__resume_exec(struct target *t)
{
	if (!t->at_exec)
		return;
	t->at_exec = false;
	/* a later exec (a wrapper's) runs on: only the exit is traced */
	ptrace(PTRACE_SETOPTIONS, t->pid, NULL, (void *)(long)PTRACE_O_TRACEEXIT);
	ptrace(PTRACE_CONT, t->pid, NULL, NULL);
}

pid_t target__pid(const struct target *t)
{
	return t->pid;
}

const char *target__exe(const struct target *t)
{
	return t->exe[0] ? t->exe : NULL;
}

bool target__is_attached(const struct target *t)
{
	return t->attached;
}

bool target__can_stop_at_exit(const struct target *t)
{
	return t->traced;
}

int target__signal_stops(const struct target *t)
{
	return t->untraced_for_signals ? t->sig_stops : 0;
}

/*
 * A traced process stops at every signal it is sent, until memadvise
 * passes it on: a round trip through memadvise, about 0.1 ms in a guest
 * (a shell running 300 short commands took 300 SIGCHLDs: 35 ms, a fifth of
 * its run).  The exit-stop it is traced for saves one read of its regions,
 * about as long as ten such stops.  Past that many, tracing costs more
 * than it gives: it ends here, and the regions are read while the process
 * runs and from its mapping records (target__signal_stops says so).
 */
static void stop_tracing_for_signals(struct target *t, int sig)
{
	if (ptrace(PTRACE_DETACH, t->pid, NULL, (void *)(long)sig)) {
		ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)sig);
		return;
	}
	t->traced = false;
	t->untraced_for_signals = true;
	pr_debug("pid %d took %d signals: no longer traced, no exit-stop", t->pid, t->sig_stops);
}

static bool pid_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	char *stat;

	if (kill(pid, 0) && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	stat = read_file(path, NULL);
	if (!stat)
		return false;
	snprintf(buf, sizeof(buf), "%s", stat);
	free(stat);
	p = strrchr(buf, ')');
	return !(p && (p[2] == 'Z' || p[2] == 'X'));
}

/*
 * Sleeps until something may have happened to the target or the deadline
 * passes: on SIGCHLD for a child or tracee (blocked, so that it waits here;
 * a signal with a handler, such as Ctrl-C, ends the sleep too), on the pidfd
 * for a process attached without tracing.  Polling instead woke memadvise a
 * thousand times a second on the CPU next to the program it measures.
 */
static bool sleep_until(struct target *t, uint64_t deadline)
{
	uint64_t now = now_ns();
	uint64_t left = deadline > now ? deadline - now : 0;

	if (t->traced || !t->attached) {
		struct timespec ts = { .tv_sec = (time_t)(left / 1000000000ULL),
				       .tv_nsec = (long)(left % 1000000000ULL) };
		sigset_t chld;

		if (!t->chld_blocked) {
			sigemptyset(&chld);
			sigaddset(&chld, SIGCHLD);
			if (sigprocmask(SIG_BLOCK, &chld, &t->old_mask)) {
				usleep(1000);
				return false;
			}
			t->chld_blocked = true;
			return false; /* look again first: it may have changed before the block */
		}
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		return sigtimedwait(&chld, NULL, &ts) < 0 && errno == EINTR;
	}
	if (t->pidfd < 0)
		t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
	if (t->pidfd >= 0) {
		struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };

		return poll(&pfd, 1, (int)((left + 999999) / 1000000)) < 0 && errno == EINTR;
	}
	return usleep(left < 1000000 ? 1000 : 10000) < 0 && errno == EINTR;
}

enum target_state target__wait(struct target *t, int timeout_ms)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	if (t->gone)
		return TARGET_GONE;
	for (;;) {
		int status;
		pid_t r;

		if (t->traced || !t->attached) {
			r = waitpid(t->pid, &status, WNOHANG | __WALL);
			if (r < 0 && errno == ECHILD) {
				t->gone = true;
				return TARGET_GONE;
			}
			if (r == t->pid) {
				if (WIFEXITED(status) || WIFSIGNALED(status)) {
					if (!t->attached)
						t->status = status;
					else
						t->status = -1;
					t->gone = true;
					t->traced = false;
					return TARGET_GONE;
				}
				if (WIFSTOPPED(status)) {
					int sig = WSTOPSIG(status), ev = status >> 16;

					if (ev == PTRACE_EVENT_EXIT) {
						t->at_exit = true;
						return TARGET_AT_EXIT;
					}
					if (ev == PTRACE_EVENT_STOP) {
						/* group-stop (SIGSTOP etc.): stay stopped like untraced */
						ptrace(PTRACE_LISTEN, t->pid, NULL, NULL);
						continue;
					}
					/* signal-delivery-stop: deliver it unchanged; other events go on */
					if (!ev && ++t->sig_stops >= TARGET_MAX_SIGNAL_STOPS &&
					    !t->want_exec_stop) {
						stop_tracing_for_signals(t, sig);
						continue;
					}
					ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)(ev ? 0 : sig));
					continue;
				}
			}
		} else if (!pid_alive(t->pid)) {
			t->gone = true;
			return TARGET_GONE;
		}
		if (now_ns() >= deadline)
			return TARGET_RUNNING;
		/* a signal handled meanwhile (Ctrl-C): back to the caller at once */
		if (sleep_until(t, deadline))
			return TARGET_RUNNING;
	}
}

void target__resume(struct target *t)
{
	if (!t->at_exit)
		return;
	t->at_exit = false;
	ptrace(PTRACE_CONT, t->pid, NULL, NULL);
}

int target__kill(struct target *t, int sig)
{
	if (t->gone)
		return -ESRCH;
	return kill(t->pid, sig) ? -errno : 0;
}

void target__detach(struct target *t)
{
	if (t->traced && !t->gone) {
		if (t->at_exit)
			t->at_exit = false;
		ptrace(PTRACE_DETACH, t->pid, NULL, NULL);
	}
	t->traced = false;
}

int target__exit_status(const struct target *t)
{
	if (!t->gone || t->attached)
		return -1;
	if (WIFEXITED(t->status))
		return WEXITSTATUS(t->status);
	if (WIFSIGNALED(t->status))
		return 128 + WTERMSIG(t->status);
	return -1;
}

int target__term_signal(const struct target *t)
{
	if (!t->gone || t->attached || !WIFSIGNALED(t->status))
		return 0;
	return WTERMSIG(t->status);
}

void target__destroy(struct target *t)
{
	if (!t)
		return;
	if (!t->started) {
		/* Never released: closing the pipe makes the child exit. */
		close(t->go_fd);
		t->go_fd = -1;
		kill(t->pid, SIGKILL);
		/* reaped only past its exit-stop, if it got there before the kill */
		for (int st; waitpid(t->pid, &st, __WALL) == t->pid && !WIFEXITED(st) &&
			     !WIFSIGNALED(st);)
			ptrace(PTRACE_CONT, t->pid, NULL, NULL);
		spawn_free(t->spawn);
	} else if (t->attached) {
		target__detach(t);
	} else if (!t->gone) {
		target__resume(t);
		waitpid(t->pid, &t->status, __WALL);
	}
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->chld_blocked)
		sigprocmask(SIG_SETMASK, &t->old_mask, NULL);
	free(t);
}
