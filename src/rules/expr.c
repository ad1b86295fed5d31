// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recursive-descent parser into a small tree, and a three-valued
 * evaluator over it (see expr.h).  Precedence, loosest first:
 *   ||   &&   == != < <= > >=   + -   * / %   unary ! -   primary
 */
#include "rules/expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum node_kind { N_NUM, N_NAME, N_NEG, N_NOT, N_BIN, N_CALL };

enum binop { B_OR, B_AND, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_ADD, B_SUB, B_MUL, B_DIV, B_MOD };

enum func { F_MIN, F_MAX, F_ABS, F_LOG2, F_ISPOW2, F_KNOWN, F_FIRST, F_LOWER90 };

#define MAX_ARGS 8

struct expr {
	enum node_kind kind;
	double num;
	char *name;
	enum binop op;
	enum func fn;
	int nargs;
	struct expr *kid[MAX_ARGS];
};

static const struct {
	const char *name;
	enum func fn;
	int min_args, max_args;
} funcs[] = {
	{ "min", F_MIN, 1, MAX_ARGS },
	{ "max", F_MAX, 1, MAX_ARGS },
	{ "abs", F_ABS, 1, 1 },
	{ "log2", F_LOG2, 1, 1 },
	{ "ispow2", F_ISPOW2, 1, 1 },
	{ "known", F_KNOWN, 1, 1 },
	{ "first_known", F_FIRST, 1, MAX_ARGS },
	{ "lower90", F_LOWER90, 2, 2 },
};

struct parser {
	const char *src, *p;
	int depth;
	char *err;
	size_t errlen;
	int errpos;
	bool failed;
};

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	ps->errpos = (int)(at - ps->src);
	if (ps->err && ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
	}
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static struct expr *node_new(enum node_kind kind)
{
	struct expr *e = calloc(1, sizeof(*e));

	if (e)
		e->kind = kind;
	return e;
}

void expr__free(struct expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < MAX_ARGS; i++)
		expr__free(e->kid[i]);
	free(e->name);
	free(e);
}

static struct expr *parse_or(struct parser *ps);

static bool is_name_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

static struct expr *parse_number(struct parser *ps)
{
	const char *start = ps->p;
	char *end;
	double v;
	struct expr *e;

	errno = 0;
	v = strtod(ps->p, &end);
	if (end == ps->p || errno == ERANGE || !isfinite(v)) {
		fail(ps, start, "bad number");
		return NULL;
	}
	/* strtod accepts hex floats, "inf" and "nan"; we only want plain decimals/hex ints */
	for (const char *q = start; q < end; q++) {
		if (!isxdigit((unsigned char)*q) && *q != '.' && *q != 'x' && *q != 'X' &&
		    *q != 'e' && *q != 'E' && *q != '+' && *q != '-') {
			fail(ps, start, "bad number");
			return NULL;
		}
	}
	ps->p = end;
	switch (*ps->p) {
	case 'K': v *= 1024.0; ps->p++; break;
	case 'M': v *= 1024.0 * 1024; ps->p++; break;
	case 'G': v *= 1024.0 * 1024 * 1024; ps->p++; break;
	default: break;
	}
	if (is_name_char((unsigned char)*ps->p)) {
		fail(ps, ps->p, "unexpected '%c' after a number", *ps->p);
		return NULL;
	}
	e = node_new(N_NUM);
	if (!e) {
		fail(ps, start, "out of memory");
		return NULL;
	}
	e->num = v;
	return e;
}

static struct expr *parse_call(struct parser *ps, const char *start, size_t len)
{
	struct expr *e;
	size_t i;

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strlen(funcs[i].name) == len && !strncmp(funcs[i].name, start, len))
			break;
	if (i == sizeof(funcs) / sizeof(funcs[0])) {
		fail(ps, start, "unknown function '%.*s' (known: min max abs log2 ispow2 known "
		     "first_known lower90)",
		     (int)len, start);
		return NULL;
	}
	e = node_new(N_CALL);
	if (!e) {
		fail(ps, start, "out of memory");
		return NULL;
	}
	e->fn = funcs[i].fn;
	ps->p++; /* '(' */
	skip_ws(ps);
	if (*ps->p != ')') {
		for (;;) {
			if (e->nargs == MAX_ARGS) {
				fail(ps, ps->p, "too many arguments to %s()", funcs[i].name);
				goto err;
			}
			if (e->fn == F_KNOWN && !is_name_start((unsigned char)*ps->p)) {
				fail(ps, ps->p, "known() takes a metric name");
				goto err;
			}
			e->kid[e->nargs] = parse_or(ps);
			if (!e->kid[e->nargs])
				goto err;
			e->nargs++;
			skip_ws(ps);
			if (*ps->p == ',') {
				ps->p++;
				skip_ws(ps);
				continue;
			}
			break;
		}
	}
	if (*ps->p != ')') {
		fail(ps, ps->p, "expected ',' or ')' in the arguments of %s()", funcs[i].name);
		goto err;
	}
	ps->p++;
	if (e->nargs < funcs[i].min_args || e->nargs > funcs[i].max_args) {
		fail(ps, start, "%s() takes %d%s argument%s", funcs[i].name, funcs[i].min_args,
		     funcs[i].max_args > funcs[i].min_args ? " or more" : "",
		     funcs[i].min_args == 1 && funcs[i].max_args == 1 ? "" : "s");
		goto err;
	}
	if (e->fn == F_KNOWN && e->kid[0]->kind != N_NAME) {
		fail(ps, start, "known() takes a metric name");
		goto err;
	}
	return e;
err:
	expr__free(e);
	return NULL;
}

static struct expr *parse_primary(struct parser *ps)
{
	struct expr *e;
	const char *start;

	skip_ws(ps);
	start = ps->p;
	if (*ps->p == '(') {
		ps->p++;
		e = parse_or(ps);
		if (!e)
			return NULL;
		skip_ws(ps);
		if (*ps->p != ')') {
			fail(ps, ps->p, *ps->p ? "expected ')'" : "missing ')' at the end");
			expr__free(e);
			return NULL;
		}
		ps->p++;
		return e;
	}
	if (isdigit((unsigned char)*ps->p) || (*ps->p == '.' && isdigit((unsigned char)ps->p[1])))
		return parse_number(ps);
	if (is_name_start((unsigned char)*ps->p)) {
		size_t len;

		while (is_name_char((unsigned char)*ps->p))
			ps->p++;
		len = (size_t)(ps->p - start);
		for (size_t i = 1; i < len; i++) {
			if (start[i] == '.' && (start[i - 1] == '.' || i == len - 1)) {
				fail(ps, start, "bad name '%.*s'", (int)len, start);
				return NULL;
			}
		}
		if (len > 127) {
			fail(ps, start, "name too long");
			return NULL;
		}
		skip_ws(ps);
		if (*ps->p == '(')
			return parse_call(ps, start, len);
		if ((len == 4 && !strncmp(start, "true", 4)) || (len == 5 && !strncmp(start, "false", 5))) {
			e = node_new(N_NUM);
			if (!e) {
				fail(ps, start, "out of memory");
				return NULL;
			}
			e->num = len == 4;
			return e;
		}
		e = node_new(N_NAME);
		if (!e || !(e->name = strndup(start, len))) {
			free(e);
			fail(ps, start, "out of memory");
			return NULL;
		}
		return e;
	}
	if (!*ps->p)
		fail(ps, start, "expression ends where a value was expected");
	else
		fail(ps, start, "unexpected '%c' where a value was expected", *ps->p);
	return NULL;
}

static struct expr *parse_unary(struct parser *ps)
{
	struct expr *e, *kid;
	enum node_kind kind;
	const char *start;

	skip_ws(ps);
	start = ps->p;
	if ((*ps->p == '!' && ps->p[1] != '=') || *ps->p == '-') {
		kind = *ps->p == '!' ? N_NOT : N_NEG;
		ps->p++;
		if (++ps->depth > EXPR_MAX_DEPTH) {
			fail(ps, start, "expression nested too deeply");
			return NULL;
		}
		kid = parse_unary(ps);
		ps->depth--;
		if (!kid)
			return NULL;
		e = node_new(kind);
		if (!e) {
			expr__free(kid);
			fail(ps, start, "out of memory");
			return NULL;
		}
		e->kid[0] = kid;
		return e;
	}
	if (++ps->depth > EXPR_MAX_DEPTH) {
		fail(ps, start, "expression nested too deeply");
		return NULL;
	}
	e = parse_primary(ps);
	ps->depth--;
	return e;
}

/* Operators of one precedence level: longest spelling first. */
struct opdef {
	const char *s;
	enum binop op;
};

static const struct opdef ops_or[] = { { "||", B_OR }, { NULL, 0 } };
static const struct opdef ops_and[] = { { "&&", B_AND }, { NULL, 0 } };
static const struct opdef ops_cmp[] = { { "==", B_EQ }, { "!=", B_NE }, { "<=", B_LE },
					{ ">=", B_GE }, { "<", B_LT },	{ ">", B_GT },
					{ NULL, 0 } };
static const struct opdef ops_add[] = { { "+", B_ADD }, { "-", B_SUB }, { NULL, 0 } };
static const struct opdef ops_mul[] = { { "*", B_MUL }, { "/", B_DIV }, { "%", B_MOD }, { NULL, 0 } };

static const struct opdef *match_op(struct parser *ps, const struct opdef *ops)
{
	skip_ws(ps);
	for (; ops->s; ops++) {
		size_t n = strlen(ops->s);

		if (!strncmp(ps->p, ops->s, n))
			return ops;
	}
	return NULL;
}

static struct expr *parse_level(struct parser *ps, int level);

static const struct opdef *const levels[] = { ops_or, ops_and, ops_cmp, ops_add, ops_mul };

static struct expr *parse_level(struct parser *ps, int level)
{
	struct expr *lhs, *rhs, *e;
	const struct opdef *op;
	int count = 0;

	if (level == (int)(sizeof(levels) / sizeof(levels[0])))
		return parse_unary(ps);
	lhs = parse_level(ps, level + 1);
	if (!lhs)
		return NULL;
	while ((op = match_op(ps, levels[level]))) {
		const char *at = ps->p;

		if (levels[level] == ops_cmp && count) {
			fail(ps, at, "comparisons do not chain: use && between them");
			expr__free(lhs);
			return NULL;
		}
		ps->p += strlen(op->s);
		rhs = parse_level(ps, level + 1);
		if (!rhs) {
			expr__free(lhs);
			return NULL;
		}
		e = node_new(N_BIN);
		if (!e) {
			fail(ps, at, "out of memory");
			expr__free(lhs);
			expr__free(rhs);
			return NULL;
		}
		e->op = op->op;
		e->kid[0] = lhs;
		e->kid[1] = rhs;
		lhs = e;
		count++;
	}
	return lhs;
}

static struct expr *parse_or(struct parser *ps)
{
	struct expr *e;
	const char *start = ps->p;

	if (++ps->depth > EXPR_MAX_DEPTH) {
		fail(ps, start, "expression nested too deeply");
		return NULL;
	}
	e = parse_level(ps, 0);
	ps->depth--;
	return e;
}

struct expr *expr__parse(const char *src, char *err, size_t errlen, int *pos)
{
	struct parser ps = { .src = src, .p = src, .err = err, .errlen = errlen };
	struct expr *e = NULL;

	if (err && errlen)
		err[0] = '\0';
	if (!src) {
		errno = EINVAL;
		return NULL;
	}
	if (strlen(src) > EXPR_MAX_LEN) {
		fail(&ps, src, "expression longer than %d bytes", EXPR_MAX_LEN);
		goto out;
	}
	skip_ws(&ps);
	if (!*ps.p) {
		fail(&ps, ps.p, "empty expression");
		goto out;
	}
	e = parse_or(&ps);
	if (!e)
		goto out;
	skip_ws(&ps);
	if (*ps.p) {
		if ((*ps.p == '&' && ps.p[1] != '&') || (*ps.p == '|' && ps.p[1] != '|'))
			fail(&ps, ps.p, "'%c' is not an operator: use '%c%c'", *ps.p, *ps.p, *ps.p);
		else if (*ps.p == '=' && ps.p[1] != '=')
			fail(&ps, ps.p, "'=' is not an operator: use '=='");
		else if (*ps.p == ')')
			fail(&ps, ps.p, "unbalanced ')'");
		else
			fail(&ps, ps.p, "unexpected '%c' after a complete expression", *ps.p);
		expr__free(e);
		e = NULL;
	}
out:
	if (!e) {
		if (pos)
			*pos = ps.errpos;
		errno = EINVAL;
	}
	return e;
}

static const struct expr_value unknown = { 0, false };

static struct expr_value known(double v)
{
	struct expr_value r = { v, true };

	if (!isfinite(v))
		return unknown;
	return r;
}

struct expr_value expr__eval(const struct expr *e, expr_lookup_fn lookup, void *ctx)
{
	struct expr_value a, b;
	double v;

	switch (e->kind) {
	case N_NUM:
		return known(e->num);
	case N_NAME:
		if (lookup && !lookup(ctx, e->name, &v))
			return known(v);
		return unknown;
	case N_NEG:
		a = expr__eval(e->kid[0], lookup, ctx);
		return a.known ? known(-a.v) : unknown;
	case N_NOT:
		a = expr__eval(e->kid[0], lookup, ctx);
		return a.known ? known(a.v == 0) : unknown;
	case N_CALL:
		switch (e->fn) {
		case F_KNOWN:
			/* always evaluate the lookup so that callers see the name */
			return known(expr__eval(e->kid[0], lookup, ctx).known);
		case F_MIN:
		case F_MAX: {
			bool all = true;

			v = 0;
			for (int i = 0; i < e->nargs; i++) {
				a = expr__eval(e->kid[i], lookup, ctx);
				if (!a.known) {
					all = false;
					continue;
				}
				if (i == 0 || (e->fn == F_MIN ? a.v < v : a.v > v))
					v = a.v;
			}
			return all ? known(v) : unknown;
		}
		case F_FIRST:
			for (int i = 0; i < e->nargs; i++) {
				a = expr__eval(e->kid[i], lookup, ctx);
				if (a.known)
					return a;
			}
			return unknown;
		case F_ABS:
			a = expr__eval(e->kid[0], lookup, ctx);
			return a.known ? known(fabs(a.v)) : unknown;
		case F_LOWER90: {
			/*
			 * The share P seen in N trials is at least this, 9 times
			 * in 10: Wilson's score bound, one-sided (z = 1.2816)
			 */
			const double z = 1.2816;
			double p, n, c;

			a = expr__eval(e->kid[0], lookup, ctx);
			b = expr__eval(e->kid[1], lookup, ctx);
			if (!a.known || !b.known)
				return unknown;
			if (b.v < 1)
				return known(0);
			p = a.v < 0 ? 0 : a.v > 1 ? 1 : a.v;
			n = b.v;
			c = p + z * z / (2 * n) -
			    z * sqrt(p * (1 - p) / n + z * z / (4 * n * n));
			return known(c / (1 + z * z / n) > 0 ? c / (1 + z * z / n) : 0);
		}
		case F_LOG2:
			a = expr__eval(e->kid[0], lookup, ctx);
			return a.known && a.v > 0 ? known(log2(a.v)) : unknown;
		case F_ISPOW2: {
			a = expr__eval(e->kid[0], lookup, ctx);
			if (!a.known)
				return unknown;
			if (!(a.v >= 1 && a.v < 9.2e18) || a.v != floor(a.v))
				return known(0);
			unsigned long long n = (unsigned long long)a.v;

			return known((n & (n - 1)) == 0);
		}
		}
		return unknown;
	case N_BIN:
		a = expr__eval(e->kid[0], lookup, ctx);
		b = expr__eval(e->kid[1], lookup, ctx);
		switch (e->op) {
		case B_AND:
			if ((a.known && a.v == 0) || (b.known && b.v == 0))
				return known(0);
			return a.known && b.known ? known(1) : unknown;
		case B_OR:
			if ((a.known && a.v != 0) || (b.known && b.v != 0))
				return known(1);
			return a.known && b.known ? known(0) : unknown;
		default:
			break;
		}
		if (!a.known || !b.known)
			return unknown;
		switch (e->op) {
		case B_EQ: return known(a.v == b.v);
		case B_NE: return known(a.v != b.v);
		case B_LT: return known(a.v < b.v);
		case B_LE: return known(a.v <= b.v);
		case B_GT: return known(a.v > b.v);
		case B_GE: return known(a.v >= b.v);
		case B_ADD: return known(a.v + b.v);
		case B_SUB: return known(a.v - b.v);
		case B_MUL: return known(a.v * b.v);
		case B_DIV: return b.v == 0 ? unknown : known(a.v / b.v);
		case B_MOD: return b.v == 0 ? unknown : known(fmod(a.v, b.v));
		default: return unknown;
		}
	}
	return unknown;
}

int expr__for_each_name(const struct expr *e, int (*fn)(void *ctx, const char *name), void *ctx)
{
	int err;

	if (!e)
		return 0;
	if (e->kind == N_NAME && (err = fn(ctx, e->name)))
		return err;
	for (int i = 0; i < MAX_ARGS; i++)
		if (e->kid[i] && (err = expr__for_each_name(e->kid[i], fn, ctx)))
			return err;
	return 0;
}
