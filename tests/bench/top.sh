#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The cost of watching: memadvise top's CPU time (user + system, of the
# process and everything it ran) over a window at one refresh a second, in
# --batch mode (the same collector and rules as the full screen, one text
# frame a second to /dev/null), next to procps top -b -d 1 over the same
# window, both running at once so that the machine's load and process
# count are the same for both.  Goal: under 2 % of one core.
# The BPF tick program runs in the interrupted tasks' context, so its time
# is not in memadvise's: it is printed from the kernel's BPF statistics
# when kernel.bpf_stats_enabled is already 1 (this script sets nothing).
# BENCH_TOP_SECS sets the window (default 60).
. "$MA_TOP/tests/lib.sh"
secs=${BENCH_TOP_SECS:-60}
command -v top > /dev/null || skip "needs procps top"
[ "$(id -u)" -eq 0 ] || echo "note: not root: no BPF tick sampler, /proc only"

# cpu_of OUT CMD...: runs CMD, writes "user+sys seconds" of it and its children to OUT
cpu_of() {
	out=$1
	shift
	python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.3f\n" % (r.ru_utime + r.ru_stime))' "$out" "$@"
}

procs=$(ls -d /proc/[0-9]* | wc -l)
cpu_of "$MA_TMP/ma" "$MA" top -b -d 1 -n "$secs" &
a=$!
cpu_of "$MA_TMP/top" top -b -d 1 -n "$secs" &
b=$!
wait $a $b
ma=$(cat "$MA_TMP/ma")
tp=$(cat "$MA_TMP/top")
python3 - "$ma" "$tp" "$secs" "$procs" <<'PY'
import sys
ma, tp, secs, procs = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print("window %d s at 1 Hz, %d processes on the machine" % (secs, procs))
print("memadvise top -b -d 1: %.2f s CPU = %.2f %% of one core (goal < 2 %%)" % (ma, 100 * ma / secs))
print("top -b -d 1:           %.2f s CPU = %.2f %% of one core" % (tp, 100 * tp / secs))
if tp > 0:
    print("ratio memadvise/top:   %.1f" % (ma / tp))
PY
if [ "$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)" = 1 ]; then
	echo "(BPF tick program time: see bpftool prog show name top_tick, run_time_ns)"
else
	echo "BPF tick program time: not measured (kernel.bpf_stats_enabled is 0)"
fi
