#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Wall-time ratio 'memadvise layout FILE' / 'pahole FILE' (both print every
# struct as text to /dev/null), median of interleaved runs on the same files
# in the same run.  Files: memadvise itself, the layout fixture, and any in
# MA_LAYOUT_BINS (e.g. redis-server built from the Debian source package).
# Then one type, 'memadvise layout FILE TYPE' against 'pahole -C TYPE FILE'
# (wall and CPU), on redis-server and sqlite3 as scripts/real-programs.sh
# builds them (in MA_REAL_DIR or its default cache; not built here).
command -v pahole >/dev/null 2>&1 || { echo "layout bench skipped: pahole not installed"; exit 0; }
fx="$MA_TOP/tests/unit/fixtures/layout_c.c"
cc -g -O0 -pthread -o "$MA_TMP/layout_c" "$fx" || exit 1
reps=${BENCH_REPS:-11}
real=${MA_REAL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/memadvise/real}
one=""
for t in "redis-*/src/redis-server redisServer" "sqlite3-*/sqlite3-g WhereClause"; do
	set -- $t
	f=$(ls "$real"/$1 2>/dev/null | head -n 1)
	[ -n "$f" ] && one="$one $f:$2"
done
python3 - "$MA" "$reps" "$one" "$MA" "$MA_TMP/layout_c" ${MA_LAYOUT_BINS:-} <<'PY'
import os, statistics, subprocess, sys, time
ma, reps, one, files = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
def run(cmd):
    s = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, st, ru = os.wait4(p.pid, 0)
    if st:
        raise SystemExit(f"{' '.join(cmd)}: exit status {st}")
    return time.perf_counter() - s, ru.ru_utime + ru.ru_stime
def compare(label, cmds):
    t = {k: ([], []) for k in cmds}
    for _ in range(reps):
        for k, c in cmds.items():
            w, cpu = run(c)
            t[k][0].append(w)
            t[k][1].append(cpu)
    m = {k: (statistics.median(v[0]), statistics.median(v[1])) for k, v in t.items()}
    r = m["ma"][0] / m["pa"][0]
    print(f"  {label:34s} memadvise {m['ma'][0]*1000:7.1f} ms ({m['ma'][1]*1000:6.1f} CPU)"
          f"  pahole {m['pa'][0]*1000:7.1f} ms ({m['pa'][1]*1000:6.1f} CPU)  ratio {r:.2f}")
    return m
print(f"memadvise layout vs pahole, median of {reps} interleaved runs")
tot = {"ma": 0.0, "pa": 0.0}
for f in files:
    m = compare(os.path.basename(f), {"ma": [ma, "layout", f], "pa": ["pahole", f]})
    for k in tot:
        tot[k] += m[k][0]
print(f"  ratio memadvise/pahole (sum of medians) {tot['ma']/tot['pa']:.2f}  (goal <= 1.0)")
print("one type: memadvise layout FILE TYPE vs pahole -C TYPE FILE (goal <= 1.0)")
if not one:
    print("  skipped: no redis-server or sqlite3 built (sh scripts/real-programs.sh)")
for ft in one:
    f, ty = ft.rsplit(":", 1)
    compare(f"{os.path.basename(f)} {ty}", {"ma": [ma, "layout", f, ty], "pa": ["pahole", "-C", ty, f]})
PY
