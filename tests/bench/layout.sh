#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Wall-time ratio 'memadvise layout FILE' / 'pahole FILE' (both print every
# struct as text to /dev/null), median of interleaved runs on the same files
# in the same run.  Files: memadvise itself, the layout fixture, and any in
# MA_LAYOUT_BINS (e.g. redis-server built from the Debian source package).
command -v pahole >/dev/null 2>&1 || { echo "layout bench skipped: pahole not installed"; exit 0; }
fx="$MA_TOP/tests/unit/fixtures/layout_c.c"
cc -g -O0 -pthread -o "$MA_TMP/layout_c" "$fx" || exit 1
reps=${BENCH_REPS:-11}
python3 - "$MA" "$reps" "$MA" "$MA_TMP/layout_c" ${MA_LAYOUT_BINS:-} <<'PY'
import os, statistics, subprocess, sys, time
ma, reps, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def run(cmd):
    s = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - s
print(f"memadvise layout vs pahole, median of {reps} interleaved runs")
worst = 0
tot = {"ma": 0.0, "pa": 0.0}
for f in files:
    t = {"ma": [], "pa": []}
    for _ in range(reps):
        t["ma"].append(run([ma, "layout", f]))
        t["pa"].append(run(["pahole", f]))
    m = {k: statistics.median(v) for k, v in t.items()}
    for k in tot:
        tot[k] += m[k]
    r = m["ma"] / m["pa"]
    worst = max(worst, r)
    print(f"  {os.path.basename(f):24s} memadvise {m['ma']*1000:7.1f} ms  pahole {m['pa']*1000:7.1f} ms  ratio {r:.2f}")
print(f"  ratio memadvise/pahole (sum of medians) {tot['ma']/tot['pa']:.2f}  (goal <= 1.0)")
PY
