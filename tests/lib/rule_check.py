#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
End-to-end check of one rule against its calibration workloads.

For every examples/labels/*.yaml whose 'rule' is RULE: run
'memadvise run -j -- examples/bin/<binary> <bad args>' and check that the
rule fired and points where the label says (struct, member, function, file,
line_contains, region); then the good args, and check that the rule is
quiet (neither fired nor inconclusive).  Labels whose tier needs hardware
this machine lacks (precise, counting) are only checked to be inconclusive
or quiet here - never fired on a guess.  A label's repetitions (--reps, -R)
are scaled up where the bare BAD run is shorter than half a second.

Usage: rule_check.py RULE [EXTRA_BAD_LABEL_ARGS...]
Exit: 0 pass, 1 fail, 2 skip (last line says why).
"""
import glob
import json
import math
import os
import subprocess
import sys
import time

import yaml

MA = os.environ["MA"]
TOP = os.environ["MA_TOP"]
EXAMPLES = os.environ.get("EXAMPLES", os.path.join(TOP, "examples", "bin"))
TMP = os.environ.get("MA_TMP", "/tmp")
HW_TIERS = ("precise", "counting")


def run(binary, args, tag, opts=()):
    out = os.path.join(TMP, tag.replace("/", "_") + ".json")
    cmd = [MA, "run", "-j", "-o", out] + [str(o) for o in opts] + ["--", os.path.join(EXAMPLES, binary)] + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-400:]))
    with open(out) as f:
        return json.load(f)


# The samples a run gives follow its time, not its work: a working set that
# was bigger than the last-level cache on one host fits in another's, and a
# loop of repetitions that took a second took 50 ms.  A label's repetitions
# are scaled so that the bare BAD run takes at least MIN_BARE_S here.
MIN_BARE_S = 0.5
MAX_SCALE = 16
MAX_REPS = 64		# the examples' limit (they keep each repetition's time)
REPS_FLAGS = ("--reps", "-R")


def scale_reps(binary, bad, good):
    """BAD and GOOD args with their repetitions scaled alike, and the factor."""
    i = next((k for k, a in enumerate(bad) if str(a) in REPS_FLAGS), -1)
    if i < 0 or i + 1 >= len(bad):
        return bad, good, 1
    cmd = [os.path.join(EXAMPLES, binary)] + [str(a) for a in bad]
    t = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    took = time.monotonic() - t
    most = max(int(args[j + 1]) for args in (bad, good) for j in range(len(args) - 1)
               if str(args[j]) in REPS_FLAGS)
    k = min(MAX_SCALE, math.ceil(MIN_BARE_S / max(took, 1e-3)), MAX_REPS // max(most, 1))
    if k <= 1:
        return bad, good, 1

    def scaled(args):
        args = [str(a) for a in args]
        for j, a in enumerate(args[:-1]):
            if a in REPS_FLAGS:
                args[j + 1] = str(int(args[j + 1]) * k)
        return args
    print("%s %s: the bare BAD run took %.0f ms here: repetitions x%d" % (binary, bad[i], took * 1e3, k))
    return scaled(bad), scaled(good), k


def findings(report, rule):
    return [f for f in report.get("findings", []) if f.get("id") == rule]


def source_line(path, line):
    for cand in (path, os.path.join(TOP, "examples", os.path.basename(path))):
        try:
            with open(cand) as f:
                lines = f.read().split("\n")
            return lines[line - 1] if 0 < line <= len(lines) else ""
        except OSError:
            continue
    return ""


def check_points(f, expect):
    """Problems with where finding f points, against the label's expect."""
    loc = f.get("location", {})
    bad = []
    if "struct" in expect and loc.get("struct") != expect["struct"]:
        bad.append("struct %r, expected %r" % (loc.get("struct"), expect["struct"]))
    if "member" in expect:
        members = [m.strip() for m in loc.get("member", "").split(",")]
        if expect["member"] not in members:
            bad.append("member %r, expected %r" % (loc.get("member"), expect["member"]))
    if "function" in expect and loc.get("function") != expect["function"]:
        bad.append("function %r, expected %r" % (loc.get("function"), expect["function"]))
    if "file" in expect:
        files = [os.path.basename(loc.get(k, "")) for k in ("file", "decl_file")]
        if expect["file"] not in files:
            bad.append("file %r, expected %r" % (files, expect["file"]))
    if "line_contains" in expect:
        text = source_line(loc.get("file", ""), loc.get("line", 0))
        if expect["line_contains"] not in text:
            bad.append("line %s:%s is %r, expected it to contain %r"
                       % (os.path.basename(loc.get("file", "?")), loc.get("line"), text.strip(),
                          expect["line_contains"]))
    if "region" in expect:
        region = loc.get("region", "")
        if not region.startswith(expect["region"]):
            bad.append("region %r, expected %r" % (region, expect["region"]))
    return bad


def main():
    rule = sys.argv[1]
    labels = []
    labels_dir = os.environ.get("MA_LABELS", os.path.join(TOP, "examples", "labels"))
    for path in sorted(glob.glob(os.path.join(labels_dir, "*.yaml"))):
        with open(path) as f:
            lab = yaml.safe_load(f)
        if isinstance(lab, dict) and lab.get("rule") == rule:
            labels.append((os.path.basename(path), lab))
    # tests/labels: labels for rules the examples do not label, and
    # corrections (same 'workload') where a measurement contradicts a label
    extra = os.path.join(TOP, "tests", "labels")
    for path in sorted(glob.glob(os.path.join(extra, "*.yaml"))):
        with open(path) as f:
            lab = yaml.safe_load(f)
        if isinstance(lab, dict) and lab.get("rule") == rule:
            labels = [(n, l) for n, l in labels if l.get("workload") != lab.get("workload")]
            labels.append(("tests/labels/" + os.path.basename(path), lab))
    if not labels:
        print("no calibration workload is labelled with rule %s" % rule)
        return 1
    failed = []
    skipped = []
    checked = 0
    for name, lab in labels:
        binary = lab["binary"]
        if not os.access(os.path.join(EXAMPLES, binary), os.X_OK):
            failed.append("%s: examples/bin/%s is not built (make examples)" % (name, binary))
            continue
        hw = str(lab.get("tier", "")) in HW_TIERS
        opts = lab.get("run_options", [])
        bad_args, good_args, _ = scale_reps(binary, lab["bad"], lab["good"])
        bad = run(binary, bad_args, name + "-bad", opts)
        good = run(binary, good_args, name + "-good", opts)
        fb = findings(bad, rule)
        fg = findings(good, rule)
        fired_b = [f for f in fb if f["status"] == "fired"]
        fired_g = [f for f in fg if f["status"] == "fired"]
        if hw:
            # this machine cannot decide: inconclusive on BAD, never a guess
            if fired_g:
                failed.append("%s (tier %s): fired on GOOD: %s" % (name, lab["tier"], fired_g[0]["message"]))
            want = lab.get("expect_here", "inconclusive")
            want = want if isinstance(want, list) else [want]
            if (fb[0]["status"] if fb else "quiet") not in want:
                failed.append("%s (tier %s): BAD is %s here, expected %s" % (
                    name, lab["tier"], fb[0]["status"] if fb else "quiet", " or ".join(want)))
            print("%s: tier %s, here: bad %s, good %s" % (name, lab["tier"],
                  fb[0]["status"] if fb else "quiet", fg[0]["status"] if fg else "quiet"))
            checked += 1
            continue
        skip = lab.get("skip_if_missing")
        if not fired_b and skip and fb and skip in fb[0].get("missing", ""):
            print("%s: %s is not measured by this build (%s)" % (name, skip, lab.get("skip_why", "")))
            skipped.append(name)
            continue
        if not fired_b:
            why = fb[0].get("missing", "") if fb else "quiet"
            failed.append("%s: did not fire on BAD %s (%s)" % (name, bad_args, why))
        else:
            problems = [check_points(f, lab.get("expect", {})) for f in fired_b]
            if all(problems):
                failed.append("%s: fired on BAD but points elsewhere: %s" % (name, "; ".join(problems[0])))
            else:
                f = fired_b[problems.index([])]
                print("%s: BAD fired: %s" % (name, f["message"]))
        # a correction label may allow GOOD findings elsewhere than the fixed code
        if fg and lab.get("good_not_at"):
            elsewhere = [f for f in fg if check_points(f, lab["good_not_at"])]
            if len(elsewhere) == len(fg):
                print("%s: GOOD quiet at the fixed code; elsewhere: %s" % (name, fg[0].get("message", "")))
                fg = []
        if fg:
            failed.append("%s: not quiet on GOOD %s: %s %s" % (name, good_args, fg[0]["status"],
                          fg[0].get("missing", fg[0].get("message", ""))))
        else:
            print("%s: GOOD quiet" % name)
        checked += 1
    for f in failed:
        print("FAIL " + f)
    if failed:
        print("%s: %d of %d workloads failed" % (rule, len(failed), len(labels)))
        return 1
    if skipped and not checked:
        print("%s: skipped: %s is not measured yet (%s)" % (rule, labels[0][1].get("skip_if_missing"),
              labels[0][1].get("skip_why", "")))
        return 2
    print("%s: %d workload(s) as labelled (fired on BAD and quiet on GOOD, or inconclusive"
          " where this machine lacks the tier)" % (rule, checked))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, subprocess.TimeoutExpired, KeyError) as e:
        print("error: %s" % e)
        sys.exit(1)
