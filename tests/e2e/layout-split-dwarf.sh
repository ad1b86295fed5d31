#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# -gsplit-dwarf: the struct is read from the .dwo when it is there; without
# it the command says so (exit 2) instead of aborting in libdw.
. "$MA_TOP/tests/lib.sh"
need_cmd gcc
cat >"$MA_TMP/sd.c" <<'C'
struct sd_pt { char c; long x; int y; };
struct sd_pt g;
int main(void) { g.y = 1; return g.c; }
C
n=0
for cc in "gcc -gdwarf-4" "gcc -gdwarf-5" "clang"; do
	command -v "${cc%% *}" >/dev/null 2>&1 || continue
	d="$MA_TMP/sd$n"
	mkdir -p "$d"
	(cd "$d" && $cc -g -gsplit-dwarf -O0 -o sd "$MA_TMP/sd.c") || fail "$cc: cannot build"
	ls "$d"/*.dwo >/dev/null 2>&1 || fail "$cc: no .dwo written"
	"$MA" layout "$d/sd" sd_pt >"$d/out" 2>"$d/err"
	rc=$?
	[ $rc -eq 0 ] || fail "$cc: exit $rc with the .dwo: $(head -n 1 "$d/err")"
	grep -q 'struct sd_pt {' "$d/out" || fail "$cc: struct sd_pt not shown"
	grep -q 'declared at .*sd.c:1' "$d/out" || fail "$cc: no declaring file"
	mkdir "$d/away" && mv "$d"/*.dwo "$d/away/"
	"$MA" layout "$d/sd" >"$d/out" 2>"$d/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$cc: exit $rc without the .dwo"
	grep -q '^error: .*split-dwarf.*not found' "$d/err" || fail "$cc: no error line: $(head -n 1 "$d/err")"
	"$MA" run -o "$d/r.txt" -- "$d/sd" >/dev/null 2>"$d/err"
	rc=$?
	[ $rc -ne 134 ] && [ -s "$d/r.txt" ] || fail "$cc: run without the .dwo: exit $rc, no report"
	# A .dwo that is there but cut short is damaged, not missing.
	for f in "$d"/away/*.dwo; do head -c 200 "$f" >"$d/${f##*/}"; done
	"$MA" layout "$d/sd" >"$d/out" 2>"$d/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$cc: exit $rc with a truncated .dwo"
	grep -q '^error: the DWARF debug info of .* is damaged' "$d/err" ||
		fail "$cc: truncated .dwo: $(head -n 1 "$d/err")"
	n=$((n + 1))
done
pass "$n compilers: split units read, a missing or truncated .dwo reported"
