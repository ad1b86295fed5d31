// SPDX-License-Identifier: GPL-2.0-only
#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

static int verbosity = LOG_INFO;

void log__set_verbosity(int v)
{
	verbosity = v;
}

int log__verbosity(void)
{
	return verbosity;
}

static char first_error[512], first_hint[512];
static int errors_seen;

const char *log__first_error(void)
{
	return first_error;
}

const char *log__first_hint(void)
{
	return first_hint;
}

/* Keeps the first error and the hint right after it, whatever the verbosity. */
static void remember(const char *prefix, const char *fmt, va_list ap)
{
	if (!strcmp(prefix, "error: ")) {
		if (!errors_seen++)
			vsnprintf(first_error, sizeof(first_error), fmt, ap);
	} else if (!strcmp(prefix, "hint: ") && errors_seen == 1 && !first_hint[0]) {
		vsnprintf(first_hint, sizeof(first_hint), fmt, ap);
	}
}

void log__printf(enum log_level lvl, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	if (lvl == LOG_ERR) {
		va_start(ap, fmt);
		remember(prefix, fmt, ap);
		va_end(ap);
	}
	if ((int)lvl > verbosity)
		return;
	va_start(ap, fmt);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int lvl = level == LIBBPF_WARN ? LOG_WARN : level == LIBBPF_INFO ? LOG_DEBUG : LOG_DEBUG + 1;

	if (lvl > verbosity)
		return 0;
	fputs("libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

void log__install_library_hooks(void)
{
	libbpf_set_print(libbpf_print);
	if (verbosity >= LOG_DEBUG + 2)
		setenv("LIBPFM_VERBOSE", "1", 0);
}
