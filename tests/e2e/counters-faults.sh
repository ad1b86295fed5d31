#!/bin/sh
# The fault counters that are not events of their own: while faults are
# sampled, page_faults is the sampling event's count (the same number as
# perf stat's page-faults, within 1%), minor_faults is page_faults -
# major_faults, and each says so in its note; with --no-sample page_faults
# is its own counter; -e minor_faults opens the minor-faults event.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd perf
build_prog touch_pages
n=20000
perf stat -x, -e page-faults -o "$MA_TMP/perf.csv" "$MA_TMP/touch_pages" $n ||
	skip "perf stat cannot count page-faults here"
pf=$(awk -F, '/page-faults/{print $1}' "$MA_TMP/perf.csv")
ev() { # FILE NAME FIELD
	json "$1" "[e.get('$3') for e in d['events'] if e['name'] == '$2'][0]"
}
# --all-faults: the sampler open throughout.  By default a run that faults
# faster than 20000 a second beyond its first 60 ms closes it between windows
# and the note says so - whether it does depends on how fast this machine
# runs touch_pages (profile-fault-windows tests the windows).
"$MA" run --all-faults -j -o "$MA_TMP/s.json" -- "$MA_TMP/touch_pages" $n || fail "memadvise run exited $?"
[ "$(json "$MA_TMP/s.json" "d['profile']['page_faults']['measured']")" = True ] ||
	skip "page faults were not sampled: $(json "$MA_TMP/s.json" "d['provenance']")"
v=$(ev "$MA_TMP/s.json" page_faults value)
python3 -c "import sys; a,b=$v,$pf; sys.exit(0 if abs(a-b)<=0.01*b and a>=$n else 1)" ||
	fail "page_faults=$v, perf page-faults=$pf (need within 1% and >= $n)"
[ "$(ev "$MA_TMP/s.json" page_faults note)" = "the fault sampler's count" ] ||
	fail "page_faults note: $(ev "$MA_TMP/s.json" page_faults note)"
[ "$v" = "$(json "$MA_TMP/s.json" "float(d['profile']['page_faults']['total'])")" ] ||
	fail "page_faults counter $v differs from the profile's total"
json "$MA_TMP/s.json" "[e['value'] for e in d['events'] if e['name'] == 'minor_faults'][0] == [e['value'] for e in d['events'] if e['name'] == 'page_faults'][0] - [e['value'] for e in d['events'] if e['name'] == 'major_faults'][0]" |
	grep -q True || fail "minor_faults is not page_faults - major_faults"
[ "$(ev "$MA_TMP/s.json" minor_faults derived)" = "page_faults - major_faults" ] ||
	fail "minor_faults not marked derived"
# the sampler's own times: enabled for the target's run, and running all of it
for c in page_faults minor_faults; do
	python3 -c "import sys; e,r=$(ev "$MA_TMP/s.json" $c enabled_ns),$(ev "$MA_TMP/s.json" $c running_ns); sys.exit(0 if e > 0 and r == e else 1)" ||
		fail "$c: enabled_ns/running_ns $(ev "$MA_TMP/s.json" $c enabled_ns)/$(ev "$MA_TMP/s.json" $c running_ns) (want equal and > 0)"
done

"$MA" run --no-sample -j -o "$MA_TMP/n.json" -- "$MA_TMP/touch_pages" $n || fail "memadvise run --no-sample exited $?"
[ "$(ev "$MA_TMP/n.json" page_faults note)" = None ] ||
	fail "--no-sample: page_faults has a note: $(ev "$MA_TMP/n.json" page_faults note)"
v=$(ev "$MA_TMP/n.json" page_faults value)
python3 -c "import sys; a,b=$v,$pf; sys.exit(0 if abs(a-b)<=0.01*b else 1)" ||
	fail "--no-sample: page_faults=$v, perf page-faults=$pf"

"$MA" run -e minor_faults,major_faults -j -o "$MA_TMP/e.json" -- "$MA_TMP/touch_pages" $n ||
	fail "memadvise run -e exited $?"
[ "$(ev "$MA_TMP/e.json" minor_faults derived)" = None ] &&
	[ "$(ev "$MA_TMP/e.json" minor_faults event)" = "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN" ] ||
	fail "-e minor_faults: not the minor-faults event: $(ev "$MA_TMP/e.json" minor_faults event)"
v=$(ev "$MA_TMP/e.json" minor_faults value)
[ "${v%.*}" -ge $n ] || fail "-e minor_faults counted $v (>= $n expected)"
pass
