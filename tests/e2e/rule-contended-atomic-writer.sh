#!/bin/sh
# A cache line written by two threads is tied to the code that wrote it
# most, not to the code that wrote it last: two spin locks taken in turn
# (an exchange, line XCHG) and then, briefly, plain stores to the same lines
# (line STORE, the last writer).  contended-atomic fires at XCHG: the lines'
# sharing is its evidence.  (tests/labels/page_stride.yaml failed now and then
# for this: the unlock's store was sometimes the last writer.)
. "$MA_TOP/tests/lib.sh"
need_root
build_prog lock_then_store
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/lock_then_store" 400 >/dev/null ||
	fail "memadvise run exited $?"
xchg=$(grep -n 'XCHG \*/' "$MA_TOP/tests/e2e/progs/lock_then_store.c" | cut -d: -f1)
python3 - "$MA_TMP/r.json" "$xchg" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
xchg = int(sys.argv[2])
f = [x for x in d["findings"] if x["id"] == "contended-atomic" and x["status"] == "fired"]
at = [x["location"].get("line") for x in f]
shared = [l["kind"] for l in d["data_addresses"].get("shared_lines", [])]
ok = xchg in at and "true-sharing" in shared
print("[%s: contended-atomic fired at lines %s (XCHG is %d); shared lines %s]" % (
    "Success" if ok else "Failed", at, xchg, shared))
sys.exit(0 if ok else 1)
PY
pass "a shared line's evidence goes to the code that wrote it most"
