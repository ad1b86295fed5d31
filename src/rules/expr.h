/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The condition language of rule files: numbers, dotted names from the
 * metric namespace, + - * / %, comparisons, && || !, parentheses and the
 * functions min(), max(), abs(), log2(), ispow2() and known().
 *
 * Values are three-valued: a name that was not measured is "unknown", and
 * unknown propagates through arithmetic and comparisons.  && and || follow
 * Kleene logic (false && unknown is false, true || unknown is true), so a
 * rule whose decision depends on something that was not measured comes out
 * unknown (inconclusive) instead of silently passing.
 */
#ifndef __MA_EXPR_H
#define __MA_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#define EXPR_MAX_LEN 4096  /* longest accepted source text */
#define EXPR_MAX_DEPTH 64  /* deepest nesting accepted */

struct expr;

struct expr_value {
	double v;
	bool known;
};

/*
 * Looks NAME up: 0 and *val set when measured, -ENOENT when it was not
 * measured (the value is then unknown).
 */
typedef int (*expr_lookup_fn)(void *ctx, const char *name, double *val);

/*
 * Compiles SRC.  On a syntax error returns NULL, sets errno to EINVAL and
 * writes a message to ERR and the 0-based byte offset of the problem to *POS.
 */
struct expr *expr__parse(const char *src, char *err, size_t errlen, int *pos);
void expr__free(struct expr *e);

struct expr_value expr__eval(const struct expr *e, expr_lookup_fn lookup, void *ctx);

/* Calls FN for every name the expression uses (once per use); stops on non-zero. */
int expr__for_each_name(const struct expr *e, int (*fn)(void *ctx, const char *name), void *ctx);

/* A truth value: known and non-zero. */
static inline bool expr_value__true(struct expr_value v)
{
	return v.known && v.v != 0;
}

#endif
