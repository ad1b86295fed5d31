// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "model/findings.h"

static const char *const severity_names[] = { "info", "warning", "critical" };

static const char *const scope_names[SCOPE__COUNT] = {
	[SCOPE_RUN] = "run",	     [SCOPE_STRUCT] = "struct", [SCOPE_MEMBER] = "member",
	[SCOPE_REGION] = "region", [SCOPE_LINE] = "line",     [SCOPE_FUNCTION] = "function",
	[SCOPE_LOCK] = "lock",
};

void findings__free(struct findings *fs)
{
	if (!fs)
		return;
	for (int i = 0; i < fs->nr; i++) {
		free(fs->f[i].message);
		free(fs->f[i].advice);
		free(fs->f[i].fix);
		free(fs->f[i].missing);
		free(fs->f[i].ev);
	}
	free(fs->f);
	free(fs);
}

const char *severity__name(enum severity s)
{
	return (unsigned)s < (sizeof(severity_names) / sizeof(severity_names[0])) ? severity_names[s] : "?";
}

const char *scope__name(enum scope s)
{
	return s < SCOPE__COUNT ? scope_names[s] : "?";
}

static const char *const bound_names[BOUND__COUNT] = {
	[BOUND_UNKNOWN] = "unknown", [BOUND_MEMORY] = "memory",   [BOUND_COMPUTE] = "compute",
	[BOUND_USER] = "user code",  [BOUND_KERNEL] = "kernel",	  [BOUND_LOCKS] = "locks",
	[BOUND_IDLE] = "idle",
};

const char *bound__name(enum bound b)
{
	return (unsigned)b < BOUND__COUNT ? bound_names[b] : "?";
}
