// SPDX-License-Identifier: GPL-2.0-only
#include "cli/common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/log.h"
#include "base/sudo.h"

/* Set once by main() from the global options. */
struct global_opts gopts;

/*
 * After getopt_long() returned '?' or ':' (opterr = 0, optstring with a
 * leading ':'): one error line naming the option, and a hint to CMD's help.
 */
void cli__opt_error(int c, char **argv, const char *cmd)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		pr_err("option '%s' needs an argument", arg);
	else if (optopt)
		pr_err("unrecognized option '-%c'", optopt);
	else
		pr_err("unrecognized option '%s'", arg);
	pr_hint("see 'memadvise %s%s--help'", cmd ? cmd : "", cmd ? " " : "");
}


static void cli_out__hint(const char *path, int err)
{
	switch (err) {
	case ENOENT:
		pr_hint("the directory of '%s' does not exist: create it or choose another path", path);
		break;
	case ENOTDIR:
		pr_hint("a component of '%s' is not a directory", path);
		break;
	case EISDIR:
		pr_hint("'%s' is a directory: give a file name in it", path);
		break;
	case EACCES:
	case EPERM:
		pr_hint("check the permissions of '%s' and of its directory (an immutable file, chattr +i, cannot be written)",
			path);
		break;
	case EROFS:
		pr_hint("'%s' is on a read-only file system: choose another path", path);
		break;
	default:
		pr_hint("choose a path memadvise can write to");
	}
}

int cli_out__open(struct cli_out *o, const char *opt, const char *path)
{
	struct sudo_user u;
	int fd, err;

	o->opt = opt;
	o->path = path;
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	/* under sudo, as the user who invoked it: the file is theirs, as the program is */
	sudo_user__init(&u);
	fd = sudo_user__open(&u, path, O_WRONLY | O_CLOEXEC | O_NOCTTY, 0);
	if (fd == -ENOENT) {
		fd = sudo_user__open(&u, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
				     0666);
		o->created = fd >= 0;
	}
	sudo_user__free(&u);
	if (fd < 0) {
		errno = -fd;
		fd = -1;
	}
	if (fd >= 0) {
		o->f = fdopen(fd, "w");
		if (o->f)
			return 0;
		err = errno;
		close(fd);
		if (o->created)
			unlink(path);
		o->created = false;
	} else {
		err = errno;
	}
	pr_err("cannot open '%s' (%s) for writing: %s", path, opt, strerror(err));
	cli_out__hint(path, err);
	return -err;
}

int cli_out__rewind(struct cli_out *o)
{
	struct stat st;
	int fd = fileno(o->f);

	if (o->f == stdout || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	return ftruncate(fd, 0) ? -errno : 0;
}

int cli_out__close(struct cli_out *o, bool written)
{
	int err = 0;

	if (!o->f || o->f == stdout)
		return 0;
	if (fclose(o->f))
		err = -errno;
	o->f = NULL;
	if (!written && o->created)
		unlink(o->path);
	return err;
}


void cli__json_error(void)
{
	struct json_object *o;
	const char *hint = log__first_hint();

	if (!gopts.json || gopts.stdout_used || !log__first_error()[0])
		return;
	o = json_object_new_object();
	json_object_object_add(o, "error", json_str(log__first_error()));
	json_object_object_add(o, "hint", hint[0] ? json_str(hint) : NULL);
	json_object_object_add(o, "exit_status", json_object_new_int(MA_EXIT_ERROR));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE |
						(gopts.pretty ? JSON_C_TO_STRING_PRETTY
							      : JSON_C_TO_STRING_PLAIN)));
	json_object_put(o);
	fflush(stdout);
}
