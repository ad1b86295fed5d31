/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Under sudo, memadvise is root but works for the user who invoked it: the
 * programs it starts run as that user, and the files it opens on the user's
 * behalf (outputs, results in directories the user can write) are opened
 * with that user's rights, never root's.  Without sudo (or sudo to a
 * non-root user, or SUDO_UID=0) everything is done as memadvise's own user.
 */
#ifndef __MA_BASE_SUDO_H
#define __MA_BASE_SUDO_H
#include <stdbool.h>
#include <sys/types.h>

struct sudo_user {
	bool active;		/* root under sudo for a non-root user */
	uid_t uid;
	gid_t gid;
	gid_t *groups;		/* supplementary groups, resolved beforehand */
	int nr_groups;
};

/* The invoking user from SUDO_UID, SUDO_GID and SUDO_USER. */
void sudo_user__init(struct sudo_user *u);
void sudo_user__free(struct sudo_user *u);

/*
 * Becomes U for good (groups, gid, uid: raw system calls, so it may be
 * called between fork() and exec()).  0 or -errno; nothing to do when
 * U is not active.
 */
int sudo_user__drop(const struct sudo_user *u);

/*
 * open(2) with U's rights: a child process that became U opens PATH and
 * passes the descriptor back, so root never follows a link the user
 * planted.  The descriptor, or -errno.  A plain open() when U is not active.
 */
int sudo_user__open(const struct sudo_user *u, const char *path, int flags, mode_t mode);

/*
 * FN(ARG) in a child process that became U, for file work done on the
 * user's behalf (directories, a write and a rename); its result (0 or
 * -errno) comes back.  FN(ARG) in this process when U is not active.
 */
int sudo_user__run(const struct sudo_user *u, int (*fn)(void *), void *arg);

/* Whether U (when active) owns PID (its real uid): 1, 0, or -errno. */
int sudo_user__owns_pid(const struct sudo_user *u, pid_t pid);

#endif
