/* SPDX-License-Identifier: GPL-2.0-only */
/* Types and options shared by every command. */
#ifndef __MA_COMMON_H
#define __MA_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#pragma GCC poison u8 u16 u32 u64 s32 s64

/* Exit statuses of memadvise's own commands (diff/grep style). */
enum {
	MA_EXIT_OK = 0,
	MA_EXIT_ERROR = 2,    /* usage, runtime or environment error */
};

/* Global options, set once by main() before a command runs. */
struct global_opts {
	bool json;
	bool pretty;
	int verbose;
	const char *rules_dir; /* --rules DIR, extra user rules */
	bool stdout_used;      /* a document (or part of one) went to stdout */
};
extern struct global_opts gopts;

/*
 * With -j, an exit-2 error also comes as one JSON object on stdout,
 * {"error": ..., "hint": ..., "exit_status": 2}, unless the command already
 * wrote its document there (gopts.stdout_used).
 */
void cli__json_error(void);

/* Every command: int cmd_NAME(int argc, char **argv), argv[0] is the command name. */
int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* Reports a getopt_long() error (opterr = 0) for command CMD (NULL: global). */
void cli__opt_error(int c, char **argv, const char *cmd);

/*
 * An output file (-o, --sarif), opened before the program starts: a path
 * that cannot be written is an error that costs no run.  It is truncated
 * only when the report is written, and removed again when memadvise created
 * it and fails before that.
 */
struct cli_out {
	const char *opt;
	const char *path;
	FILE *f;
	bool created;
};

/*
 * Opens PATH for writing (stdout for NULL or "-"), under sudo with the
 * invoking user's rights; an error says why with a hint.  0 or -errno.
 */
int cli_out__open(struct cli_out *o, const char *opt, const char *path);
/* Empties a regular file kept from an earlier run, before writing to it. */
int cli_out__rewind(struct cli_out *o);
/* Closes O; unless WRITTEN, removes the file memadvise created.  0 or -errno. */
int cli_out__close(struct cli_out *o, bool written);

#endif
