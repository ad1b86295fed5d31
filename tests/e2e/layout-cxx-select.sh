#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A template whose name has a comma is selected on the command line, as a
# TYPE argument and in a -C list, and shows the compiler's size.
. "$MA_TOP/tests/lib.sh"
need_cmd c++
bin="$MA_TMP/cx"
c++ -g -O0 -o "$bin" "$MA_TOP/tests/unit/fixtures/layout_cxx_cases.cc" || fail "cannot build layout_cxx_cases.cc"
size=$("$bin" | sed -n 's/^ring.size //p')
"$MA" layout "$bin" 'app::Ring<char, 5>' > "$MA_TMP/one.txt" 2> "$MA_TMP/err" ||
	fail "layout FILE 'app::Ring<char, 5>' failed: $(cat "$MA_TMP/err")"
grep -q '^struct app::Ring<char, 5> {$' "$MA_TMP/one.txt" || fail "no app::Ring<char, 5> block"
grep -q "/\* size: $size," "$MA_TMP/one.txt" || fail "size is not the compiler's $size"
"$MA" layout -C 'app::Ring<char, 5>,app::Left' -s "$bin" > "$MA_TMP/two.txt" 2> "$MA_TMP/err" ||
	fail "-C with a template in the list failed: $(cat "$MA_TMP/err")"
[ "$(cut -f1 "$MA_TMP/two.txt" | tr '\n' '|')" = "app::Ring<char, 5>|app::Left|" ] ||
	fail "-C list gave: $(tr '\n' '|' < "$MA_TMP/two.txt")"
pass "app::Ring<char, 5> selected as an argument and in a -C list (size $size)"
