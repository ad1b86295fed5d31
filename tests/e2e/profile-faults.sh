#!/bin/sh
# Page faults from the page-faults event: the total agrees with perf stat's
# page-faults within 1%; the faulting line and the anonymous region are named
# from the samples, whose periods sum near the truth and are scaled to the
# total; reads/writes/other add up to it, minor/major too, and the timeline.
# The sampled periods sum near the total only while the page-faults event
# samples throughout: a run slowed past the first fault window (60 ms, by a
# loaded host) counts the rest between windows.  So the event stays open
# (--all-faults); e2e/profile-fault-windows tests the windows.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd perf
build_prog touch_pages
line=$(grep -n 'p\[i \* page\] = 1;' "$MA_TOP/tests/e2e/progs/touch_pages.c" | cut -d: -f1)
n=20000
"$MA" run --all-faults -j -o "$MA_TMP/r.json" -- "$MA_TMP/touch_pages" $n || fail "memadvise run exited $?"
perf stat -x, -e page-faults -o "$MA_TMP/perf.csv" "$MA_TMP/touch_pages" $n ||
	skip "perf stat cannot count page-faults here"
pf=$(awk -F, '/page-faults/{print $1}' "$MA_TMP/perf.csv")
P="d['profile']['page_faults']"
ma=$(json "$MA_TMP/r.json" "$P['total']")
python3 -c "import sys; a,b=$ma,$pf; sys.exit(0 if abs(a-b)<=0.01*b and a>=$n else 1)" ||
	fail "profile faults=$ma, perf page-faults=$pf (need within 1% and >= $n)"
json "$MA_TMP/r.json" "$P['reads'] + $P['writes'] + $P['rw_unknown'] == $P['estimated'] and $P['minor'] + $P['major'] == $P['total'] and sum($P['timeline']) == $P['estimated'] and $P['estimated'] == $P['total'] and abs($P['sampled_periods'] - $P['total']) <= $P['total'] // 5 and $P['samples'] > 0" |
	grep -q True || fail "reads+writes+other, minor+major or the timeline do not add up: $(json "$MA_TMP/r.json" "($P['total'], $P['estimated'], $P['reads'], $P['writes'], $P['rw_unknown'], $P['minor'], $P['major'], sum($P['timeline']), $P['sampled_periods'], $P['samples']))")"
site=$(json "$MA_TMP/r.json" "'%s:%d %s %d' % ($P['sites'][0]['file'].split('/')[-1], $P['sites'][0]['line'], $P['sites'][0]['function'], $P['sites'][0]['writes'])")
case "$site" in
"touch_pages.c:$line main "*)
	w=${site##* }
	[ "$w" -ge $((n * 9 / 10)) ] || fail "the site's store is not counted as writes ($site)" ;;
*) fail "top faulting site is '$site', expected touch_pages.c:$line main" ;;
esac
reg=$(json "$MA_TMP/r.json" "d['profile']['regions'][$P['sites'][0]['region']]")
# estimated from samples: within 10%; the sampled pages are some of its pages
json "$MA_TMP/r.json" "(lambda r: r['kind'] == 'anon' and r['size'] == $n * 4096 and 0 < r['pages_faulted'] <= $n and abs(r['faults'] - $n) <= $n // 10)(d['profile']['regions'][$P['sites'][0]['region']])" |
	grep -q True || fail "the site's region is not the $n-page anonymous mapping with $n faults: $reg"
pass "faults: memadvise $ma, perf stat $pf; site touch_pages.c:$line; region anon $n pages"
