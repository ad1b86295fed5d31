#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
Real programs under 'memadvise run' ('make eval-real'), scored against
reviewed verdicts.

For each program built by scripts/real-programs.sh (redis-server under
redis-benchmark, memcached under scripts/memcached-load.py, the sqlite3
shell on tests/real/sqlite-work.sql, zstd -3 -T1 on 80 MB of shared
libraries), start it with its workload as docs/real-programs.md does, on
free loopback ports, run 'memadvise run -j -o OUT/NAME/report.json' on it
once, stop every process started here, and compare the report with
tests/real/verdicts.yaml:

  verdict   the verdict's bound and the bound on the CPU must be among the
            reviewed ones
  checks    lock_contention: a fired lock-contention finding (folded or
            not) names one of the listed locks; vdso_named: samples in the
            vDSO are named [vdso] __vdso_..., none after a file mapped
            nearby; no_write_read_only: no shared-line row lies on a
            mapping without write permission
  findings  every fired finding, printed in full or folded under the gain
            threshold, with its review (actionable, demoted, rejected) or
            UNREVIEWED

The sqlite3 script's output and zstd's compressed file must be the same
bytes as a native run gives: memadvise must not change what a program
computes (the run fails otherwise).

A program that is not built is skipped with a reason.  Reports and logs stay
under OUT for inspection.

Usage: eval-real.py [--memadvise PATH] [--out DIR] [--real DIR] [-k NAME]...
                    [--verdicts FILE] [--no-run] [--strict] [--json FILE]
Exit: 0 it ran and every check passed; 1 a check failed or a memadvise run
failed, or (--strict) a finding printed in full is not reviewed actionable;
2 every program was skipped, or the verdicts file is wrong.
"""
import argparse
import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
REVIEWS = ("actionable", "demoted", "rejected")
CHECKS = ("lock_contention", "vdso_named", "no_write_read_only")
PROGRAM_KEYS = {"bound", "busy_bound", "checks", "findings"}
FINDING_KEYS = {"rule", "where", "review", "gain", "command", "note"}


class VerdictsError(Exception):
    pass


class Skip(Exception):
    pass


class RunFailed(Exception):
    pass


# --- reviewed verdicts ----------------------------------------------------------

def load_verdicts(path):
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise VerdictsError("%s: %s" % (path, e))
    if not isinstance(doc, dict):
        raise VerdictsError("%s: expected a mapping of programs" % path)
    for name, p in doc.items():
        where = "%s: %s" % (path, name)
        if not isinstance(p, dict):
            raise VerdictsError("%s: expected a mapping" % where)
        unknown = set(p) - PROGRAM_KEYS
        if unknown:
            raise VerdictsError("%s: unknown key(s) %s (keys: %s)" % (
                where, ", ".join(sorted(unknown)), ", ".join(sorted(PROGRAM_KEYS))))
        for k in ("bound", "busy_bound"):
            p.setdefault(k, [])
            if not isinstance(p[k], list):
                raise VerdictsError("%s: %s must be a list of bounds" % (where, k))
        p.setdefault("checks", {})
        if not isinstance(p["checks"], dict) or set(p["checks"]) - set(CHECKS):
            raise VerdictsError("%s: checks: a mapping with keys among %s" % (where, ", ".join(CHECKS)))
        lc = p["checks"].get("lock_contention")
        if lc is not None and not (isinstance(lc, list) and lc and all(isinstance(x, str) for x in lc)):
            raise VerdictsError("%s: checks.lock_contention: a list of lock names" % where)
        p.setdefault("findings", [])
        if not isinstance(p["findings"], list):
            raise VerdictsError("%s: findings must be a list" % where)
        for i, f in enumerate(p["findings"]):
            fw = "%s: findings[%d]" % (where, i)
            if not isinstance(f, dict) or set(f) - FINDING_KEYS or not {"rule", "where", "review"} <= set(f):
                raise VerdictsError("%s: keys rule, where, review (and gain, command, note)" % fw)
            if f["review"] not in REVIEWS:
                raise VerdictsError("%s: review %r is not one of %s" % (fw, f["review"], ", ".join(REVIEWS)))
            if f["review"] == "actionable" and not (f.get("gain") and f.get("command")):
                raise VerdictsError("%s: an actionable review gives the measured gain and the command" % fw)
            if not f.get("note") and f["review"] != "actionable":
                raise VerdictsError("%s: a %s review says why in a note" % (fw, f["review"]))
            try:
                f["where_re"] = re.compile(str(f["where"]))
            except re.error as e:
                raise VerdictsError("%s: where %r: %s" % (fw, f["where"], e))
    return doc


# --- scoring a report -----------------------------------------------------------

def location_text(loc):
    """A finding's location as one line: 'struct S.m func F file.c:12 region R'."""
    parts = []
    if loc.get("struct"):
        parts.append("struct %s%s" % (loc["struct"], "." + loc["member"] if loc.get("member") else ""))
    elif loc.get("member"):
        parts.append("var %s" % loc["member"])
    if loc.get("function"):
        parts.append("func %s" % loc["function"])
    if loc.get("file"):
        parts.append("%s:%s" % (os.path.basename(loc["file"]), loc.get("line", 0)))
    if loc.get("region"):
        parts.append("region %s" % loc["region"])
    return " ".join(parts) or "(no location)"


def gain_text(f):
    g = f.get("estimated_gain")
    if not isinstance(g, dict) or g.get("share_of_run") is None:
        return "gain unknown"
    return "gain %.2f%%" % (100 * g["share_of_run"])


def review_of(finding, reviews):
    loc = location_text(finding.get("location") or {})
    for r in reviews:
        if r["rule"] == finding.get("id") and r["where_re"].search(loc):
            return r
    return None


def parse_u64(s):
    try:
        return int(s, 0)
    except (TypeError, ValueError):
        return None


def region_of(regions, addr):
    for r in regions:
        lo, hi = parse_u64(r.get("start")), parse_u64(r.get("end"))
        if lo is not None and hi is not None and lo <= addr < hi:
            return r
    return None


def check_lock_contention(rep, locks):
    named = []
    for f in rep.get("findings", []):
        if f.get("id") != "lock-contention" or f.get("status") != "fired":
            continue
        loc = f.get("location") or {}
        name = loc.get("member") or loc.get("struct") or ""
        base = re.sub(r"\[.*$", "", name.split(".")[0])
        if base in locks:
            named.append("%s%s" % (name, " (folded)" if f.get("folded") else ""))
    if named:
        return True, "lock-contention on " + ", ".join(named)
    return False, "no fired lock-contention finding names any of " + ", ".join(locks)


LOCALE_NAME = re.compile(r"^(LC_[A-Z_]+|locale-archive)\b")


def check_vdso(rep):
    prof = rep.get("profile", {})
    names, wrong = set(), set()
    for sec in ("functions", "hotspots", "lines"):
        for e in prof.get(sec, []) or []:
            mod, fn = e.get("module", ""), e.get("function", "")
            if mod == "[vdso]":
                (names if fn.startswith("__vdso_") else wrong).add("[vdso] %s" % (fn or "?"))
            elif LOCALE_NAME.match(mod) or LOCALE_NAME.match(fn):
                wrong.add("%s %s" % (mod, fn))
    if wrong:
        return False, "vDSO samples misnamed: " + ", ".join(sorted(wrong))
    if names:
        return True, ", ".join(sorted(names))
    return True, "no sample fell in the vDSO"


def check_read_only(rep):
    regions = rep.get("profile", {}).get("regions", []) or []
    da = rep.get("data_addresses") or {}
    bad, unknown = [], 0
    for row in da.get("shared_lines", []) or []:
        addr = parse_u64(row.get("line"))
        r = region_of(regions, addr) if addr is not None else None
        if r is None:
            unknown += 1
            continue
        if "w" not in (r.get("perms") or ""):
            objs = {t.get("write_object") for t in row.get("threads", []) if t.get("write_object")}
            bad.append("%s (%s %s%s)" % (row.get("line"), r.get("perms"), r.get("path") or r.get("kind"),
                                         ": " + ", ".join(sorted(objs)) if objs else ""))
    n = len(da.get("shared_lines", []) or [])
    left = da.get("writes_to_read_only")
    if bad:
        return False, "shared-line rows on read-only mappings: " + "; ".join(bad)
    return True, "%d shared-line rows, none on a read-only mapping%s; %s writes to read-only left out" % (
        n, " (%d outside the mappings seen)" % unknown if unknown else "", left if left is not None else "?")


def part_share(v, bound):
    for p in v.get("parts", []) or []:
        if p.get("part") == bound and p.get("share") is not None:
            return " (%.0f%%)" % (100 * p["share"])
    return ""


def score(name, rep, want):
    """The program's result: a dict with verdict, checks and findings, each judged."""
    v = rep.get("verdict") or {}
    res = {"program": name, "checks": [], "printed": [], "folded": []}
    bound, busy = v.get("bound"), v.get("busy_bound")
    busy_share = v.get("busy_share")
    res["verdict"] = {"bound": bound, "busy_bound": busy, "tier": v.get("tier"),
                      "confidence": v.get("confidence"),
                      "text": "%s%s, on the CPU %s%s (%s tier, %s confidence)" % (
                          bound, part_share(v, bound), busy,
                          " (%.0f%%)" % (100 * busy_share) if busy_share is not None else "",
                          v.get("tier"), v.get("confidence"))}
    if want["bound"]:
        ok = bound in want["bound"]
        res["checks"].append(("verdict", ok, "bound %s, reviewed: %s" % (bound, " or ".join(want["bound"]))))
    if want["busy_bound"]:
        ok = busy in want["busy_bound"]
        res["checks"].append(("on the CPU", ok, "%s, reviewed: %s" % (busy, " or ".join(want["busy_bound"]))))
    checks = want["checks"]
    if checks.get("lock_contention"):
        res["checks"].append(("lock_contention",) + check_lock_contention(rep, checks["lock_contention"]))
    if checks.get("vdso_named"):
        res["checks"].append(("vdso_named",) + check_vdso(rep))
    if checks.get("no_write_read_only"):
        res["checks"].append(("no_write_read_only",) + check_read_only(rep))
    for f in rep.get("findings", []):
        if f.get("status") != "fired":
            continue
        r = review_of(f, want["findings"])
        e = {"rule": f.get("id"), "location": location_text(f.get("location") or {}),
             "gain": gain_text(f), "review": r["review"] if r else "UNREVIEWED",
             "note": (r.get("note") or r.get("gain") or "") if r else ""}
        if f.get("folded"):
            res["folded"].append(e)
        else:
            # printed in full: only an actionable review is right
            e["defect"] = bool(r) and r["review"] != "actionable"
            res["printed"].append(e)
    return res


def print_result(res, out=sys.stdout):
    w = out.write
    w("  verdict: %s\n" % res["verdict"]["text"])
    for what, ok, text in res["checks"]:
        w("  check %-19s %s  %s\n" % (what, "ok    " if ok else "FAILED", text))
    for kind in ("printed", "folded"):
        if not res[kind]:
            w("  %s: none\n" % ("printed in full" if kind == "printed" else "folded"))
            continue
        w("  %s:\n" % ("printed in full" if kind == "printed" else "folded under the gain threshold"))
        for e in res[kind]:
            tag = e["review"] + (" (a defect)" if e.get("defect") else "")
            w("    %-20s %-48s %-16s %s\n" % (e["rule"], e["location"][:48], e["gain"], tag))


# --- running the programs -------------------------------------------------------

def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, seconds=10):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RunFailed("the server exited with status %s before it listened" % proc.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RunFailed("nothing listened on 127.0.0.1:%d after %d s" % (port, seconds))


class Procs:
    """The processes started here, each stopped (TERM, then KILL) on exit."""

    def __init__(self):
        self.procs = []

    def start(self, argv, log, **kw):
        f = open(log, "w")
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kw)
        p.log = f
        self.procs.append(p)
        return p

    def stop_all(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            p.log.close()
        self.procs = []


def need(pattern, what):
    """The first executable file matching PATTERN, or Skip."""
    for path in sorted(glob.glob(pattern)):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise Skip("%s not built (no %s; sh scripts/real-programs.sh)" % (what, pattern))


def memadvise(a, args, d, report, stdin=None, stdout=None):
    """'memadvise run -j -o report ARGS' with its stderr in d/memadvise.log."""
    cmd = [a.memadvise, "run", "-j", "-o", report] + args
    with open(os.path.join(d, "memadvise.log"), "w") as log:
        log.write("$ %s\n" % " ".join(cmd))
        log.flush()
        t = time.monotonic()
        p = subprocess.run(cmd, stdin=stdin or subprocess.DEVNULL, stdout=stdout or log, stderr=log)
        el = time.monotonic() - t
    if p.returncode == 2 or not os.path.isfile(report):
        raise RunFailed("memadvise exited %d (%s)" % (p.returncode, os.path.join(d, "memadvise.log")))
    return el, " ".join(cmd)


def run_redis(a, d, procs):
    src = os.path.join(a.real, "redis-*", "src")
    srv = need(os.path.join(src, "redis-server"), "redis-server")
    bench = need(os.path.join(src, "redis-benchmark"), "redis-benchmark")
    port = free_port()
    s = procs.start([srv, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                     "--daemonize", "no"], os.path.join(d, "server.log"), cwd=d)
    wait_port(port, s)
    b = procs.start([bench, "-h", "127.0.0.1", "-p", str(port), "-q", "-n", "300000", "-c", "20",
                     "-t", "set,get,incr,lpush,lpop"], os.path.join(d, "load.log"))
    el, cmd = memadvise(a, ["-p", str(s.pid), "-d", "8s"], d, os.path.join(d, "report.json"))
    still = b.poll() is None
    return "redis-server + redis-benchmark -n 300000 -c 20 -t set,get,incr,lpush,lpop; %s (%.1f s%s)" % (
        cmd, el, "; the benchmark was still running" if still else "")


def run_memcached(a, d, procs):
    mc = need(os.path.join(a.real, "memcached-*", "memcached"), "memcached")
    port = free_port()
    argv = [mc, "-l", "127.0.0.1", "-p", str(port), "-t", "4", "-m", "256"]
    if os.geteuid() == 0:
        argv[1:1] = ["-u", "root"]
    s = procs.start(argv, os.path.join(d, "server.log"), cwd=d)
    wait_port(port, s)
    ld = procs.start([sys.executable, os.path.join(TOP, "scripts", "memcached-load.py"), "--port", str(port),
                      "--seconds", "9", "--threads", "4"], os.path.join(d, "load.log"))
    el, cmd = memadvise(a, ["-p", str(s.pid), "-d", "8s"], d, os.path.join(d, "report.json"))
    try:
        ld.wait(15)
    except subprocess.TimeoutExpired:
        pass
    with open(os.path.join(d, "load.log")) as f:
        load = f.read().strip().splitlines()
    return "memcached -t 4 -m 256 + scripts/memcached-load.py --threads 4 --seconds 9 (%s); %s (%.1f s)" % (
        load[-1] if load else "no output", cmd, el)


def run_sqlite(a, d, procs):
    sq = need(os.path.join(a.real, "sqlite3-*", "sqlite3-g"), "sqlite3-g")
    db = os.path.join(d, "work.db")
    for f in glob.glob(db + "*"):
        os.unlink(f)
    sql = os.path.join(HERE, "sqlite-work.sql")
    under, native = os.path.join(d, "out.txt"), os.path.join(d, "out-native.txt")
    with open(sql) as inp, open(under, "w") as out:
        el, cmd = memadvise(a, ["--", sq, db], d, os.path.join(d, "report.json"), stdin=inp, stdout=out)
    os.unlink(db)
    # memadvise must not change what the program computes: the same queries natively
    with open(sql) as inp, open(native, "w") as out:
        subprocess.run([sq, db], stdin=inp, stdout=out, stderr=subprocess.DEVNULL)
    os.unlink(db)
    same_output(under, native)
    return "%s < tests/real/sqlite-work.sql (%.1f s; output as natively)" % (cmd, el)


def same_output(under, native):
    """RunFailed unless the two files have the same bytes."""
    with open(under, "rb") as f, open(native, "rb") as g:
        u, n = f.read(), g.read()
    if u != n:
        raise RunFailed("the program's output changed under memadvise: %s (%d bytes) against %s (%d bytes) "
                        "natively" % (under, len(u), native, len(n)))


ZSTD_INPUT = 80000000


def zstd_input(d):
    path = os.path.join(d, "zin")
    if os.path.isfile(path) and os.path.getsize(path) == ZSTD_INPUT:
        return path
    left = ZSTD_INPUT
    with open(path + ".tmp", "wb") as out:
        for so in sorted(glob.glob("/usr/lib/x86_64-linux-gnu/*.so*")):
            if left <= 0:
                break
            if not os.path.isfile(so):
                continue
            with open(so, "rb") as f:
                b = f.read(left)
            out.write(b)
            left -= len(b)
    if left > 0:
        os.unlink(path + ".tmp")
        raise Skip("less than %d bytes of shared libraries in /usr/lib/x86_64-linux-gnu" % ZSTD_INPUT)
    os.rename(path + ".tmp", path)
    return path


def run_zstd(a, d, procs):
    z = need(os.path.join(a.real, "libzstd-*", "programs", "zstd"), "zstd")
    zin = zstd_input(d)
    argv = [z, "-q", "-f", "-3", "-T1", zin, "-o"]
    el, cmd = memadvise(a, ["--"] + argv + [zin + ".zst"], d, os.path.join(d, "report.json"))
    # the same compression natively gives the same bytes
    subprocess.run(argv + [zin + ".native.zst"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    try:
        same_output(zin + ".zst", zin + ".native.zst")
    finally:
        for f in (zin + ".zst", zin + ".native.zst"):
            if os.path.exists(f):
                os.unlink(f)
    return "%s (80 MB of /usr/lib/x86_64-linux-gnu/*.so*; %.1f s; output as natively)" % (cmd, el)


PROGRAMS = (("redis", run_redis), ("memcached", run_memcached), ("sqlite3", run_sqlite), ("zstd", run_zstd))


# --- main -----------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description="real programs under memadvise, scored against reviewed verdicts")
    ap.add_argument("--memadvise", default=os.path.join(TOP, ".output", "memadvise"))
    ap.add_argument("--out", default=os.path.join(TOP, ".output", "real"))
    ap.add_argument("--real", default=os.environ.get("MA_REAL_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "memadvise", "real"))
    ap.add_argument("-k", action="append", default=[], metavar="NAME", help="only programs whose name contains NAME")
    ap.add_argument("--verdicts", default=os.path.join(HERE, "verdicts.yaml"))
    ap.add_argument("--no-run", action="store_true", help="score the reports already in OUT/NAME/report.json")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a finding printed in full is rejected, demoted or unreviewed")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    a = ap.parse_args()
    try:
        want = load_verdicts(a.verdicts)
    except VerdictsError as e:
        print("error: %s" % e, file=sys.stderr)
        print("hint: tests/real/eval-real.py's docstring describes the file", file=sys.stderr)
        return 2
    if not a.no_run and not os.access(a.memadvise, os.X_OK):
        print("error: %s is not an executable memadvise" % a.memadvise, file=sys.stderr)
        print("hint: build it with 'make', or pass --memadvise PATH", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    results, skipped, failed_runs = [], [], []
    for name, fn in PROGRAMS:
        if a.k and not any(k in name for k in a.k):
            continue
        print("== %s" % name)
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        report = os.path.join(d, "report.json")
        if not a.no_run:
            if os.path.exists(report):
                os.unlink(report)
            procs = Procs()
            try:
                print("  ran: %s" % fn(a, d, procs))
            except Skip as e:
                print("  skipped: %s" % e)
                skipped.append(name)
                continue
            except RunFailed as e:
                print("  FAILED: %s" % e)
                failed_runs.append(name)
                continue
            finally:
                procs.stop_all()
        elif not os.path.isfile(report):
            print("  skipped: no report %s" % report)
            skipped.append(name)
            continue
        try:
            with open(report) as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            print("  FAILED: cannot read %s: %s" % (report, e))
            failed_runs.append(name)
            continue
        res = score(name, rep, want.get(name) or load_empty())
        print_result(res)
        results.append(res)

    printed = [e for r in results for e in r["printed"]]
    actionable = sum(1 for e in printed if e["review"] == "actionable")
    defects = sum(1 for e in printed if e.get("defect"))
    unrev = sum(1 for e in printed if e["review"] == "UNREVIEWED")
    folded_unrev = sum(1 for r in results for e in r["folded"] if e["review"] == "UNREVIEWED")
    failed = [(r["program"], c[0]) for r in results for c in r["checks"] if not c[1]]
    print("totals: %d printed findings: %d reviewed actionable, %d not actionable (defects), %d unreviewed; "
          "%d folded (%d unreviewed); %d checks failed; %d runs failed; %d skipped" % (
              len(printed), actionable, defects, unrev,
              sum(len(r["folded"]) for r in results), folded_unrev, len(failed), len(failed_runs), len(skipped)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"results": results, "skipped": skipped, "failed_runs": failed_runs,
                       "totals": {"printed": len(printed), "actionable": actionable, "defects": defects,
                                  "unreviewed": unrev, "checks_failed": len(failed)}}, f, indent=1)
    if failed or failed_runs:
        for prog, what in failed:
            print("check failed: %s: %s" % (prog, what))
        return 1
    if a.strict and (defects or unrev):
        print("strict: %d printed finding(s) not reviewed actionable" % (defects + unrev))
        return 1
    if not results:
        return 2
    return 0


def load_empty():
    return {"bound": [], "busy_bound": [], "checks": {}, "findings": []}


if __name__ == "__main__":
    sys.exit(main())
