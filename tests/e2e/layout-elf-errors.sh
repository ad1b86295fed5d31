#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Files that give no DWARF say why, each with its own fix: stripped, truncated
# (section bytes past the end), debug sections compressed with zstd (which
# this libelf may not read), and a header cut short.  Each is exit 2 with an
# error and a hint; 'run' keeps its report and names the reason.
. "$MA_TOP/tests/lib.sh"
need_cmd gcc
need_cmd objcopy
cat >"$MA_TMP/e.c" <<'C'
struct ee_pt { char c; long x; int y; };
struct ee_pt g;
int main(void) { g.y = 1; return g.c; }
C
gcc -g -O0 -o "$MA_TMP/e" "$MA_TMP/e.c" || fail "cannot build"
"$MA" layout "$MA_TMP/e" ee_pt >/dev/null || fail "the intact file does not load"

expect() { # file error-regex what
	"$MA" layout "$1" >"$MA_TMP/out" 2>"$MA_TMP/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$3: exit $rc"
	grep -Eq "^error: $2" "$MA_TMP/err" || fail "$3: $(head -n 1 "$MA_TMP/err")"
	grep -q '^hint: ' "$MA_TMP/err" || fail "$3: no hint"
}
strip -o "$MA_TMP/stripped" "$MA_TMP/e"
expect "$MA_TMP/stripped" "no DWARF debug info .*stripped" "stripped"
size=$(wc -c <"$MA_TMP/e")
head -c $((size / 2)) "$MA_TMP/e" >"$MA_TMP/half"
expect "$MA_TMP/half" ".* is a truncated or damaged ELF file" "truncated at half"
head -c 40 "$MA_TMP/e" >"$MA_TMP/head"
expect "$MA_TMP/head" ".* is a truncated or damaged ELF file" "header cut short"
n=3
if objcopy --compress-debug-sections=zstd "$MA_TMP/e" "$MA_TMP/zstd" 2>/dev/null; then
	if "$MA" layout "$MA_TMP/zstd" ee_pt >/dev/null 2>&1; then
		: # this libelf reads zstd: nothing to report
	else
		expect "$MA_TMP/zstd" "the debug sections of .* are compressed in a format" "zstd"
		"$MA" run -o "$MA_TMP/r.txt" -- "$MA_TMP/zstd" >/dev/null 2>&1
		grep -q "compressed in a format this libelf cannot read" "$MA_TMP/r.txt" ||
			fail "run's report does not name the compression"
	fi
	n=4
fi
pass "$n damaged or stripped files, each with its own error and hint"
