#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare 'pahole FILE' with 'memadvise layout -j FILE' struct by struct.

For every struct or class pahole prints without an error (no <ERROR ...>,
no "BRAIN FART", no "not found"), these must agree exactly: size, cache
lines, number of members, every top-level member's offset and size, holes,
sum of holes, bit holes, sum of bit holes, padding, bit padding.  Structs
that pahole garbles are counted and listed apart (memadvise's numbers for
them are checked against the compiler in the unit tests), and so are member
offsets past the struct's size (pahole 1.24 prints a virtual base at
4294967295).  For a C++ class with virtual bases pahole counts their bytes
as padding; its padding is not compared there (the unit tests check where
the compiler puts them).

Usage: layout_cmp.py MEMADVISE FILE [-v]
Prints one summary line:  FILE: N compared, N agree, N differ, N garbled by pahole
and exits 1 when any struct differs.
"""
import json
import re
import subprocess
import sys

FOOT = {
    "size": re.compile(r"/\* size: (\d+), cachelines: (\d+), members: (\d+)"),
    "sum": re.compile(r"/\* sum members: (\d+)(?:, holes: (\d+), sum holes: (\d+))?"),
    "bits": re.compile(r"/\* sum bitfield members: (\d+) bits(?:, bit holes: (\d+), sum bit holes: (\d+) bits)?"),
    "padding": re.compile(r"/\* padding: (-?\d+) \*/"),
    "bit_padding": re.compile(r"/\* bit_padding: (\d+) bits \*/"),
}
MEMBER = re.compile(r"/\*\s+(\d+)(?::\s*(\d+))?\s+(\d+)\s+\*/\s*$")
HEAD = re.compile(r"^(struct|class) (.+?)(?: : .*)? \{$")


def parse_pahole(text):
    """Top-level structs: name -> dict (first definition wins, as pahole prints one)."""
    out = {}
    cur = None
    for line in text.splitlines():
        if cur is None:
            m = HEAD.match(line)
            if m:
                cur = {"name": m.group(2), "members": [], "garbled": False,
                       "holes": 0, "sum_holes": 0, "bit_holes": 0, "sum_bit_holes": 0,
                       "padding": 0, "bit_padding": 0}
            continue
        if line.startswith("}"):
            if "size" in cur and any(o > cur["size"] for o, _ in cur["members"]):
                cur["garbled"] = True
            if "size" in cur and cur["name"] not in out:
                out[cur["name"]] = cur
            elif "size" not in cur and cur["name"] not in out:
                cur["garbled"] = True
                out[cur["name"]] = cur
            cur = None
            continue
        if "ERROR" in line or "BRAIN FART" in line or "not found" in line:
            cur["garbled"] = True
        mm = MEMBER.search(line)
        # top-level members are indented by exactly one tab
        if mm and line.startswith("\t") and not line.startswith("\t\t") \
                and not line.lstrip().startswith("}") and "<ancestor>" not in line:
            cur["members"].append((int(mm.group(1)), int(mm.group(3))))
        elif mm and line.startswith("\t}"):
            cur["members"].append((int(mm.group(1)), int(mm.group(3))))
        for k, rx in FOOT.items():
            f = rx.search(line)
            if not f:
                continue
            if k == "size":
                cur["size"], cur["cachelines"], cur["nr_members"] = map(int, f.groups())
            elif k == "sum" and f.group(2):
                cur["holes"], cur["sum_holes"] = int(f.group(2)), int(f.group(3))
            elif k == "bits" and f.group(2):
                cur["bit_holes"], cur["sum_bit_holes"] = int(f.group(2)), int(f.group(3))
            elif k == "padding":
                cur["padding"] = int(f.group(1))
            elif k == "bit_padding":
                cur["bit_padding"] = int(f.group(1))
    return out


def from_json(s):
    members = []
    for m in s["members"]:
        if m.get("base_class"):
            continue
        members.append((m["offset_bytes"], m["size_bytes"]))
    return {
        "size": s["size_bytes"], "cachelines": s["cachelines"], "nr_members": s["nr_members"],
        "holes": s["holes"], "sum_holes": s["sum_holes_bytes"],
        "bit_holes": s["bit_holes"], "sum_bit_holes": s["sum_bit_holes_bits"],
        "padding": max(s["padding_bytes"], 0), "bit_padding": s["bit_padding_bits"],
        "members": members,
        "virtual_bases": bool(s.get("virtual_bases")),
    }


def main():
    ma, path = sys.argv[1], sys.argv[2]
    verbose = "-v" in sys.argv[3:]
    p = subprocess.run(["pahole", path], capture_output=True, text=True)
    pa = parse_pahole(p.stdout)
    j = subprocess.run([ma, "layout", "-j", "--no-notes", path], capture_output=True, text=True)
    if j.returncode != 0:
        print(f"{path}: memadvise failed: {j.stderr.strip()}")
        return 1
    doc = json.loads(j.stdout)
    ours = {}
    for s in doc["structs"]:
        if s["kind"] == "union" or s.get("anonymous"):
            continue
        ours.setdefault(s["name"], []).append(from_json(s))
    compared = agree = differ = garbled = missing = 0
    garbled_names = []
    for name, ps in pa.items():
        if ps["garbled"]:
            garbled += 1
            garbled_names.append(name)
            continue
        cands = ours.get(name)
        if not cands:
            # pahole prints C++ names unqualified
            cands = [v for k, vs in ours.items() if k.endswith("::" + name) for v in vs]
        if not cands:
            missing += 1
            if verbose:
                print(f"  missing in memadvise: {name}")
            continue
        compared += 1
        keys = ("size", "cachelines", "nr_members", "holes", "sum_holes", "bit_holes",
                "sum_bit_holes", "padding", "bit_padding", "members")
        def same(c):
            return all(c[k] == ps[k] for k in keys
                       if not (k == "padding" and c["virtual_bases"]))
        if any(same(c) for c in cands):
            agree += 1
        else:
            differ += 1
            c = cands[0]
            diffs = [f"{k}: pahole {ps[k]} memadvise {c[k]}" for k in keys if c[k] != ps[k]]
            print(f"  DIFF {name}: " + "; ".join(d[:200] for d in diffs))
    if verbose and garbled_names:
        print("  garbled by pahole: " + " ".join(sorted(garbled_names)))
    print(f"{path}: {compared} compared, {agree} agree, {differ} differ, "
          f"{garbled} garbled by pahole, {missing} missing")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main())
