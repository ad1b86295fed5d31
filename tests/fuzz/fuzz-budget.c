// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the budget-file parser of 'memadvise check'.  Any input
 * must give either a budget or a "FILE:LINE: ..." error, never a crash, a
 * leak or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "rules/budget.h"

const char *tier__name(enum tier t)
{
	return t < TIER__COUNT ? "tier" : "unknown";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct budget *b = NULL;
	char err[512];

	log__set_verbosity(-1);
	if (budget__parse_text("dir/fuzz.yaml", (const char *)data, size, &b, err, sizeof(err))) {
		if (b || strncmp(err, "dir/fuzz.yaml:", 14))
			abort(); /* every error names the file and a line */
		return 0;
	}
	budget__free(b);
	return 0;
}
