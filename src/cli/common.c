// SPDX-License-Identifier: GPL-2.0-only
#include "cli/common.h"

/* Set once by main() from the global options. */
struct global_opts gopts;
