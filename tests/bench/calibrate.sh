#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The full 'memadvise calibrate' (about a minute) against its peer, the paper:
# prints each claim with the paper's number, this machine's and whether it
# holds, then the issue's strict thresholds (the e2e test checks looser ones).
# Fails only when calibrate itself fails.
set -u
"$MA" calibrate -j -o "$MA_TMP/machine.json" > "$MA_TMP/cal.json" 2> "$MA_TMP/cal.err" || {
	tail -n 5 "$MA_TMP/cal.err"
	exit 1
}
python3 - "$MA_TMP/cal.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profile"]
print("%-20s %-18s %-30s %s" % ("check", "paper", "here", "holds"))
for c in d["checks"]:
    h = c.get("holds")
    print("%-20s %-18.18s %-30.30s %s" % (c["id"], c["paper"], c["here"], "n/a" if h is None else "yes" if h else "NO"))
lv = {l["name"]: l for l in p["levels"]}
mm = {v["variant"]: v["best_ns"] for v in d["matmul"]["variants"]}
strict = [
    ("L1d knee within 2x of sysfs", 0.5 <= lv["L1d"].get("detected_size", 0) / lv["L1d"]["sysfs_size"] <= 2),
    ("L2 knee within 2x of sysfs", 0.5 <= lv["L2"].get("detected_size", 0) / lv["L2"]["sysfs_size"] <= 2),
    ("random walk >= 5x sequential at 64 MiB", p["rand_ns"] / p["seq_ns"] >= 5),
    ("matmul naive > transposed > tiled", mm["naive"] > mm["transposed"] > mm["tiled"]),
    ("matmul transposed <= 50% of naive", mm["transposed"] <= 0.5 * mm["naive"]),
    ("false sharing >= 1.5x with 2 threads", None if d["false_sharing"]["ratio"] is None
     else d["false_sharing"]["ratio"] >= 1.5),
]
print("issue 3 thresholds (elapsed %.0f s):" % d["elapsed_s"])
for what, ok in strict:
    print("  %-42s %s" % (what, "not judged (see the notes)" if ok is None else
                          "holds" if ok else "DOES NOT HOLD"))
for n in d["notes"]:
    print("  note: " + n)
PY
