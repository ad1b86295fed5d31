#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A real program: sqlite3 (the shell and the 250k-line amalgamation, -g -O1,
# as scripts/real-programs.sh builds it) on an insert/index/aggregate script
# (sqlite-work.sql, on :memory:).  Wall and CPU (user + system of the command
# and its children) of the bare program, of 'memadvise run' and of
# 'perf record -F 999 -g' followed by 'perf report --stdio', median of
# interleaved rotated rounds; and memadvise's analysis after the target's
# exit (from its -vv phase times: target ran -> done) against the program's
# run.  Goals: memadvise <= perf record + report; analysis after exit <= 10%
# of the run.  Skipped when the real programs are not built.
command -v perf >/dev/null || { echo "real-sqlite: skipped: perf is not installed"; exit 0; }
real=${MA_REAL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/memadvise/real}
sq=$(ls "$real"/sqlite3-*/sqlite3-g 2>/dev/null | head -n 1)
[ -x "$sq" ] || { echo "real-sqlite: skipped: $real/sqlite3-*/sqlite3-g not built (scripts/real-programs.sh)"; exit 0; }
reps=${BENCH_REPS:-5}
python3 - "$MA" "$MA_TMP" "$reps" "$sq" "$MA_TOP/tests/bench/sqlite-work.sql" <<'PY'
import os, re, statistics, subprocess, sys, time

ma, tmp, reps, sq, sql = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
pdata = os.path.join(tmp, "perf.data")
cmds = {
    "bare": [sq, ":memory:"],
    "memadvise": [ma, "-vv", "run", "-o", "/dev/null", "--", sq, ":memory:"],
    "perf": ["sh", "-c", f'perf record -q -F 999 -g -o {pdata} -- "$@" && '
             f'perf report -q -i {pdata} --stdio > /dev/null 2>&1', "sh", sq, ":memory:"],
}
names = list(cmds)
wall = {k: [] for k in names}
cpu = {k: [] for k in names}
after, ran = [], []

def run(k):
    with open(sql) as inp, open(os.path.join(tmp, "err"), "w+") as err:
        s = time.perf_counter()
        p = subprocess.Popen(cmds[k], stdin=inp, stdout=subprocess.DEVNULL, stderr=err)
        _, st, ru = os.wait4(p.pid, 0)
        w = time.perf_counter() - s
        if st:
            raise SystemExit(f"real-sqlite: {k}: exit status {st}")
        wall[k].append(w)
        cpu[k].append(ru.ru_utime + ru.ru_stime)
        if k == "memadvise":
            err.seek(0)
            at = {}
            for line in err:
                m = re.match(r"debug: phase (target ran|done)\b.*\(at +([0-9.]+) ms", line)
                if m:
                    at[m.group(1)] = float(m.group(2))
            if len(at) == 2:
                after.append(at["done"] - at["target ran"])
                ran.append(at["target ran"])

for r in range(reps):
    for k in names[r % len(names):] + names[:r % len(names)]:
        run(k)
med = lambda v: statistics.median(v)
spread = lambda v: f"{min(v):.2f}-{max(v):.2f}"
print(f"sqlite3 -g, {os.path.basename(sql)} on :memory:, {reps} rotated rounds (median, min-max)")
for k in names:
    print(f"  {k:10s} wall {med(wall[k]):6.2f} s ({spread(wall[k])})  "
          f"CPU {med(cpu[k]):6.2f} s ({spread(cpu[k])})")
for what, t in (("wall", wall), ("CPU", cpu)):
    rb = [a / b for a, b in zip(t["memadvise"], t["bare"])]
    rp = [a / b for a, b in zip(t["perf"], t["bare"])]
    rmp = [a / b for a, b in zip(t["memadvise"], t["perf"])]
    print(f"  {what:4s} ratio memadvise/bare {med(rb):.3f}   perf/bare {med(rp):.3f}   "
          f"memadvise/perf {med(rmp):.3f}  (goal <= 1)")
if after:
    share = [a / r for a, r in zip(after, ran)]
    print(f"  analysis after exit {med(after):.0f} ms ({min(after):.0f}-{max(after):.0f}), "
          f"{100 * med(share):.1f}% of the run (goal <= 10%)")
else:
    print("  analysis after exit: not measured (no -vv phase times)")
with open("/proc/loadavg") as f:
    print(f"  load average at the end: {' '.join(f.read().split()[:3])}")
PY
