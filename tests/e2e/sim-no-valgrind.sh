#!/bin/sh
# run --sim without valgrind in PATH: one error line, a hint, exit 2.
. "$MA_TOP/tests/lib.sh"
mkdir -p "$MA_TMP/emptypath"
PATH="$MA_TMP/emptypath" "$MA" run --sim -- /bin/true >"$MA_TMP/out" 2>"$MA_TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
grep -q '^error: .*valgrind is not installed' "$MA_TMP/err" || fail "no error line: $(cat "$MA_TMP/err")"
grep -q '^hint: ' "$MA_TMP/err" || fail "no hint"
[ "$(grep -c '^error:' "$MA_TMP/err")" -eq 1 ] || fail "more than one error line"
pass "missing valgrind: $(head -1 "$MA_TMP/err")"
