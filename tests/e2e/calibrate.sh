#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# 'memadvise calibrate --quick -j' on this machine: the profile is written and
# read back, the charts are SVG, and the acceptance numbers of issue 3 hold:
# L1d and L2 knees within a factor 2 of sysfs, random walk at 64 MiB >= 5x the
# sequential walk, matrix multiply tiled faster than naive and transposed,
# all with the same result (the shares of the naive time are reported),
# false sharing >= 1.5x with 2 threads running at once (where they could
# not, calibrate must say why and leave that check unjudged).
#
# The matrix multiply asserts what holds by mechanism on any machine: the
# three variants compute the same result, and each removes a cost of the one
# before (naive walks a column of mul2, transposed reads both rows in order,
# tiled reuses blocks from L1d).  How much each saves depends on the caches:
# transposed took 35-64% of the naive time on one guest and 72-94% on a Zen 4
# guest with 32 MiB L3, and 102% once there under load: its 8 MB matrices sit
# in the L3, the prefetcher follows the naive column walk, and both loops are
# bound by the same dependent floating-point add.  So transposed against naive
# is reported, not judged (examples/README.md, matmul; calibrate's own check
# matmul-transposed compares it with the paper); tiled, which keeps its
# blocks in the L1d, must beat both.
. "$MA_TOP/tests/lib.sh"
need_cmd python3
[ -x "$EXAMPLES/list_walk" ] || fail "examples are not built (make examples)"

# The numbers are this machine's, measured while other guests and processes
# share its cores and caches: a measurement disturbed by them is taken again
# (at most three attempts); a wrong program or parser fails every attempt.
attempt() {
out="$MA_TMP/cal$1"
"$MA" calibrate --quick -j -o "$out/machine.json" > "$MA_TMP/cal.json" 2> "$MA_TMP/cal.err" ||
	fail "calibrate exited $?: $(tail -n 3 "$MA_TMP/cal.err")"
grep -q '^calibrate: \[1/' "$MA_TMP/cal.err" || fail "no progress line on stderr"

python3 - "$MA_TMP/cal.json" "$out" <<'PY'

import json, os, sys

d = json.load(open(sys.argv[1]))
out = sys.argv[2]
bad = []

def need(cond, what):
    if not cond:
        bad.append(what)

p = d["profile"]
need(d["failed_runs"] == 0, "some example runs failed: %s" % d.get("notes"))
need(json.load(open(os.path.join(out, "machine.json"))) == p, "saved profile differs from -j output")
for svg in ("latency.svg", "matmul.svg"):
    f = os.path.join(out, svg)
    need(os.path.exists(f) and "<svg" in open(f).read() and open(f).read().rstrip().endswith("</svg>"),
         "%s is not a complete SVG file" % svg)

lv = {l["name"]: l for l in p["levels"]}
for name in ("L1d", "L2"):
    l = lv[name]
    if "sysfs_size" not in l:
        continue
    det = l.get("detected_size")
    need(det and 0.5 <= det / l["sysfs_size"] <= 2,
         "%s knee %s not within 2x of sysfs %d" % (name, det, l["sysfs_size"]))
    need(l.get("latency_ns", 0) > 0 and l.get("latency_cycles", 0) > 0, "%s latency missing" % name)
need(lv["L1d"]["latency_ns"] < lv["L2"]["latency_ns"] < lv["DRAM"]["latency_ns"],
     "latencies not ordered L1d < L2 < DRAM")

need(p["walk_ws"] >= 64 << 20, "walk working set below 64 MiB")
ratio = p["rand_ns"] / p["seq_ns"]
need(ratio >= 5, "random walk only %.1fx the sequential walk" % ratio)

mm = {v["variant"]: v["best_ns"] for v in d["matmul"]["variants"]}
need(d["matmul"]["n"] == 1000, "matmul not at N=1000")
need(d["matmul"]["checksums_agree"], "matmul variants disagree on the result")
need(mm["naive"] > mm["tiled"] and mm["transposed"] > mm["tiled"],
     "matmul: tiled not the fastest: naive %d transposed %d tiled %d" % (mm["naive"], mm["transposed"], mm["tiled"]))

# False sharing needs both threads running at once. Where the host or a
# cgroup did not allow that, calibrate must say so in a note and leave the
# check unjudged; otherwise the penalty must show.
fs = d["false_sharing"]
fsc = [c for c in d["checks"] if c["id"] == "false-sharing"][0]
fs_why = ""
if fsc["holds"] is None:
    why = [n for n in d["notes"] if "false sharing" in n or "CPU allowed" in n]
    need(why, "false-sharing check unjudged without a note saying why")
    fs_why = " (false sharing not judged: %s)" % "; ".join(why)
elif p["nr_cpus"] >= 2:
    need(fs["ratio"] >= 1.5, "false sharing only %.2fx (line hand-off %s ns, %d pairs not "
         "concurrent, steal %s%%)" % (fs["ratio"], fs.get("line_handoff_ns"),
                                     fs["pairs_not_concurrent"], fs.get("steal_pct")))

ids = {c["id"] for c in d["checks"]}
need({"matmul-transposed", "walk-random-vs-seq", "false-sharing", "l1d-size", "l2-size"} <= ids,
     "paper comparison table incomplete")

if bad:
    print("\n".join(bad))
    sys.exit(1)
print("L1d %s, L2 %s, walk %.0fx, matmul %.0f%%/%.0f%%, false sharing %s, %.0f s%s" % (
    lv["L1d"].get("detected_size"), lv["L2"].get("detected_size"), ratio,
    100 * mm["transposed"] / mm["naive"], 100 * mm["tiled"] / mm["naive"],
    fsc["here"], d["elapsed_s"], fs_why))
PY
}
for n in 1 2 3; do
	if attempt $n > "$MA_TMP/attempt.out" 2>&1; then
		cat "$MA_TMP/attempt.out"
		[ $n -gt 1 ] && echo "(passed on attempt $n)"
		pass "calibrate acceptance numbers hold"
	fi
	echo "attempt $n: $(cat "$MA_TMP/attempt.out")"
done
fail "calibrate acceptance numbers do not hold in 3 attempts: $(tail -n 1 "$MA_TMP/attempt.out")"
