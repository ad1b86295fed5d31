#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every BAD/GOOD pair of examples/ has a label file with the required keys: each
# example names its labels in a "Labels:" header line, each label names a known
# rule and tier, and what it expects (file, function, struct, member, line) is
# really in the example's source.
set -u
command -v python3 > /dev/null 2>&1 || { echo "needs python3"; exit 2; }
python3 -c 'import yaml' 2> /dev/null || { echo "needs python3-yaml"; exit 2; }
python3 - "$MA_TOP/examples" <<'PY'
import glob, os, re, sys, yaml

ex = sys.argv[1]
rules = {"struct-holes", "hot-cold-split", "cacheline-spanning", "bad-alignment", "assoc-conflict",
         "false-sharing", "contended-atomic", "strided-traversal", "streaming-stores", "tlb-pressure",
         "missing-hugepages", "page-fault-storm", "branch-mispredict", "lock-contention",
         "pointer-chasing"}
tiers = {"precise", "counting", "software", "sw_addr", "watchpoint", "simulation", "static"}
regions = {"heap", "stack", "anon", "file"}
errs = []
declared = {}

for src in sorted(glob.glob(os.path.join(ex, "*.c"))):
    name = os.path.basename(src)[:-2]
    m = re.search(r"^ \* Labels: (.*)$", open(src).read(), re.M)
    if not m:
        errs.append("examples/%s.c: no ' * Labels:' header line" % name)
        continue
    if not m.group(1).startswith("none"):
        for lab in re.split(r"[,\s]+", m.group(1).strip()):
            declared[lab] = name

files = {os.path.basename(f)[:-5]: f for f in glob.glob(os.path.join(ex, "labels", "*.yaml"))}
for lab, src in declared.items():
    if lab not in files:
        errs.append("examples/%s.c names label '%s' but labels/%s.yaml is missing" % (src, lab, lab))
for lab, f in sorted(files.items()):
    where = "labels/%s.yaml" % lab
    try:
        d = yaml.safe_load(open(f))
    except yaml.YAMLError as e:
        errs.append("%s: %s" % (where, e))
        continue
    for k in ("workload", "binary", "paper", "rule", "bad", "good", "expect", "tier"):
        if k not in d:
            errs.append("%s: missing key '%s'" % (where, k))
    if errs and errs[-1].startswith(where + ": missing"):
        continue
    if d["workload"] != lab:
        errs.append("%s: workload '%s' differs from the file name" % (where, d["workload"]))
    if lab not in declared:
        errs.append("%s: no examples/*.c lists it in its Labels: line" % where)
    if d["rule"] not in rules:
        errs.append("%s: unknown rule id '%s'" % (where, d["rule"]))
    if d["tier"] not in tiers:
        errs.append("%s: unknown tier '%s'" % (where, d["tier"]))
    for k in ("bad", "good"):
        if not isinstance(d[k], list) or not all(isinstance(a, str) for a in d[k]):
            errs.append("%s: '%s' must be a list of strings (quote numbers)" % (where, k))
    if d["bad"] == d["good"]:
        errs.append("%s: bad and good run the same argv" % where)
    src = os.path.join(ex, d["binary"] + ".c")
    if not os.path.exists(src):
        errs.append("%s: binary '%s' has no examples/%s.c" % (where, d["binary"], d["binary"]))
        continue
    e = d["expect"] or {}
    text = open(os.path.join(ex, e.get("file", "")) if e.get("file") else src).read()
    if e.get("file") and e["file"] != d["binary"] + ".c":
        errs.append("%s: expect.file '%s' is not the binary's source" % (where, e["file"]))
    # a finding on code names its function; one on a variable (a lock) its name
    if "line_contains" not in e or ("function" not in e and "member" not in e):
        errs.append("%s: expect needs at least line_contains, and function or member" % where)
        continue
    if not any(e["line_contains"] in line for line in text.splitlines()):
        errs.append("%s: no line of %s contains %r" % (where, d["binary"] + ".c", e["line_contains"]))
    if "function" in e and not re.search(r"\b%s\(" % re.escape(e["function"]), text):
        errs.append("%s: function '%s' not in the source" % (where, e["function"]))
    if "struct" in e and not re.search(r"\bstruct %s\b" % re.escape(e["struct"]), text):
        errs.append("%s: struct '%s' not in the source" % (where, e["struct"]))
    if "member" in e and not re.search(r"[\s*]%s(\[\w*\])?( = [^;]*)?;" % re.escape(e["member"]), text):
        errs.append("%s: member '%s' not declared in the source" % (where, e["member"]))
    if "region" in e and e["region"] not in regions:
        errs.append("%s: region '%s' not one of %s" % (where, e["region"], sorted(regions)))

if errs:
    print("\n".join(errs))
    print("%d label problems" % len(errs))
    sys.exit(1)
print("%d labels for %d examples: keys, rule ids and source lines agree" % (len(files), len(set(declared.values()))))
PY
