#!/bin/sh
# Wall-time ratio of 'memadvise run --no-sample' (counting only) vs the bare
# program vs 'perf stat', median of interleaved runs.
. "$MA_TOP/tests/lib.sh"
cc -O2 -o "$MA_TMP/touch" "$MA_TOP/tests/e2e/progs/touch_pages.c" || exit 1
reps=${BENCH_REPS:-9}
python3 - "$MA" "$MA_TMP/touch" "$reps" <<'PY'
import subprocess, sys, time, statistics
ma, prog, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmds = {
    "bare": [prog, "100000"],
    "memadvise": [ma, "run", "--no-sample", "-o", "/dev/null", "--", prog, "100000"],
    "perf stat": ["perf", "stat", "-o", "/dev/null", "-e",
                  "task-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations",
                  prog, "100000"],
}
t = {k: [] for k in cmds}
for _ in range(reps):
    for k, c in cmds.items():
        s = time.perf_counter(); subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True); t[k].append(time.perf_counter() - s)
m = {k: statistics.median(v) for k, v in t.items()}
print(f"counting overhead, median of {reps} interleaved runs (touch 100000 pages)")
for k in cmds:
    print(f"  {k:10s} {m[k]*1000:8.1f} ms")
print(f"  ratio memadvise/bare      {m['memadvise']/m['bare']:.3f}")
print(f"  ratio memadvise/perf stat {m['memadvise']/m['perf stat']:.3f}")
PY
