#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A target that runs many short processes (a shell loop of /bin/true, as a
# build or a test script does): every fork inherits the target's per-task
# events, and memadvise follows every process (its mappings name its regions
# and code).  Wall-time ratios of 'memadvise run' and of 'perf record -g' at
# the same rate against the bare loop, and of 'perf stat' (counting only),
# median of interleaved rounds.
. "$MA_TOP/tests/lib.sh"
command -v perf >/dev/null || { echo "fork-storm: skipped: perf is not installed"; exit 0; }
reps=${BENCH_REPS:-15}
python3 - "$MA" "$MA_TMP" "$reps" <<'PY'
import statistics, subprocess, sys, time

ma, tmp, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = 300
loop = ["sh", "-c", f'i=0; while [ $i -lt {n} ]; do /bin/true; i=$((i+1)); done']
cmds = {
    "bare": loop,
    "memadvise": [ma, "run", "-o", "/dev/null", "--"] + loop,
    "perf stat": ["perf", "stat", "-o", "/dev/null", "--"] + loop,
    "perf": ["sh", "-c", f'perf record -q -g -F 250 -o {tmp}/perf.data -- "$@" && '
             f'perf report -q -i {tmp}/perf.data --stdio > /dev/null 2>&1', "sh"] + loop,
}
names = list(cmds)
t = {k: [] for k in names}
for r in range(reps):
    order = names[r % len(names):] + names[:r % len(names)]
    for k in order:
        s = time.perf_counter()
        subprocess.run(cmds[k], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        t[k].append(time.perf_counter() - s)
m = {k: statistics.median(v) for k, v in t.items()}
ratio = {k: statistics.median(a / b for a, b in zip(t[k], t["bare"])) for k in names[1:]}
print(f"fork storm: {n} runs of /bin/true from a shell loop, {reps} rotated rounds")
for k in names:
    print(f"  {k:10s} wall {m[k] * 1000:8.1f} ms  ({m[k] * 1e6 / n:6.0f} us a process)")
print("  wall ratio " + "   ".join(f"{k}/bare {ratio[k]:.3f}" for k in names[1:])
      + "   (median of the rounds' ratios)")
PY
