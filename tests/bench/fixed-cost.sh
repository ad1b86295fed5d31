#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The fixed cost of a run: a program of about 0.2 s (one process, one
# thread, a loop over 256 KiB) bare, under 'memadvise run', under 'perf
# stat' and under 'perf record -F 999 -g' + 'perf report --stdio'.  Each
# line is the median over rotated rounds of the round's time minus the bare
# run's (wall, and CPU: user + system of the command and its children).
# Goal: memadvise <= 30 ms over bare.
command -v perf >/dev/null || { echo "fixed-cost: skipped: perf is not installed"; exit 0; }
cat > "$MA_TMP/loop.c" <<'EOC'
#include <stdlib.h>
int main(int argc, char **argv)
{
	static unsigned char buf[256 << 10];
	long n = argc > 1 ? atol(argv[1]) : 1;
	unsigned s = 0;

	for (long r = 0; r < n; r++)
		for (unsigned i = 0; i < sizeof(buf); i += 64)
			s += buf[i] += (unsigned char)i;
	return s == 1;
}
EOC
cc -O1 -o "$MA_TMP/loop" "$MA_TMP/loop.c" || exit 1
reps=${BENCH_REPS:-15}
python3 - "$MA" "$MA_TMP" "$reps" <<'PY'
import os, statistics, subprocess, sys, time

ma, tmp, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
prog = os.path.join(tmp, "loop")

def run(cmd):
    s = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, st, ru = os.wait4(p.pid, 0)
    if st:
        raise SystemExit(f"fixed-cost: {' '.join(cmd)}: exit status {st}")
    return time.perf_counter() - s, ru.ru_utime + ru.ru_stime

# passes over the buffer for about 0.2 s of CPU here (CPU: wall time
# stretches with the machine's load)
n, c = 100, 0.0
while n < 1 << 26:
    c = run([prog, str(n)])[1]
    if c >= 0.05:
        break
    n *= 2
n = max(1, int(n * 0.2 / max(c, 1e-3)))
args = [prog, str(n)]
pdata = os.path.join(tmp, "perf.data")
cmds = {
    "bare": args,
    "memadvise": [ma, "run", "-o", "/dev/null", "--"] + args,
    "perf stat": ["perf", "stat", "-o", "/dev/null", "--"] + args,
    "perf rec+rep": ["sh", "-c", f'perf record -q -F 999 -g -o {pdata} -- "$@" && '
                     f'perf report -q -i {pdata} --stdio > /dev/null 2>&1', "sh"] + args,
}
names = list(cmds)
t = {k: [] for k in names}
for r in range(reps):
    for k in names[r % len(names):] + names[:r % len(names)]:
        t[k].append(run(cmds[k]))
bw = statistics.median(x[0] for x in t["bare"])
bc = statistics.median(x[1] for x in t["bare"])
print(f"fixed cost: a {bw * 1000:.0f} ms program ({n} passes over 256 KiB, CPU {bc * 1000:.0f} ms), "
      f"{reps} rotated rounds; over bare: median (min-max) of the rounds' differences")
for k in names[1:]:
    dw = [a[0] - b[0] for a, b in zip(t[k], t["bare"])]
    dc = [a[1] - b[1] for a, b in zip(t[k], t["bare"])]
    print(f"  {k:12s} wall {statistics.median(dw) * 1000:+7.1f} ms ({min(dw) * 1000:+.0f} to {max(dw) * 1000:+.0f})"
          f"   CPU {statistics.median(dc) * 1000:+7.1f} ms ({min(dc) * 1000:+.0f} to {max(dc) * 1000:+.0f})"
          + ("   (goal <= 30 ms)" if k == "memadvise" else ""))
with open("/proc/loadavg") as f:
    print(f"  load average at the end: {' '.join(f.read().split()[:3])}")
PY
