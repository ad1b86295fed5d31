#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memadvise layout agrees with pahole 1.24 on every struct pahole prints
# without an error: size, cache lines, members, member offsets and sizes,
# holes, bit holes, padding, bit padding (tests/e2e/layout_cmp.py).
# Binaries: the layout fixtures built now (C with DWARF 5 and 4, C++) and
# memadvise itself; more with MA_LAYOUT_BINS="bin1 bin2" (e.g. redis-server
# built from the Debian source package, see man/memadvise-layout.1).
. "$MA_TOP/tests/lib.sh"
need_cmd pahole
need_cmd python3
fx="$MA_TOP/tests/unit/fixtures"
cc -g -gdwarf-5 -O0 -pthread -o "$MA_TMP/c5" "$fx/layout_c.c" || fail "cannot build layout_c.c"
cc -g -gdwarf-4 -O0 -pthread -o "$MA_TMP/c4" "$fx/layout_c.c" || fail "cannot build layout_c.c (DWARF 4)"
c++ -g -O0 -Wno-invalid-offsetof -o "$MA_TMP/cc" "$fx/layout_cc.cc" || fail "cannot build layout_cc.cc"
total=0 garbled=0 rc=0
for b in "$MA_TMP/c5" "$MA_TMP/c4" "$MA_TMP/cc" "$MA" ${MA_LAYOUT_BINS:-}; do
	out=$(python3 "$MA_TOP/tests/e2e/layout_cmp.py" "$MA" "$b") || rc=1
	echo "$out"
	line=$(echo "$out" | tail -n 1)
	n=$(echo "$line" | sed -n 's/.*: \([0-9]*\) compared.*/\1/p')
	g=$(echo "$line" | sed -n 's/.* \([0-9]*\) garbled by pahole.*/\1/p')
	total=$((total + ${n:-0}))
	garbled=$((garbled + ${g:-0}))
done
# The fixture's struct sync (_Atomic members) is one pahole garbles: prove the check sees it.
[ "$garbled" -ge 1 ] || fail "pahole garbled no struct: the _Atomic fixture was not compared"
[ "$total" -ge 40 ] || fail "only $total structs compared"
[ $rc -eq 0 ] || fail "memadvise and pahole disagree (see above)"
pass "$total structs agree with pahole, $garbled garbled by pahole skipped"
