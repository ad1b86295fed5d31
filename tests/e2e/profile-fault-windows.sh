#!/bin/sh
# In a fault storm the page-faults event is open only in windows, and the
# faults between them are counted from the processes' own counts: the total
# still agrees within 1 % with perf stat -e page-faults on the same command
# (or, without perf, with memadvise --all-faults, which keeps the event open
# throughout: one window, nothing between), the sites and the timeline add
# up to it, the storm's site gets its faults, and a second process started
# between windows is counted too.  (The kernel's rusage counts 1 % more:
# faults the kernel takes on a process's memory for it, as at exec, raise
# minflt and not the event.)
. "$MA_TOP/tests/lib.sh"
need_root
build_prog fault_phases
# two processes one after the other, each 2000 faults then a 300000-fault storm
cmd="$MA_TMP/fault_phases 2000 300000; $MA_TMP/fault_phases 2000 300000"
P="d['profile']['page_faults']"
"$MA" run -j --all-faults -o "$MA_TMP/a.json" -- sh -c "$cmd" || fail "memadvise run --all-faults exited $?"
json "$MA_TMP/a.json" "$P['measured']" | grep -q True || skip "the page-faults event cannot be opened here"
json "$MA_TMP/a.json" "$P['windows'] == 1 and $P['between_windows'] == 0" | grep -q True ||
	fail "--all-faults: $(json "$MA_TMP/a.json" "($P['windows'], $P['between_windows'], $P['total'])")"
# the faults of the same command as perf stat counts them, else as --all-faults did
want=
if command -v perf >/dev/null 2>&1 &&
	perf stat -x, -e page-faults -o "$MA_TMP/perf.csv" sh -c "$cmd" 2>/dev/null; then
	want=$(awk -F, '/page-faults/{print $1}' "$MA_TMP/perf.csv")
	by="perf stat"
fi
case "$want" in
''|*[!0-9]*) want=$(json "$MA_TMP/a.json" "$P['total']"); by="--all-faults" ;;
esac
"$MA" run -j -o "$MA_TMP/r.json" -- sh -c "$cmd" || fail "memadvise run exited $?"
got=$(json "$MA_TMP/r.json" "'total=%d windows=%d open_ms=%.0f between=%d unread=%d storm=%d first_touch=%d' % ($P['total'], $P['windows'], $P['open_ms'], $P['between_windows'], $P['processes_unread'], sum(s['count'] for s in $P['sites'] if s['function'] == 'storm'), sum(s['count'] for s in $P['sites'] if s['function'] == 'first_touch'))")
echo "$got ($by: $want)"
json "$MA_TMP/r.json" "$P['windows'] >= 2 and $P['between_windows'] > 0" | grep -q True ||
	fail "no fault windows in a 600000-fault storm: $got"
json "$MA_TMP/r.json" "abs($P['total'] - $want) <= 0.01 * $want" | grep -q True ||
	fail "total faults $got, $by counted $want (need within 1 %)"
json "$MA_TMP/r.json" "[e['value'] for e in d['events'] if e['name'] == 'page_faults'][0] == $P['total']" | grep -q True ||
	fail "the page_faults counter differs from the profile's total"
# the storm's site: its 600000 faults within 5 %.  first_touch's 4000: the
# first process's 2000 are in the first window; the second's in the window
# that opens when the first one's storm ends, unless it starts between
# windows, where they count as the storm's (a phase at the same rate)
json "$MA_TMP/r.json" "abs(sum(s['count'] for s in $P['sites'] if s['function'] == 'storm') - 600000) <= 30000" |
	grep -q True || fail "the storm's faults misattributed: $got"
json "$MA_TMP/r.json" "1800 <= sum(s['count'] for s in $P['sites'] if s['function'] == 'first_touch') <= 5000" |
	grep -q True || fail "first_touch's faults misattributed: $got"
json "$MA_TMP/r.json" "$P['estimated'] == $P['total'] and sum($P['timeline']) == $P['total'] and sum(s['count'] for s in $P['sites']) + $P['rw_unknown'] - sum(s['rw_unknown'] for s in $P['sites']) == $P['total']" |
	grep -q True || fail "the breakdowns do not add up to the total"
# the storm's region (300000 pages of each process) holds nearly all of them
json "$MA_TMP/r.json" "max(r['faults'] for r in d['profile']['regions']) >= 290000" | grep -q True ||
	fail "no region holds one process's storm: $(json "$MA_TMP/r.json" "[r['faults'] for r in d['profile']['regions']][:4]")"
json "$MA_TMP/r.json" "any('counted from /proc/PID/stat' in p['detail'] for p in d['provenance'])" | grep -q True ||
	fail "the report does not say that faults were counted between windows"
pass "fault windows: $got"
