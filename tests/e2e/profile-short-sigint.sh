#!/bin/sh
# A target that exits within milliseconds still gets a profile (regions from
# the exit stop, faults counted); Ctrl-C (SIGINT to memadvise) mid-run still
# reports the samples taken so far.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog hot_line
"$MA" run -j -o "$MA_TMP/s.json" -- /bin/true || fail "run /bin/true exited $?"
json "$MA_TMP/s.json" "d['profile']['page_faults']['total'] > 10 and len(d['profile']['regions']) > 3 and any(r['path'].endswith('/true') for r in d['profile']['regions'])" |
	grep -q True || fail "no faults or no regions for a short-lived target"
# a few samples stand for all its faults (periods rescaled to the count):
# reads, writes and other still add up, for the run and for each site
P="d['profile']['page_faults']"
for i in 1 2 3 4 5 6; do
	"$MA" run -j -o "$MA_TMP/s$i.json" -- /bin/true || fail "run /bin/true exited $?"
	json "$MA_TMP/s$i.json" "$P['reads'] + $P['writes'] + $P['rw_unknown'] == $P['estimated'] and all(s['reads'] + s['writes'] + s['rw_unknown'] == s['count'] for s in $P['sites'])" |
		grep -q True || fail "reads+writes+other do not add up: $(json "$MA_TMP/s$i.json" "($P['estimated'], $P['reads'], $P['writes'], $P['rw_unknown'], [(s['count'], s['reads'], s['writes'], s['rw_unknown']) for s in $P['sites']])")"
done

"$MA" run -j -o "$MA_TMP/i.json" -- "$MA_TMP/hot_line" 100000 > /dev/null 2>&1 &
ma=$!
# Ctrl-C once the target has had half a second of CPU
wait_child_cpu $ma hot_line 500 || fail "the target did not run within 30 s"
kill -INT $ma
wait $ma
rc=$?
[ -s "$MA_TMP/i.json" ] || fail "no report after SIGINT (exit $rc)"
json "$MA_TMP/i.json" "d['target']['interrupted'] and d['profile']['events'][0]['samples'] > 100 and d['profile']['functions'][0]['function'] == 'hot_loop'" |
	grep -q True || fail "interrupted report lacks the samples: $(json "$MA_TMP/i.json" "d['profile']['events']")"
pass "short target and Ctrl-C both reported"
