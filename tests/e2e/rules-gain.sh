#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The estimated gain of a finding comes from the machine profile of
# 'memadvise calibrate' (tests/golden/machine.json: a --quick profile of the
# test machine): known with it, null (never 0) without it, and always less
# than the CPU time of the run itself (capped there).
set -u
[ -x "$EXAMPLES/false_sharing" ] || { echo "examples/bin/false_sharing is not built"; exit 1; }
# 20 M iterations (1 s): 3 M ran 0.14 s, too few samples at 500 Hz for the
# rule to fire every time, and 10 M once too few on a guest's 250 Hz tick
args="--threads 2 --layout shared --iters 20000000"
MEMADVISE_PROFILE="$MA_TOP/tests/golden/machine.json" "$MA" run -j -o "$MA_TMP/with.json" -- \
	"$EXAMPLES/false_sharing" $args > /dev/null 2>&1 || { echo "run with a profile failed"; exit 1; }
MEMADVISE_PROFILE="$MA_TMP/none.json" "$MA" run -j -o "$MA_TMP/without.json" -- \
	"$EXAMPLES/false_sharing" $args > /dev/null 2>&1 || { echo "run without a profile failed"; exit 1; }
python3 - "$MA_TMP/with.json" "$MA_TMP/without.json" <<'PY'
import json, sys
w, wo = (json.load(open(p)) for p in sys.argv[1:3])
def fs(r):
    f = [x for x in r.get("findings", []) if x["id"] == "false-sharing" and x["status"] == "fired"]
    if not f:
        print("false-sharing did not fire"); sys.exit(1)
    return f[0]
g = fs(w)["estimated_gain"]
cpu = [e["value"] for e in w["events"] if e["name"] == "task_clock" and e["supported"]][0] / 1e9
if not g or not g.get("estimate") or not (0 < g["seconds"] <= cpu):
    print("gain with a machine profile: %r (CPU time %.2f s)" % (g, cpu)); sys.exit(1)
if fs(wo)["estimated_gain"] is not None:
    print("a gain without a machine profile: %r" % fs(wo)["estimated_gain"]); sys.exit(1)
print("gain %.3f s of %.2f s of CPU time with the profile; unknown without" % (g["seconds"], cpu))
PY
