# SPDX-License-Identifier: GPL-2.0-only
"""The watchpoints section of a 'memadvise run -j' report, for the watch tests.

    import sys, os; sys.path.insert(0, os.environ["MA_TOP"] + "/tests/e2e")
    from watch_json import load, armed
"""
import json
import sys


def load(path):
    """(report, watchpoints section); the test fails when there is none."""
    d = json.load(open(path))
    w = d.get("watchpoints")
    if w is None:
        print("[Failed: no watchpoints section: %s]" % d.get("provenance"))
        sys.exit(1)
    return d, w


def armed(w, *names):
    """The points NAMES, each armed; the test fails when one is not."""
    pts = {p["name"]: p for p in w["points"]}
    got = [pts.get(n) for n in names]
    if not all(p and p["armed"] for p in got):
        print("[Failed: %s not all watched: %s]" % (", ".join(names), w["points"]))
        sys.exit(1)
    return got
