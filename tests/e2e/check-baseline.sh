#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Baselines of 'memadvise check': a run saved with --save-baseline; a later
# run that regresses against it exits 1 and names the budget; a baseline
# simulated with another cache geometry is refused (exit 2, saying why)
# unless --force.
. "$MA_TOP/tests/lib.sh"
need_cmd valgrind
mm="$EXAMPLES/matmul"
[ -x "$mm" ] || skip "examples/bin/matmul not built"
budget() { # file D1
	cat > "$1" <<EOB
version: 1
geometry:
  I1: 32768,8,64
  D1: $2
  LL: 8M,16,64
workloads:
  - name: mm
    limits:
      - metric: l1d_mpki
        max: 1000
        tolerance: 5%
EOB
}
budget "$MA_TMP/a.yaml" 32768,8,64
budget "$MA_TMP/b.yaml" 65536,8,64
"$MA" check -b "$MA_TMP/a.yaml" --save-baseline "$MA_TMP/base.json" -- "$mm" --variant transposed \
	--size 128 > "$MA_TMP/save.out" 2>&1 || fail "saving the baseline: exit $?: $(tail -n 3 "$MA_TMP/save.out")"
json "$MA_TMP/base.json" "d['workloads'][0]['fingerprint']['geometry']" | grep -q 'D1=32768,8,64' ||
	fail "the baseline's fingerprint has no geometry"
[ -n "$(json "$MA_TMP/base.json" "d['workloads'][0]['fingerprint']['build_id']")" ] ||
	fail "the baseline's fingerprint has no build id"
"$MA" check -b "$MA_TMP/a.yaml" --baseline "$MA_TMP/base.json" -- "$mm" --variant naive \
	--size 128 > "$MA_TMP/reg.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a regression: exit $rc, expected 1: $(tail -n 5 "$MA_TMP/reg.out")"
grep -Eq '^mm: l1d_mpki .* fail' "$MA_TMP/reg.out" || fail "the regressed budget is not named as failed"
grep -q 'regression: .* against .* in the baseline' "$MA_TMP/reg.out" || fail "no regression reason"
"$MA" check -b "$MA_TMP/b.yaml" --baseline "$MA_TMP/base.json" -- "$mm" --variant transposed \
	--size 128 > "$MA_TMP/geo.out" 2> "$MA_TMP/geo.err"
rc=$?
[ $rc -eq 2 ] || fail "another geometry: exit $rc, expected 2"
grep -q "^error: workload 'mm' cannot be compared with the baseline .*: cache geometry" \
	"$MA_TMP/geo.err" || fail "the refusal does not say why: $(cat "$MA_TMP/geo.err")"
grep -q '^hint: .*--force' "$MA_TMP/geo.err" || fail "the refusal has no hint"
grep -q '^mm: l1d_mpki' "$MA_TMP/geo.out" || fail "the refused run's measurements were not printed"
"$MA" check -b "$MA_TMP/b.yaml" --baseline "$MA_TMP/base.json" --force -- "$mm" --variant transposed \
	--size 128 > "$MA_TMP/force.out" 2>&1
rc=$?
[ $rc -eq 2 ] && fail "--force: still refused: $(tail -n 3 "$MA_TMP/force.out")"
pass "regression exit 1 names mm: l1d_mpki; other geometry refused (exit 2); --force compares (exit $rc)"
