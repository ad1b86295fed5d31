#!/bin/sh
# Counters follow every thread and forked child of the target.
. "$MA_TOP/tests/lib.sh"
build_prog threads_fork
"$MA" run -j -o "$MA_TMP/r.json" -e page_faults -- "$MA_TMP/threads_fork" 4 5000 ||
	fail "memadvise run exited $?"
pf=$(counter "$MA_TMP/r.json" page_faults)
# 4 threads + 1 child, 5000 pages each: at least 25000 faults.
python3 -c "import sys; sys.exit(0 if float('$pf') >= 25000 else 1)" ||
	fail "page_faults=$pf, expected >= 25000 (4 threads + 1 child x 5000 pages)"
pass "threads and children counted: page_faults=$pf"
