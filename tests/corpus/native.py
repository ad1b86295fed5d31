#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
The native effect of a scenario, for its label: builds its variants as
eval.py does (into OUT/NAME/VARIANT/prog, the label's flags and defines)
and runs them bare, N rounds, the variants interleaved in each round, and
prints the median wall and CPU (user + system, all threads) seconds.

Usage: native.py [--out DIR] [-n ROUNDS] NAME...
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval as corpus  # noqa: E402


def run_once(prog, args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run([prog] + [str(a) for a in args], cwd=os.path.dirname(prog),
                       stdout=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d" % (prog, p.returncode))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout.strip()


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUTPUT", ".output"), "corpus"))
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--corpus", default=corpus.HERE, help="the scenarios' directory")
    ap.add_argument("names", nargs="+")
    a = ap.parse_args(argv)
    classes = corpus.load_classes(os.path.join(corpus.HERE, "classes.yaml"))
    cc = os.environ.get("CC", "cc")
    for name in a.names:
        lab = corpus.load_label(os.path.join(a.corpus, name), classes)
        progs = {}
        for v in sorted(lab["variants"]):
            vdir = os.path.join(a.out, name, v)
            os.makedirs(vdir, exist_ok=True)
            progs[v] = corpus.build(lab, v, vdir, cc)
        times = {v: [] for v in progs}
        sums = {}
        for _ in range(a.n):
            for v in progs:
                wall, cpu, out = run_once(progs[v], lab["variants"][v]["args"])
                times[v].append((wall, cpu))
                sums[v] = out
        print("%s: %s" % (name, "; ".join(
            "%s wall %.2f s cpu %.2f s" % (v, statistics.median(t[0] for t in times[v]),
                                           statistics.median(t[1] for t in times[v]))
            for v in progs)))
        if len(set(sums.values())) > 1:
            print("  (checksums differ: %s)" % sums)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
