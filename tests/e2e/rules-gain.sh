#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The estimated gain of a finding comes from the machine profile of
# 'memadvise calibrate' (tests/golden/machine.json: a --quick profile of the
# test machine): known with it, null (never 0) without it, and always less
# than the CPU time of the run itself (capped there).
#
# The finding is false sharing on two threads' counters.  It needs 50 address
# samples (rules/threads/false-sharing.yaml) and both threads seen writing
# the line; it does not need the threads to run at once (sampling sees both
# write it when they take turns on one CPU).  The samples follow the CPU
# time: 20 M increments a thread used 0.10 s of CPU in one run and 0.38 s in
# another on one host (23-95 samples at a 250 Hz tick), so the increments are
# sized as for the rule's labels (tests/lib/rule_check.py: half a second of
# CPU bare, twice the work again while the rule lacks samples).
set -u
[ -x "$EXAMPLES/false_sharing" ] || { echo "examples/bin/false_sharing is not built"; exit 1; }
python3 - "$MA_TMP" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, os.path.join(os.environ["MA_TOP"], "tests", "lib"))
import rule_check

tmp = sys.argv[1]
args, _, _ = rule_check.scale_work("false_sharing", ["--threads", "2", "--layout", "shared",
                                                     "--iters", "20000000"], [])

def run(tag, profile):
    out = os.path.join(tmp, tag + ".json")
    env = dict(os.environ, MEMADVISE_PROFILE=profile)
    p = subprocess.run([os.environ["MA"], "run", "-j", "-o", out, "--",
                        os.path.join(rule_check.EXAMPLES, "false_sharing")] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    if p.returncode:
        print("run %s a profile failed (exit %d)" % (tag, p.returncode)); sys.exit(1)
    return json.load(open(out))

def fs(r):
    f = [x for x in r.get("findings", []) if x["id"] == "false-sharing"]
    return f[0] if f else {"status": "quiet"}

for n in range(rule_check.MORE_WORK_TRIES + 1):
    w = run("with", os.path.join(os.environ["MA_TOP"], "tests", "golden", "machine.json"))
    wo = run("without", os.path.join(tmp, "none.json"))
    short = [fs(r)["missing"] for r in (w, wo) if fs(r)["status"] != "fired" and
             fs(r).get("missing", "").startswith("not enough data")]
    if not short or n == rule_check.MORE_WORK_TRIES:
        break
    print("%s: %s: twice the work" % (" ".join(args), short[0]))
    args = rule_check.times_work(rule_check.ITERS_FLAGS, args, 2)
for r, tag in ((w, "with"), (wo, "without")):
    if fs(r)["status"] != "fired":
        print("false-sharing did not fire %s a profile on %s: %s (%s)" % (
            tag, " ".join(args), fs(r)["status"], fs(r).get("missing", "")))
        sys.exit(1)
g = fs(w)["estimated_gain"]
cpu = [e["value"] for e in w["events"] if e["name"] == "task_clock" and e["supported"]][0] / 1e9
if not g or not g.get("estimate") or not (0 < g["seconds"] <= cpu):
    print("gain with a machine profile: %r (CPU time %.2f s)" % (g, cpu)); sys.exit(1)
if fs(wo)["estimated_gain"] is not None:
    print("a gain without a machine profile: %r" % fs(wo)["estimated_gain"]); sys.exit(1)
print("gain %.3f s of %.2f s of CPU time with the profile; unknown without (%s)" % (
    g["seconds"], cpu, " ".join(args)))
PY
