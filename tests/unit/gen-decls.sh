#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds the unit-test registry from every 'void test_x__y(void)' definition.
sed -n 's/^void \(test_[A-Za-z0-9_]*\)(void)$/\1/p' "$@" | sort -u > "${TMPDIR:-/tmp}/ma-decls.$$"
while read -r t; do echo "void $t(void);"; done < "${TMPDIR:-/tmp}/ma-decls.$$"
echo "static const struct unit_test unit_tests[] = {"
while read -r t; do echo "	{ \"${t#test_}\", $t },"; done < "${TMPDIR:-/tmp}/ma-decls.$$"
echo "};"
rm -f "${TMPDIR:-/tmp}/ma-decls.$$"
