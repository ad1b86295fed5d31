/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit-test harness.  A test is 'void test_<module>__<case>(void)' in a
 * tests/unit/u-*.c file; gen-decls.sh finds them, so there is no list to keep.
 * ASSERT_* return a bool so that 'if (!ASSERT_OK(...)) return;' works.
 */
#ifndef __MA_HARNESS_H
#define __MA_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void test__fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void test__skip(const char *why);
/* Directory holding fixtures compiled for this run (MA_FIXTURES, or a temp dir). */
const char *test__fixture_dir(void);
/* Compiles tests/unit/fixtures/NAME with CMD flags into the fixture dir; returns the path or NULL. */
const char *test__build_fixture(const char *src, const char *out, const char *flags);

#define ASSERT_TRUE(c, what) ({ bool ___ok = (c); \
	if (!___ok) { test__fail(__FILE__, __LINE__, "%s: expected true: %s", what, #c); } ___ok; })
#define ASSERT_FALSE(c, what) ASSERT_TRUE(!(c), what)
#define ASSERT_EQ(a, b, what) ({ long long ___a = (long long)(a), ___b = (long long)(b); \
	bool ___ok = ___a == ___b; \
	if (!___ok) { test__fail(__FILE__, __LINE__, "%s: %s == %lld, expected %lld", what, #a, ___a, ___b); } ___ok; })
#define ASSERT_NEQ(a, b, what) ({ long long ___a = (long long)(a), ___b = (long long)(b); \
	bool ___ok = ___a != ___b; \
	if (!___ok) { test__fail(__FILE__, __LINE__, "%s: %s == %lld, expected something else", what, #a, ___a); } ___ok; })
#define ASSERT_OK(e, what) ({ long long ___e = (long long)(e); bool ___ok = ___e == 0; \
	if (!___ok) { test__fail(__FILE__, __LINE__, "%s: %s returned %lld", what, #e, ___e); } ___ok; })
#define ASSERT_ERR(e, what) ({ long long ___e = (long long)(e); bool ___ok = ___e < 0; \
	if (!___ok) { test__fail(__FILE__, __LINE__, "%s: %s returned %lld, expected an error", what, #e, ___e); } ___ok; })
#define ASSERT_STREQ(a, b, what) ({ const char *___a = (a), *___b = (b); \
	bool ___ok = ___a && ___b && !strcmp(___a, ___b); \
	if (!___ok) { test__fail(__FILE__, __LINE__, "%s: \"%s\" != \"%s\"", what, ___a ? ___a : "(null)", ___b ? ___b : "(null)"); } ___ok; })
#define ASSERT_NEAR(a, b, tol, what) ({ double ___a = (a), ___b = (b); \
	bool ___ok = ___a - ___b <= (tol) && ___b - ___a <= (tol); \
	if (!___ok) { test__fail(__FILE__, __LINE__, "%s: %s == %g, expected %g +- %g", what, #a, ___a, ___b, (double)(tol)); } ___ok; })
#define ASSERT_NOT_NULL(p, what) ASSERT_TRUE((p) != NULL, what)

#endif
