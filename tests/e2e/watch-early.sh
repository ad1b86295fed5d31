#!/bin/sh
# Watchpoints on a PIE's globals are in place before the program's first
# instruction (the program is held at its exec-stop while they move to its
# load address): writes in its first microseconds are all seen, exactly.
. "$MA_TOP/tests/lib.sh"
need_root
[ -d /sys/bus/event_source/devices/breakpoint ] || skip "no breakpoint PMU (hardware watchpoints)"
build_prog fshare
# two threads, 1000 writes each, done within a millisecond of the start
"$MA" run --watch counters -j -o "$MA_TMP/r.json" -- "$MA_TMP/fshare" 1000 0 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import os, sys
sys.path.insert(0, os.environ["MA_TOP"] + "/tests/e2e")
from watch_json import load, armed
d, w = load(sys.argv[1])
a, b = armed(w, "counters.a", "counters.b")
ok = a["hits"] == 1000 and b["hits"] == 1000 and not a["stopped"] and not b["stopped"]
print("[%s: a %d hits, b %d hits of 1000 writes each]" % ("Success" if ok else "Failed", a["hits"], b["hits"]))
sys.exit(0 if ok else 1)
PY
pass "writes at the program's start are all seen"
