#!/bin/sh
# Hardware events: 'not supported' with a reason where there is no PMU, a number where there is.
. "$MA_TOP/tests/lib.sh"
"$MA" run -j -o "$MA_TMP/r.json" -e cycles,instructions,l1d_miss,page_faults -- true ||
	fail "memadvise run exited $?"
if [ -e /sys/bus/event_source/devices/cpu ] || ls /sys/bus/event_source/devices | grep -q '^cpu_'; then
	v=$(counter "$MA_TMP/r.json" cycles)
	case "$v" in "not supported") fail "a PMU is exposed but cycles did not count: $(json "$MA_TMP/r.json" "[e.get('reason') for e in d['events'] if e['name']=='cycles'][0]")" ;; esac
	pass "hardware PMU present: cycles counted $v"
fi
for e in cycles instructions l1d_miss; do
	v=$(counter "$MA_TMP/r.json" $e)
	[ "$v" = "not supported" ] || fail "$e printed '$v' on a machine without a PMU"
	why=$(json "$MA_TMP/r.json" "[e.get('reason','') for e in d['events'] if e['name']=='$e'][0]")
	[ -n "$why" ] || fail "$e has no reason"
done
echo "$why" | grep -q "no hardware PMU" || fail "reason does not say why: '$why'"
"$MA" run -e cycles,page_faults -- true > "$MA_TMP/out.txt" || fail "text run failed"
grep -Eq '^cycles +not supported +counting +no hardware PMU' "$MA_TMP/out.txt" ||
	fail "text report: $(grep cycles "$MA_TMP/out.txt")"
grep -Eq '^cycles +0' "$MA_TMP/out.txt" && fail "printed 0 for cycles"
grep -q 'hardware_counters:' "$MA_TMP/out.txt" || fail "no note on the missing tier"
pass "hardware events not supported: $why"
