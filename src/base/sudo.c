// SPDX-License-Identifier: GPL-2.0-only
/* The sudo user memadvise works for: dropping to it, opening files as it. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "base/sudo.h"
#include "base/util.h"

void sudo_user__init(struct sudo_user *u)
{
	const char *uid_s = getenv("SUDO_UID"), *gid_s = getenv("SUDO_GID");
	const char *user = getenv("SUDO_USER");
	int uid, gid, n = 32;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0 || !uid_s || !gid_s)
		return;
	if (parse_int(uid_s, 0, INT_MAX, &uid) || parse_int(gid_s, 0, INT_MAX, &gid) || uid == 0)
		return;
	u->active = true;
	u->uid = (uid_t)uid;
	u->gid = (gid_t)gid;
	if (user) {
		for (;;) {
			int got = n;

			u->groups = xrealloc(u->groups, n * sizeof(*u->groups));
			if (getgrouplist(user, u->gid, u->groups, &got) >= 0) {
				u->nr_groups = got;
				return;
			}
			if (got <= n)
				break;
			n = got;
		}
	}
	/* no name, or an unknown user: its primary group alone */
	u->groups = xrealloc(u->groups, sizeof(*u->groups));
	u->groups[0] = u->gid;
	u->nr_groups = 1;
}

void sudo_user__free(struct sudo_user *u)
{
	free(u->groups);
	memset(u, 0, sizeof(*u));
}

int sudo_user__drop(const struct sudo_user *u)
{
	if (!u->active)
		return 0;
	if (syscall(SYS_setgroups, (size_t)u->nr_groups, u->groups) ||
	    syscall(SYS_setresgid, u->gid, u->gid, u->gid) ||
	    syscall(SYS_setresuid, u->uid, u->uid, u->uid))
		return -errno;
	return 0;
}

/* The child's side: one message, the errno as data and the descriptor, if any. */
static void send_fd(int sock, int fd, int err)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		m.msg_control = ctl;
		m.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &m, MSG_NOSIGNAL) < 0)
		_exit(1);
}

static int recv_fd(int sock)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	int err = 0, fd = -1;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	ssize_t n;

	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != sizeof(err))
		return -EIO;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd >= 0)
		return fd;
	return err ? -err : -EIO;
}

int sudo_user__open(const struct sudo_user *u, const char *path, int flags, mode_t mode)
{
	int sv[2], fd, st;
	pid_t pid;

	if (!u->active) {
		fd = open(path, flags, mode);
		return fd < 0 ? -errno : fd;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		fd = -errno;
		close(sv[0]);
		close(sv[1]);
		return fd;
	}
	if (pid == 0) {
		close(sv[0]);
		if (sudo_user__drop(u)) {
			send_fd(sv[1], -1, errno);
			_exit(1);
		}
		fd = open(path, flags, mode);
		send_fd(sv[1], fd, fd < 0 ? errno : 0);
		_exit(0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return fd;
}

int sudo_user__run(const struct sudo_user *u, int (*fn)(void *), void *arg)
{
	int st, err;
	pid_t pid;

	if (!u->active)
		return fn(arg);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		err = sudo_user__drop(u);
		if (!err)
			err = fn(arg);
		_exit(err < 0 ? (-err > 255 ? EIO : -err) : 0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st))
		return -EINTR;
	return -WEXITSTATUS(st);
}

int sudo_user__owns_pid(const struct sudo_user *u, pid_t pid)
{
	char path[64], line[256];
	unsigned int ruid;
	int found = -ESRCH;
	FILE *f;

	if (!u->active)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &ruid) == 1) {
			found = ruid == u->uid;
			break;
		}
	fclose(f);
	return found;
}
