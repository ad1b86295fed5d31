#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
The advice-quality corpus runner ('make eval').

Every tests/corpus/NAME/ holds one scenario: NAME.c and label.yaml (format:
tests/corpus/README.md).  For each variant of each scenario: build it into
OUT/NAME/VARIANT/prog with the label's cflags, defines and ldflags, run
'memadvise run -j -o report.json -- ./prog ARGS' there once, with default
options, one variant at a time, and score the fired findings against the
label:

  recall      expected (variant, class) pairs found on BAD variants / all
  location    found pairs whose finding's location names a right place / found
  false pos.  GOOD and clean variants with any non-tolerated finding / all of them
  spurious    non-tolerated extra classes on BAD variants
  confusion   per rule id: fired on an expected pair, missed, fired where
              its class was neither expected nor tolerated

A finding counts when its status is "fired" and it is not marked
"folded": true.  Reports and logs stay under OUT for inspection.

Where a program prints 'checksum ...' lines, it is also run natively and
those lines compared: memadvise must not change what a program computes
(unless --no-output-check).

Usage: eval.py [--memadvise PATH] [--out DIR] [--corpus DIR] [-k PATTERN]...
               [--list FILE] [--json FILE] [--no-run] [--strict] [--check]
               [--no-output-check]
Exit: 0 it ran; 1 a memadvise run failed or changed a program's checksum,
or (--strict) a variant missed its expectation; 2 a broken corpus (a label
or a program that is wrong).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANT_KEYS = {"defines", "args", "expect", "tolerated"}
LABEL_KEYS = {"name", "source", "cflags", "ldflags", "paper", "variants"}


class CorpusError(Exception):
    """A broken corpus: 'file:line: what is wrong'."""

    def __init__(self, path, line, msg):
        super().__init__("%s:%s: %s" % (path, line, msg))


# --- labels -------------------------------------------------------------------

class LineLoader(yaml.SafeLoader):
    """A safe loader that remembers the line of every mapping (key '__line__')."""


def _mapping_with_line(loader, node):
    m = loader.construct_mapping(node, deep=True)
    m["__line__"] = node.start_mark.line + 1
    return m


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_with_line)


def load_yaml(path):
    try:
        with open(path) as f:
            return yaml.load(f, Loader=LineLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise CorpusError(path, mark.line + 1 if mark else 1,
                          "not valid YAML: %s" % getattr(e, "problem", e))
    except OSError as e:
        raise CorpusError(path, 0, "cannot read: %s" % e.strerror)


def load_classes(path):
    doc = load_yaml(path)
    if not isinstance(doc, dict):
        raise CorpusError(path, 1, "expected a mapping 'class: [rule ids]'")
    line = doc.pop("__line__", 1)
    classes = {}
    for cls, rules in doc.items():
        if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
            raise CorpusError(path, line, "class %r: expected a list of rule ids" % cls)
        classes[str(cls)] = rules
    return classes


WHERE_RES = (
    ("struct", re.compile(r"^struct ([A-Za-z_]\w*)(?:\.(\w+(?:,\w+)*))?$")),
    ("func", re.compile(r"^func ([A-Za-z_][\w:~]*)$")),
    ("var", re.compile(r"^var ([A-Za-z_]\w*)$")),
    ("line", re.compile(r"^([^\s:]+):(\d+)(?:-(\d+))?$")),
)


def parse_where(text):
    """A 'where' entry as a dict, or None when it has none of the forms."""
    for kind, rx in WHERE_RES:
        m = rx.match(text)
        if not m:
            continue
        if kind == "struct":
            return {"kind": kind, "name": m.group(1),
                    "members": m.group(2).split(",") if m.group(2) else []}
        if kind in ("func", "var"):
            return {"kind": kind, "name": m.group(1)}
        first = int(m.group(2))
        last = int(m.group(3)) if m.group(3) else first
        return {"kind": kind, "file": m.group(1), "first": first, "last": last}
    return None


def _str_list(v):
    return isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v)


def check_where(w, where, sdir, source_text, path, line):
    """A where entry must name something the scenario has."""
    if w["kind"] == "line":
        f = os.path.join(sdir, w["file"])
        if os.path.basename(w["file"]) != w["file"] or not os.path.isfile(f):
            raise CorpusError(path, line, "where %r: no file %s in %s" % (where, w["file"], sdir))
        with open(f, errors="replace") as fh:
            n = fh.read().count("\n")
        if not 1 <= w["first"] <= w["last"] <= n:
            raise CorpusError(path, line, "where %r: lines outside %s (%d lines)" % (where, w["file"], n))
        return
    words = [w["name"]] + w.get("members", [])
    for word in words:
        if not re.search(r"\b%s\b" % re.escape(word.split("::")[-1]), source_text):
            raise CorpusError(path, line, "where %r: %s does not occur in the source" % (where, word))


def load_label(sdir, classes):
    """The scenario in sdir, checked: a dict with its variants."""
    path = os.path.join(sdir, "label.yaml")
    lab = load_yaml(path)
    if not isinstance(lab, dict):
        raise CorpusError(path, 1, "expected a mapping")
    line = lab.get("__line__", 1)
    unknown = set(lab) - LABEL_KEYS - {"__line__"}
    if unknown:
        raise CorpusError(path, line, "unknown key(s) %s (keys: %s)" % (
            ", ".join(sorted(unknown)), ", ".join(sorted(LABEL_KEYS))))
    for k in ("name", "source", "cflags", "variants"):
        if k not in lab:
            raise CorpusError(path, line, "missing key '%s'" % k)
    name = os.path.basename(os.path.normpath(sdir))
    if lab["name"] != name:
        raise CorpusError(path, line, "name %r is not the directory's name %r" % (lab["name"], name))
    src = os.path.join(sdir, str(lab["source"]))
    if not os.path.isfile(src):
        raise CorpusError(path, line, "source %s does not exist" % lab["source"])
    with open(src, errors="replace") as f:
        source_text = f.read()
    lab.setdefault("ldflags", [])
    for k in ("cflags", "ldflags"):
        if not _str_list(lab[k]):
            raise CorpusError(path, line, "%s: expected a list of flags" % k)
    if "-g" not in lab["cflags"]:
        raise CorpusError(path, line, "cflags must contain -g (locations come from debug info)")
    variants = lab["variants"]
    if not isinstance(variants, dict) or not set(variants) - {"__line__"}:
        raise CorpusError(path, line, "variants: expected a mapping of variants")
    vline = variants.pop("__line__", line)
    names = set(variants)
    if names not in ({"bad", "good"}, {"clean"}):
        raise CorpusError(path, vline, "variants %s: expected 'bad' and 'good', or only 'clean'"
                          % ", ".join(sorted(names)))
    for vname, v in variants.items():
        if not isinstance(v, dict):
            raise CorpusError(path, vline, "variant %s: expected a mapping" % vname)
        vl = v.pop("__line__", vline)
        unknown = set(v) - VARIANT_KEYS
        if unknown:
            raise CorpusError(path, vl, "variant %s: unknown key(s) %s" % (vname, ", ".join(sorted(unknown))))
        for k in ("defines", "args", "expect", "tolerated"):
            v.setdefault(k, [])
            if not isinstance(v[k], list):
                raise CorpusError(path, vl, "variant %s: %s must be a list" % (vname, k))
        if not _str_list(v["defines"]) or not _str_list(v["args"]):
            raise CorpusError(path, vl, "variant %s: defines and args are lists of words" % vname)
        if (vname == "bad") != bool(v["expect"]):
            raise CorpusError(path, vl, "variant %s: %s" % (
                vname, "a BAD variant expects at least one class" if vname == "bad"
                else "expect must be [] (GOOD and clean programs have nothing to report)"))
        for cls in v["tolerated"]:
            if cls not in classes:
                raise CorpusError(path, vl, "variant %s: tolerated class %r is not in classes.yaml"
                                  % (vname, cls))
        for e in v["expect"]:
            el = e.get("__line__", vl) if isinstance(e, dict) else vl
            if not isinstance(e, dict) or set(e) - {"__line__"} != {"class", "where"}:
                raise CorpusError(path, el, "variant %s: an expect entry has 'class' and 'where'" % vname)
            e.pop("__line__", None)
            if e["class"] not in classes:
                raise CorpusError(path, el, "class %r is not in classes.yaml (classes: %s)" % (
                    e["class"], ", ".join(classes)))
            if not isinstance(e["where"], list) or not e["where"]:
                raise CorpusError(path, el, "class %r: 'where' needs at least one place" % e["class"])
            parsed = []
            for wtext in e["where"]:
                w = parse_where(str(wtext))
                if not w:
                    raise CorpusError(path, el, "where %r: expected 'struct NAME[.f1,f2]', 'func NAME',"
                                      " 'var NAME', 'FILE:LINE' or 'FILE:FIRST-LAST'" % wtext)
                check_where(w, wtext, sdir, source_text, path, el)
                parsed.append(w)
            e["parsed"] = parsed
        if len({e["class"] for e in v["expect"]}) != len(v["expect"]):
            raise CorpusError(path, vl, "variant %s: a class is expected twice" % vname)
    lab["dir"] = sdir
    lab["path"] = path
    return lab


def load_corpus(corpus, classes, patterns, only):
    """The selected scenarios, sorted by name; CorpusError on the first broken one."""
    labs = []
    for name in sorted(os.listdir(corpus)):
        sdir = os.path.join(corpus, name)
        if not os.path.isdir(sdir) or name.startswith((".", "_")):
            continue
        if not os.path.exists(os.path.join(sdir, "label.yaml")):
            raise CorpusError(os.path.join(sdir, "label.yaml"), 0, "scenario %s has no label" % name)
        if patterns and not any(p in name for p in patterns):
            continue
        if only is not None and not any(n == name for n, _ in only):
            continue
        labs.append(load_label(sdir, classes))
    return labs


# --- build and run ------------------------------------------------------------

def build(lab, vname, vdir, cc):
    v = lab["variants"][vname]
    prog = os.path.join(vdir, "prog")
    cmd = ([cc] + [str(f) for f in lab["cflags"]] + ["-D" + str(d) for d in v["defines"]] +
           ["-o", prog, os.path.join(lab["dir"], str(lab["source"]))] + [str(f) for f in lab["ldflags"]])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise CorpusError(lab["path"], 1, "variant %s does not build (%s): %s" % (
            vname, " ".join(cmd), p.stdout.strip().splitlines()[0] if p.stdout.strip() else "?"))
    return prog


def run_variant(ma, vdir, args):
    """Runs memadvise once; (report or None, seconds, error text or None)."""
    report = os.path.join(vdir, "report.json")
    if os.path.exists(report):
        os.unlink(report)
    cmd = [ma, "run", "-j", "-o", report, "--", "./prog"] + [str(a) for a in args]
    t0 = time.monotonic()
    with open(os.path.join(vdir, "run.log"), "w") as log:
        try:
            p = subprocess.run(cmd, cwd=vdir, stdout=log, stderr=subprocess.STDOUT, timeout=900)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    took = time.monotonic() - t0
    if rc != 0:
        return None, took, "memadvise exited %s (see %s)" % (rc, os.path.join(vdir, "run.log"))
    return read_report(report), took, None


CHECK_LINE = re.compile(r"^checksum\b.*$", re.M)


def check_output(vdir, args):
    """Whether the program computed the same under memadvise as without it.

    The corpus programs print a 'checksum ...' line of what they computed;
    memadvise must not change it (a probe that skips an instruction would).
    The program is run once natively and its checksum lines compared with
    those in run.log; where they differ, a second native run tells a program
    whose result varies from run to run (None) from a changed result (the
    text that says how).  None too where the program prints no checksum.
    """
    with open(os.path.join(vdir, "run.log"), errors="replace") as f:
        under = CHECK_LINE.findall(f.read())
    if not under:
        return None

    def native():
        try:
            p = subprocess.run(["./prog"] + [str(a) for a in args], cwd=vdir, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, errors="replace", timeout=900)
        except subprocess.TimeoutExpired:
            return None
        return CHECK_LINE.findall(p.stdout)
    first = native()
    if first is None or first == under:
        return None
    second = native()
    if second != first:
        return None
    return "native %s, under memadvise %s" % (" ".join(first)[:80], " ".join(under)[:80])


def read_report(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"__error__": "no readable report %s: %s" % (path, e)}


# --- scoring ------------------------------------------------------------------

def fired_findings(report):
    """The findings that count: fired and not folded below the gain threshold."""
    return [f for f in report.get("findings", []) or []
            if f.get("status") == "fired" and f.get("folded") is not True]


def rule_of(f):
    return f.get("id") or f.get("rule") or "?"


def base_function(fn):
    """'parse.isra.0' and 'ns::f(int)' -> the name a label gives."""
    fn = re.sub(r"\(.*$", "", fn or "")
    return fn.split(".")[0]


def where_matches(w, loc):
    """Whether one 'where' entry names the place in a finding's location."""
    if w["kind"] == "struct":
        st = re.sub(r"^(struct|class|union)\s+", "", loc.get("struct", "") or "")
        if st != w["name"]:
            return False
        if not w["members"]:
            return True
        members = {m.strip() for m in (loc.get("member", "") or "").split(",")}
        return bool(members & set(w["members"]))
    if w["kind"] == "func":
        fn = loc.get("function", "") or ""
        return fn == w["name"] or base_function(fn) == w["name"]
    if w["kind"] == "var":
        for k in ("var", "variable", "symbol"):
            if loc.get(k) == w["name"]:
                return True
        return bool(re.search(r"\bglobal %s\b" % re.escape(w["name"]), loc.get("region", "") or ""))
    for fk, lk in (("file", "line"), ("decl_file", "decl_line")):
        f, line = loc.get(fk), loc.get(lk)
        if f and isinstance(line, int) and os.path.basename(f) == w["file"] and \
           w["first"] - 3 <= line <= w["last"] + 3:
            return True
    return False


def score_variant(lab, vname, report, classes):
    """What one variant's report says against its label."""
    v = lab["variants"][vname]
    class_of = {r: c for c, rules in classes.items() for r in rules}
    fired = fired_findings(report)
    by_class = {}
    for f in fired:
        by_class.setdefault(class_of.get(rule_of(f), "rule " + rule_of(f)), []).append(f)
    expected = []
    for e in v["expect"]:
        fs = by_class.get(e["class"], [])
        at = [f for f in fs if any(where_matches(w, f.get("location", {}) or {}) for w in e["parsed"])]
        loc = (at or fs or [{}])[0].get("location", {}) or {}
        expected.append({"class": e["class"], "found": bool(fs), "location_ok": bool(at),
                         "reported_at": loc_text(loc)})
    want = {e["class"] for e in v["expect"]}
    extra = sorted(c for c in by_class if c not in want and c not in v["tolerated"])
    tolerated = sorted(c for c in by_class if c not in want and c in v["tolerated"])
    return {"scenario": lab["name"], "variant": vname, "kind": "bad" if vname == "bad" else "quiet",
            "expected": expected, "extra": extra, "tolerated_fired": tolerated,
            "rules_fired": sorted({rule_of(f) for f in fired})}


def loc_text(loc):
    parts = []
    if loc.get("struct"):
        parts.append("struct %s%s" % (loc["struct"], "." + loc["member"] if loc.get("member") else ""))
    if loc.get("function"):
        parts.append("func " + loc["function"])
    if loc.get("file"):
        parts.append("%s:%s" % (os.path.basename(loc["file"]), loc.get("line", "?")))
    if not parts and loc.get("region"):
        parts.append(loc["region"])
    return ", ".join(parts)


def totals(results, classes):
    class_of = {r: c for c, rules in classes.items() for r in rules}
    bad = [r for r in results if r["kind"] == "bad"]
    quiet = [r for r in results if r["kind"] == "quiet"]
    pairs = [e for r in bad for e in r["expected"]]
    found = [e for e in pairs if e["found"]]
    fp = [r for r in quiet if r["extra"]]
    conf = {}
    for rid in sorted({r for rules in classes.values() for r in rules} |
                      {x for r in results for x in r["rules_fired"]}):
        c = conf[rid] = {"class": class_of.get(rid, "-"), "fired_expected": 0, "missed": 0,
                         "fired_unexpected": 0}
        for r in results:
            fired = rid in r["rules_fired"]
            exp = [e for e in r["expected"] if e["class"] == c["class"]]
            if exp:
                c["fired_expected" if fired else "missed"] += 1
            elif fired and class_of.get(rid, "rule " + rid) in r["extra"]:
                c["fired_unexpected"] += 1
    ratio = (lambda a, b: round(a / b, 3) if b else None)
    return {
        "variants": len(results), "bad_variants": len(bad), "quiet_variants": len(quiet),
        "expected_pairs": len(pairs), "found_pairs": len(found),
        "located_pairs": sum(e["location_ok"] for e in found),
        "recall": ratio(len(found), len(pairs)),
        "location_accuracy": ratio(sum(e["location_ok"] for e in found), len(found)),
        "false_positive_programs": len(fp),
        "false_positive_share": ratio(len(fp), len(quiet)),
        "spurious_classes": sum(len(r["extra"]) for r in bad),
        "run_errors": sum(1 for r in results if r.get("error")),
        "output_changed": sum(1 for r in results if r.get("output_changed")),
        "confusion": conf,
    }


def met(r):
    """Whether a variant meets its label: every class found at a right place, or quiet."""
    if r.get("error"):
        return False
    if r["kind"] == "bad":
        return all(e["found"] and e["location_ok"] for e in r["expected"])
    return not r["extra"]


# --- output -------------------------------------------------------------------

def print_table(results, tot, out=sys.stdout):
    w = max([len("%s/%s" % (r["scenario"], r["variant"])) for r in results] + [8])
    out.write("%-*s %6s  %-30s %-34s %s\n" % (w, "variant", "run", "expected", "found", "extra"))
    for r in results:
        exp = ", ".join(e["class"] for e in r["expected"]) or "-"
        found = []
        for e in r["expected"]:
            found.append(("%s" if e["location_ok"] else "%s (elsewhere: " + e["reported_at"] + ")")
                         % e["class"] if e["found"] else "MISSED " + e["class"])
        extra = ", ".join(r["extra"]) or "-"
        if r["tolerated_fired"]:
            extra += " (tolerated: %s)" % ", ".join(r["tolerated_fired"])
        if r.get("error"):
            extra = "ERROR " + r["error"]
        took = "-" if r.get("seconds") is None else "%.1fs" % r["seconds"]
        out.write("%-*s %6s  %-30s %-34s %s\n" % (w, "%s/%s" % (r["scenario"], r["variant"]),
                  took, exp, "; ".join(found) or "-", extra))
    pct = (lambda x: "n/a" if x is None else "%.0f%%" % (100 * x))
    out.write("\nrecall            %s  (%d of %d expected problems found on BAD variants)\n" % (
        pct(tot["recall"]), tot["found_pairs"], tot["expected_pairs"]))
    out.write("location          %s  (%d of %d found at a right place)\n" % (
        pct(tot["location_accuracy"]), tot["located_pairs"], tot["found_pairs"]))
    out.write("false positives   %s  (%d of %d GOOD/clean programs with a non-tolerated finding)\n" % (
        pct(tot["false_positive_share"]), tot["false_positive_programs"], tot["quiet_variants"]))
    out.write("spurious          %d  (non-tolerated extra classes on %d BAD variants)\n" % (
        tot["spurious_classes"], tot["bad_variants"]))
    if tot["run_errors"]:
        out.write("run errors        %d\n" % tot["run_errors"])
    if tot["output_changed"]:
        out.write("OUTPUT CHANGED    %d  (the program computed something else under memadvise: %s)\n" % (
            tot["output_changed"], ", ".join("%s/%s (%s)" % (r["scenario"], r["variant"], r["output_changed"])
                                             for r in results if r.get("output_changed"))))
    out.write("\n%-20s %-24s %8s %8s %10s\n" % ("rule", "class", "fired ok", "missed", "unexpected"))
    for rid, c in tot["confusion"].items():
        if c["fired_expected"] or c["missed"] or c["fired_unexpected"]:
            out.write("%-20s %-24s %8d %8d %10d\n" % (rid, c["class"], c["fired_expected"], c["missed"],
                                                      c["fired_unexpected"]))


# --- main ---------------------------------------------------------------------

def read_list(path):
    """NAME/VARIANT lines of a list file ('#' comments)."""
    only = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.count("/") != 1:
                raise CorpusError(path, n, "expected NAME/VARIANT, got %r" % line)
            only.append(tuple(line.split("/")))
    return only


def main(argv):
    ap = argparse.ArgumentParser(description="Score memadvise's advice on the corpus.")
    ap.add_argument("--memadvise", default=os.path.join(os.environ.get("OUTPUT", ".output"), "memadvise"))
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUTPUT", ".output"), "corpus"),
                    help="where programs, reports and logs go (OUT/NAME/VARIANT/)")
    ap.add_argument("--corpus", default=HERE, help="the scenarios' directory")
    ap.add_argument("-k", dest="patterns", action="append", default=[],
                    help="only scenarios whose name contains PATTERN (repeatable)")
    ap.add_argument("--list", help="only the NAME/VARIANT lines of this file")
    ap.add_argument("--json", help="write the results and totals to this file")
    ap.add_argument("--no-run", action="store_true",
                    help="score the reports already under OUT (build and run nothing)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a variant misses its expectation")
    ap.add_argument("--no-output-check", action="store_true",
                    help="do not run the programs natively to compare their checksum lines")
    ap.add_argument("--check", action="store_true",
                    help="only check the labels (build and run nothing)")
    a = ap.parse_args(argv)
    a.memadvise, a.out = os.path.abspath(a.memadvise), os.path.abspath(a.out)
    cc = os.environ.get("CC", "cc")
    try:
        classes = load_classes(os.path.join(a.corpus, "classes.yaml"))
        only = read_list(a.list) if a.list else None
        labs = load_corpus(a.corpus, classes, a.patterns, only)
        todo = [(lab, v) for lab in labs for v in sorted(lab["variants"])
                if only is None or (lab["name"], v) in only]
        if only is not None:
            missing = set(only) - {(lab["name"], v) for lab, v in todo}
            if missing:
                raise CorpusError(a.list, 1, "not in the corpus: %s" % ", ".join(
                    sorted("%s/%s" % m for m in missing)))
        if not todo:
            raise CorpusError(a.corpus, 0, "no scenario selected")
        if a.check:
            print("%d scenarios, %d variants: labels are well-formed" % (len(labs), len(todo)))
            return 0
        if not a.no_run:
            if not os.access(a.memadvise, os.X_OK):
                print("error: %s is not built" % a.memadvise, file=sys.stderr)
                print("hint: run make first, or give --memadvise PATH", file=sys.stderr)
                return 2
            progs = {}
            for lab, v in todo:
                vdir = os.path.join(a.out, lab["name"], v)
                os.makedirs(vdir, exist_ok=True)
                progs[(lab["name"], v)] = build(lab, v, vdir, cc)
    except CorpusError as e:
        print("error: %s" % e, file=sys.stderr)
        print("hint: the label format is in tests/corpus/README.md", file=sys.stderr)
        return 2
    results = []
    for lab, v in todo:
        vdir = os.path.join(a.out, lab["name"], v)
        changed = None
        if a.no_run:
            report, took, err = read_report(os.path.join(vdir, "report.json")), None, None
        else:
            print("  RUN      %s/%s" % (lab["name"], v), file=sys.stderr, flush=True)
            report, took, err = run_variant(a.memadvise, vdir, lab["variants"][v]["args"])
            changed = None if err or a.no_output_check else check_output(
                vdir, lab["variants"][v]["args"])
        if report and "__error__" in report:
            err, report = report["__error__"], None
        r = score_variant(lab, v, report or {}, classes)
        r["seconds"] = None if took is None else round(took, 2)
        if err:
            r["error"] = err
        if changed:
            r["output_changed"] = changed
        results.append(r)
    tot = totals(results, classes)
    print_table(results, tot)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"totals": tot, "variants": results}, f, indent=1)
    unmet = [r for r in results if not met(r)]
    if a.strict and unmet:
        for r in unmet:
            print("not as labelled: %s/%s" % (r["scenario"], r["variant"]))
        return 1
    return 1 if tot["run_errors"] or tot["output_changed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
