#!/bin/sh
# Data-address sampling follows the target into a child it forks and
# execs (sh -c 'PROG; true'): the child's code is decoded in the child's
# address space and its addresses land in its array.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog chase
"$MA" run -j -o "$MA_TMP/r.json" -- sh -c "'$MA_TMP/chase' 1048576 4000000 '$MA_TMP/range'; true" \
	>/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" "$MA_TMP/range" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
a = d.get("data_addresses")
if a is None:
    print("[Failed: no data_addresses section: %s]" % d.get("provenance")); sys.exit(1)
lo, hi = (int(x, 16) for x in open(sys.argv[2]).read().split())
inside = sum(r["samples"] for r in a["regions"]
             if int(r["start"], 16) < hi and int(r["end"], 16) > lo)
frac = inside / a["decoded"] if a["decoded"] else 0
top = a["ips"][0]
ok = (frac >= 0.9 and top["pid"] != d["target"]["pid"] and top.get("file", "").endswith("chase.c"))
print("[%s: child pid %d (target %d): %d decoded, %.1f%% in the child's array, top %s:%s]" % (
    "Success" if ok else "Failed", top["pid"], d["target"]["pid"], a["decoded"], 100 * frac,
    top.get("file"), top.get("line")))
sys.exit(0 if ok else 1)
PY
