#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Rewrites the metric table of man/memadvise-rules.5 (between '.SH METRIC
NAMESPACE' and the next '.SH') from the registry the program prints:
    scripts/gen-rules-metrics.py .output/memadvise man/memadvise-rules.5
tests/lint/rules-doc.sh fails when the two disagree.
"""
import json
import subprocess
import sys

GROUPS = [
    ("run", "Run-wide (usable in every rule)"),
    ("counter", "Counters (one per generic counter; see memadvise-run(1))"),
    ("metric", "Derived ratios (present when their counters counted)"),
    ("sim", "Simulation (cachegrind, whole run)"),
    ("machine", "Machine (sysfs; latencies from memadvise calibrate)"),
    ("struct", "Struct (for\\-each struct or member)"),
    ("member", "Member (for\\-each member)"),
    ("region", "Region (for\\-each region)"),
    ("line", "Hot source line (for\\-each line)"),
    ("function", "Function (for\\-each function)"),
    ("lock", "Lock (for\\-each lock)"),
]


def esc(s):
    return s.replace("\\", "\\\\").replace("-", "\\-")


def main():
    ma, page = sys.argv[1], sys.argv[2]
    metrics = json.loads(subprocess.check_output([ma, "-j", "rules", "metrics"]))
    out = []
    for prefix, title in GROUPS:
        out.append('.SS "%s"' % title)
        for d in metrics:
            if d["name"].split(".")[0] != prefix:
                continue
            out += [".TP", ".B " + esc(d["name"]),
                    "%s (%s; evidence: %s)." % (esc(d["help"][0].upper() + d["help"][1:]),
                                                 esc(d["unit"]), esc(d["evidence"]))]
    text = open(page).read().split("\n")
    start = next(i for i, l in enumerate(text) if l.startswith(".SH METRIC NAMESPACE"))
    # keep the section's prose (up to the first .SS), replace the table
    first_ss = next(i for i in range(start, len(text)) if text[i].startswith(".SS"))
    end = next(i for i in range(start + 1, len(text)) if text[i].startswith(".SH"))
    text = text[:first_ss] + out + text[end:]
    open(page, "w").write("\n".join(text))


if __name__ == "__main__":
    main()
