#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""'memadvise layout FILE TYPE' reads only the units that define TYPE; its
output must be byte for byte what a full read prints for that type.

For every type name in 'memadvise layout FILE' (first definition of each
name), compares the text of 'layout FILE NAME' with that type's block in the
full text, and 'layout -j FILE NAME' with the full JSON's object for it.

Usage: layout_one_cmp.py MEMADVISE FILE [STEP]   (STEP: every STEP-th name)
Prints: FILE: N types compared, N differ   and exits 1 when any differs.
"""
import json
import subprocess
import sys


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def blocks(text):
    """The full dump split into one text per type, as printed alone."""
    out, cur = [], []
    for line in text.splitlines(keepends=True):
        if not cur and line == "\n":
            continue
        cur.append(line)
        if line.startswith("}"):
            out.append("".join(cur))
            cur = []
    return out


def main():
    ma, path = sys.argv[1], sys.argv[2]
    step = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    full = json.loads(run(ma, "layout", "-j", path))
    text = blocks(run(ma, "layout", path))
    structs = full["structs"]
    if len(text) != len(structs):
        print(f"{path}: {len(text)} text blocks for {len(structs)} types")
        return 1
    seen, compared, differ = set(), 0, 0
    for i, s in enumerate(structs):
        name = s["name"]
        if name in seen:
            continue
        seen.add(name)
        if len(seen) % step:
            continue
        compared += 1
        one = run(ma, "layout", path, name)
        if one != text[i]:
            differ += 1
            print(f"  DIFF text {name}")
            continue
        j = json.loads(run(ma, "layout", "-j", path, name))
        if j["structs"] != [s] or {k: v for k, v in j.items() if k != "structs"} != \
                {k: v for k, v in full.items() if k != "structs"}:
            differ += 1
            print(f"  DIFF json {name}")
    print(f"{path}: {compared} types compared, {differ} differ")
    return 1 if differ or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
