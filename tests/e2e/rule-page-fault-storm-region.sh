#!/bin/sh
# A faulting line names the region it faulted in even when the data-address
# sampler decoded none of its accesses (at 1 Hz, or when its samples were all
# in the fault handler): page-fault-storm on the calibration workload says
# "anon" from the fault sites alone.
. "$MA_TOP/tests/lib.sh"
need_root
[ -x "$EXAMPLES/page_faults" ] || fail "examples/bin/page_faults is not built (make examples)"
"$MA" run -F 1 -j -o "$MA_TMP/r.json" -- "$EXAMPLES/page_faults" --buffer fresh --batches 100 \
	>/dev/null 2>&1 || fail "memadvise run exited $?"
r=$(json "$MA_TMP/r.json" "[(f['status'], f.get('location', {}).get('region'), d['data_addresses']['decoded']) for f in d['findings'] if f['id'] == 'page-fault-storm']")
case "$r" in
"[('fired', 'anon', "*) ;;
*) fail "page-fault-storm (status, region, decoded samples): $r" ;;
esac
pass "page-fault-storm names region anon from the faults: $r"
