// SPDX-License-Identifier: GPL-2.0-only
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
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

#include "log.h"
#include "util.h"

struct target {
	pid_t pid;
	bool attached;
	bool started;
	bool traced;	     /* PTRACE_SEIZE'd with TRACEEXIT */
	bool at_exit;	     /* currently in the exit-stop */
	bool gone;
	int status;	     /* raw wait status */
	int go_fd;	     /* write end: releases the corked child */
	int err_fd;	     /* read end: exec errno from the child (CLOEXEC) */
	int pidfd;	     /* -p without tracing: readable once the process exits; -1 */
	bool chld_blocked;   /* SIGCHLD blocked here, so that waiting can sleep on it */
	sigset_t old_mask;
	char exe[PATH_MAX];
};

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

/* Under sudo, the program runs as the user who invoked sudo, not as root. */
static void drop_to_sudo_user(void)
{
	const char *uid_s = getenv("SUDO_UID"), *gid_s = getenv("SUDO_GID");
	const char *user = getenv("SUDO_USER");
	int uid, gid;

	if (geteuid() != 0 || !uid_s || !gid_s)
		return;
	if (parse_int(uid_s, 0, INT_MAX, &uid) || parse_int(gid_s, 0, INT_MAX, &gid) || uid == 0)
		return;
	if ((user ? initgroups(user, gid) : setgroups(0, NULL)) || setgid(gid) || setuid(uid)) {
		fprintf(stderr, "error: cannot switch to the sudo user (uid %d): %s\n", uid,
			strerror(errno));
		_exit(127);
	}
}

static void arm_exit_stop(struct target *t)
{
	if (ptrace(PTRACE_SEIZE, t->pid, NULL, (void *)(long)PTRACE_O_TRACEEXIT) == 0) {
		t->traced = true;
		return;
	}
	pr_debug("cannot trace pid %d (%s): regions are read while it runs, not at its exit",
		 t->pid, strerror(errno));
}

/*
 * The corked child is memadvise itself, re-executed as
 *   memadvise __corked GO_FD ERR_FD PROGRAM ARGS...
 * by a vfork()ed child.  A fork()ed child that waited in place would share
 * every page of memadvise copy-on-write until it execs: while counters and
 * BPF programs are set up (a loader thread running on another CPU), each
 * page memadvise then wrote cost a copy and a TLB-shootdown IPI, 80 and
 * more per run, tens of milliseconds in a guest.  The vfork()ed child
 * borrows memadvise's memory only until its exec, and the helper's own
 * address space is fresh.
 */
#define CORKED_ARG "__corked"

static void exec_failed(int ep, int e)
{
	if (write(ep, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int target__corked_main(int argc, char **argv)
{
	int go, ep;
	sigset_t none;
	char c;

	if (argc < 6 || strcmp(argv[1], CORKED_ARG) || parse_int(argv[2], 0, INT_MAX, &go) ||
	    parse_int(argv[3], 0, INT_MAX, &ep) || fcntl(go, F_SETFD, FD_CLOEXEC) ||
	    fcntl(ep, F_SETFD, FD_CLOEXEC)) {
		fprintf(stderr, "error: '%s' is internal to 'memadvise run'\n", CORKED_ARG);
		return 127;
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL); /* the program starts with no signal blocked */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* Ready: counters opened from now on start at the program's exec, not this one's. */
	if (write(ep, "r", 1) != 1)
		_exit(127);
	/* Corked: exec only once the parent has attached everything. */
	if (read(go, &c, 1) != 1)
		_exit(127);
	close(go);
	prctl(PR_SET_PDEATHSIG, 0);
	drop_to_sudo_user();
	execv(argv[4], argv + 5);
	exec_failed(ep, errno);
	return 127;
}

static volatile int child_err; /* set by the vfork()ed child, which shares it */

/* vfork()s and execs the helper; its pid, or -errno (child_err: its exec's). */
static __attribute__((noinline)) pid_t spawn_corked(const char *self, char **hargv, int go,
						    int ep)
{
	pid_t pid;

	child_err = 0;
	pid = vfork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* only syscalls here: this is memadvise's memory until the exec */
		if (fcntl(go, F_SETFD, 0) || fcntl(ep, F_SETFD, 0))
			child_err = errno;
		else
			execv(self, hargv);
		if (!child_err)
			child_err = errno ? errno : ECHILD;
		_exit(127);
	}
	return pid;
}

int target__launch(struct target **out, char *const argv[])
{
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 }, err, argc = 0;
	char self[PATH_MAX], fds[2][16], **hargv = NULL;
	struct target *t;
	ssize_t n;
	pid_t pid;
	char c;

	t = xcalloc(1, sizeof(*t));
	t->go_fd = t->err_fd = t->pidfd = -1;
	err = resolve_exe(argv[0], t->exe, sizeof(t->exe));
	if (err)
		goto out_free;
	/* by name, not /proc/self/exe: the helper's name is its comm until the exec */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0 && n < (ssize_t)sizeof(self) - 1)
		self[n] = '\0';
	if (n <= 0 || n >= (ssize_t)sizeof(self) - 1 || strstr(self, " (deleted)"))
		snprintf(self, sizeof(self), "/proc/self/exe"); /* replaced since it started */
	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		err = -errno;
		goto out_close;
	}
	while (argv[argc])
		argc++;
	hargv = xcalloc(argc + 6, sizeof(*hargv));
	snprintf(fds[0], sizeof(fds[0]), "%d", go[0]);
	snprintf(fds[1], sizeof(fds[1]), "%d", ep[1]);
	hargv[0] = self;
	hargv[1] = (char *)CORKED_ARG;
	hargv[2] = fds[0];
	hargv[3] = fds[1];
	hargv[4] = t->exe;
	memcpy(hargv + 5, argv, (argc + 1) * sizeof(*hargv));
	fflush(NULL);
	pid = spawn_corked(self, hargv, go[0], ep[1]);
	if (pid < 0) {
		err = pid;
		goto out_close;
	}
	close(go[0]);
	close(ep[1]);
	go[0] = ep[1] = -1;
	/* the helper is ready, or could not start */
	do
		n = child_err ? 0 : read(ep[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || c != 'r') {
		err = -ECHILD;
		pr_debug("cannot start the corked helper %s: %s", self,
			 child_err ? strerror(child_err) : "it exited");
		waitpid(pid, NULL, 0);
		goto out_close;
	}
	free(hargv);
	t->pid = pid;
	t->go_fd = go[1];
	t->err_fd = ep[0];
	arm_exit_stop(t);
	*out = t;
	return 0;

out_close:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
out_free:
	free(hargv);
	free(t);
	return err;
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
	arm_exit_stop(t);
	*out = t;
	return 0;
}

int target__start(struct target *t)
{
	struct pollfd pfd;
	int e = 0;
	ssize_t n;

	if (t->started)
		return 0;
	t->started = true;
	if (write(t->go_fd, "g", 1) != 1)
		return -errno;
	close(t->go_fd);
	t->go_fd = -1;
	/* The error pipe closes on a successful exec, or carries errno. */
	pfd.fd = t->err_fd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			continue;
		n = read(t->err_fd, &e, sizeof(e));
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	close(t->err_fd);
	t->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
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
					/* signal-delivery-stop: deliver it unchanged */
					ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)sig);
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
		waitpid(t->pid, NULL, __WALL);
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
