#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# 'memadvise layout FILE TYPE' reads only the units that define TYPE; what it
# prints (text and JSON) is byte for byte what a full read prints for that
# type, for every type of the fixtures (C with DWARF 5 and 4, C++, the
# pointer-cycle ones) and of MA_LAYOUT_BINS, and every 4th of memadvise's.
. "$MA_TOP/tests/lib.sh"
need_cmd python3
fx="$MA_TOP/tests/unit/fixtures"
cc -g -gdwarf-5 -O0 -pthread -o "$MA_TMP/c5" "$fx/layout_c.c" || fail "cannot build layout_c.c"
cc -g -gdwarf-4 -O0 -pthread -o "$MA_TMP/c4" "$fx/layout_c.c" || fail "cannot build layout_c.c (DWARF 4)"
c++ -g -O0 -Wno-invalid-offsetof -o "$MA_TMP/cc" "$fx/layout_cc.cc" || fail "cannot build layout_cc.cc"
cc -g -O0 -o "$MA_TMP/cyc" "$fx/layout_cycle.c" || fail "cannot build layout_cycle.c"
cc -g -O0 -o "$MA_TMP/cyca" "$fx/layout_cycle_array.c" || fail "cannot build layout_cycle_array.c"
total=0
for b in "$MA_TMP/c5" "$MA_TMP/c4" "$MA_TMP/cc" "$MA_TMP/cyc" "$MA_TMP/cyca" "$MA" ${MA_LAYOUT_BINS:-}; do
	step=1
	[ "$b" = "$MA" ] && step=4 # 270 types: every 4th keeps the test short
	out=$(python3 "$MA_TOP/tests/e2e/layout_one_cmp.py" "$MA" "$b" $step) || { echo "$out"; fail "$(basename "$b"): one type read alone differs from a full read"; }
	n=$(echo "$out" | tail -n 1 | sed -n 's/.*: \([0-9]*\) types compared.*/\1/p')
	total=$((total + ${n:-0}))
done
[ "$total" -ge 60 ] || fail "only $total types compared"
pass "$total types read alone print what a full read prints"
