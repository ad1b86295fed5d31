#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sampling overhead, in one run on the same workloads: wall time of
# 'memadvise run' (BPF sampling at its default rate, fault tracing, THP state)
# vs the bare program vs 'perf record -g -F <same rate>' followed by
# 'perf report', and the bytes each wrote to disk (/proc/PID/io write_bytes of
# a shell that ran and reaped them; memadvise must write none).
# Median of BENCH_REPS (default 7) interleaved runs; the VM is noisy.
# Workloads: the calibration examples when built (examples/bin), else the
# e2e test programs: a CPU-bound loop and a page-touching loop.
. "$MA_TOP/tests/lib.sh"
reps=${BENCH_REPS:-7}
hz=${BENCH_HZ:-999}
for p in hot_line touch_pages; do
	cc -O2 -g -fno-omit-frame-pointer -pthread -o "$MA_TMP/$p" "$MA_TOP/tests/e2e/progs/$p.c" || exit 1
done
set -- "cpu-loop" "$MA_TMP/hot_line 500" \
	"page-faults" "$MA_TMP/touch_pages 100000"
[ -x "$EXAMPLES/matmul" ] && set -- "$@" "matmul" "$EXAMPLES/matmul"
python3 - "$MA" "$MA_TMP" "$reps" "$hz" "$@" <<'PY'
import os, re, statistics, subprocess, sys, time
ma, tmp, reps, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
wl = list(zip(sys.argv[5::2], sys.argv[6::2]))

def run(cmd):
    # a shell runs CMD and prints its own /proc io, which includes reaped children
    sh = cmd + ' >/dev/null 2>&1; cat /proc/$$/io'
    s = time.perf_counter()
    out = subprocess.run(["sh", "-c", sh], cwd=tmp, capture_output=True, text=True).stdout
    t = time.perf_counter() - s
    m = re.search(r"^write_bytes: (\d+)", out, re.M)
    return t, int(m.group(1)) if m else -1

ok = True
print(f"sampling overhead at {hz} Hz, median of {reps} interleaved runs")
for name, prog in wl:
    cmds = {
        "bare": prog,
        "memadvise": f"{ma} run -- {prog}",
        "perf": f"perf record -q -g -F {hz} -o perf.data -- {prog} && perf report --stdio -i perf.data",
    }
    t = {k: [] for k in cmds}
    w = {k: [] for k in cmds}
    for _ in range(reps):
        for k, c in cmds.items():
            a, b = run(c)
            t[k].append(a)
            w[k].append(b)
            if k == "perf" and os.path.exists(os.path.join(tmp, "perf.data")):
                w[k][-1] = max(b, os.path.getsize(os.path.join(tmp, "perf.data")))
                os.unlink(os.path.join(tmp, "perf.data"))
    m = {k: statistics.median(v) for k, v in t.items()}
    wb = {k: max(v) for k, v in w.items()}
    print(f"{name}: {prog.split('/')[-1]}")
    for k in cmds:
        print(f"  {k:10s} {m[k]*1000:9.1f} ms  wrote {wb[k]:>10d} B")
    r = m["memadvise"] / m["bare"]
    print(f"  ratio memadvise/bare {r:.3f}   perf/bare {m['perf']/m['bare']:.3f}   "
          f"memadvise/perf {m['memadvise']/m['perf']:.3f}")
    if wb["memadvise"] != 0:
        print(f"  memadvise wrote {wb['memadvise']} bytes to disk (must be 0)")
        ok = False
sys.exit(0 if ok else 1)
PY
