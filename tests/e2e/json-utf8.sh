#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# JSON stays valid UTF-8 when a path and the DWARF names are not: a program
# built in, and run from, a directory whose name has a 0xff byte gives a run
# report and a layout that a strict parser reads, with U+FFFD for the byte.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd python3
d="$MA_TMP/$(printf 'bad\377dir')"
mkdir -p "$d" || fail "cannot create a directory with a 0xff byte"
cp "$MA_TOP/tests/e2e/progs/hot_line.c" "$d/hot_line.c"
(cd "$d" && cc -O2 -g -fno-omit-frame-pointer -o "$d/hot_line" "$d/hot_line.c") ||
	fail "cannot build hot_line.c in $d"
strict() {
	python3 - "$1" <<'PY'
import json, sys
raw = open(sys.argv[1], 'rb').read()
json.load(open(sys.argv[1], encoding='utf-8', errors='strict'))
print('yes' if '\ufffd'.encode() in raw else 'no')
PY
}
"$MA" run -j -o "$MA_TMP/r.json" -- "$d/hot_line" 300 > /dev/null || fail "memadvise run exited $?"
r=$(strict "$MA_TMP/r.json") || fail "the run report is not valid UTF-8 JSON"
[ "$r" = yes ] || fail "the run report does not name the program's path (no U+FFFD)"
"$MA" layout -j "$d/hot_line" > "$MA_TMP/l.json" || fail "memadvise layout exited $?"
l=$(strict "$MA_TMP/l.json") || fail "the layout is not valid UTF-8 JSON"
[ "$l" = yes ] || fail "the layout does not name the source path (no U+FFFD)"
pass "run report and layout are valid UTF-8 with a 0xff byte in the paths"
