#!/bin/sh
# --watch auto: data-address sampling finds a line written by two threads
# and hands the bytes each wrote to the watchpoints while the program runs;
# the watchpoints then count each thread on its own member of the line.
. "$MA_TOP/tests/lib.sh"
need_root
[ -d /sys/bus/event_source/devices/breakpoint ] || skip "no breakpoint PMU (hardware watchpoints)"
build_prog fshare
"$MA" run --watch auto -j -o "$MA_TMP/r.json" -- "$MA_TMP/fshare" 200000000 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.environ["MA_TOP"] + "/tests/e2e")
from watch_json import load
d, w = load(sys.argv[1])
pts = [p for p in w["points"] if p["placed"] == "auto" and p["armed"]]
names = sorted(p["name"] for p in pts)
writers = [{t["tid"] for t in p["threads"]} for p in pts]
fs = [l for l in w["lines"] if l["false_sharing"]]
ok = (names == ["counters.a", "counters.b"] and len(writers) == 2 and writers[0] and writers[1]
      and not (writers[0] & writers[1]) and fs)
print("[%s: auto-placed %s after %.0f ms; writer threads %s; false sharing %s]" % (
    "Success" if ok else "Failed", names, (pts[0]["armed_after_ns"] / 1e6) if pts else -1,
    [sorted(x) for x in writers], bool(fs)))
sys.exit(0 if ok else 1)
PY
