#!/bin/sh
# A 5000-fault phase before a 50000-fault storm: the sampled breakdown by
# function comes within 10 % of each phase's true count, and the breakdown
# adds up to the counted total (the samples' periods are scaled to it).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog fault_phases
# --all-faults: the sampler open throughout.  By default it closes between
# windows once faults come faster than 20000 a second, and the faults of a
# gap go to the sites of the window's last part: where the first phase
# outlasts the first 60 ms window (a loaded host: first_touch 4287, storm
# 50577 in one full run here) has the rest counted as the storm's, as
# designed (src/profiler.c: the gaps cannot tell a new site).
# profile-fault-windows tests the windows.
"$MA" run --all-faults -j -o "$MA_TMP/r.json" -- "$MA_TMP/fault_phases" 5000 50000 || fail "memadvise run exited $?"
P="d['profile']['page_faults']"
json "$MA_TMP/r.json" "$P['measured']" | grep -q True || skip "the page-faults event cannot be opened here"
got=$(json "$MA_TMP/r.json" "' '.join('%s=%d' % (f, sum(s['count'] for s in $P['sites'] if s['function'] == f)) for f in ('first_touch', 'storm'))")
json "$MA_TMP/r.json" "abs(sum(s['count'] for s in $P['sites'] if s['function'] == 'first_touch') - 5000) <= 500 and abs(sum(s['count'] for s in $P['sites'] if s['function'] == 'storm') - 50000) <= 5000" |
	grep -q True || fail "phases misestimated: $got (true: first_touch=5000 storm=50000)"
json "$MA_TMP/r.json" "$P['estimated'] == $P['total'] and sum(s['count'] for s in $P['sites']) + $P['rw_unknown'] - sum(s['rw_unknown'] for s in $P['sites']) == $P['total'] and sum($P['timeline']) == $P['total']" |
	grep -q True || fail "the breakdowns do not add up to the total ($(json "$MA_TMP/r.json" "($P['total'], $P['estimated'], $P['sampled_periods'], sum($P['timeline']))"))"
echo "$got"
