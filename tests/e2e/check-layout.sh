#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Layout budgets run nothing: struct conn (tests/e2e/progs/check_layout.c)
# holds its budget in one line, fails it (exit 1, naming the budget) when it
# grows past the line, and the check takes under 100 ms.
. "$MA_TOP/tests/lib.sh"
build_prog check_layout -O0
cp "$MA_TMP/check_layout" "$MA_TMP/conn-small"
build_prog check_layout -O0 -DGROW
cp "$MA_TMP/check_layout" "$MA_TMP/conn-grown"
for v in small grown; do
	cat > "$MA_TMP/$v.yaml" <<EOB
version: 1
layouts:
  - binary: conn-$v
    struct: conn
    max_size: 64
    max_cachelines: 1
    max_holes: 0
    same_line: [[id, state]]
    separate_lines: [[lock, stats]]
EOB
done
"$MA" check -b "$MA_TMP/small.yaml" > "$MA_TMP/small.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "small: exit $rc, expected 1 (lock and stats share line 0): $(cat "$MA_TMP/small.out")"
grep -Eq '^layout: conn: cachelines +<= 1 +1 static +pass' "$MA_TMP/small.out" ||
	fail "small: cachelines budget does not pass: $(cat "$MA_TMP/small.out")"
grep -Eq '^layout: conn: lock apart from stats +apart +shared static +fail' "$MA_TMP/small.out" ||
	fail "small: lock/stats sharing not reported: $(cat "$MA_TMP/small.out")"
"$MA" check -b "$MA_TMP/grown.yaml" > "$MA_TMP/grown.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "grown: exit $rc, expected 1: $(cat "$MA_TMP/grown.out")"
grep -Eq '^layout: conn: cachelines +<= 1 +2 static +fail' "$MA_TMP/grown.out" ||
	fail "grown: the two-line struct does not fail its cachelines budget: $(cat "$MA_TMP/grown.out")"
grep -q 'struct conn: size 72 > 64 (check_layout.c:' "$MA_TMP/grown.out" ||
	fail "grown: the size failure does not name the struct and its source"
grep -Eq '^layout: conn: lock apart from stats .* pass' "$MA_TMP/grown.out" ||
	fail "grown: lock and stats should be on separate lines"
# the small struct passes every budget but the pair it fails on
sed -i '/separate_lines/d' "$MA_TMP/small.yaml"
"$MA" check -b "$MA_TMP/small.yaml" > "$MA_TMP/small.out" 2>&1 ||
	fail "small without separate_lines: exit $?, expected 0: $(cat "$MA_TMP/small.out")"
# fastest of 5: the check costs no run of anything
ms=$(python3 - "$MA" "$MA_TMP/grown.yaml" <<'PY'
import subprocess, sys, time
best = 1e9
for _ in range(5):
    s = time.perf_counter()
    subprocess.run([sys.argv[1], "check", "-b", sys.argv[2]], stdout=subprocess.DEVNULL)
    best = min(best, time.perf_counter() - s)
print(int(best * 1000))
PY
)
[ "$ms" -lt 100 ] || fail "layout check took $ms ms, more than 100 ms"
pass "one-line struct holds its budget, the grown one fails it; $ms ms"
