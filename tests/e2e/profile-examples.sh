#!/bin/sh
# The calibration workloads (examples/bin, labels in examples/labels): the
# naive matrix multiply's top source line is its inner-loop multiply-add;
# the page-fault workload's faulting line and anonymous region are named and
# its fault count equals perf stat's within 1%; the huge-page workload's
# working set is THP-backed with --thp on and not with --thp off.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd perf
for b in matmul page_faults huge_pages; do
	[ -x "$EXAMPLES/$b" ] || fail "examples/bin/$b is not built (make examples)"
done

"$MA" run -j -o "$MA_TMP/mm.json" -- "$EXAMPLES/matmul" --variant naive --size 512 2>/dev/null >&2 ||
	fail "run matmul exited $?"
top=$(json "$MA_TMP/mm.json" "(lambda l: '%s:%d %s' % (l['file'].split('/')[-1], l['line'], l['function']))(d['profile']['lines'][0])")
want=$(grep -n '\* M(mul2, k, j);' "$MA_TOP/examples/matmul.c" | head -1 | cut -d: -f1)
[ "$top" = "matmul.c:$want mm_naive" ] || fail "matmul: top line '$top', expected matmul.c:$want mm_naive"

"$MA" run -j -o "$MA_TMP/pf.json" -- "$EXAMPLES/page_faults" --buffer fresh --batches 50 2>/dev/null >&2 ||
	fail "run page_faults exited $?"
perf stat -x, -e page-faults -o "$MA_TMP/perf.csv" "$EXAMPLES/page_faults" --buffer fresh --batches 50 2>/dev/null >&2 ||
	skip "perf stat cannot count page-faults here"
pf=$(awk -F, '/page-faults/{print $1}' "$MA_TMP/perf.csv")
P="d['profile']['page_faults']"
ma=$(json "$MA_TMP/pf.json" "$P['total']")
python3 -c "import sys; a,b=$ma,$pf; sys.exit(0 if abs(a-b)<=0.01*b else 1)" ||
	fail "page_faults: profile $ma faults, perf stat $pf"
want=$(grep -n 'buf\[i\] = (unsigned char)(i / 64 + batch);' "$MA_TOP/examples/page_faults.c" | cut -d: -f1)
site=$(json "$MA_TMP/pf.json" "(lambda s: '%s:%d %s %s' % (s['file'].split('/')[-1], s['line'], s['function'], d['profile']['regions'][s['region']]['kind']))($P['sites'][0])")
[ "$site" = "page_faults.c:$want fill_and_sum anon" ] ||
	fail "page_faults: top site '$site', expected page_faults.c:$want fill_and_sum anon"

mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null) || mode=never
if [ "$mode" != never ]; then
	for v in on off; do
		"$MA" run -j -o "$MA_TMP/hp-$v.json" -- "$EXAMPLES/huge_pages" --thp $v --ws 64M --steps 200000 --reps 1 2>/dev/null >&2 ||
			fail "run huge_pages --thp $v exited $?"
	done
	R="sorted([r for r in d['profile']['regions'] if r['large'] and r['at_exit']], key=lambda r: -r['size'])[0]"
	json "$MA_TMP/hp-on.json" "$R['anon_huge'] >= 32 << 20 and $R['madv_hugepage']" | grep -q True ||
		fail "huge_pages --thp on: working set not THP-backed: $(json "$MA_TMP/hp-on.json" "$R")"
	json "$MA_TMP/hp-off.json" "$R['anon_huge'] == 0 and $R['size'] >= 64 << 20" | grep -q True ||
		fail "huge_pages --thp off: working set THP-backed: $(json "$MA_TMP/hp-off.json" "$R")"
fi
pass "matmul line $top; page_faults $ma faults (perf $pf) at $site; THP mode $mode"
