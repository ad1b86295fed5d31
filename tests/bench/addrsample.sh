#!/bin/sh
# Wall-time cost of software data-address sampling: 'memadvise run' (with
# sampling at its default: 1000 Hz, 500 Hz in a guest) vs 'run --no-sample' vs the bare program vs
# 'perf record' of the same registers at the same rate; median of
# interleaved runs, plus the bytes perf wrote (memadvise writes none).
. "$MA_TOP/tests/lib.sh"
build_prog stride
reps=${BENCH_REPS:-9}
hz=$(default_hz)
python3 - "$MA" "$MA_TMP/stride" "$reps" "$MA_TMP/perf.data" "$hz" <<'PY'
import os, subprocess, sys, time, statistics
ma, prog, reps, pdata, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
args = [prog, "256", "60"]
cmds = {
    "bare": args,
    "no-sample": [ma, "run", "--no-sample", "-o", "/dev/null", "--"] + args,
    "sampling": [ma, "run", "-o", "/dev/null", "--"] + args,
    "perf rec": ["perf", "record", "-q", "-e", "cpu-clock", "-F", hz,
                 "--user-regs=ax,bx,cx,dx,si,di,bp,sp,ip,r8,r9,r10,r11,r12,r13,r14,r15",
                 "-o", pdata, "--"] + args,
}
t = {k: [] for k in cmds}
for _ in range(reps):
    for k, c in cmds.items():
        s = time.perf_counter()
        subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        t[k].append(time.perf_counter() - s)
m = {k: statistics.median(v) for k, v in t.items()}
print(f"data-address sampling, median of {reps} interleaved runs (stride 256 B, 60 passes)")
for k in cmds:
    print(f"  {k:10s} {m[k]*1000:8.1f} ms")
print(f"  ratio sampling/no-sample  {m['sampling']/m['no-sample']:.3f}")
print(f"  ratio sampling/bare       {m['sampling']/m['bare']:.3f}")
print(f"  ratio sampling/perf rec   {m['sampling']/m['perf rec']:.3f}")
if os.path.exists(pdata):
    print(f"  perf.data bytes           {os.path.getsize(pdata)}")
PY
