// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the rule-file parser (libyaml document + our checks).
 * Any input must give either a rule or a "FILE:LINE: ..." error, never a
 * crash, a leak or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "rules/rules.h"


int rule__parse_buffer(const char *name, const char *text, size_t len, struct rule *out, char *err,
		       size_t errlen);

const char *tier__name(enum tier t)
{
	return t < TIER__COUNT ? "tier" : "unknown";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rule r;
	char err[512];
	int ret;

	log__set_verbosity(-1);
	ret = rule__parse_buffer("fuzz.yaml", (const char *)data, size, &r, err, sizeof(err));
	if (ret) {
		if (strncmp(err, "fuzz.yaml:", 10))
			abort(); /* every error names the file and a line */
		return 0;
	}
	rule__release(&r);
	return 0;
}
