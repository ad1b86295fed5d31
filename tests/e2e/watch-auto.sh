#!/bin/sh
# --watch auto: data-address sampling finds a line written by two threads
# and hands the bytes each wrote to the watchpoints while the program runs;
# the watchpoints then count each thread on its own member of the line.
. "$MA_TOP/tests/lib.sh"
need_root
[ -d /sys/bus/event_source/devices/breakpoint ] || skip "no breakpoint PMU (hardware watchpoints)"
build_prog fshare
# The watchpoints arm once sampling has seen both threads write the line, and
# count only while the threads still run: that takes CPU time, not a count of
# writes (200 M used 0.13 s of CPU on one host, and nothing was placed).  The
# writes are sized so that the bare program uses a second of CPU.
iters=$(python3 - "$MA_TMP/fshare" <<'PY'
import resource, subprocess, sys
n = 200000000
for _ in range(8):
    t = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.argv[1], str(n)], stdout=subprocess.DEVNULL)
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = u.ru_utime - t.ru_utime + u.ru_stime - t.ru_stime
    if cpu >= 1.0:
        break
    n = int(n * min(8.0, 1.0 / max(cpu, 0.125)) + 1)
print(n)
PY
)
"$MA" run --watch auto -j -o "$MA_TMP/r.json" -- "$MA_TMP/fshare" "$iters" >/dev/null ||
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
