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
or quiet here - never fired on a guess.  A label's work (--reps, -R; else
--iters, --touches) is scaled up where the bare BAD run uses less than half a
second of CPU, and doubled where BAD still gives the rule too few samples.

Usage: rule_check.py RULE [EXTRA_BAD_LABEL_ARGS...]
Exit: 0 pass, 1 fail, 2 skip (last line says why).
"""
import glob
import json
import math
import os
import resource
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


# The samples a run gives follow its CPU time, not its work: a working set
# that was bigger than the last-level cache on one host fits in another's, a
# loop of repetitions that took a second took 50 ms, and two threads' 20 M
# locked adds on one line took 0.1 s of CPU in one run and 0.38 s in the next
# (2.6-9 ns an add, as the line moved between cores or not).  A label's work
# (--reps, or --iters / --touches where it has no repetitions) is scaled so
# that the bare BAD run uses at least MIN_BARE_S of CPU here (the threads'
# sum: the tick and cpu-clock sample each running thread).
MIN_BARE_S = 0.5
MAX_SCALE = 16
MAX_REPS = 64		# the examples' limit (they keep each repetition's time)
REPS_FLAGS = ("--reps", "-R")
ITERS_FLAGS = ("--iters", "--touches")	# work per thread, no limit
# A BAD run that still gave a rule too few samples (the work ran cheaper
# under memadvise than in the bare run) is taken again with twice the work,
# at most this many times: the rule said it could not decide, not that the
# workload is clean.
MORE_WORK_TRIES = 2


def work_flags(bad):
    """The flags that size a label's work: repetitions, else iterations."""
    for flags, limit in ((REPS_FLAGS, MAX_REPS), (ITERS_FLAGS, None)):
        if any(str(a) in flags for a in bad[:-1]):
            return flags, limit
    return None, None


def most_work(flags, bad, good):
    return max(int(args[j + 1]) for args in (bad, good) for j in range(len(args) - 1)
               if str(args[j]) in flags)


def times_work(flags, args, k):
    args = [str(a) for a in args]
    for j, a in enumerate(args[:-1]):
        if a in flags:
            args[j + 1] = str(int(args[j + 1]) * k)
    return args


def bare_cpu_s(binary, args):
    """CPU seconds (user + system, all threads) of one bare run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([os.path.join(EXAMPLES, binary)] + [str(a) for a in args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def scale_work(binary, bad, good):
    """BAD and GOOD args with their work scaled alike, and the factor."""
    flags, limit = work_flags(bad)
    if not flags:
        return bad, good, 1
    took = bare_cpu_s(binary, bad)
    k = min(MAX_SCALE, math.ceil(MIN_BARE_S / max(took, 1e-3)))
    if limit:
        k = min(k, limit // max(most_work(flags, bad, good), 1))
    if k <= 1:
        return bad, good, 1
    print("%s %s: the bare BAD run used %.0f ms of CPU here: %s x%d" % (
        binary, " ".join(str(a) for a in bad), took * 1e3,
        next(str(a) for a in bad if str(a) in flags), k))
    return times_work(flags, bad, k), times_work(flags, good, k), k


def more_work(bad, good):
    """BAD and GOOD with twice the work, or None where the examples' limit stops it."""
    flags, limit = work_flags(bad)
    if not flags or (limit and 2 * most_work(flags, bad, good) > limit):
        return None
    return times_work(flags, bad, 2), times_work(flags, good, 2)


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
        bad_args, good_args, _ = scale_work(binary, lab["bad"], lab["good"])
        bad = run(binary, bad_args, name + "-bad", opts)
        for _ in range(0 if hw else MORE_WORK_TRIES):
            fb = findings(bad, rule)
            short = [f.get("missing", "") for f in fb if f.get("missing", "").startswith("not enough data")]
            more = more_work(bad_args, good_args)
            if any(f["status"] == "fired" for f in fb) or not short or not more:
                break
            print("%s: BAD %s (%s): twice the work" % (name, fb[0]["status"], short[0]))
            bad_args, good_args = more
            bad = run(binary, bad_args, name + "-bad", opts)
        good = run(binary, good_args, name + "-good", opts)
        fb = findings(bad, rule)
        fg = findings(good, rule)
        # a finding folded under the gain threshold does not count (advice-scoring.md)
        fired_b = [f for f in fb if f["status"] == "fired" and not f.get("folded")]
        fired_g = [f for f in fg if f["status"] == "fired" and not f.get("folded")]
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
