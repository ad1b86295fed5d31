// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the condition evaluator.  Parse, walk the names and
 * evaluate with a lookup that knows some names and not others; an error must
 * come with a position inside the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/expr.h"

static int lookup(void *ctx, const char *name, double *v)
{
	(void)ctx;
	if (name[0] < 'm')
		return -ENOENT;
	*v = (double)(strlen(name) % 7) - 2;
	return 0;
}

static int count(void *ctx, const char *name)
{
	(void)name;
	++*(int *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1), err[160];
	struct expr *e;
	int pos = -1, n = 0;

	if (!src)
		return 0;
	memcpy(src, data, size);
	src[size] = '\0';
	e = expr__parse(src, err, sizeof(err), &pos);
	if (!e) {
		if (pos < 0 || (size_t)pos > strlen(src) || !err[0])
			abort();
	} else {
		expr__for_each_name(e, count, &n);
		expr__eval(e, lookup, NULL);
		expr__free(e);
	}
	free(src);
	return 0;
}
