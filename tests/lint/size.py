#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Sizes in src/: no file over MAX_FILE lines, no function over MAX_FUNC.

Functions are found as the project writes them (kernel style): a definition
starts at column 0, its body's '{' opens a line of its own at column 0 and
its '}' closes one.  Usage: size.py TOP; prints each excess, exit 1 if any."""
import os, re, sys

MAX_FILE = 1500
MAX_FUNC = 200
NAME = re.compile(r'(\w+)\s*\(')

def main(top):
    bad = []
    for d, _, files in os.walk(os.path.join(top, "src")):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, top)
            lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
            if len(lines) - 1 > MAX_FILE:
                bad.append("%s: %d lines (at most %d)" % (rel, len(lines) - 1, MAX_FILE))
            start = name = None
            for i, l in enumerate(lines):
                if l == "{" and start is None:
                    # the signature: the lines above back to one at column 0
                    j = i - 1
                    while j > 0 and (lines[j].startswith(("\t", " ")) or not lines[j]):
                        j -= 1
                    m = NAME.search(" ".join(lines[j:i]))
                    if m:
                        start, name = j, m.group(1)
                elif l.startswith("}") and start is not None:
                    n = i - start + 1
                    if n > MAX_FUNC:
                        bad.append("%s:%d: %s() is %d lines (at most %d)" % (rel, start + 1, name, n, MAX_FUNC))
                    start = None
    for b in bad:
        print(b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
