#!/bin/sh
# The page-fault count of a program touching N pages agrees with perf stat within 1%.
. "$MA_TOP/tests/lib.sh"
need_cmd perf
build_prog touch_pages
for n in 10000 50000; do
	"$MA" run -j -o "$MA_TMP/r.json" -e page_faults -- "$MA_TMP/touch_pages" $n ||
		fail "memadvise run exited $?"
	ma=$(counter "$MA_TMP/r.json" page_faults)
	perf stat -x, -e page-faults -o "$MA_TMP/perf.csv" "$MA_TMP/touch_pages" $n ||
		skip "perf stat cannot count page-faults here"
	pf=$(awk -F, '/page-faults/{print $1}' "$MA_TMP/perf.csv")
	python3 -c "import sys; a,b,n=float('$ma'),float('$pf'),$n; sys.exit(0 if abs(a-b)<=0.01*b and a>=n else 1)" ||
		fail "N=$n: memadvise page_faults=$ma, perf page-faults=$pf (need within 1% and >= $n)"
	echo "N=$n: memadvise $ma, perf $pf"
done
pass "page faults agree with perf stat within 1%"
