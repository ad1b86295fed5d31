/* SPDX-License-Identifier: GPL-2.0-only */
/* Diagnostics: always to stderr, git-style "error: ..." and "hint: ..." lines. */
#ifndef __MA_LOG_H
#define __MA_LOG_H

#include <stdarg.h>

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* -v raises, -q lowers; LOG_INFO is the default. */
void log__set_verbosity(int v);
int log__verbosity(void);
void log__printf(enum log_level lvl, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The first "error:" line printed, and the "hint:" line that followed it
 * ("" when none): for the JSON error object of -j (cli__json_error).
 */
const char *log__first_error(void);
const char *log__first_hint(void);

#define pr_err(...) log__printf(LOG_ERR, "error: ", __VA_ARGS__)
#define pr_hint(...) log__printf(LOG_ERR, "hint: ", __VA_ARGS__)
#define pr_warn(...) log__printf(LOG_WARN, "warning: ", __VA_ARGS__)
#define pr_info(...) log__printf(LOG_INFO, "", __VA_ARGS__)
#define pr_debug(...) log__printf(LOG_DEBUG, "debug: ", __VA_ARGS__)
#define pr_debugN(n, ...) log__printf(LOG_DEBUG + (n) - 1, "debug: ", __VA_ARGS__)

/* Route libbpf's and libpfm4's messages through the levels above. */
void log__install_library_hooks(void);

#endif
