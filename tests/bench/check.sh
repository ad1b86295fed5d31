#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Wall-time ratio of the simulation tier of 'memadvise check' (a budget with
# whole-run, per-function and findings limits on matmul, geometry pinned)
# over bare 'valgrind --tool=cachegrind' with the same cache and branch
# simulation and geometry on the same workload: median of interleaved runs.
# Goal <= 1.1.
command -v valgrind >/dev/null 2>&1 || { echo "check bench skipped: valgrind not installed"; exit 0; }
mm="$EXAMPLES/matmul"
[ -x "$mm" ] || { echo "check bench skipped: examples/bin/matmul not built"; exit 0; }
reps=${BENCH_REPS:-7}
size=${BENCH_CHECK_SIZE:-192}
cat > "$MA_TMP/budget.yaml" <<EOB
version: 1
geometry:
  I1: 32768,8,64
  D1: 32768,8,64
  LL: 8M,16,64
workloads:
  - name: matmul
    limits:
      - metric: l1d_mpki
        max: 1000
      - function: mm_transposed
        metric: l1d_misses
        max: 1e12
    findings:
      fail_on: critical
EOB
python3 - "$MA" "$reps" "$MA_TMP" "$mm" "$size" <<'PY'
import os, statistics, subprocess, sys, time
ma, reps, tmp, mm, size = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
work = [mm, "--variant", "transposed", "--size", size]
check = [ma, "check", "-b", os.path.join(tmp, "budget.yaml"), "--"] + work
bare = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
        "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64",
        "--cachegrind-out-file=" + os.path.join(tmp, "cg.out")] + work
def run(cmd):
    s = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - s
t = {"check": [], "bare": []}
for _ in range(reps):
    t["check"].append(run(check))
    t["bare"].append(run(bare))
m = {k: statistics.median(v) for k, v in t.items()}
print(f"memadvise check (sim tier) vs bare cachegrind, matmul transposed n={size}, "
      f"median of {reps} interleaved runs")
print(f"  check {m['check']:.3f} s  cachegrind {m['bare']:.3f} s  "
      f"ratio {m['check'] / m['bare']:.3f}  (goal <= 1.1)")
PY
