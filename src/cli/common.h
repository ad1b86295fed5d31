/* SPDX-License-Identifier: GPL-2.0-only */
/* Types and options shared by every command. */
#ifndef __MA_COMMON_H
#define __MA_COMMON_H

#include <stdbool.h>

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
};
extern struct global_opts gopts;

/* Every command: int cmd_NAME(int argc, char **argv), argv[0] is the command name. */
int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* Reports a getopt_long() error (opterr = 0) for command CMD (NULL: global). */
void cli__opt_error(int c, char **argv, const char *cmd);

#endif
