#!/bin/sh
# Each watchpoint has its own hit budget: the first thread's writes stop
# the watch on its member, not on the member of a thread that starts late
# (as a thread does whose vCPU the host is running something else).
. "$MA_TOP/tests/lib.sh"
need_root
[ -d /sys/bus/event_source/devices/breakpoint ] || skip "no breakpoint PMU (hardware watchpoints)"
build_prog fshare
"$MA" run --watch counters -j -o "$MA_TMP/r.json" -- "$MA_TMP/fshare" 50000000 1500 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.environ["MA_TOP"] + "/tests/e2e")
from watch_json import load, armed
d, w = load(sys.argv[1])
a, b = armed(w, "counters.a", "counters.b")
ok = (a["stopped"] and a["hits"] >= w["hit_limit"]
      and b["hits"] > 0 and len(a["threads"]) == 1 and len(b["threads"]) == 1
      and a["threads"][0]["tid"] != b["threads"][0]["tid"] and w["limited"])
print("[%s: hit limit %d per point; a %s hits, stopped %s; b %s hits (the late thread)]" % (
    "Success" if ok else "Failed", w["hit_limit"], a["hits"], a["stopped"], b["hits"]))
sys.exit(0 if ok else 1)
PY
