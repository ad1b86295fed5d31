#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Behaviour on recorded inputs does not change unless meant to: the findings
# on the recorded fact bases and the layouts of two committed -g binaries
# (tests/golden/gen.sh) are byte-identical to tests/golden/expected/.
. "$MA_TOP/tests/lib.sh"
g="$MA_TOP/tests/golden"
sh "$g/gen.sh" "$MA" "$g" "$MA_TMP/got" 2> "$MA_TMP/err" || fail "gen.sh failed: $(tail -n 2 "$MA_TMP/err")"
diff -r "$g/expected" "$MA_TMP/got" > "$MA_TMP/diff" ||
	fail "output differs from tests/golden/expected ($(grep -c '^[<>]' "$MA_TMP/diff") lines; regenerate with tests/golden/gen.sh if meant): $(grep '^diff' "$MA_TMP/diff" | sed 's|.*/||' | tr '\n' ' ')"
pass "$(ls "$g/expected" | wc -l) outputs on recorded inputs are byte-identical to tests/golden/expected"
