#!/bin/sh
# Software data-address sampling on a pointer chase: the decoded effective
# addresses must land in the chased array (platform.md measured 98%), 250 of
# them at least (10 M steps: about 1.7 s, 800 samples at 500 Hz, 400 on a
# guest's 250 Hz tick).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog chase
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/chase" 1048576 10000000 "$MA_TMP/range" >/dev/null ||
	fail "memadvise run exited $?"
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
ok = (a["tier"] == "sw-addr" and a["lost"] == 0 and a["decoded"] >= 250 and frac >= 0.90
      and top.get("file", "").endswith("chase.c") and top.get("approximate", 0) > 0)
print("[%s: %d samples, %d decoded, %.1f%% of addresses in the array, lost %d, top %s:%s %s]" % (
    "Success" if ok else "Failed", a["samples"], a["decoded"], 100 * frac, a["lost"],
    top.get("file"), top.get("line"), top.get("instruction")))
sys.exit(0 if ok else 1)
PY
