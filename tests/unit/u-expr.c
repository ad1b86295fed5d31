// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <string.h>

#include "rules/expr.h"
#include "harness.h"

/* a: 2, b: 3, zero: 0, big: 1e6; anything else is unknown */
static int lookup(void *ctx, const char *name, double *v)
{
	int *calls = ctx;

	if (calls)
		(*calls)++;
	if (!strcmp(name, "a"))
		*v = 2;
	else if (!strcmp(name, "b"))
		*v = 3;
	else if (!strcmp(name, "zero"))
		*v = 0;
	else if (!strcmp(name, "layout.struct.size"))
		*v = 72;
	else
		return -ENOENT;
	return 0;
}

static struct expr_value ev(const char *src)
{
	char err[128];
	int pos = -1;
	struct expr *e = expr__parse(src, err, sizeof(err), &pos);
	struct expr_value v = { NAN, false };

	if (!e) {
		test__fail(__FILE__, __LINE__, "'%s' does not parse: %s at %d", src, err, pos);
		return v;
	}
	v = expr__eval(e, lookup, NULL);
	expr__free(e);
	return v;
}

#define CHECK(src, val) do { struct expr_value ___v = ev(src); \
	ASSERT_TRUE(___v.known, src); ASSERT_NEAR(___v.v, val, 1e-9, src); } while (0)
#define CHECK_UNKNOWN(src) ASSERT_FALSE(ev(src).known, src)

void test_expr__arithmetic(void)
{
	CHECK("1 + 2 * 3", 7);
	CHECK("(1 + 2) * 3", 9);
	CHECK("10 - 4 - 3", 3);
	CHECK("64 / 8 / 2", 4);
	CHECK("72 % 64", 8);
	CHECK("-a + 5", 3);
	CHECK("--a", 2);
	CHECK("0x40", 64);
	CHECK("1.5e2", 150);
	CHECK(".5", 0.5);
	CHECK("2K", 2048);
	CHECK("2M", 2097152);
	CHECK("1G", 1073741824.0);
	CHECK("layout.struct.size % 64", 8);
}

void test_expr__comparisons_and_logic(void)
{
	CHECK("a < b", 1);
	CHECK("a <= 2", 1);
	CHECK("a > b", 0);
	CHECK("b >= 3", 1);
	CHECK("a == 2 && b != 2", 1);
	CHECK("a == 3 || b == 3", 1);
	CHECK("!zero", 1);
	CHECK("!a", 0);
	CHECK("!(a < b)", 0);
	CHECK("a < b && b < 4 || zero", 1);
	CHECK("zero || zero && a", 0); /* && binds tighter */
	CHECK("true && !false", 1);
	CHECK("1 + 1 == a", 1); /* arithmetic binds tighter than comparison */
}

void test_expr__functions(void)
{
	CHECK("min(a, b, 7)", 2);
	CHECK("max(a, b)", 3);
	CHECK("abs(a - b)", 1);
	CHECK("log2(4096)", 12);
	CHECK("ispow2(4096)", 1);
	CHECK("ispow2(4104)", 0);
	CHECK("ispow2(0)", 0);
	CHECK("known(a)", 1);
	CHECK("known(nothing.here)", 0);
	CHECK("first_known(missing, b, a)", 3);
	CHECK("first_known(zero, a)", 0);
	/* Wilson's one-sided 90 % bound: 8 of 20 clears a quarter, 7 of 20 does not */
	ASSERT_NEAR(ev("lower90(0.4, 20)").v, 0.2724, 1e-3, "lower90 8/20");
	ASSERT_NEAR(ev("lower90(0.35, 20)").v, 0.2289, 1e-3, "lower90 7/20");
	ASSERT_TRUE(ev("lower90(0.4, 20000)").v > 0.395, "many samples: near the share");
	CHECK("lower90(0, 20)", 0);
	CHECK("lower90(0.5, 0)", 0);
	CHECK_UNKNOWN("lower90(missing, 20)");
	CHECK_UNKNOWN("lower90(0.5, missing)");
}

void test_expr__unknown_propagates(void)
{
	CHECK_UNKNOWN("missing");
	CHECK_UNKNOWN("missing + 1");
	CHECK_UNKNOWN("missing > 0");
	CHECK_UNKNOWN("!missing");
	CHECK_UNKNOWN("a > 0 && missing > 0");
	CHECK_UNKNOWN("zero || missing");
	CHECK_UNKNOWN("min(a, missing)");
	CHECK_UNKNOWN("first_known(missing, nothing.here)");
	CHECK_UNKNOWN("a / zero");   /* not computable is not a number */
	CHECK_UNKNOWN("a % zero");
	CHECK_UNKNOWN("log2(zero)");
	/* Kleene: a known side decides */
	CHECK("zero && missing", 0);
	CHECK("missing && zero", 0);
	CHECK("a || missing", 1);
	CHECK("missing || a", 1);
}

static int count_name(void *ctx, const char *name)
{
	int *n = ctx;

	(void)name;
	(*n)++;
	return 0;
}

void test_expr__names(void)
{
	char err[128];
	int pos, n = 0, calls = 0;
	struct expr *e = expr__parse("a.b > 1 && min(c_d, a.b) < e9 || known(x)", err, sizeof(err), &pos);

	if (!ASSERT_NOT_NULL(e, "parse"))
		return;
	ASSERT_OK(expr__for_each_name(e, count_name, &n), "walk");
	ASSERT_EQ(n, 5, "names used");
	expr__eval(e, lookup, &calls);
	ASSERT_EQ(calls, 5, "every name looked up");
	expr__free(e);
}

static void bad(const char *src, int want_pos, const char *want_msg)
{
	char err[128];
	int pos = -1;
	struct expr *e = expr__parse(src, err, sizeof(err), &pos);

	if (!ASSERT_TRUE(e == NULL, src)) {
		expr__free(e);
		return;
	}
	ASSERT_EQ(errno, EINVAL, src);
	ASSERT_EQ(pos, want_pos, src);
	if (!strstr(err, want_msg))
		test__fail(__FILE__, __LINE__, "'%s': message '%s' lacks '%s'", src, err, want_msg);
}

void test_expr__syntax_errors(void)
{
	bad("", 0, "empty expression");
	bad("   ", 3, "empty expression");
	bad("a +", 3, "ends where a value was expected");
	bad("(a + b", 6, "missing ')'");
	bad("a + b)", 5, "unbalanced ')'");
	bad("a & b", 2, "use '&&'");
	bad("a | b", 2, "use '||'");
	bad("a = b", 2, "use '=='");
	bad("a < b < c", 6, "do not chain");
	bad("foo(a)", 0, "unknown function 'foo'");
	bad("abs(a, b)", 0, "abs() takes 1 argument");
	bad("min()", 0, "min() takes 1 or more arguments");
	bad("known(1)", 6, "takes a metric name");
	bad("a..b > 1", 0, "bad name");
	bad("a. > 1", 0, "bad name");
	bad("12abc", 2, "after a number");
	bad("1 $ 2", 2, "unexpected '$'");
	bad("a b", 2, "after a complete expression");
	bad("#", 0, "unexpected '#'");
}

void test_expr__limits(void)
{
	char src[EXPR_MAX_LEN + 2];
	char err[128];
	int pos;
	struct expr *e;

	memset(src, '(', 200);
	strcpy(src + 200, "1");
	e = expr__parse(src, err, sizeof(err), &pos);
	ASSERT_TRUE(e == NULL, "200 parentheses");
	ASSERT_TRUE(strstr(err, "nested too deeply") != NULL, err);

	memset(src, '!', 200);
	strcpy(src + 200, "1");
	e = expr__parse(src, err, sizeof(err), &pos);
	ASSERT_TRUE(e == NULL, "200 nots");

	memset(src, ' ', sizeof(src));
	src[sizeof(src) - 1] = '\0';
	src[0] = '1';
	e = expr__parse(src, err, sizeof(err), &pos);
	ASSERT_TRUE(e == NULL, "too long");
	ASSERT_TRUE(strstr(err, "longer than") != NULL, err);

	ASSERT_TRUE(ev("1e308 * 10").known == false, "overflow is unknown, not inf");
}
