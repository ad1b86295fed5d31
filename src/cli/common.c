// SPDX-License-Identifier: GPL-2.0-only
#include "cli/common.h"

#include <getopt.h>

#include "base/log.h"

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
