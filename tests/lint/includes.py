#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The #include graph of src/ against the module directions.

Each folder of src/ is a module; a file may include headers of its own
module and of the modules listed for it below, nothing else.  Sub-folders
(collect/profile, collect/addr) belong to their parent's module for the
directions, and the graph between all folders must have no cycle.
Usage: includes.py TOP   (prints each violation; exit 1 when any)."""
import os, re, sys

ALLOWED = {
    "base":    set(),
    "model":   {"base"},
    "symbols": {"base", "model"},
    "machine": {"base", "model", "symbols"},
    "layout":  {"base", "symbols", "machine"},
    "collect": {"base", "model", "symbols", "machine", "bpf"},
    "rules":   {"base", "model", "layout", "symbols", "machine"},
    "report":  {"base", "model", "layout"},
    "cli":     {"base", "model", "symbols", "machine", "layout", "collect", "rules", "report", "bpf"},
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

def main(top):
    src = os.path.join(top, "src")
    bad = []
    edges = {}
    for d, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, src)
            folder = os.path.dirname(rel)
            mod = folder.split("/")[0]
            if not folder:
                bad.append("%s: a file at the top of src/; every file belongs in a module folder" % rel)
                continue
            if mod not in ALLOWED:
                bad.append("%s: folder '%s' is no module (known: %s)" % (rel, mod, ", ".join(sorted(ALLOWED))))
                continue
            text = open(path, encoding="utf-8", errors="replace").read()
            for inc in INC.findall(text):
                if inc.endswith(".skel.h") or inc.startswith("bpf/"):
                    tmod, tfolder = "bpf", "bpf"
                else:
                    here = os.path.normpath(os.path.join(src, folder, inc))
                    there = os.path.normpath(os.path.join(src, inc))
                    if os.path.exists(there):
                        target = os.path.relpath(there, src)
                    elif os.path.exists(here):
                        target = os.path.relpath(here, src)
                    else:
                        bad.append("%s: includes \"%s\", which is not under src/" % (rel, inc))
                        continue
                    tfolder = os.path.dirname(target)
                    tmod = tfolder.split("/")[0] if tfolder else ""
                    if not inc.startswith(tfolder + "/") and tfolder != folder:
                        bad.append("%s: includes \"%s\" by a relative path; name it from src/ (%s)"
                                   % (rel, inc, target))
                if tmod != mod and tmod not in ALLOWED[mod]:
                    bad.append("%s: %s may not include %s (\"%s\"): %s uses only %s"
                               % (rel, mod, tmod, inc, mod, ", ".join(sorted(ALLOWED[mod])) or "nothing"))
                if tfolder != folder:
                    edges.setdefault(folder, {}).setdefault(tfolder, rel)
    # cycles between folders (sub-folders count as folders of their own)
    state = {}
    def visit(n, stack):
        state[n] = 1
        for m in sorted(edges.get(n, {})):
            if state.get(m) == 1:
                cyc = stack[stack.index(m):] + [m] if m in stack else [n, m]
                bad.append("cycle between folders: %s (%s)" % (" -> ".join(cyc), ", ".join(
                    edges[a][b] for a, b in zip(cyc, cyc[1:]))))
            elif not state.get(m):
                visit(m, stack + [m])
        state[n] = 2
    for n in sorted(edges):
        if not state.get(n):
            visit(n, [n])
    for b in bad:
        print(b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
