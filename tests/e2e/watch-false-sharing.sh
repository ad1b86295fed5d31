#!/bin/sh
# Two threads write adjacent members of a global struct.  Watchpoints on the
# struct's members see each thread write its own member of one cache line
# (false sharing at tier watchpoint); software address sampling sees the
# same line written by both threads at different bytes, and names the members.
. "$MA_TOP/tests/lib.sh"
need_root
[ -d /sys/bus/event_source/devices/breakpoint ] || skip "no breakpoint PMU (hardware watchpoints)"
build_prog fshare
"$MA" run --watch counters -j -o "$MA_TMP/r.json" -- "$MA_TMP/fshare" 150000000 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.environ["MA_TOP"] + "/tests/e2e")
from watch_json import load, armed
d, w = load(sys.argv[1])
a, b = armed(w, "counters.a", "counters.b")
ta = {t["tid"] for t in a["threads"]}
tb = {t["tid"] for t in b["threads"]}
line = [l for l in w["lines"] if set(l["points"]) == {"counters.a", "counters.b"}]
ok = (w["tier"] == "watchpoint" and len(ta) == 1 and len(tb) == 1 and ta != tb and line
      and line[0]["false_sharing"] and a["hits"] > 0 and b["hits"] > 0
      and a["ips"][0].get("file", "").endswith("fshare.c"))
sw = d.get("data_addresses", {}).get("shared_lines", [])
sw_fs = [l for l in sw if l["kind"] == "false-sharing" and len(l["threads"]) >= 2
         and {t.get("write_object") for t in l["threads"]} == {"counters.a", "counters.b"}]
ok = ok and len(sw_fs) >= 1
print("[%s: watchpoints: counters.a by %s (%d hits), counters.b by %s (%d hits), same line,"
      " false sharing %s%s; sw-addr: %d falsely shared line(s)]" % (
    "Success" if ok else "Failed", sorted(ta), a["hits"], sorted(tb), b["hits"],
    bool(line and line[0]["false_sharing"]),
    ", a point stopped at %d hits" % w["hit_limit"] if w["limited"] else "", len(sw_fs)))
sys.exit(0 if ok else 1)
PY
