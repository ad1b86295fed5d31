#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The counters tier of 'memadvise check': the workload runs natively
# 'repeat' times (--repeat overrides the file) and the median is compared
# (the spread reported); a page
# fault budget holds or fails on the software counter; a budget that needs
# the PMU on a machine without one is exit 2 with "missing tier", never a
# pass.
. "$MA_TOP/tests/lib.sh"
pf="$EXAMPLES/page_faults"
[ -x "$pf" ] || skip "examples/bin/page_faults not built"
budget() { # max-faults extra-limit
	cat > "$MA_TMP/b.yaml" <<EOB
version: 1
workloads:
  - name: faults
    tier: counters
    repeat: 1
    run: [$pf, --size, 1M, --batches, 20]
    limits:
      - metric: page_faults
        max: $1
$2
EOB
}
# 20 batches of a fresh 1 MiB buffer: 20 x 256 = 5120 faults and the start-up's
budget 20000 ""
"$MA" check -j --repeat 3 -b "$MA_TMP/b.yaml" > "$MA_TMP/ok.json" 2> "$MA_TMP/err" ||
	fail "page_faults <= 20000: exit $?: $(tail -n 3 "$MA_TMP/err")"
med=$(json "$MA_TMP/ok.json" "d['checks'][0]['measured']")
reps=$(json "$MA_TMP/ok.json" "d['checks'][0]['repeats']")
tier=$(json "$MA_TMP/ok.json" "d['checks'][0]['tier']")
[ "$reps" = 3 ] || fail "repeats $reps, expected 3"
[ "$tier" = software ] || fail "tier $tier, expected software"
python3 -c "import sys; sys.exit(not (5120 <= $med < 20000))" || fail "median page faults $med, expected 5120 to 20000"
json "$MA_TMP/ok.json" "d['checks'][0]['spread']" > /dev/null || fail "no spread"
budget 1000 ""
"$MA" check -b "$MA_TMP/b.yaml" > "$MA_TMP/fail.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "page_faults <= 1000: exit $rc, expected 1"
grep -Eq '^faults: page_faults .* fail' "$MA_TMP/fail.out" || fail "the exceeded budget is not named"
budget 20000 "      - metric: l1d_mpki
        max: 1000"
"$MA" check -j -b "$MA_TMP/b.yaml" > "$MA_TMP/pmu.json" 2> "$MA_TMP/err"
rc=$?
v=$(json "$MA_TMP/pmu.json" "d['checks'][1]['verdict']")
why=$(json "$MA_TMP/pmu.json" "d['checks'][1]['detail']")
if [ "$v" = error ]; then
	[ $rc -eq 2 ] || fail "a budget the PMU could not count: exit $rc, expected 2"
	case "$why" in "missing tier: "*) ;; *) fail "no 'missing tier' reason: $why" ;; esac
	pass "median of 3 = $med faults holds 20000, fails 1000; l1d_mpki: $why"
fi
[ "$(json "$MA_TMP/pmu.json" "d['checks'][1]['tier']")" = counting ] || fail "l1d_mpki not from the counting tier"
pass "median of 3 = $med faults holds 20000, fails 1000; l1d_mpki counted by the PMU"
